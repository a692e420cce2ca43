// Internal interface every backend implements (cpu_fast/, cuda/). Backends produce raw per-scale
// accumulators; turning them into scores (and names, pooling) is shared code in libvif/src.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
};

// Options of the CUDA backend that change how, never what, it computes: set by the tests, the
// sweep and the benchmarks (the public API leaves them at their defaults). Results are identical
// whatever they say; the parity gate (tests/parity) checks that.
struct CudaOptions {
    static constexpr int kAuto = -1;
    // Integer kernel variant per launch slot (scales 0..3, fused 2+3), an index into
    // int_variants(slot) of cuda/dispatch/kernel_table.hpp; kAuto: the table's rules choose.
    int tiles[5] = {kAuto, kAuto, kAuto, kAuto, kAuto};
    bool fuse23 = true;            // scales 2 and 3 in one launch
    bool graphs = true;            // one CUDA graph per frame; false: kernels launched one by one
    bool log_table_only = false;   // the log lookup always reads the table (no hardware log2)
    bool sync_each_launch = false; // synchronise after every launch, so a fault names its kernel
    bool verbose = false;          // start-up steps and their times on stderr
    // Integer frames per batched launch (grid.z = frame; cuda/engine/engine.hpp enqueue_batch).
    // kAuto: the kernel table's rule for the frame size (int_batch_frames), at most half the
    // queue slots, frames held only while the GPU has a backlog of this context's work; N >= 1:
    // exactly N frames a launch (at most the slots), sent when N are held or a receive needs the
    // oldest (1 = never batch).
    int batch_frames = kAuto;
    // Ladders (Engine::enqueue_multi): rungs per block of the scale 0, scale 1 and scales 2+3
    // launches; 0: automatic (cuda/engine/engine_multi.cu, rung_groups).
    int ladder_rungs_per_block[3] = {0, 0, 0};
    // Ladders: scale 0's kernel at 8 bits (engine_multi.cu; 0: 48x16, vertical passes on the
    // integer tensor cores, two barriers a rung, the default; 1: 64x16; 2: 48x16 on CUDA cores,
    // as at the other depths; 3: as 0 with four barriers a rung; 4: as 2 with two); for the tests'
    // and the benchmark's comparisons.
    int ladder_shape0 = 0;
    // Ladders: the per-pixel statistic of all three launches (docs/cuda.md "The per-pixel
    // statistic"): true, the pair's large-frame choice (exact 2^52 conversions, the division
    // without its branch, the packed log table in shared memory); false, the hardware log2 with
    // table reads near rounding boundaries, as before. Both give the same bits (parity gate).
    bool ladder_stat_packed = true;
    // Float path's per-scale kernels, an index into float_variants() of cuda/engine/engine.hpp:
    // kAuto: the kernels specialised for the default filter widths (17, 9, 5, 3 taps:
    // kernelscale 1) when the widths are those, else the generic ones; 0: always the generic
    // kernels (any width; A/B timing, the parity gate); i >= 1: specialised set i, which needs
    // the default widths (else create fails with VIF_ERROR_INVALID_ARGUMENT).
    int float_kernels = kAuto;
};

// Options of the CPU backend, set by the tests only (the public API leaves them at their defaults).
struct CpuOptions {
    // Score with the plain reference scorers of cpu_ref/ instead of the fast ones of cpu_fast/:
    // the same bits, slower. The golden tests run both.
    bool reference = false;
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
    CudaOptions cuda;
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
};

// Factories. create_cuda_backend exists only in CUDA builds (VIF_HAVE_CUDA).
std::unique_ptr<Backend> create_cpu_backend(const Params& params, Status* err);
#if defined(VIF_HAVE_CUDA)
std::unique_ptr<Backend> create_cuda_backend(const Params& params, Status* err);
bool cuda_device_present();
Status cuda_prepare(int device);
#endif

} // namespace vif
