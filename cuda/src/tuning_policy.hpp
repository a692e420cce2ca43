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
using Int0 = IntTile<64, 16, 256, 4, 4, 2>;   // scale 0, chosen (first sweep; see docs)
using Int0b = IntTile<64, 16, 320, 4, 4, 2>;  // vertical 320 tasks in one round
using Int0c = IntTile<48, 16, 256, 4, 3, 2>;  // both passes exactly one round
using Int0d = IntTile<64, 16, 256, 4, 4, 3>;  // register cap for 3 blocks/SM
using Int0e = IntTile<48, 32, 256, 8, 6, 1>;  // larger tile, more reuse per thread

using Int1 = IntTile<64, 16, 256, 4, 4, 2>;   // scale 1, chosen
using Int1b = IntTile<56, 16, 256, 4, 4, 3>;  // vertical 256 tasks
using Int1c = IntTile<64, 16, 288, 4, 4, 2>;  // vertical 288 tasks in one round
using Int1d = IntTile<32, 16, 128, 4, 4, 4>;  // small tiles, more blocks

using Int2 = IntTile<32, 16, 128, 4, 4, 4>;   // scale 2, chosen
using Int2b = IntTile<32, 8, 64, 4, 4, 8>;
using Int2c = IntTile<60, 16, 256, 4, 4, 2>;  // vertical 256 tasks

using Int3 = IntTile<32, 8, 64, 4, 4, 8>;     // scale 3, chosen
using Int3b = IntTile<16, 8, 32, 4, 4, 8>;
using Int3c = IntTile<32, 16, 128, 4, 4, 4>;

// ---- Float path -----------------------------------------------------------------------------
using Float = FloatTile<32, 16, 256>;

// Row reduction of the float path: rows per warp is fixed at 32 (one row per lane).
constexpr int kRowSumWarps = 4;

}  // namespace policy
}  // namespace vif::cuda
