// The typed launchers of the integer kernel table: from a tile shape (IntTile, kernels/
// tile_policy.hpp) to a KernelLaunch (grid, block, shared memory, the fused launch's grid split,
// the names vif-sweep and the tests print). Included by the table (dispatch/kernel_table.cu) and
// by the tuning candidates (tuning/int_candidates.cu), which instantiate them for their shapes.
#pragma once

#include <algorithm>
#include <string>

#include "dispatch/kernel_table.hpp"
#include "kernels/int_kernels.cuh"
#include "kernels/tile_policy.hpp"

namespace vif::cuda {
namespace {

// The statistic's option sets the tables name (stat_mode, kernels/tile_policy.hpp; docs/cuda.md
// "The per-pixel statistic"): q = exact conversions and the division without its branch,
// l = q + the 6 KB two-level log table in shared memory, p = q + the 8 KB packed one.
constexpr unsigned kQ = stat_mode::kExactConv | stat_mode::kDivNoBranch;
constexpr unsigned kQL = kQ | stat_mode::kLogTable2;
constexpr unsigned kQP = kQ | stat_mode::kLogPacked;

constexpr unsigned kAllDepths = (1u << 8) | (1u << 10) | (1u << 12) | (1u << 16);
constexpr unsigned k8And10 = (1u << 8) | (1u << 10);
constexpr unsigned k8 = 1u << 8;
constexpr unsigned k10 = 1u << 10;

// ---- Typed launchers -----------------------------------------------------------------------
int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

std::string tile_shape(int tw, int th, int threads) {
    return std::to_string(tw) + "x" + std::to_string(th) + "/" + std::to_string(threads) + "t";
}

// The statistic's options in a shape name: "" (none), else "/s" + c (exact conversions), d (the
// division without its branch), l / p (the shared-memory log tables).
std::string stat_suffix(unsigned f) {
    if (!f) return "";
    std::string s = "/s";
    if (f & stat_mode::kExactConv) s += "c";
    if (f & stat_mode::kDivNoBranch) s += "d";
    if (f & stat_mode::kLogTable2) s += "l";
    if (f & stat_mode::kLogPacked) s += "p";
    return s;
}

template <int S, int BPC, class P>
KernelLaunch int_launch(int w, int h) {
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&int_scale_kernel<S, BPC, P>);
    k.batch_func = reinterpret_cast<const void*>(&int_scale_kernel<S, BPC, P, true>);
    k.maps_func = reinterpret_cast<const void*>(&int_scale_kernel<S, BPC, P, false, true>);
    k.grid = dim3(ceil_div(w, P::kTileW), ceil_div(h, P::kTileH));
    k.block = dim3(P::kThreads);
    k.smem = IntSmemLayout<S, P>::kBytes;
    k.name = "int_s" + std::to_string(S) + (S == 0 ? "_" + std::to_string(BPC) + "b" : "");
    k.tensor_cores = P::kVertMma || P::kHorizMma;
    k.shape = tile_shape(P::kTileW, P::kTileH, P::kThreads) +
              (P::kVertMma ? "/mma" : "/v" + std::to_string(P::kVertRows)) +
              (P::kHorizMma ? "dmma" : "h" + std::to_string(P::kHorizCols)) + stat_suffix(P::kStat);
    return k;
}

// Scale 0 is compiled per bit depth (the samples' type and the vertical shifts differ), only
// for the depths in D; scales 1-3 work on 16-bit intermediate samples whatever the input depth.
template <class P, unsigned D>
KernelLaunch launch_scale0(int bpc, int w, int h) {
    if constexpr ((D >> 8) & 1u)
        if (bpc == 8) return int_launch<0, 8, P>(w, h);
    if constexpr ((D >> 10) & 1u)
        if (bpc == 10) return int_launch<0, 10, P>(w, h);
    if constexpr ((D >> 12) & 1u)
        if (bpc == 12) return int_launch<0, 12, P>(w, h);
    if constexpr ((D >> 16) & 1u)
        if (bpc == 16) return int_launch<0, 16, P>(w, h);
    return {}; // not compiled for this depth (IntVariant::has_depth says so first)
}

template <int S, class P>
KernelLaunch launch_scale(int, int w, int h) {
    return int_launch<S, 16, P>(w, h);
}

// Scales 2 and 3 in one 1-D grid: the scale-2 tiles, then the scale-3 tiles (w2 x h2: the size
// of scale 2). The kernel needs the grid split, which only this launcher knows.
template <class P2, class P3>
KernelLaunch launch_fused23(int, int w2, int h2) {
    using L2 = IntSmemLayout<2, P2>;
    using L3 = IntSmemLayout<3, P3>;
    const int w3 = w2 / 2, h3 = h2 / 2;
    KernelLaunch k;
    k.fused_grid2_x = ceil_div(w2, P2::kTileW);
    k.fused_grid3_x = ceil_div(w3, P3::kTileW);
    k.fused_blocks2 = k.fused_grid2_x * ceil_div(h2, P2::kTileH);
    k.func = reinterpret_cast<const void*>(&int_scale23_kernel<P2, P3>);
    k.batch_func = reinterpret_cast<const void*>(&int_scale23_kernel<P2, P3, true>);
    k.maps_func = reinterpret_cast<const void*>(&int_scale23_kernel<P2, P3, false, true>);
    k.grid = dim3(k.fused_blocks2 + k.fused_grid3_x * ceil_div(h3, P3::kTileH));
    k.block = dim3(P2::kThreads);
    k.smem = std::max(L2::kBytes, L3::kBytes);
    k.name = "int_s23";
    k.tensor_cores = P2::kVertMma || P3::kVertMma;
    k.shape = tile_shape(P2::kTileW, P2::kTileH, P2::kThreads) + "+" +
              tile_shape(P3::kTileW, P3::kTileH, P3::kThreads) + stat_suffix(P2::kStat);
    return k;
}

} // namespace
} // namespace vif::cuda
