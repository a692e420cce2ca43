// The integer kernels' table (kernel_table.hpp): the tile shapes, one typed launcher per compiled
// variant, and the selection rules per GPU architecture. Adding a variant is one `using` line and
// one row of kVariants; `vif-sweep --candidates` times it and the parity gate (tests/parity)
// checks it with no other change. Changing a choice is one rule, which cites the sweep row that
// made it (docs/perf/, "Fastest tile candidate per kernel" tables; docs/performance.md).
#include "kernel_table.hpp"

#include <algorithm>
#include <climits>

#include "int_kernels.cuh"
#include "tuning_policy.hpp"

namespace vif::cuda {

namespace {

// ---- Tile shapes ---------------------------------------------------------------------------
// IntTile<TileW, TileH, Threads, VertRows, HorizCols, MinBlocks, StatsILP> (tuning_policy.hpp).
// Balance notes: the vertical pass has (kTileW + 2r) * kTileH / kVertRows tasks and the
// horizontal pass kTileH * kTileW / kHorizCols; a task count just above a multiple of kThreads
// idles threads. Small grids are latency-bound (one block per SM runs its whole instruction path
// alone), so the small-scale shapes give each thread less work (kVertRows 2, kHorizCols 1-2).
using Int0 = IntTile<48, 16, 256, 2, 3, 4>;
using Int0b = IntTile<64, 16, 256, 4, 4, 3>;
using Int0c = IntTile<48, 16, 256, 4, 3, 3>;
using Int0d = IntTile<48, 16, 256, 2, 3, 4, true>;
using Int0e = IntTile<16, 16, 128, 2, 2, 8>; // latency shape for small frames
using Int0f = IntTile<32, 16, 256, 2, 2, 4, true>;
// Vertical pass on the integer tensor cores (8-bit only; kVertRows unused there): 48x16 has 64
// columns of tile + halo, one 8-column block per warp; 64x16 has 10 blocks for 8 warps.
using Int0t = IntTile<48, 16, 256, 2, 3, 4, false, true>;
using Int0u = IntTile<48, 16, 256, 2, 3, 4, true, true>;
using Int0v = IntTile<64, 16, 256, 4, 4, 3, false, true>;
// Five blocks per SM (48 registers): 62.5% occupancy for the latency-bound tensor-core kernel.
using Int0w = IntTile<48, 16, 256, 2, 3, 5, false, true>; // spills 8 bytes
using Int0x = IntTile<32, 16, 256, 2, 2, 5, false, true>;
using Int0y = IntTile<48, 16, 256, 2, 2, 5, false, true>;
// Both passes on tensor cores (vertical: integer mma; horizontal: FP64 mma, one warp per 8x8
// output block): 64x16 = 16 blocks for 8 warps, 32x16 = 8, 48x16 = 12.
using Int0h = IntTile<64, 16, 256, 2, 4, 4, false, true, true>;
using Int0i = IntTile<32, 16, 256, 2, 2, 4, false, true, true>;
using Int0j = IntTile<48, 16, 256, 2, 3, 4, false, true, true>;
using Int0k = IntTile<32, 16, 128, 2, 2, 8, false, true, true>;

// The per-pixel statistic's options (stat_mode, tuning_policy.hpp; docs/cuda.md "The per-pixel
// statistic") on the shapes the rules pick at 1080p and 2160p: suffix c = exact conversions,
// d = the division without its branch, q = both, l = both + the 6 KB two-level log table in
// shared memory, p = both + the 8 KB packed one.
constexpr unsigned kQ = stat_mode::kExactConv | stat_mode::kDivNoBranch;
constexpr unsigned kQL = kQ | stat_mode::kLogTable2;
constexpr unsigned kQP = kQ | stat_mode::kLogPacked;
using Int0tc = IntTile<48, 16, 256, 2, 3, 4, false, true, false, stat_mode::kExactConv>;
using Int0td = IntTile<48, 16, 256, 2, 3, 4, false, true, false, stat_mode::kDivNoBranch>;
using Int0tq = IntTile<48, 16, 256, 2, 3, 4, false, true, false, kQ>;
using Int0tl = IntTile<48, 16, 256, 2, 3, 4, false, true, false, kQL>;
using Int0tp = IntTile<48, 16, 256, 2, 3, 4, false, true, false, kQP>;
using Int0q = IntTile<48, 16, 256, 2, 3, 4, false, false, false, kQ>;
using Int0l = IntTile<48, 16, 256, 2, 3, 4, false, false, false, kQL>;
using Int0p = IntTile<48, 16, 256, 2, 3, 4, false, false, false, kQP>;

using Int1 = IntTile<56, 16, 256, 4, 4, 3>;
using Int1q = IntTile<56, 16, 256, 4, 4, 3, false, false, false, kQ>;
using Int1l = IntTile<56, 16, 256, 4, 4, 3, false, false, false, kQL>;
using Int1p = IntTile<56, 16, 256, 4, 4, 3, false, false, false, kQP>;
using Int1s = IntTile<24, 16, 256, 2, 2, 4>;
using Int1b = IntTile<64, 16, 288, 4, 4, 2>;
using Int1c = IntTile<64, 16, 288, 4, 4, 2, true>;
using Int1d = IntTile<24, 16, 256, 2, 2, 4, true>;

using Int2 = IntTile<60, 16, 256, 4, 4, 2>;
using Int2b = IntTile<60, 8, 256, 2, 2, 4>;
using Int2c = IntTile<28, 16, 256, 2, 2, 4>;
using Int2d = IntTile<28, 8, 128, 2, 2, 8>;

using Int3 = IntTile<32, 16, 128, 4, 4, 4>;
using Int3b = IntTile<30, 8, 128, 2, 2, 8>;
using Int3c = IntTile<62, 8, 256, 2, 2, 4>;
using Int3d = IntTile<30, 8, 256, 2, 1, 4>;

// Fused scales 2+3: one block size for both parts.
using Int23_2 = IntTile<28, 16, 256, 2, 2, 4>;
using Int23_3 = IntTile<62, 8, 256, 2, 2, 4>;
using Int23b_2 = IntTile<60, 16, 256, 4, 4, 2>;
using Int23b_3 = IntTile<62, 8, 256, 2, 2, 2>;
using Int23c_2 = IntTile<28, 16, 256, 2, 2, 4, true>;
using Int23c_3 = IntTile<62, 8, 256, 2, 2, 4, true>;
using Int23bq_2 = IntTile<60, 16, 256, 4, 4, 2, false, false, false, kQ>;
using Int23bq_3 = IntTile<62, 8, 256, 2, 2, 2, false, false, false, kQ>;
using Int23bl_2 = IntTile<60, 16, 256, 4, 4, 2, false, false, false, kQL>;
using Int23bl_3 = IntTile<62, 8, 256, 2, 2, 2, false, false, false, kQL>;
using Int23bp_2 = IntTile<60, 16, 256, 4, 4, 2, false, false, false, kQP>;
using Int23bp_3 = IntTile<62, 8, 256, 2, 2, 2, false, false, false, kQP>;

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
    k.grid = dim3(ceil_div(w, P::kTileW), ceil_div(h, P::kTileH));
    k.block = dim3(P::kThreads);
    k.smem = IntSmemLayout<S, P>::kBytes;
    k.name = "int_s" + std::to_string(S) + (S == 0 ? "_" + std::to_string(BPC) + "b" : "");
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
    k.grid = dim3(k.fused_blocks2 + k.fused_grid3_x * ceil_div(h3, P3::kTileH));
    k.block = dim3(P2::kThreads);
    k.smem = std::max(L2::kBytes, L3::kBytes);
    k.name = "int_s23";
    k.shape = tile_shape(P2::kTileW, P2::kTileH, P2::kThreads) + "+" +
              tile_shape(P3::kTileW, P3::kTileH, P3::kThreads) + stat_suffix(P2::kStat);
    return k;
}

// ---- The variants ----------------------------------------------------------------------------
const std::vector<IntVariant> kVariants[kIntSlots] = {
    {
        {"0", 0, kAllDepths, &launch_scale0<Int0, kAllDepths>},
        {"0b", 0, k8And10, &launch_scale0<Int0b, k8And10>},
        {"0c", 0, k8And10, &launch_scale0<Int0c, k8And10>},
        {"0d", 0, k8And10, &launch_scale0<Int0d, k8And10>},
        {"0e", 0, k8And10, &launch_scale0<Int0e, k8And10>},
        {"0f", 0, k8And10, &launch_scale0<Int0f, k8And10>},
        {"0t", 0, k8, &launch_scale0<Int0t, k8>},
        {"0u", 0, k8, &launch_scale0<Int0u, k8>},
        {"0v", 0, k8, &launch_scale0<Int0v, k8>},
        {"0w", 0, k8, &launch_scale0<Int0w, k8>},
        {"0x", 0, k8, &launch_scale0<Int0x, k8>},
        {"0y", 0, k8, &launch_scale0<Int0y, k8>},
        {"0h", 0, k8, &launch_scale0<Int0h, k8>},
        {"0i", 0, k8, &launch_scale0<Int0i, k8>},
        {"0j", 0, k8, &launch_scale0<Int0j, k8>},
        {"0k", 0, k8, &launch_scale0<Int0k, k8>},
        {"0tc", 0, k8, &launch_scale0<Int0tc, k8>},
        {"0td", 0, k8, &launch_scale0<Int0td, k8>},
        {"0tq", 0, k8, &launch_scale0<Int0tq, k8>},
        {"0tl", 0, k8, &launch_scale0<Int0tl, k8>},
        {"0tp", 0, k8, &launch_scale0<Int0tp, k8>},
        {"0q", 0, k10, &launch_scale0<Int0q, k10>},
        {"0l", 0, k10, &launch_scale0<Int0l, k10>},
        {"0p", 0, k10, &launch_scale0<Int0p, k10>},
    },
    {
        {"1", 1, kAllDepths, &launch_scale<1, Int1>},
        {"1s", 1, kAllDepths, &launch_scale<1, Int1s>},
        {"1b", 1, kAllDepths, &launch_scale<1, Int1b>},
        {"1c", 1, kAllDepths, &launch_scale<1, Int1c>},
        {"1d", 1, kAllDepths, &launch_scale<1, Int1d>},
        {"1q", 1, kAllDepths, &launch_scale<1, Int1q>},
        {"1l", 1, kAllDepths, &launch_scale<1, Int1l>},
        {"1p", 1, kAllDepths, &launch_scale<1, Int1p>},
    },
    {
        {"2", 2, kAllDepths, &launch_scale<2, Int2>},
        {"2b", 2, kAllDepths, &launch_scale<2, Int2b>},
        {"2c", 2, kAllDepths, &launch_scale<2, Int2c>},
        {"2d", 2, kAllDepths, &launch_scale<2, Int2d>},
    },
    {
        {"3", 3, kAllDepths, &launch_scale<3, Int3>},
        {"3b", 3, kAllDepths, &launch_scale<3, Int3b>},
        {"3c", 3, kAllDepths, &launch_scale<3, Int3c>},
        {"3d", 3, kAllDepths, &launch_scale<3, Int3d>},
    },
    {
        {"23", 4, kAllDepths, &launch_fused23<Int23_2, Int23_3>},
        {"23b", 4, kAllDepths, &launch_fused23<Int23b_2, Int23b_3>},
        {"23c", 4, kAllDepths, &launch_fused23<Int23c_2, Int23c_3>},
        {"23bq", 4, kAllDepths, &launch_fused23<Int23bq_2, Int23bq_3>},
        {"23bl", 4, kAllDepths, &launch_fused23<Int23bl_2, Int23bl_3>},
        {"23bp", 4, kAllDepths, &launch_fused23<Int23bp_2, Int23bp_3>},
    },
};

// ---- Selection rules -------------------------------------------------------------------------
// Pixel counts are of the slot's own scale (slot 4: scale 2). T1 = docs/perf/h200-tile-candidates.md
// (sweep 4, commit 594a4f5), T2 = docs/perf/h200-tile-candidates-2.md (sweep 5, after the vector
// tile loads), both "Fastest tile candidate per kernel", 8-bit, H200. S1 =
// docs/perf/h100-stat-options.md (the statistic's options, Nsight Compute and CUDA events, H100).
constexpr long kNoMax = LONG_MAX;
const std::vector<IntRule> kRulesSm90 = {
    {0, "0tp", 1500000, kNoMax, k8,
     "S1 (docs/perf/h100-stat-options.md, H100, Nsight Compute) int_s0_8b 1920x1080: 0t with the "
     "exact conversions, the division without its branch and the packed log table in shared "
     "memory 45.8 us vs 47.3 (0t), 26.9 vs 29.0 M warp instructions. 3840x2160 not measured at "
     "8 bits (the same statistic gains 4% at 10 bits there)."},
    {0, "0p", 1500000, kNoMax, k10,
     "S1 int_s0_10b: 48x16 with the statistic's options and the packed table 56.4 vs 58.2 us "
     "(1920x1080), 202.4 vs 210.8 (3840x2160); frame (events, pipelined) 77.1 vs 80.9 us, 254.0 "
     "vs 271.0."},
    {0, "0t", 0, kNoMax, k8,
     "T3 (docs/perf/h200-tensor-ncu.md, Nsight Compute) int_s0_8b, 48x16 with the vertical pass "
     "on the integer tensor cores: 1920x1080 46.6 us vs 50.7 (0b, chosen before) and 50.9 (0); "
     "3840x2160 167.0 vs 179.2 (0b); 576x324 8.7 vs 9.3 (0). Before: 0b >= 2 Mpx (T1), else 0."},
    {0, "0", 0, kNoMax, kAllDepths, "T1/T2 576x324 int_s0_8b: 48x16/256t/v2h3 fastest (11.2 us)"},
    {1, "1s", 0, 200000, kAllDepths,
     "sweep 3 (docs/performance.md): 576x324 scale 1 24x16/v2h2 8.4 vs 10.3 us; T2 576x324 int_s1: "
     "24x16/256t/v2h2 7.0-7.2 us"},
    {1, "1p", 400000, kNoMax, kAllDepths,
     "S1 int_s1 (16-bit samples at every depth): 56x16 with the packed log table 14.0 vs 15.4 us "
     "(1920x1080), 39.7 vs 43.5 (3840x2160)."},
    {1, "1", 0, kNoMax, kAllDepths,
     "T2 1920x1080 int_s1: 56x16/256t/v4h4 16.3 vs 16.8 (64x16/288t); 3840x2160 43.9 vs 45.4"},
    {2, "2", 0, kNoMax, kAllDepths,
     "unfused only (sweeps); T2 3840x2160 int_s2: 60x16 15.0 us fastest"},
    {3, "3", 0, kNoMax, kAllDepths, "unfused only (sweeps and the parity gate)"},
    {kFusedSlot, "23bp", 100000, kNoMax, kAllDepths,
     "S1 int_s23: 60x16+62x8 with the packed log table 9.0 vs 9.8 us (1920x1080), 16.6 vs 20.2 "
     "(3840x2160; 4 blocks/SM at 64 registers instead of 3 at 66)."},
    {kFusedSlot, "23b", 100000, kNoMax, kAllDepths,
     "T1 1920x1080 int_s23: 60x16+62x8 11.4 vs 12.4 us; 3840x2160 23.0 vs 25.1"},
    {kFusedSlot, "23", 0, kNoMax, kAllDepths,
     "T1 576x324 int_s23: 28x16+62x8 9.2 vs 10.2 (60x16+62x8); sweep 3: fusing saves 7-9 us/frame"},
};

// Batched launches (Engine::enqueue_batch). B = docs/perf/h200-small-batch.md: Nsight Compute,
// sum of the kernels' gpu__time_duration per frame, H200, 576x324.
const std::vector<IntBatchRule> kBatchSm90 = {
    {250000, 16,
     "B 576x324 8-bit: 7.2 us/frame at 16 frames a launch vs 23.4 one by one; 10-bit: 8.8 at 8"},
    {kNoMax, 1, "larger frames not measured batched: one launch each (1080p fills 1-2 waves)"},
};

} // namespace

const std::vector<IntBatchRule>& int_batch_rules(Arch a) {
    switch (int_rules_owner(a)) {
    default:
        return kBatchSm90;
    }
}

int int_batch_frames(Arch a, int, int w, int h) {
    const long px = long(w) * h;
    for (const IntBatchRule& r : int_batch_rules(a))
        if (px < r.max_pixels) return r.frames;
    return 1;
}

Arch arch_of(int major, int minor) {
    if (major == 8 && minor == 0) return Arch::Sm80;
    if (major == 8 && minor == 6) return Arch::Sm86;
    if (major == 8 && minor == 9) return Arch::Sm89;
    if (major == 9 && minor == 0) return Arch::Sm90;
    return Arch::Ptx;
}

const char* arch_name(Arch a) {
    switch (a) {
    case Arch::Sm80:
        return "sm_80";
    case Arch::Sm86:
        return "sm_86";
    case Arch::Sm89:
        return "sm_89";
    case Arch::Sm90:
        return "sm_90";
    default:
        return "ptx";
    }
}

const std::vector<IntVariant>& int_variants(int slot) {
    return kVariants[slot];
}

// Only the H200 (sm_90) has been swept; the other architectures use its rules until a sweep on
// them adds their own vector here (the kernels and the candidate lists are the same everywhere).
Arch int_rules_owner(Arch) {
    return Arch::Sm90;
}

const std::vector<IntRule>& int_rules(Arch a) {
    switch (int_rules_owner(a)) {
    default:
        return kRulesSm90;
    }
}

int int_variant_index(int slot, const std::string& id) {
    const auto& v = kVariants[slot];
    for (size_t i = 0; i < v.size(); ++i)
        if (id == v[i].id) return static_cast<int>(i);
    return -1;
}

int int_select(Arch a, int slot, int bpc, int w, int h) {
    const long px = long(w) * h;
    for (const IntRule& r : int_rules(a)) {
        if (r.slot != slot || px < r.min_pixels || px >= r.max_pixels || !((r.depths >> bpc) & 1u))
            continue;
        const int i = int_variant_index(slot, r.variant);
        if (i >= 0 && kVariants[slot][i].has_depth(bpc)) return i;
    }
    return 0; // unreachable: every slot ends with a rule that always matches (kernel_table_test)
}

} // namespace vif::cuda
