#include "pair/cuda_warmup.hpp"

namespace vifcli {

bool CudaWarmup::wanted(const Options &o) {
    if (o.read_only) return o.hwdec == "cuda";
    return o.check_parity || o.backend == VIF_BACKEND_CUDA || o.backend == VIF_BACKEND_AUTO;
}

void CudaWarmup::start() {
    started_ = true;
    thread_ = std::thread([this] {
        status_ = vif_cuda_prepare(0);
        if (status_ != VIF_OK) message_ = vif_last_error();
        std::lock_guard<std::mutex> lk(mu_);
        done_.store(true, std::memory_order_release);
        cv_.notify_all();
    });
}

VifStatus CudaWarmup::wait() {
    // Not a join: then()'s thread waits here too.
    if (started_) {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [this] { return done_.load(std::memory_order_acquire); });
    }
    return status_;
}

void CudaWarmup::then(std::function<void(VifStatus)> job) {
    follow_ = std::thread([this, job = std::move(job)] { job(wait()); });
}

CudaWarmup::~CudaWarmup() {
    if (follow_.joinable()) follow_.join();
    if (thread_.joinable()) thread_.join();
}

} // namespace vifcli
