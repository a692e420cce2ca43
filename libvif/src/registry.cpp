// Backend registry: one static list of factories; CUDA's entry exists only in CUDA builds.
#include "context.hpp"

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

extern "C" VifStatus vif_cuda_prepare(int cuda_device) {
#if defined(VIF_HAVE_CUDA)
    if (vif::Status e = vif::cuda_prepare(cuda_device)) return vif::fail(e);
    return VIF_OK;
#else
    (void)cuda_device;
    return vif::fail(VIF_ERROR_NO_DEVICE, "this libvif was built without CUDA");
#endif
}

extern "C" int vif_cuda_available(void) {
#if defined(VIF_HAVE_CUDA)
    return vif::cuda_device_present() ? 1 : 0;
#else
    return 0;
#endif
}
