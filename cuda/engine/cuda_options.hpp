// The CUDA backend's own create options, apart from the backend-neutral Params of libvif's core
// (core/backend.hpp): the registry creates the backend with them at their defaults; the tests,
// vif-sweep and the benchmarks set them through CudaParams.
#pragma once

#include <memory>

#include "core/backend.hpp"

namespace vif {

// Options of the CUDA backend that change how, never what, it computes: set by the tests, the
// sweep and the benchmarks (the public API leaves them at their defaults). Results are identical
// whatever they say; the parity gate (tests/parity) checks that.
struct CudaOptions {
    static constexpr int kAuto = -1;
    // Integer kernel variant per launch slot (scales 0..3, fused 2+3), an index into
    // int_variants(slot) of dispatch/kernel_table.hpp; kAuto: the table's rules choose.
    int tiles[5] = {kAuto, kAuto, kAuto, kAuto, kAuto};
    bool fuse23 = true;            // scales 2 and 3 in one launch
    bool graphs = true;            // one CUDA graph per frame; false: kernels launched one by one
    bool log_table_only = false;   // the log lookup always reads the table (no hardware log2)
    bool sync_each_launch = false; // synchronise after every launch, so a fault names its kernel
    bool verbose = false;          // start-up steps and their times on stderr
    // The Turing (sm_75) rule set on any GPU: only CUDA-core kernels, none of the sm_80 tensor-
    // core ones (dispatch/kernel_table.hpp), so a newer GPU runs what a T4 runs (the parity gate
    // with VIF_TEST_CUDA_RULES=sm_75, vif-sweep --sm75-rules).
    bool sm75_rules = false;
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

// What the engine and the CUDA backend are created from: the core's Params and these options.
struct CudaParams : Params {
    CudaOptions cuda;
    CudaParams() = default;
    CudaParams(const Params& p, const CudaOptions& o = {}) : Params(p), cuda(o) {} // NOLINT
};

std::unique_ptr<Backend> create_cuda_backend(const CudaParams& params, Status* err);

} // namespace vif
