// The dispatch table: every compiled integer variant per launch slot (scales 0, 1, 2, 3 and the
// fused scales 2+3 launch) and every ladder variant, each a typed launcher that carries its tile
// shape, grid, shared memory and kernel arguments; and the rows per GPU architecture, one format
// for every choice (integer tiles, batching, float sets, ladder tiles), each citing the sweep
// row that chose it. Dispatch (Engine::plan, Engine::enqueue_multi, the backend's batching), the
// candidate lists, the fused launch's grid arithmetic and `vif-sweep --candidates` all read this
// table (kernel_table.cu, ladder_variants.cu); nothing else names a shape.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace vif::cuda {

struct IntScaleArgs;

// One kernel launch of a frame, for inspection (vif-sweep) and for launching.
struct KernelLaunch {
    const void* func = nullptr;
    const void* batch_func = nullptr; // integer: the same kernel for batched launches (grid.z)
    const void* maps_func = nullptr;  // integer: the same kernel also storing each pixel's terms
                                      // (IntScaleArgs::map; docs/algorithm.md §12.1)
    dim3 grid, block;
    size_t smem = 0;
    std::string name;  // e.g. "int_s0_8b" (stable across tile shapes)
    std::string shape; // e.g. "64x16/256t/v4h4"
    // Fused scales 2+3: the kernel's grid bookkeeping (scale-2 blocks, scale-2 and scale-3 grid
    // widths), computed by the variant's launcher from its own tile shapes.
    int fused_blocks2 = 0, fused_grid2_x = 0, fused_grid3_x = 0;
    // Uses sm_80 tensor-core instructions (mma.sync, ldmatrix): code compiled for an older
    // architecture traps there, so the rules of such devices never pick it.
    bool tensor_cores = false;
};

// GPU architectures with their own rules. Sm75 (Turing, e.g. T4): no integer or FP64 tensor-core
// instructions, so its rules pick only CUDA-core kernels. Ptx: any other device of compute
// capability >= 8.0, which runs the newest PTX (JIT) or the nearest real binary the driver picks.
// Older devices (below 7.5) are refused before any rule is read (backend/cuda_backend.cpp).
enum class Arch { Sm75, Sm80, Sm86, Sm89, Sm90, Ptx };
Arch arch_of(int major, int minor);
const char* arch_name(Arch a);
// The architecture named as arch_name() spells it ("sm_75", ...); false if none is.
bool arch_from_name(const std::string& name, Arch* out);

// Whether the kernels this device runs can use the sm_80 tensor cores: a device of compute
// capability 8.0 or newer running code compiled for compute_80 or newer. A build for older
// architectures only (e.g. CMAKE_CUDA_ARCHITECTURES=75-virtual, JIT-compiled on an H100) has
// trapping stubs in place of those instructions. Reads the current device.
bool device_code_has_tensor_cores();
// The PTX architecture (e.g. 75, 90) the integer kernels of this process were compiled from for
// the current device, as the driver loaded them; 0 if unknown.
int device_code_ptx_arch();

// Launch slots of the integer path: scales 0..3 on their own, and slot 4 = scales 2 and 3 in one
// launch (the default; see Candidates::fuse23).
constexpr int kIntSlots = 5;
constexpr int kFusedSlot = 4;

// One compiled kernel variant.
struct IntVariant {
    const char* id;  // short stable name, e.g. "0b" (used by --tiles, logs and test names)
    int slot;        // 0..3: that scale; 4: fused 2+3
    unsigned depths; // bit depths compiled (bit d for d in 8, 10, 12, 16)
    // The launch for a picture of w x h at this slot's scale (slot 4: the size of scale 2).
    KernelLaunch (*launch)(int bpc, int w, int h);
    bool has_depth(int bpc) const { return (depths >> bpc) & 1u; }
};

// Every variant of a slot, in a fixed order (index = candidate number): the shipped ones (those a
// rule picks), then, in -DVIF_BUILD_TUNING=ON builds, the tuning candidates.
const std::vector<IntVariant>& int_variants(int slot);
// The tuning candidates of a slot (tuning/int_candidates.cu; empty unless VIF_BUILD_TUNING).
const std::vector<IntVariant>& int_candidates(int slot);

// What a row of the dispatch table chooses.
enum class Pick {
    IntTile,    // the integer pair's kernel variant of a launch slot (IntVariant)
    IntBatch,   // integer frames per batched launch (Engine::enqueue_batch)
    FloatSet,   // the float kernel set (engine/engine.cu's float_sets)
    LadderTile, // the ladder's kernel variant of a launch slot (LadderVariant; slots 0, 1, 4)
};

// One row of the dispatch table, the one format of every kernel choice: for pictures with
// min_pixels <= w * h < max_pixels (of the slot's scale for the tile picks, slot 4 = scale 2; of
// the frame for batching and float sets) at the bit depths in `depths`, choose `choice` (the
// variant id of IntTile and LadderTile, the float set id of FloatSet) or, IntBatch, `frames` a
// launch. The first matching row of its pick (and slot) wins; each ends with a row that always
// matches. `source`: the sweep measurement that chose it (docs/perf/, docs/journal/).
struct DispatchRow {
    Pick pick;
    int slot;           // IntTile, LadderTile: the launch slot; else 0
    const char* choice; // IntTile, LadderTile, FloatSet; IntBatch: nullptr
    int frames;         // IntBatch; else 0
    long min_pixels;
    long max_pixels;
    unsigned depths;
    const char* source;
};
// Every row of architecture `a`, in the order the docs show them.
const std::vector<DispatchRow>& dispatch_rows(Arch a);
// The rows of one pick, in order.
std::vector<DispatchRow> dispatch_rows(Arch a, Pick pick);
// Which architecture's rows `a` uses (itself when it has its own, else sm_90's).
Arch int_rules_owner(Arch a);
// Where the measurements behind `a`'s rules were taken, in words (docs and vif-sweep print it).
const char* int_rules_measured_on(Arch a);
// Whether `a`'s rules may pick tensor-core variants (KernelLaunch::tensor_cores).
bool arch_has_tensor_cores(Arch a);

// The variant (index into int_variants(slot)) the rows pick.
int int_select(Arch a, int slot, int bpc, int w, int h);

// Integer frames of w x h (scale 0) that one batched launch should carry when the backend has
// several waiting (1: launch each frame on its own): small frames leave most SMs idle and end
// each scale on a tail, so several of them per launch (grid.z) fill the waves.
int int_batch_frames(Arch a, int bpc, int w, int h);

// Float frames: which kernel set (engine/engine.cu's float_sets, by id) the engine runs when none
// is forced and the filter widths are the default ones (other widths: the generic kernels).
const char* float_select(Arch a, int w, int h);

// One compiled ladder kernel (kernels/int_multi_kernels.cuh: one reference against K rungs) for
// launch slot 0 (scale 0), 1 (scale 1) or 4 (scales 2+3; w x h of scale 2).
struct LadderVariant {
    const char* id; // e.g. "L0t"
    int slot;
    unsigned depths;
    KernelLaunch (*launch)(int bpc, int w, int h);
    bool has_depth(int bpc) const { return (depths >> bpc) & 1u; }
};
// The shipped ladder variants of a slot (dispatch/ladder_variants.cu), then, in tuning builds,
// the candidates (tuning/ladder_candidates.cu).
const std::vector<LadderVariant>& ladder_variants(int slot);
const std::vector<LadderVariant>& ladder_candidates(int slot);
int ladder_variant_index(int slot, const std::string& id);
// The ladder variant (index into ladder_variants(slot)) the rows pick.
int ladder_select(Arch a, int slot, int bpc, int w, int h);

// Every row of architecture `a` (integer tiles, batching, float sets, ladder tiles) as one
// Markdown table: what it picks, the variant id and tile shape, the pixel range, bit depths, the
// sweep row that chose it. docs/cuda.md carries sm_90's and a test checks that it is this text
// (vif-sweep heads its report with it too).
std::string dispatch_markdown(Arch a);

// Which rules each architecture uses and where they were measured, as one Markdown table
// (docs/cuda.md carries it; a test checks that it is this text).
std::string rules_by_arch_markdown();

// Index of the variant with this id in slot `slot`, or -1.
int int_variant_index(int slot, const std::string& id);

} // namespace vif::cuda
