// CUDA's one-time start-up (driver and device context, 0.1-0.3 s) on a thread of its own, so
// that it overlaps opening and checking the inputs; the scoring contexts are created after it
// (docs/design.md, "Start-up in the CLI").
#ifndef VIF_TOOLS_PAIR_CUDA_WARMUP_HPP
#define VIF_TOOLS_PAIR_CUDA_WARMUP_HPP

#include "options.hpp"

#include <vif/vif.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace vifcli {

class CudaWarmup {
public:
    /** Whether a run with these options may use the GPU, so that starting CUDA early pays:
     *  not for --backend cpu, nor for a read-only run that does not decode on the GPU. */
    static bool wanted(const Options &o);

    void start();
    /** Whether a start-up was asked for and has not finished yet (never blocks). */
    bool running() const { return started_ && !done_.load(std::memory_order_acquire); }
    /** Waits for the start-up; VIF_OK when a GPU is ready (or no start-up was asked for). */
    VifStatus wait();
    const std::string &message() const { return message_; }
    /** Runs job(status of the start-up) on a thread of its own once the start-up has finished
     *  (at once if it has), so that what needs the GPU (the scoring contexts) is made while the
     *  caller goes on. At most one job; it must not touch what the caller may destroy first
     *  (the process may also leave while it runs: run_pair ends with _Exit). */
    void then(std::function<void(VifStatus)> job);
    ~CudaWarmup();

private:
    std::thread thread_;
    std::thread follow_; ///< then()'s job
    bool started_ = false;
    std::mutex mu_;
    std::condition_variable cv_;
    std::atomic<bool> done_{false};
    VifStatus status_ = VIF_OK;
    std::string message_;
};

} // namespace vifcli

#endif
