// CUDA hardware frames (NVDEC output, hwupload_cuda, ...) to the CUDA backend, no host copy.
//
// FFmpeg's frames live in the CUDA context of their AVCUDADeviceContext and are written on its
// stream. libvif's CUDA backend works in the primary context of its device (CUDA runtime).
// - Frames of that primary context (an FFmpeg device made with primary_ctx=1) are read where
//   they are, on the frames' stream; when ref and dist come with different streams, events
//   order the two streams around the read (GPU-side waits within one context).
// - Frames of any other context of the same device (FFmpeg's default: `-hwaccel cuda` makes a
//   context of its own with cuCtxCreate) cannot be read by kernels of the primary context. Their
//   luma rows are first copied on the GPU into a buffer of the primary context
//   (cuMemcpy3DPeerAsync between the two contexts of the one device: device memory to device
//   memory, nothing through the host), on this thread's per-thread stream of the primary
//   context, which then carries libvif's work. Both orderings with the frames' context are
//   waits on the host, never a stream of one context waiting on an event of the other: contexts
//   share the GPU by time slices, and a GPU-side wait across contexts held each frame ~5 ms
//   (FFmpeg 7.1, 1080p H.264: 146 fps against 504 in one context). Before the copy this thread
//   waits for the work queued so far on the frames' stream (the decoder's writes: FFmpeg's nvdec
//   and cuvid decoders queue the copy into the frame on that stream and return); after queuing
//   it, for the copy alone (microseconds), so that the frames' memory may be reused as soon as
//   this returns, unless the caller keeps the frames until their scores arrive
//   (VIF_FFMPEG_FRAMES_KEPT: the scores come after the copy). libvif reads only the staging copy
//   afterwards. The waits poll the event: FFmpeg's contexts block in the driver
//   (CU_CTX_SCHED_BLOCKING_SYNC), whose wake-up would add its latency to every frame.
// Frames of another device are refused with a message.
#include "vif_ffmpeg_cuda.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>

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

// The driver calls this file makes (contexts, waits in the frames' context, the copy between
// contexts).
struct Driver {
    CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*primary_release)(CUdevice) = nullptr;
    CUresult (*device_get)(CUdevice*, int) = nullptr;
    CUresult (*ctx_push)(CUcontext) = nullptr;
    CUresult (*ctx_pop)(CUcontext*) = nullptr;
    CUresult (*ctx_get_device)(CUdevice*) = nullptr;
    CUresult (*event_create)(CUevent*, unsigned) = nullptr;
    CUresult (*event_record)(CUevent, CUstream) = nullptr;
    CUresult (*event_destroy)(CUevent) = nullptr;
    CUresult (*event_sync)(CUevent) = nullptr;
    CUresult (*event_query)(CUevent) = nullptr;
    CUresult (*copy_peer)(const CUDA_MEMCPY3D_PEER*, CUstream) = nullptr;
    bool loaded = false;
};

const Driver& driver() {
    static const Driver d = [] {
        Driver x;
        x.primary_retain = driver_fn<decltype(x.primary_retain)>("cuDevicePrimaryCtxRetain");
        x.primary_release = driver_fn<decltype(x.primary_release)>("cuDevicePrimaryCtxRelease");
        x.device_get = driver_fn<decltype(x.device_get)>("cuDeviceGet");
        x.ctx_push = driver_fn<decltype(x.ctx_push)>("cuCtxPushCurrent");
        x.ctx_pop = driver_fn<decltype(x.ctx_pop)>("cuCtxPopCurrent");
        x.ctx_get_device = driver_fn<decltype(x.ctx_get_device)>("cuCtxGetDevice");
        x.event_create = driver_fn<decltype(x.event_create)>("cuEventCreate");
        x.event_record = driver_fn<decltype(x.event_record)>("cuEventRecord");
        x.event_destroy = driver_fn<decltype(x.event_destroy)>("cuEventDestroy");
        x.event_sync = driver_fn<decltype(x.event_sync)>("cuEventSynchronize");
        x.event_query = driver_fn<decltype(x.event_query)>("cuEventQuery");
        x.copy_peer = driver_fn<decltype(x.copy_peer)>("cuMemcpy3DPeerAsync");
        x.loaded = x.primary_retain && x.primary_release && x.device_get && x.ctx_push &&
                   x.ctx_pop && x.ctx_get_device && x.event_create && x.event_record &&
                   x.event_destroy && x.event_sync && x.event_query && x.copy_peer;
        return x;
    }();
    return d;
}

std::string cu_error(const char* call, CUresult r) {
    return std::string(call) + " failed (CUDA driver error " + std::to_string(int(r)) + ")";
}

// The primary context of device ordinal `device`, or nullptr with *why set. libvif's context
// keeps it alive (the runtime retains it), so the handle stays valid after the release here.
CUcontext primary_context(int device, std::string* why) {
    const Driver& dr = driver();
    if (!dr.loaded) {
        *why = "the CUDA driver entry points are not available";
        return nullptr;
    }
    CUdevice dev = 0;
    CUcontext primary = nullptr;
    if (dr.device_get(&dev, device) != CUDA_SUCCESS ||
        dr.primary_retain(&primary, dev) != CUDA_SUCCESS) {
        *why = "cannot query the primary context of CUDA device " + std::to_string(device);
        return nullptr;
    }
    dr.primary_release(dev);
    return primary;
}

// Makes `cu` the current context of this thread until the end of the scope.
class ContextScope {
public:
    explicit ContextScope(CUcontext cu) : ok_(driver().ctx_push(cu) == CUDA_SUCCESS) {}
    ~ContextScope() {
        CUcontext popped = nullptr;
        if (ok_) driver().ctx_pop(&popped);
    }
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;
    bool ok() const { return ok_; }

private:
    bool ok_;
};

struct CudaLuma {
    VifDevicePicture pic{};
    cudaStream_t stream = nullptr;
    CUcontext context = nullptr;
    bool foreign = false; // not the primary context: copied first
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

// This thread's primary-context copies of foreign frames' luma rows, reused frame after frame.
// They are written and read only on this thread's per-thread stream, in order, so the next
// frame's copy cannot overtake libvif's read of the previous one.
class Staging {
public:
    ~Staging() { release(); }
    // Plane k (0: ref, 1: dist) of at least row_bytes x rows on `device`; nullptr with *why set
    // when it cannot be had. Called with the device's primary context current.
    void* plane(int k, int device, size_t row_bytes, size_t rows, size_t* pitch, std::string* why) {
        if (device != device_) release();
        device_ = device;
        Plane& p = planes_[k];
        if (!p.data || p.row_bytes < row_bytes || p.rows < rows) {
            if (p.data) cudaFree(p.data);
            p = Plane{};
            if (cudaMallocPitch(&p.data, &p.pitch, row_bytes, rows) != cudaSuccess) {
                cudaGetLastError();
                p.data = nullptr;
                *why = "cannot allocate " + std::to_string(row_bytes * rows >> 10) +
                       " KiB of device memory for a copy of a frame of another CUDA context";
                return nullptr;
            }
            p.row_bytes = row_bytes;
            p.rows = rows;
        }
        *pitch = p.pitch;
        return p.data;
    }
    // An event of the primary context of the planes' device (current), recorded after the copies
    // into the planes; created once per thread and device. nullptr with *why set when it cannot be.
    cudaEvent_t copied(std::string* why) {
        if (!copied_ && cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming) != cudaSuccess) {
            cudaGetLastError();
            copied_ = nullptr;
            *why = "cannot create a CUDA event";
        }
        return copied_;
    }

private:
    struct Plane {
        void* data = nullptr;
        size_t pitch = 0, row_bytes = 0, rows = 0;
    };
    void release() {
        if (device_ < 0) return;
        int prev = -1;
        const bool switched = cudaGetDevice(&prev) == cudaSuccess && prev != device_ &&
                              cudaSetDevice(device_) == cudaSuccess;
        for (Plane& p : planes_) {
            if (p.data) cudaFree(p.data); // synchronises: the last copies have been read
            p = Plane{};
        }
        if (copied_) cudaEventDestroy(copied_);
        copied_ = nullptr;
        if (switched) cudaSetDevice(prev);
        cudaGetLastError();
        device_ = -1;
    }
    int device_ = -1;
    Plane planes_[2];
    cudaEvent_t copied_ = nullptr;
};

thread_local Staging t_staging;

// Waits on this thread for event `ev` (of any context): polls it for up to 2 ms, yielding the
// core, then blocks in the driver.
CUresult wait_event(CUevent ev) {
    const Driver& dr = driver();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    CUresult r;
    while ((r = dr.event_query(ev)) == CUDA_ERROR_NOT_READY) {
        if (std::chrono::steady_clock::now() >= give_up) return dr.event_sync(ev);
        std::this_thread::yield();
    }
    return r;
}

// Waits on this thread until the work queued so far on stream `s` of context `cu` (the
// legacy default stream when null, as in FFmpeg's default device) has run: an event recorded there
// and waited for on the host. No stream of another context waits on it (see the top of the file).
// The event is made per call: a cached one would outlive a context that FFmpeg destroys (its
// handle is then invalid, or another context's), and an event costs microseconds a frame.
bool host_wait(CUcontext cu, CUstream s, std::string* why) {
    const Driver& dr = driver();
    ContextScope in(cu);
    if (!in.ok()) {
        *why = "cannot make the frames' CUDA context current";
        return false;
    }
    CUevent ev = nullptr;
    CUresult r = dr.event_create(&ev, CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS) {
        *why = cu_error("cuEventCreate", r);
        return false;
    }
    if ((r = dr.event_record(ev, s)) != CUDA_SUCCESS)
        *why = cu_error("cuEventRecord", r);
    else if ((r = wait_event(ev)) != CUDA_SUCCESS)
        *why = cu_error("waiting for an event", r);
    dr.event_destroy(ev);
    return r == CUDA_SUCCESS;
}

// The device ordinal-checked copy of a foreign frame's luma rows into staging plane k, queued on
// `work` (a stream of the primary context, current on this thread).
VifStatus copy_foreign(CudaLuma* f, int k, int device, CUcontext primary, CUstream work,
                       std::string* message) {
    const char* which = k == 0 ? "ref" : "dist";
    const Driver& dr = driver();
    CUdevice want = 0, got = -1;
    {
        ContextScope in(f->context);
        if (!in.ok() || dr.ctx_get_device(&got) != CUDA_SUCCESS) {
            *message = std::string("vif_ffmpeg_submit: cannot query the device of the ") + which +
                       " CUDA frame's context";
            return VIF_ERROR_DEVICE;
        }
    }
    if (dr.device_get(&want, device) != CUDA_SUCCESS || got != want) {
        *message = std::string("vif_ffmpeg_submit: the ") + which +
                   " CUDA frame is on another CUDA device than the vif context's device " +
                   std::to_string(device) +
                   "; create the FFmpeg CUDA device on that device (or set the vif context's "
                   "cuda_device to the frames' device)";
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    if (f->pic.pitch <= 0) {
        *message = std::string("vif_ffmpeg_submit: the ") + which +
                   " CUDA frame has a linesize of " + std::to_string(f->pic.pitch);
        return VIF_ERROR_INVALID_ARGUMENT;
    }
    const size_t row_bytes = size_t(f->pic.width) * (f->pic.bitdepth > 8 ? 2 : 1);
    size_t pitch = 0;
    std::string why;
    void* dst = t_staging.plane(k, device, row_bytes, f->pic.height, &pitch, &why);
    if (!dst) {
        *message = "vif_ffmpeg_submit: " + why;
        return VIF_ERROR_DEVICE;
    }
    CUDA_MEMCPY3D_PEER c{};
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = reinterpret_cast<CUdeviceptr>(f->pic.data);
    c.srcContext = f->context;
    c.srcPitch = size_t(f->pic.pitch);
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
    c.dstContext = primary;
    c.dstPitch = pitch;
    c.WidthInBytes = row_bytes;
    c.Height = f->pic.height;
    c.Depth = 1;
    if (CUresult r = dr.copy_peer(&c, work); r != CUDA_SUCCESS) {
        *message = "vif_ffmpeg_submit: copying the " + std::string(which) +
                   " CUDA frame into libvif's context: " + cu_error("cuMemcpy3DPeerAsync", r);
        return VIF_ERROR_DEVICE;
    }
    f->pic.data = dst;
    f->pic.pitch = ptrdiff_t(pitch);
    return VIF_OK;
}

// Frames of which at least one is not in the primary context (see the top of the file).
VifStatus submit_foreign(VifContext* ctx, CudaLuma* r, CudaLuma* d, int device, CUcontext primary,
                         bool kept, uint64_t* frame_index, std::string* message) {
    ContextScope in(primary); // the driver calls below and libvif's runtime act in it
    if (!in.ok()) {
        *message = "vif_ffmpeg_submit: cannot make the primary context of CUDA device " +
                   std::to_string(device) + " current";
        return VIF_ERROR_DEVICE;
    }
    const cudaStream_t work = cudaStreamPerThread; // CU_STREAM_PER_THREAD for the driver
    // The inputs' streams, each once.
    CudaLuma* inputs[2] = {r, d};
    const size_t n_inputs = (d->context == r->context && d->stream == r->stream) ? 1 : 2;
    std::string why;
    // Before: the writes queued on the frames' streams. A foreign frame's on the host; a frame of
    // the primary context beside it (one context) on the GPU.
    for (size_t i = 0; i < n_inputs; ++i) {
        CudaLuma* f = inputs[i];
        const bool ok =
            f->foreign ? host_wait(f->context, f->stream, &why) : order_streams(f->stream, work);
        if (!ok) {
            *message = "vif_ffmpeg_submit: waiting for the frames' CUDA stream: " +
                       (f->foreign ? why : std::string("cannot order the CUDA streams"));
            return VIF_ERROR_DEVICE;
        }
    }
    const bool same_plane =
        d->context == r->context && d->pic.data == r->pic.data && d->pic.pitch == r->pic.pitch;
    bool copied = false;
    for (int k = 0; k < 2; ++k) {
        CudaLuma* f = inputs[k];
        if (!f->foreign || (k == 1 && same_plane)) continue;
        if (VifStatus st =
                copy_foreign(f, k, device, primary, static_cast<CUstream>(work), message);
            st != VIF_OK) {
            cudaStreamSynchronize(work); // a first copy may be reading a frame: done on return
            cudaGetLastError();
            return st;
        }
        copied = true;
    }
    if (same_plane) d->pic = r->pic;
    // The copies' end, waited for after the submission: libvif reads the staging planes only
    // (its own copy, queued on `work` after them, before the next frame's copies).
    cudaEvent_t copies_done = copied ? t_staging.copied(&why) : nullptr;
    if (copied && (!copies_done || cudaEventRecord(copies_done, work) != cudaSuccess)) {
        cudaStreamSynchronize(work);
        cudaGetLastError();
        *message = "vif_ffmpeg_submit: cannot record the end of the copies of the CUDA frames" +
                   (why.empty() ? std::string() : ": " + why);
        return VIF_ERROR_DEVICE;
    }
    const VifStatus st = vif_cuda_submit(ctx, &r->pic, &d->pic, work, frame_index);
    if (st != VIF_OK) *message = vif_last_error();
    // After: the foreign frames have been read when this returns, whatever the outcome (VIF_AGAIN
    // included: the caller may then reuse or release them before submitting again), unless they
    // are kept until their scores arrive, which come after the copies.
    if (copies_done && !(kept && st == VIF_OK) && wait_event(copies_done) != CUDA_SUCCESS) {
        cudaGetLastError();
        *message = "vif_ffmpeg_submit: waiting for the copies of the CUDA frames failed" +
                   std::string(st == VIF_OK ? " (the frame was queued)" : "");
        return VIF_ERROR_DEVICE;
    }
    if (st != VIF_OK) return st;
    // A frame of the primary context: later work on its stream waits for libvif's read.
    for (size_t i = 0; i < n_inputs; ++i)
        if (!inputs[i]->foreign && !order_streams(work, inputs[i]->stream)) {
            *message = "vif_ffmpeg_submit: frame queued, but cannot order the frames' CUDA stream "
                       "after it";
            return VIF_ERROR_DEVICE;
        }
    return VIF_OK;
}

// Both frames in the primary context: read where they are, on ref's stream.
VifStatus submit_primary(VifContext* ctx, const CudaLuma& r, const CudaLuma& d, int device,
                         uint64_t* frame_index, std::string* message) {
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

} // namespace

VifStatus submit_cuda(VifContext* ctx, const AVFrame* ref, const AVFrame* dist, bool kept,
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
    const CUcontext primary = primary_context(device, &why);
    if (!primary) {
        *message = "vif_ffmpeg_submit: " + why;
        return VIF_ERROR_DEVICE;
    }
    r.foreign = r.context != primary;
    d.foreign = d.context != primary;
    if (r.foreign || d.foreign)
        return submit_foreign(ctx, &r, &d, device, primary, kept, frame_index, message);
    return submit_primary(ctx, r, d, device, frame_index, message);
}

} // namespace vif::ffmpeg
