// Backend registry: one static list of factories; CUDA's entry exists only in CUDA builds.
#include "core/registry.hpp"

#include <utility>

#include "core/handover_backend.hpp"

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
    case VIF_BACKEND_AUTO: {
        // The CPU at once; CUDA, when a GPU is there, takes over once it has started
        // (handover_backend.hpp).
        std::unique_ptr<Backend> cpu = create_cpu_backend(params, err);
#if defined(VIF_HAVE_CUDA)
        if (cpu)
            return std::make_unique<HandoverBackend>(
                std::move(cpu), [params](Status* e) { return create_cuda_backend(params, e); });
#endif
        return cpu;
    }
    }
    *err = {VIF_ERROR_INVALID_ARGUMENT, "unknown backend"};
    return nullptr;
}

} // namespace vif
