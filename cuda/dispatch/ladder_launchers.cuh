// The typed launchers of the ladder kernels (kernels/int_multi_kernels.cuh): from a tile shape
// and a statistic to a KernelLaunch, for the ladder's three launches (scale 0, scale 1, scales
// 2+3). Included by the shipped ladder variants (dispatch/ladder_variants.cu) and the tuning
// candidates (tuning/ladder_candidates.cu).
#pragma once

#include <algorithm>
#include <string>

#include "dispatch/int_launchers.cuh"
#include "dispatch/kernel_table.hpp"
#include "kernels/int_multi_kernels.cuh"
#include "kernels/tile_policy.hpp"

namespace vif::cuda {
namespace {

// The pair's large-frame statistic (its 0tp, 0p, 1p and 23bp: exact conversions, the
// branch-free division, the packed log table in shared memory; docs/cuda.md "The per-pixel
// statistic"), and any shape with statistic flags St instead of its own: WithStat<P, St>.
constexpr unsigned kStatP = stat_mode::kNumerics | stat_mode::kLogPacked;
template <class P, unsigned St>
struct WithStatOf;
template <int TW, int TH, int NT, int VR, int HC, int MB, bool ILP, bool VM, bool HM, unsigned S,
          unsigned St>
struct WithStatOf<IntTile<TW, TH, NT, VR, HC, MB, ILP, VM, HM, S>, St> {
    using type = IntTile<TW, TH, NT, VR, HC, MB, ILP, VM, HM, St>;
};
template <class B, unsigned St>
struct WithStatOf<MultiLean<B>, St> {
    using type = MultiLean<typename WithStatOf<B, St>::type>;
};
template <class P, unsigned St>
using WithStat = typename WithStatOf<P, St>::type;

template <class P>
std::string ladder_shape(const char* tail) {
    return tile_shape(P::kTileW, P::kTileH, P::kThreads) +
           (P::kVertMma ? "/mma" : "/v" + std::to_string(P::kVertRows)) + "h" +
           std::to_string(P::kHorizCols) + (MultiLeanOf<P>::value ? "/lean" : "") +
           stat_suffix(P::kStat) + tail;
}

template <int S, int BPC, class P>
KernelLaunch multi_launch(int w, int h) {
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&int_multi_kernel<S, BPC, P>);
    k.grid = dim3(ceil_div(w, P::kTileW), ceil_div(h, P::kTileH));
    k.block = dim3(P::kThreads);
    k.smem = IntSmemLayout<S, P>::kBytes;
    k.name = "int_multi_s" + std::to_string(S);
    k.shape = ladder_shape<P>("");
    k.tensor_cores = P::kVertMma;
    return k;
}

// Scale 0 is compiled per bit depth (its samples' type and shifts differ), for the depths in D.
template <class P, unsigned D>
KernelLaunch ladder_launch0(int bpc, int w, int h) {
    if constexpr ((D >> 8) & 1u)
        if (bpc == 8) return multi_launch<0, 8, P>(w, h);
    if constexpr ((D >> 10) & 1u)
        if (bpc == 10) return multi_launch<0, 10, P>(w, h);
    if constexpr ((D >> 12) & 1u)
        if (bpc == 12) return multi_launch<0, 12, P>(w, h);
    if constexpr ((D >> 16) & 1u)
        if (bpc == 16) return multi_launch<0, 16, P>(w, h);
    return {}; // not compiled for this depth (LadderVariant::has_depth says so first)
}

template <class P>
KernelLaunch ladder_launch1(int, int w, int h) {
    return multi_launch<1, 16, P>(w, h);
}

// Scales 2 and 3 of every rung in one grid (w2 x h2: the size of scale 2).
template <class P2, class P3>
KernelLaunch ladder_launch23(int, int w2, int h2) {
    KernelLaunch k;
    k.fused_grid2_x = ceil_div(w2, P2::kTileW);
    k.fused_grid3_x = ceil_div(w2 / 2, P3::kTileW);
    k.fused_blocks2 = k.fused_grid2_x * ceil_div(h2, P2::kTileH);
    k.func = reinterpret_cast<const void*>(&int_multi23_kernel<P2, P3>);
    k.grid = dim3(k.fused_blocks2 + k.fused_grid3_x * ceil_div(h2 / 2, P3::kTileH));
    k.block = dim3(P2::kThreads);
    k.smem = std::max(IntSmemLayout<2, P2>::kBytes, IntSmemLayout<3, P3>::kBytes);
    k.name = "int_multi_s23";
    k.shape = tile_shape(P2::kTileW, P2::kTileH, P2::kThreads) + "+" +
              tile_shape(P3::kTileW, P3::kTileH, P3::kThreads) + stat_suffix(P2::kStat);
    return k;
}

// ---- Ladder tile shapes (IntTile, kernels/tile_policy.hpp; MultiLean, int_multi_kernels.cuh) --
using Multi0 = IntTile<48, 16, 256, 2, 3, 4>;
using Multi0Wide = IntTile<64, 16, 256, 4, 4, 3>;
using Multi0t = IntTile<48, 16, 256, 2, 3, 4, false, true>;
using Multi0tLean = MultiLean<Multi0t>;
using Multi0Lean = MultiLean<Multi0>;
using Multi1 = IntTile<56, 16, 256, 4, 4, 3>;
using Multi23_2 = IntTile<60, 16, 256, 4, 4, 2>;
using Multi23_3 = IntTile<62, 8, 256, 2, 2, 2>;

constexpr unsigned k10Up = (1u << 10) | (1u << 12) | (1u << 16);

} // namespace
} // namespace vif::cuda
