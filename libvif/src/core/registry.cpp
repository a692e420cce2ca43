// Backend registry: one static list of factories; CUDA's entry exists only in CUDA builds.
#include "core/registry.hpp"

namespace vif {

std::unique_ptr<Backend> create_backend(const Params& params, VifBackend kind, Status* err) {
    switch (kind) {
    case VIF_BACKEND_CPU:
        return create_cpu_backend(params, err);
    case VIF_BACKEND_CUDA:
#if defined(VIF_HAVE_CUDA)
        return create_cuda_backend(params, err);
#else
        *err = {VIF_ERROR_UNSUPPORTED, "backend cuda: this libvif was built without CUDA"};
        return nullptr;
#endif
    case VIF_BACKEND_AUTO:
#if defined(VIF_HAVE_CUDA)
        if (cuda_device_present()) return create_cuda_backend(params, err);
#endif
        return create_cpu_backend(params, err);
    }
    *err = {VIF_ERROR_INVALID_ARGUMENT, "unknown backend"};
    return nullptr;
}

} // namespace vif
