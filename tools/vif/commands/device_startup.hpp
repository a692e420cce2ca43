// The CUDA start-up of the devices of a batch (driver, the device's context: 0.1 to 0.3 s each,
// vif_cuda_prepare), on a thread per device, while the first groups' inputs are opened and
// decoded, not inside the first vif_create of each.
//
// The first device (the first named) starts at once. The others start when the first is ready,
// all of them together, or only as many as `plan` says pay for their start-up (the driver starts
// several devices one after the other: started together with the first they would delay it, and
// a catalogue shorter than a start-up gains nothing from another device). A device left out is
// started after all when another device fails (start_rest), so that its rows have somewhere to go.
#ifndef VIF_TOOLS_COMMANDS_DEVICE_STARTUP_HPP
#define VIF_TOOLS_COMMANDS_DEVICE_STARTUP_HPP

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vifcli {

class DeviceStartup {
public:
    /** `prepare` starts one device (default: vif_cuda_prepare; tests give stand-ins a delay);
     *  false with *error set when it fails. A start-up that fails is only noted: the device's
     *  first vif_create then fails with the reason, as a device that fails later does. */
    using Prepare = std::function<bool(int device, std::string *error)>;
    /** Called once the first device has started (on its thread), with how long that took and
     *  how many others there are: how many of them to start now (in the order named); *why
     *  says why, for --verbose and --timings. Without a plan every device starts at once. */
    using Plan = std::function<size_t(double first_seconds, size_t others, std::string *why)>;
    /** Called (on the start-up threads) whenever a device's state changed: waiters recheck. */
    using Changed = std::function<void()>;

    /** Starts the devices of `devices` (each once, however often it is named; nothing for an
     *  empty list) as described above. */
    explicit DeviceStartup(const std::vector<int> &devices, Prepare prepare = nullptr,
                           Plan plan = nullptr, Changed changed = nullptr);
    ~DeviceStartup(); // waits for the threads
    DeviceStartup(const DeviceStartup &) = delete;
    DeviceStartup &operator=(const DeviceStartup &) = delete;

    /** Whether the device's start-up has ended (a device not started here: true). */
    bool ready(int device) const;
    /** Whether the plan left the device out (not started, unless start_rest starts it). */
    bool left_out(int device) const;
    /** Waits until the device is ready or left out. */
    void wait(int device) const;
    /** Starts the devices the plan left out (a device failed: the others take its rows); before
     *  the plan is made, the plan then starts every device. */
    void start_rest();
    /** The first device (the one that starts at once). */
    int first() const { return order_.empty() ? 0 : order_.front(); }
    /** What the plan said ("" without one, or before the first device was ready). */
    std::string plan_note() const;

    struct Record {
        double seconds = 0;  ///< how long vif_cuda_prepare took
        double ready_at = 0; ///< when it ended, from the run's start
        std::string error;   ///< why it failed ("" when it did not)
        bool done = false;
        bool started = false; ///< its start-up began
        bool left_out = false;
    };
    /** Every device's start-up so far, by device. */
    std::map<int, Record> records() const;

private:
    void start(int device); // mu_ held
    void run(int device);   // a start-up thread

    std::chrono::steady_clock::time_point start_;
    Prepare prepare_;
    Plan plan_;
    Changed changed_;
    std::vector<int> order_; // distinct devices, in the order named
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    std::map<int, Record> records_;
    std::vector<std::thread> threads_;
    std::string plan_note_;
    bool rest_wanted_ = false; // start_rest was called: a plan to come starts every device
};

} // namespace vifcli

#endif
