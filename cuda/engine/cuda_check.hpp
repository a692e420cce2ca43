// Host-side CUDA error handling for the CUDA backend: every runtime call goes through
// VIF_CUDA_TRY, which turns a failure into a vif::Status (status + one-line message).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/backend.hpp"

namespace vif::cuda {

inline VifStatus status_of(cudaError_t e) {
    switch (e) {
    case cudaSuccess:
        return VIF_OK;
    case cudaErrorMemoryAllocation:
        return VIF_ERROR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
        return VIF_ERROR_NO_DEVICE;
    default:
        return VIF_ERROR_DEVICE;
    }
}

inline Status cuda_error(cudaError_t e, const char* what, const char* file, int line) {
    std::string msg = std::string("CUDA: ") + what + " failed: " + cudaGetErrorName(e) + " (" +
                      cudaGetErrorString(e) + ") at " + file + ":" + std::to_string(line);
    return Status{status_of(e), msg};
}

} // namespace vif::cuda

// Evaluates a CUDA runtime call; on failure returns a vif::Status from the enclosing function.
#define VIF_CUDA_TRY(call)                                                                         \
    do {                                                                                           \
        const cudaError_t vif_e_ = (call);                                                         \
        if (vif_e_ != cudaSuccess)                                                                 \
            return ::vif::cuda::cuda_error(vif_e_, #call, __FILE__, __LINE__);                     \
    } while (0)
