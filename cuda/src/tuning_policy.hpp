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
template <int TileW, int TileH, int Threads, int VertRows, int HorizCols, int MinBlocks>
struct IntTile {
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
using Int0 = IntTile<64, 16, 256, 4, 4, 3>;   // scale 0 (sweep 2: 69 vs 85 us at 1080p for mb=2)
using Int0b = IntTile<64, 16, 256, 4, 4, 4>;  // 64 registers, 4 blocks/SM
using Int0c = IntTile<48, 16, 256, 4, 3, 3>;  // both passes exactly one round
using Int0d = IntTile<48, 16, 256, 2, 3, 4>;
using Int0e = IntTile<16, 16, 128, 2, 2, 8>;  // latency candidate for small frames
using Int0f = IntTile<32, 16, 256, 2, 2, 4>;

using Int1 = IntTile<56, 16, 256, 4, 4, 3>;   // scale 1 (sweep 2: 56x16 fastest at 576x324/1080p)
using Int1b = IntTile<64, 16, 288, 4, 4, 2>;
using Int1c = IntTile<56, 8, 256, 2, 2, 4>;
using Int1d = IntTile<24, 16, 256, 2, 2, 4>;

using Int2 = IntTile<60, 16, 256, 4, 4, 2>;   // scale 2 (sweep 2: fastest at every size)
using Int2b = IntTile<60, 8, 256, 2, 2, 4>;
using Int2c = IntTile<28, 16, 256, 2, 2, 4>;
using Int2d = IntTile<28, 8, 128, 2, 2, 8>;

using Int3 = IntTile<32, 16, 128, 4, 4, 4>;   // scale 3 (sweep 2: fastest at every size)
using Int3b = IntTile<30, 8, 128, 2, 2, 8>;
using Int3c = IntTile<62, 8, 256, 2, 2, 4>;
using Int3d = IntTile<30, 8, 256, 2, 1, 4>;

// Scales 2 and 3 in one launch (same block size for both parts).
using Int23_2 = IntTile<28, 16, 256, 2, 2, 4>;
using Int23_3 = IntTile<62, 8, 256, 2, 2, 4>;
using Int23b_2 = IntTile<60, 16, 256, 4, 4, 2>;
using Int23b_3 = IntTile<62, 8, 256, 2, 2, 2>;

// ---- Float path -----------------------------------------------------------------------------
using Float = FloatTile<32, 16, 256>;

// Row reduction of the float path: rows per warp is fixed at 32 (one row per lane).
constexpr int kRowSumWarps = 4;

}  // namespace policy
}  // namespace vif::cuda
