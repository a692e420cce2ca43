// The device side of one VIF frame: buffers sized once for the largest frame, and the kernels of
// one frame enqueued on a stream. The backend (cuda_backend.cpp) adds the host pipeline around
// it; vif-sweep and the benchmarks drive it directly to time kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "engine/cuda_options.hpp"
#include "dispatch/kernel_table.hpp"

namespace vif::cuda {

struct LogLookup; // device_helpers.cuh

// A luma plane in device memory: 8-bit bytes or 16-bit words; `shift` is applied to each 16-bit
// word on load (16 - bitdepth for MSB-aligned data such as P010, else 0).
struct DevPlane {
    const void* data = nullptr;
    ptrdiff_t pitch = 0; // bytes
    int shift = 0;
};

// What one frame produces, written by the last kernel into memory the host can read
// (mapped pinned memory in the backend).
struct DeviceResult {
    long long acc[16]; // integer: [scale][nl, dl, nn, dn]
    float num[4];      // float: per-scale totals
    float den[4];
};

// Where one frame's per-pixel VIF terms go (docs/algorithm.md §12.1), in device memory, scale s
// at (w >> s) x (h >> s), rows tight. Integer: term[s] holds the four planes nl, dl, nn, dn one
// after another; float: num[s] and den[s]. Null when maps are off.
struct DeviceMaps {
    int32_t* term[4] = {};
    float* num[4] = {};
    float* den[4] = {};
};

class Engine {
public:
    // Allocates everything for frames up to params.max_width x max_height on the current
    // device. params.cuda (CudaOptions) may force kernel variants, turn graphs off, keep the log
    // table, synchronise after every launch and trace the start-up; a forced variant that does
    // not exist for the bit depth is VIF_ERROR_INVALID_ARGUMENT.
    static std::unique_ptr<Engine> create(const CudaParams& params, Status* err);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // The launches of one w x h frame, in order (integer: the kernel table's choices for this
    // GPU, or the variants params.cuda.tiles forces).
    std::vector<KernelLaunch> plan(int w, int h) const;

    // The architecture whose table rules this engine follows: the device's, or sm_75 when forced
    // (CudaOptions::sm75_rules) or when the loaded code lacks tensor cores.
    Arch arch() const { return arch_; }
    // Whether tensor-core variants can run here (device_code_has_tensor_cores), and why arch()
    // is not the device's own architecture (empty when it is).
    bool tensor_cores() const { return tensor_cores_; }
    const std::string& rules_reason() const { return rules_reason_; }

    // Enqueues one frame. `out` must be device-accessible; it is complete once the stream
    // reaches the end of this work. `input_consumed` (optional) is recorded on `stream` once
    // nothing reads ref/dis any more. `events` (optional) must hold plan().size() + 1 events:
    // events[i] is recorded before launch i and the last one after the final launch.
    // Without events the frame runs as one CUDA graph (built on first use for these pointers
    // and this size, then replayed: one launch instead of 4-6); CudaOptions::graphs false
    // launches the kernels one by one instead.
    // `maps` (optional): the frame's per-pixel terms are written there too (integer: by the
    // maps instances of the same kernels, KernelLaunch::maps_func; float: copied from the
    // kernels' own per-pixel buffers). Such a frame is launched directly, not as a graph.
    Status enqueue(const DevPlane& ref, const DevPlane& dis, int w, int h, DeviceResult* out,
                   cudaStream_t stream, cudaEvent_t input_consumed = nullptr,
                   const cudaEvent_t* events = nullptr, const DeviceMaps* maps = nullptr);

    // Most frames enqueue_batch takes (the kernels' kMaxBatch).
    static constexpr int kMaxBatchFrames = 16;

    // Enqueues n frames of one size (1 <= n <= kMaxBatchFrames) as one launch per scale, grid.z =
    // frame: the integer kernels take each frame's pointers from IntScaleArgs::batch and sum into
    // its own accumulators, so out[i] gets bit for bit what enqueue(ref[i], dis[i], ...) gives.
    // The frames share ref[0]'s pitch and shift and dis[0]'s (else VIF_ERROR_INVALID_ARGUMENT).
    // Launched directly (no graph: 3-4 launches for n frames); `input_consumed` and `events` as
    // for enqueue, per launch of the batch. The float path enqueues the frames one by one.
    Status enqueue_batch(const DevPlane* ref, const DevPlane* dis, int n, int w, int h,
                         DeviceResult* const* out, cudaStream_t stream,
                         cudaEvent_t input_consumed = nullptr, const cudaEvent_t* events = nullptr);

    const CudaParams& params() const { return params_; }

    // One reference against `count` (1..64) distorted pictures of the same size, the
    // reference's work done once per scale (engine_multi.cu, int_multi_kernels.cuh): rung k's
    // sums are written to outs[k] (device-accessible) as enqueue writes one frame's. Integer
    // variant only; the distorted planes share one pitch. Three launches, no graph; `events`
    // (optional, 4) as in enqueue.
    Status enqueue_multi(const DevPlane& ref, const DevPlane* dists, int count, int w, int h,
                         DeviceResult* const* outs, cudaStream_t stream,
                         const cudaEvent_t* events = nullptr);

    // Whether the kernels compute the log lookup (T of docs/algorithm.md §6.4) instead of reading
    // the table: decided at create by checking every entry on the device.
    bool log_computed() const;

private:
    Engine() = default;
    // Launches the frame's kernels on `stream`, or, with `graph`, adds them to it as a chain of
    // kernel nodes instead (no stream capture: see enqueue()).
    Status launch_direct(const DevPlane& ref, const DevPlane& dis, int w, int h, DeviceResult* out,
                         cudaStream_t stream, cudaEvent_t input_consumed, const cudaEvent_t* events,
                         const DeviceMaps* maps = nullptr, cudaGraph_t graph = nullptr);
    Status verify_log_lookup(const uint16_t* expected);
    Status make_two_level_tables(const uint16_t* expected);
    LogLookup log_args() const; // the integer kernels' IntScaleArgs::log
    Status ensure_batch_images(int n);
    struct Multi; // engine_multi.cu
    Multi* multi_ = nullptr;
    void destroy_multi();
    struct Impl;
    CudaParams params_;
    Arch arch_ = Arch::Sm90;
    bool tensor_cores_ = true; // the loaded code and the device have the sm_80 tensor cores
    std::string rules_reason_; // why arch_ is not the device's own (empty: it is)
    void choose_rules();
    std::string no_tensor_cores_why() const; // for refusals of tensor-core kernels
    Impl* d_ = nullptr;
};

bool device_present();

// The float path's per-scale kernel sets (CudaOptions::float_kernels): index 0 the generic
// kernels (any filter width), then the sets specialised for the default widths.
struct FloatVariant {
    const char* id;    // e.g. "s32" (vif-sweep --float-kernels, test names)
    const char* shape; // scale 0's tile, then the one of scales 1-3
};
const std::vector<FloatVariant>& float_variants();
int float_variant_index(const std::string& id); // -1 when there is none

// Holds `stream` until the host writes a non-zero int to *flag (device-visible, e.g. mapped
// pinned memory), at most ~10 s. vif-sweep queues a batch of frames behind it so that kernel
// timings are not limited by how fast the host can launch.
Status launch_gate(const volatile int* flag, cudaStream_t stream);

} // namespace vif::cuda
