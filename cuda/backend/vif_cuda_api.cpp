// C entry points of vif_cuda.h. They reach the backend through the context (api/context.hpp) and
// share vif_submit's argument checks and frame numbering (api/submit.hpp).
#include "vif/vif_cuda.h"

#include <string>

#include "api/checks.hpp"
#include "api/context.hpp"
#include "api/last_error.hpp"
#include "api/submit.hpp"
#include "backend/cuda_backend.hpp"

namespace {

// The context's CUDA backend; an `auto` context waits here for the GPU's start-up (frames in
// GPU memory cannot be scored on the CPU).
vif::cuda::CudaBackend* cuda_backend_of(const VifContext* ctx) {
    return ctx && ctx->backend
               ? dynamic_cast<vif::cuda::CudaBackend*>(ctx->backend->device_backend())
               : nullptr;
}

VifStatus check_device_picture(const VifContext* ctx, const VifDevicePicture* pic,
                               const char* which) {
    const std::string w(which);
    if (!pic) return vif::fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture is NULL");
    // The size, stride, bit depth and flag rules are those of host pictures.
    const VifPicture as_host{pic->data,   pic->pitch,    pic->width,
                             pic->height, pic->bitdepth, pic->flags};
    if (VifStatus st = vif::check_picture(ctx->params, &as_host, which); st != VIF_OK) return st;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, pic->data) != cudaSuccess) {
        cudaGetLastError();
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture: not a CUDA pointer");
    }
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
        return vif::fail(
            VIF_ERROR_INVALID_ARGUMENT,
            w + " picture: data is not device memory (use vif_submit for host memory)");
    if (attr.type == cudaMemoryTypeDevice && attr.device != ctx->params.cuda_device)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture is on device " +
                                                         std::to_string(attr.device) +
                                                         " but the context uses device " +
                                                         std::to_string(ctx->params.cuda_device));
    return VIF_OK;
}

} // namespace

extern "C" {

VifStatus vif_cuda_submit(VifContext* ctx, const VifDevicePicture* ref,
                          const VifDevicePicture* dist, cudaStream_t stream,
                          uint64_t* frame_index) {
    if (VifStatus st = vif::check_usable(ctx, "vif_cuda_submit"); st != VIF_OK) return st;
    vif::cuda::CudaBackend* backend = cuda_backend_of(ctx);
    if (!backend)
        return vif::fail(VIF_ERROR_UNSUPPORTED,
                         "vif_cuda_submit: the context does not run on the CUDA backend");
    if (VifStatus st = check_device_picture(ctx, ref, "reference"); st != VIF_OK) return st;
    if (VifStatus st = check_device_picture(ctx, dist, "distorted"); st != VIF_OK) return st;
    if (VifStatus st =
            vif::check_same_size(ref->width, ref->height, dist->width, dist->height, "distorted");
        st != VIF_OK)
        return st;
    const int bd = static_cast<int>(ctx->params.bitdepth);
    auto plane = [bd](const VifDevicePicture& p) {
        return vif::cuda::DevPlane{p.data, p.pitch,
                                   (p.flags & VIF_PICTURE_MSB_ALIGNED) ? 16 - bd : 0};
    };
    return vif::submit_frames(ctx, "vif_cuda_submit", 1, false, frame_index, [&](uint64_t index) {
        return backend->submit_device(plane(*ref), plane(*dist), static_cast<int>(ref->width),
                                      static_cast<int>(ref->height), stream, index);
    });
}

VifStatus vif_cuda_submit_multi(VifContext* ctx, const VifDevicePicture* ref,
                                const VifDevicePicture* const* dists, size_t count,
                                cudaStream_t stream, uint64_t* first_index) {
    if (VifStatus st = vif::check_usable(ctx, "vif_cuda_submit_multi"); st != VIF_OK) return st;
    vif::cuda::CudaBackend* backend = cuda_backend_of(ctx);
    if (!backend)
        return vif::fail(VIF_ERROR_UNSUPPORTED,
                         "vif_cuda_submit_multi: the context does not run on the CUDA backend");
    if (!dists)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, "vif_cuda_submit_multi: dists is NULL");
    if (count < 1 || count > VIF_MAX_DISTORTED)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, "vif_cuda_submit_multi: count " +
                                                         std::to_string(count) + " is not in [1, " +
                                                         std::to_string(VIF_MAX_DISTORTED) + "]");
    if (VifStatus st = check_device_picture(ctx, ref, "reference"); st != VIF_OK) return st;
    const int bd = static_cast<int>(ctx->params.bitdepth);
    auto plane = [bd](const VifDevicePicture& p) {
        return vif::cuda::DevPlane{p.data, p.pitch,
                                   (p.flags & VIF_PICTURE_MSB_ALIGNED) ? 16 - bd : 0};
    };
    vif::cuda::DevPlane planes[VIF_MAX_DISTORTED];
    for (size_t k = 0; k < count; ++k) {
        const std::string which = "distorted[" + std::to_string(k) + "]";
        if (VifStatus st = check_device_picture(ctx, dists[k], which.c_str()); st != VIF_OK)
            return st;
        if (VifStatus st = vif::check_same_size(ref->width, ref->height, dists[k]->width,
                                                dists[k]->height, which);
            st != VIF_OK)
            return st;
        planes[k] = plane(*dists[k]);
    }
    return vif::submit_frames(
        ctx, "vif_cuda_submit_multi", count, true, first_index, [&](uint64_t index) {
            return backend->submit_device_multi(plane(*ref), planes, count,
                                                static_cast<int>(ref->width),
                                                static_cast<int>(ref->height), stream, index);
        });
}

int vif_cuda_context_device(const VifContext* ctx) {
    const vif::cuda::CudaBackend* b = cuda_backend_of(ctx);
    return b ? b->device() : -1;
}

} // extern "C"
