// The CUDA start-up of every device of a batch (driver, the device's context: 0.1 to 0.3 s
// each, vif_cuda_prepare), begun at once on a thread per device when the run starts, so that
// the devices start together and while the first groups' inputs are opened and decoded, not one
// after the other inside the first vif_create of each.
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
    /** Starts every device of `devices` (each once, however often it is named); nothing for an
     *  empty list. A start-up that fails is only noted: the device's first vif_create then fails
     *  with the reason, as a device that fails later does. */
    /** `prepare` starts one device (default: vif_cuda_prepare; tests give stand-ins a delay);
     *  false with *error set when it fails. */
    using Prepare = std::function<bool(int device, std::string *error)>;
    explicit DeviceStartup(const std::vector<int> &devices, Prepare prepare = nullptr);
    ~DeviceStartup(); // waits for the threads
    DeviceStartup(const DeviceStartup &) = delete;
    DeviceStartup &operator=(const DeviceStartup &) = delete;

    /** Whether the device's start-up has ended (a device not started here: true). */
    bool ready(int device) const;
    /** Waits until it has. */
    void wait(int device) const;

    struct Record {
        double seconds = 0;  ///< how long vif_cuda_prepare took
        double ready_at = 0; ///< when it ended, from the run's start
        std::string error;   ///< why it failed ("" when it did not)
        bool done = false;
    };
    /** Every device's start-up so far, by device. */
    std::map<int, Record> records() const;

private:
    std::chrono::steady_clock::time_point start_;
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    std::map<int, Record> records_;
    std::vector<std::thread> threads_;
};

} // namespace vifcli

#endif
