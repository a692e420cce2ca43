// Internal interface every backend implements (cpu_fast/, cuda/). Backends produce raw per-scale
// accumulators; turning them into scores (and names, pooling) is shared code in libvif/src.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/frame_maps.hpp"
#include "vif/vif.h"

namespace vif {

// Most distorted pictures one vif_submit_multi call may carry.
constexpr size_t kMaxDistorted = VIF_MAX_DISTORTED;

// Per-scale raw result. Integer variant fills the int64 accumulators of docs/algorithm.md §6.5;
// float variant fills num/den (the float totals of docs/algorithm.md §7.6).
struct ScaleRaw {
    int64_t nl = 0; // num, log part (units of 1/2048)
    int64_t dl = 0; // den, log part
    int64_t nn = 0; // num, non-log part (sum of sigma_y^2 on low-variance pixels)
    int64_t dn = 0; // den, non-log count
    float num = 0.f;
    float den = 0.f;
};

struct FrameRaw {
    uint64_t index = 0;
    ScaleRaw scale[VIF_NUM_SCALES];
    // The frame's per-pixel terms when Params::maps is set (CPU backend); null otherwise.
    std::shared_ptr<const FrameMaps> maps;
};

// Options of the CPU backend, set by the tests only (the public API leaves them at their defaults).
struct CpuOptions {
    // Score with the plain reference scorers of cpu_ref/ instead of the fast ones of cpu_fast/:
    // the same bits, slower. The golden tests run both.
    bool reference = false;
    // Added to the worker threads' nice value (Linux; 0: unchanged). The `auto` backend's CPU
    // scores beside the GPU's start-up and, at the hand-over, beside its host-side copies: those
    // come first.
    int worker_nice = 0;
};

// Options after validation, as the numerics need them.
struct Params {
    VifVariant variant = VIF_VARIANT_INTEGER;
    uint32_t bitdepth = 8;
    uint32_t max_width = 0, max_height = 0;
    double gain_limit = 100.0; // integer path uses the double; float path fl32 of it
    float kernelscale = 1.0f;  // float path only
    uint32_t min_size = 16;    // smallest frame side these filters allow (set at create)
    uint32_t threads = 0;
    uint32_t queue_depth = 0;
    int32_t cuda_device = 0;
    bool maps = false; // VifConfig.maps: every frame also keeps its per-pixel terms (CPU only)
    CpuOptions cpu;
};

// A host frame after validation. Samples are plain LSB-aligned; bitdepth as configured.
struct HostPlane {
    const void* data = nullptr;
    ptrdiff_t stride = 0; // bytes
    uint32_t width = 0, height = 0;
    bool msb_aligned = false; // 16-bit words carry the value in their top bits (P010)
};

// What a backend call returns: a VifStatus and a one-line message. True when it failed
// (`if (Status s = b.submit(...)) return s;`). The public C++ wrapper's exception is vif::Error
// (vif.hpp); this internal type is named apart from it so that the two never meet.
struct Status {
    VifStatus status = VIF_OK;
    std::string message;
    explicit operator bool() const { return status != VIF_OK && status != VIF_AGAIN; }
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual const char* name() const = 0;
    // Queues a frame. The planes are borrowed for the duration of the call only: copy them.
    // May block while the backend's queue is full.
    virtual Status submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) = 0;
    // Queues one reference against count distorted planes (vif_submit_multi); pair k gets index
    // first_index + k and comes out of receive() in that order. All or nothing: on an error
    // nothing is queued. This fallback queues them as ordinary pairs (the reference copied for
    // each), each taking a place of the queue, after checking that all of them fit; a backend
    // that shares the reference's work overrides it.
    virtual Status submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                                uint64_t first_index) {
        if (count > capacity())
            return {VIF_ERROR_INVALID_ARGUMENT,
                    "vif_submit_multi: " + std::to_string(count) + " distorted pictures, but the " +
                        name() + " backend queues each as a frame and its queue_depth is " +
                        std::to_string(capacity()) +
                        ": create the context with queue_depth >= " + std::to_string(count)};
        if (pending() + count > capacity())
            return {VIF_AGAIN, "queue full: receive scores before submitting more frames"};
        for (size_t k = 0; k < count; ++k) {
            Status e = submit(ref, dists[k], first_index + k);
            if (e.status != VIF_OK && k > 0) // earlier pairs are queued and cannot be taken back
                return {VIF_ERROR_INVALID_STATE,
                        "vif_submit_multi: pair " + std::to_string(k) +
                            " failed after earlier pairs were queued: " + e.message};
            if (e.status != VIF_OK) return e;
        }
        return {};
    }
    // Oldest frame not yet received, in submission order. Returns VIF_AGAIN when it is not ready
    // (block == false) or when nothing is pending.
    virtual Status receive(FrameRaw* out, bool block) = 0;
    virtual size_t pending() const = 0;
    // Frames the queue holds at most (queue_depth as resolved at create); the fallback
    // submit_multi needs room for all of its pairs.
    virtual size_t capacity() const { return SIZE_MAX; }
    // The backend that takes frames already in GPU memory (vif_cuda_submit): this one; the
    // `auto` backend waits for the GPU's start-up and answers with the CUDA backend.
    virtual Backend* device_backend() { return this; }
};

// Factories. create_cuda_backend exists only in CUDA builds (VIF_HAVE_CUDA): with the CUDA
// backend's own options at their defaults (their overload with options: cuda/engine/cuda_options.hpp).
std::unique_ptr<Backend> create_cpu_backend(const Params& params, Status* err);
#if defined(VIF_HAVE_CUDA)
std::unique_ptr<Backend> create_cuda_backend(const Params& params, Status* err);
bool cuda_device_present();
int cuda_device_count(); // devices the driver shows, 0 when none or no driver
Status cuda_prepare(int device);
#endif

} // namespace vif
