// CUDA hardware frames (NVDEC output, hwupload_cuda, ...) to the CUDA backend, no host copy.
//
// FFmpeg's frames live in the CUDA context of their AVCUDADeviceContext and are written on its
// stream. libvif's CUDA backend works in the primary context of its device (CUDA runtime), so the
// frames must come from a device context created on that primary context
// (AV_CUDA_USE_PRIMARY_CONTEXT, "primary_ctx=1"); anything else is refused up front, since a
// kernel reading another context's memory would fault and poison the vif context. The planes are
// read on the frames' stream, ordered after the decoder's writes; when ref and dist come from two
// device contexts with different streams, events order the two streams around the read.
#include "vif_ffmpeg_cuda.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>
}

#include "vif/vif_cuda.h"
#include "vif/vif_ffmpeg.h"

namespace vif::ffmpeg {

namespace {

using PFN_PrimaryCtxRetain = CUresult (*)(CUcontext*, CUdevice);
using PFN_PrimaryCtxRelease = CUresult (*)(CUdevice);

// Driver entry points through the runtime, so that vif_ffmpeg needs no link to libcuda.
template <typename Fn>
Fn driver_fn(const char* name) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess)
        return nullptr;
#else
    if (cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q) != cudaSuccess) return nullptr;
#endif
    return q == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(fn) : nullptr;
}

// Whether cu is the primary context of device ordinal `device`.
bool is_primary_context(CUcontext cu, int device, std::string* why) {
    static const auto retain = driver_fn<PFN_PrimaryCtxRetain>("cuDevicePrimaryCtxRetain");
    static const auto release = driver_fn<PFN_PrimaryCtxRelease>("cuDevicePrimaryCtxRelease");
    if (!retain || !release) {
        *why = "the CUDA driver entry points are not available";
        return false;
    }
    CUcontext primary = nullptr;
    if (retain(&primary, static_cast<CUdevice>(device)) != CUDA_SUCCESS) {
        *why = "cannot query the primary context of CUDA device " + std::to_string(device);
        return false;
    }
    release(static_cast<CUdevice>(device));
    if (primary != cu) {
        *why = "the frames' CUDA context is not the primary context of CUDA device " +
               std::to_string(device) +
               " that the vif context runs on; create the FFmpeg CUDA device with "
               "AV_CUDA_USE_PRIMARY_CONTEXT (av_hwdevice_ctx_create flags, or the option "
               "primary_ctx=1) on that device";
        return false;
    }
    return true;
}

struct CudaLuma {
    VifDevicePicture pic{};
    cudaStream_t stream = nullptr;
    CUcontext context = nullptr;
};

VifStatus describe(const AVFrame* f, const char* which, CudaLuma* out, std::string* msg) {
    if (!f->hw_frames_ctx || !f->data[0]) {
        *msg = std::string("vif_ffmpeg_submit: ") + which +
               " CUDA frame has no hw_frames_ctx or no data";
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    const auto* fc = reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data);
    if (fc->device_ctx->type != AV_HWDEVICE_TYPE_CUDA) {
        *msg = std::string("vif_ffmpeg_submit: ") + which + " frame is not on a CUDA device";
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    const int sw = vif_ffmpeg_pix_fmt_supported(fc->sw_format);
    if (!sw) {
        const char* n = av_get_pix_fmt_name(fc->sw_format);
        *msg = std::string("vif_ffmpeg_submit: ") + which + " CUDA frame holds " +
               (n ? n : "an unknown format") + ", which has no luma plane libvif can read";
        return VIF_ERROR_UNSUPPORTED;
    }
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(fc->sw_format);
    const auto* hw = static_cast<const AVCUDADeviceContext*>(fc->device_ctx->hwctx);
    const uint32_t bytes = sw > 8 ? 2 : 1;
    const size_t cw = f->crop_left + f->crop_right, ch = f->crop_top + f->crop_bottom;
    if (cw >= size_t(f->width) || ch >= size_t(f->height)) {
        *msg = std::string("vif_ffmpeg_submit: ") + which + " CUDA frame is cropped to nothing";
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    out->pic.data =
        f->data[0] + ptrdiff_t(f->crop_top) * f->linesize[0] + ptrdiff_t(f->crop_left) * bytes;
    out->pic.pitch = f->linesize[0];
    out->pic.width = uint32_t(f->width - cw);
    out->pic.height = uint32_t(f->height - ch);
    out->pic.bitdepth = uint32_t(sw);
    out->pic.flags = d->comp[0].shift ? VIF_PICTURE_MSB_ALIGNED : 0u;
    out->stream = static_cast<cudaStream_t>(hw->stream);
    out->context = hw->cuda_ctx;
    return VIF_OK;
}

// Makes `waiter` wait for the work queued on `signaller` so far.
bool order_streams(cudaStream_t signaller, cudaStream_t waiter) {
    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) return false;
    const bool ok = cudaEventRecord(ev, signaller) == cudaSuccess &&
                    cudaStreamWaitEvent(waiter, ev, 0) == cudaSuccess;
    cudaEventDestroy(ev); // released once the wait has been satisfied
    return ok;
}

} // namespace

VifStatus submit_cuda(VifContext* ctx, const AVFrame* ref, const AVFrame* dist,
                      uint64_t* frame_index, std::string* message) {
    CudaLuma r, d;
    if (VifStatus st = describe(ref, "ref", &r, message); st != VIF_OK) return st;
    if (VifStatus st = describe(dist, "dist", &d, message); st != VIF_OK) return st;
    if (r.pic.width != d.pic.width || r.pic.height != d.pic.height) {
        *message = "vif_ffmpeg_submit: frame sizes differ: ref " + std::to_string(r.pic.width) +
                   "x" + std::to_string(r.pic.height) + ", dist " + std::to_string(d.pic.width) +
                   "x" + std::to_string(d.pic.height);
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    if (r.pic.bitdepth != d.pic.bitdepth) {
        *message = "vif_ffmpeg_submit: bit depths differ: ref " + std::to_string(r.pic.bitdepth) +
                   "-bit, dist " + std::to_string(d.pic.bitdepth) + "-bit";
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    const int device = vif_cuda_context_device(ctx);
    if (device < 0) {
        *message = "vif_ffmpeg_submit: CUDA frames need a context on the cuda backend "
                   "(VifConfig.backend = VIF_BACKEND_CUDA); this one runs on " +
                   std::string(vif_backend_name(ctx));
        return VIF_ERROR_UNSUPPORTED;
    }
    std::string why;
    if (!is_primary_context(r.context, device, &why) ||
        (d.context != r.context && !is_primary_context(d.context, device, &why))) {
        *message = "vif_ffmpeg_submit: " + why;
        return VIF_ERROR_UNSUPPORTED;
    }
    // One stream carries the work: ref's. dist's decoder writes must be done before it reads,
    // and dist's later work must wait until it has read.
    const bool two_streams = d.stream != r.stream;
    int prev_device = -1;
    if (two_streams &&
        (cudaGetDevice(&prev_device) != cudaSuccess || cudaSetDevice(device) != cudaSuccess)) {
        *message = "vif_ffmpeg_submit: cannot select CUDA device " + std::to_string(device);
        return VIF_ERROR_DEVICE;
    }
    // Puts the caller's current device back however this returns.
    struct Restore {
        int dev;
        ~Restore() {
            if (dev >= 0) cudaSetDevice(dev);
        }
    } restore{prev_device};
    if (two_streams && !order_streams(d.stream, r.stream)) {
        *message = "vif_ffmpeg_submit: cannot order the two frames' CUDA streams";
        return VIF_ERROR_DEVICE;
    }
    const VifStatus st = vif_cuda_submit(ctx, &r.pic, &d.pic, r.stream, frame_index);
    if (st != VIF_OK) {
        *message = vif_last_error();
        return st;
    }
    if (two_streams && !order_streams(r.stream, d.stream)) {
        *message = "vif_ffmpeg_submit: frame queued, but cannot order the dist stream after it";
        return VIF_ERROR_DEVICE;
    }
    return VIF_OK;
}

} // namespace vif::ffmpeg
