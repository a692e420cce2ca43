// The integer kernel candidates no rule picks: the search space of the tile and statistic sweeps
// (docs/perf/), compiled only with -DVIF_BUILD_TUNING=ON (vif-sweep --candidates, the parity gate
// of every candidate, the ladder bench). They join int_variants(slot) after the shipped variants
// of dispatch/kernel_table.cu. A new GPU's tuning starts here: add a shape, sweep it on that GPU,
// and if a rule should pick it, move its row to the shipped table and add the rule there.
#include "dispatch/int_launchers.cuh"

namespace vif::cuda {

namespace {

// IntTile<TileW, TileH, Threads, VertRows, HorizCols, MinBlocks, StatsILP, VertMma, HorizMma,
// Stat> (kernels/tile_policy.hpp).
using Int0b = IntTile<64, 16, 256, 4, 4, 3>;
using Int0c = IntTile<48, 16, 256, 4, 3, 3>;
using Int0d = IntTile<48, 16, 256, 2, 3, 4, true>;
using Int0e = IntTile<16, 16, 128, 2, 2, 8>; // latency shape for small frames
using Int0f = IntTile<32, 16, 256, 2, 2, 4, true>;
// Vertical pass on the integer tensor cores (8-bit only): 64x16 has 10 blocks for 8 warps.
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

// The per-pixel statistic's options one at a time (suffix c = exact conversions, d = the division
// without its branch, q = both, l = both + the 6 KB two-level log table in shared memory).
using Int0tc = IntTile<48, 16, 256, 2, 3, 4, false, true, false, stat_mode::kExactConv>;
using Int0td = IntTile<48, 16, 256, 2, 3, 4, false, true, false, stat_mode::kDivNoBranch>;
using Int0tq = IntTile<48, 16, 256, 2, 3, 4, false, true, false, kQ>;
using Int0tl = IntTile<48, 16, 256, 2, 3, 4, false, true, false, kQL>;
using Int0q = IntTile<48, 16, 256, 2, 3, 4, false, false, false, kQ>;
using Int0l = IntTile<48, 16, 256, 2, 3, 4, false, false, false, kQL>;

using Int1q = IntTile<56, 16, 256, 4, 4, 3, false, false, false, kQ>;
using Int1l = IntTile<56, 16, 256, 4, 4, 3, false, false, false, kQL>;
using Int1b = IntTile<64, 16, 288, 4, 4, 2>;
using Int1c = IntTile<64, 16, 288, 4, 4, 2, true>;
using Int1d = IntTile<24, 16, 256, 2, 2, 4, true>;

using Int2b = IntTile<60, 8, 256, 2, 2, 4>;
using Int2c = IntTile<28, 16, 256, 2, 2, 4>;
using Int2d = IntTile<28, 8, 128, 2, 2, 8>;

using Int3b = IntTile<30, 8, 128, 2, 2, 8>;
using Int3c = IntTile<62, 8, 256, 2, 2, 4>;
using Int3d = IntTile<30, 8, 256, 2, 1, 4>;

using Int23c_2 = IntTile<28, 16, 256, 2, 2, 4, true>;
using Int23c_3 = IntTile<62, 8, 256, 2, 2, 4, true>;
using Int23bq_2 = IntTile<60, 16, 256, 4, 4, 2, false, false, false, kQ>;
using Int23bq_3 = IntTile<62, 8, 256, 2, 2, 2, false, false, false, kQ>;
using Int23bl_2 = IntTile<60, 16, 256, 4, 4, 2, false, false, false, kQL>;
using Int23bl_3 = IntTile<62, 8, 256, 2, 2, 2, false, false, false, kQL>;

const std::vector<IntVariant> kCandidates[kIntSlots] = {
    {
        {"0b", 0, k8And10, &launch_scale0<Int0b, k8And10>},
        {"0c", 0, k8And10, &launch_scale0<Int0c, k8And10>},
        {"0d", 0, k8And10, &launch_scale0<Int0d, k8And10>},
        {"0e", 0, k8And10, &launch_scale0<Int0e, k8And10>},
        {"0f", 0, k8And10, &launch_scale0<Int0f, k8And10>},
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
        {"0q", 0, k10, &launch_scale0<Int0q, k10>},
        {"0l", 0, k10, &launch_scale0<Int0l, k10>},
    },
    {
        {"1b", 1, kAllDepths, &launch_scale<1, Int1b>},
        {"1c", 1, kAllDepths, &launch_scale<1, Int1c>},
        {"1d", 1, kAllDepths, &launch_scale<1, Int1d>},
        {"1q", 1, kAllDepths, &launch_scale<1, Int1q>},
        {"1l", 1, kAllDepths, &launch_scale<1, Int1l>},
    },
    {
        {"2b", 2, kAllDepths, &launch_scale<2, Int2b>},
        {"2c", 2, kAllDepths, &launch_scale<2, Int2c>},
        {"2d", 2, kAllDepths, &launch_scale<2, Int2d>},
    },
    {
        {"3b", 3, kAllDepths, &launch_scale<3, Int3b>},
        {"3c", 3, kAllDepths, &launch_scale<3, Int3c>},
        {"3d", 3, kAllDepths, &launch_scale<3, Int3d>},
    },
    {
        {"23c", 4, kAllDepths, &launch_fused23<Int23c_2, Int23c_3>},
        {"23bq", 4, kAllDepths, &launch_fused23<Int23bq_2, Int23bq_3>},
        {"23bl", 4, kAllDepths, &launch_fused23<Int23bl_2, Int23bl_3>},
    },
};

} // namespace

const std::vector<IntVariant>& int_candidates(int slot) {
    return kCandidates[slot];
}

} // namespace vif::cuda
