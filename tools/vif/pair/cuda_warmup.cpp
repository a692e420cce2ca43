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
        done_.store(true, std::memory_order_release);
    });
}

VifStatus CudaWarmup::wait() {
    if (thread_.joinable()) thread_.join();
    return status_;
}

CudaWarmup::~CudaWarmup() {
    if (thread_.joinable()) thread_.join();
}

} // namespace vifcli
