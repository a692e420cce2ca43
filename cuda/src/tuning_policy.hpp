// Tile shapes of the CUDA kernels, in one place. Each alias names the shape the kernels are
// instantiated with; the candidate lists are what `vif-sweep --candidates` times (tools/sweep).
// A comment beside each chosen shape cites the sweep that chose it (docs/performance.md).
#pragma once

namespace vif::cuda {

// One fused integer scale kernel: a kTileW x kTileH tile of output pixels per block.
//   kVertRows : vertical-pass outputs per thread, consecutive rows of one column (register
//               reuse of the 2r + kVertRows samples loaded from shared memory)
//   kHorizCols: horizontal-pass outputs per thread, consecutive columns of one row
//   kMinBlocks: __launch_bounds__ minimum resident blocks per SM (caps registers per thread)
//   kStatsILP : per-pixel statistics of a thread's kHorizCols pixels without branches (their
//               table loads and divisions overlap)
template <int TileW, int TileH, int Threads, int VertRows, int HorizCols, int MinBlocks,
          bool StatsILP = false>
struct IntTile {
    static constexpr bool kStatsILP = StatsILP;
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

// Float kernels: plain one-output-per-thread tiles (the float path is not the speed target;
// its filter width is a run-time value up to 65 taps).
template <int TileW, int TileH, int Threads>
struct FloatTile {
    static constexpr int kTileW = TileW;
    static constexpr int kTileH = TileH;
    static constexpr int kThreads = Threads;
};

namespace policy {

// ---- Integer path ---------------------------------------------------------------------------
// Candidates per scale; index 0 is what the backend uses. vif-sweep --candidates times them all
// and marks the fastest (docs/performance.md, "Tile candidates"). Balance notes: the vertical
// pass has (kTileW + 2r) * kTileH / kVertRows tasks and the horizontal pass
// kTileH * kTileW / kHorizCols; a task count just above a multiple of kThreads idles threads.
// Small grids are latency-bound (one block per SM runs its whole instruction path alone), so the
// small-scale candidates give each thread less work (kVertRows 2, kHorizCols 1-2).
// Scale 0: Int0; 8-bit frames of kLargeFramePixels or more Int0b (sweep 4, 8-bit: 576x324 11.5 us
// vs 13.6; 1080p 60.9 vs 61.3; 2160p 220.2 vs 214.4. Sweep 5, after the vector tile loads:
// 1080p 52.2 vs 52.5 us, 2160p 179.8 vs 180.5 us, so 1080p moved to Int0b).
using Int0 = IntTile<48, 16, 256, 2, 3, 4>;
using Int0b = IntTile<64, 16, 256, 4, 4, 3>;
constexpr long kLargeFramePixels = 2000000;
using Int0c = IntTile<48, 16, 256, 4, 3, 3>;
using Int0d = IntTile<48, 16, 256, 2, 3, 4, true>;
using Int0e = IntTile<16, 16, 128, 2, 2, 8>;  // latency candidate for small frames
using Int0f = IntTile<32, 16, 256, 2, 2, 4, true>;

// Scale 1: large grids use Int1, grids of fewer than kSmallScalePixels pixels Int1s (sweep 3:
// 576x324 24x16/v2h2 8.4 vs 10.3 us. Sweep 5: 56x16 beats 64x16/288t at 1080p, 16.3 vs 16.8 us,
// and 2160p, 43.9 vs 45.4 us; in sweep 3, before the vector loads, it lost at 1080p).
using Int1 = IntTile<56, 16, 256, 4, 4, 3>;
using Int1s = IntTile<24, 16, 256, 2, 2, 4>;
using Int1b = IntTile<64, 16, 288, 4, 4, 2>;
using Int1c = IntTile<64, 16, 288, 4, 4, 2, true>;
using Int1d = IntTile<24, 16, 256, 2, 2, 4, true>;
constexpr long kSmallScalePixels = 200000;

using Int2 = IntTile<60, 16, 256, 4, 4, 2>;   // scale 2 when not fused
using Int2b = IntTile<60, 8, 256, 2, 2, 4>;
using Int2c = IntTile<28, 16, 256, 2, 2, 4>;
using Int2d = IntTile<28, 8, 128, 2, 2, 8>;

using Int3 = IntTile<32, 16, 128, 4, 4, 4>;   // scale 3 when not fused
using Int3b = IntTile<30, 8, 128, 2, 2, 8>;
using Int3c = IntTile<62, 8, 256, 2, 2, 4>;
using Int3d = IntTile<30, 8, 256, 2, 1, 4>;

// Scales 2 and 3 in one launch (same block size for both parts); sweep 3: the fused launch
// saves 7-9 us per frame at 576x324 and 1080p against two launches. Int23b from
// kLarge23Pixels scale-2 pixels on (sweep 4: 1080p 11.4 vs 12.4 us, 2160p 23.0 vs 25.1 us;
// 576x324 10.2 vs 9.2 us).
using Int23_2 = IntTile<28, 16, 256, 2, 2, 4>;
using Int23_3 = IntTile<62, 8, 256, 2, 2, 4>;
using Int23b_2 = IntTile<60, 16, 256, 4, 4, 2>;
using Int23b_3 = IntTile<62, 8, 256, 2, 2, 2>;
using Int23c_2 = IntTile<28, 16, 256, 2, 2, 4, true>;
using Int23c_3 = IntTile<62, 8, 256, 2, 2, 4, true>;
constexpr long kLarge23Pixels = 100000;

// ---- Float path -----------------------------------------------------------------------------
using Float = FloatTile<32, 16, 256>;

// Row reduction of the float path: rows per warp is fixed at 32 (one row per lane).
constexpr int kRowSumWarps = 4;

}  // namespace policy
}  // namespace vif::cuda
