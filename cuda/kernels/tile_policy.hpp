// Tile shape templates of the CUDA kernels. The integer shapes in use, with the sweep rows that
// chose them, are the table in kernel_table.cu; the float path's one shape is below.
#pragma once

namespace vif::cuda {

// One fused integer scale kernel: a kTileW x kTileH tile of output pixels per block.
//   kVertRows : vertical-pass outputs per thread, consecutive rows of one column (register
//               reuse of the 2r + kVertRows samples loaded from shared memory)
//   kHorizCols: horizontal-pass outputs per thread, consecutive columns of one row
//   kMinBlocks: __launch_bounds__ minimum resident blocks per SM (caps registers per thread)
//   kStatsILP : per-pixel statistics of a thread's kHorizCols pixels without branches (their
//               table loads and divisions overlap)
//   kVertMma  : vertical pass on the integer tensor cores (int_tensor_passes.cuh; 8-bit scale 0,
//               kTileH 16; sm_80 and newer)
//   kHorizMma : with kVertMma, the horizontal pass on the FP64 tensor cores too (8 x 8 output
//               blocks per warp, two pixels per lane; kHorizCols unused)
//   kStat     : how the per-pixel statistic computes (StatMode flags below; 0: as before)
template <int TileW, int TileH, int Threads, int VertRows, int HorizCols, int MinBlocks,
          bool StatsILP = false, bool VertMma = false, bool HorizMma = false, unsigned Stat = 0>
struct IntTile {
    static constexpr unsigned kStat = Stat;
    static constexpr bool kStatsILP = StatsILP;
    static constexpr bool kVertMma = VertMma;
    static constexpr bool kHorizMma = HorizMma;
    static_assert(!HorizMma || (VertMma && TileW % 8 == 0), "FP64 pass: after the mma vertical");
    static constexpr int kTileW = TileW;
    static constexpr int kTileH = TileH;
    static constexpr int kThreads = Threads;
    static constexpr int kVertRows = VertRows;
    static constexpr int kHorizCols = HorizCols;
    static constexpr int kMinBlocks = MinBlocks;
    static_assert(TileW % 2 == 0 && TileH % 2 == 0, "tiles start on even rows/columns");
    static_assert(TileH % VertRows == 0 && VertRows % 2 == 0, "vertical groups tile the rows");
    static_assert(TileW % HorizCols == 0, "horizontal groups tile the columns");
};

// The per-pixel statistic's options (IntTile::kStat; docs/cuda.md "The per-pixel statistic").
// The first two are pixel::stat's flags (pixel_math.hpp) and go to its functions; the log flags
// choose where T of §6.4 comes from (none: the hardware log2 with table reads near rounding
// boundaries, device_helpers.cuh log_t).
namespace stat_mode {
constexpr unsigned kExactConv = 1u;   // int <-> double by exact 2^52 additions
constexpr unsigned kDivNoBranch = 2u; // the division's fast path without its branch
constexpr unsigned kLogTable2 = 4u;   // T from the 6 KB two-level table in shared memory
constexpr unsigned kLogPacked = 8u;   // T from the 8 KB one-word-per-16 table in shared memory
constexpr unsigned kNumerics = kExactConv | kDivNoBranch;
} // namespace stat_mode

// Float kernels of any filter width (up to 65 taps, a run-time value): plain one-output-per-thread
// tiles, taps looped over.
template <int TileW, int TileH, int Threads>
struct FloatTile {
    static constexpr int kTileW = TileW;
    static constexpr int kTileH = TileH;
    static constexpr int kThreads = Threads;
};

// Float kernels specialised for one filter width (float_kernels.cuh, float_scale_spec_kernel):
// the taps are compile-time indices into the kernel parameters (constant-bank operands), every
// tap loop unrolled.
//   kVertRows : vertical-pass outputs per thread, consecutive rows of one column (each input
//               sample and its three products are loaded and computed once for all of them)
//   kMinBlocks: __launch_bounds__ minimum resident blocks per SM (caps registers per thread)
// The horizontal pass always computes 4 consecutive columns per thread from 16-byte reads.
template <int TileW, int TileH, int Threads, int VertRows, int MinBlocks>
struct FloatSpecTile {
    static constexpr int kTileW = TileW;
    static constexpr int kTileH = TileH;
    static constexpr int kThreads = Threads;
    static constexpr int kVertRows = VertRows;
    static constexpr int kMinBlocks = MinBlocks;
    static_assert(TileW % 4 == 0, "4-column horizontal groups, 16-byte reads");
    static_assert(TileH % VertRows == 0 && VertRows % 2 == 0, "row groups start on even rows");
};

namespace policy {

// The integer shapes, their launchers and the rules that choose them: kernel_table.cu.

// ---- Float path -----------------------------------------------------------------------------
using Float = FloatTile<32, 16, 256>;
// The specialised sets (CudaOptions::float_kernels, engine.cu float_sets): scale 0's shape,
// then the one of scales 1-3.
using FloatSpec32 = FloatSpecTile<32, 16, 256, 4, 3>;
using FloatSpec64 = FloatSpecTile<64, 16, 256, 4, 3>;
using FloatSpec32x32 = FloatSpecTile<32, 32, 256, 8, 2>;
using FloatSpec32Occ = FloatSpecTile<32, 16, 256, 4, 5>; // registers capped for 5 blocks/SM

// Row reduction of the float path: a block per 32 rows (one row per lane of the summing warp),
// the other kRowSumWarps - 1 warps copying the next chunks of columns.
constexpr int kRowSumWarps = 8;

} // namespace policy
} // namespace vif::cuda
