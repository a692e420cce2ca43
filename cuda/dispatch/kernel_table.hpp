// The integer kernels' table: every compiled variant per launch slot (scales 0, 1, 2, 3 and the
// fused scales 2+3 launch), each a typed launcher that carries its tile shape, grid, shared memory
// and kernel arguments; and the selection rules per GPU architecture, each citing the sweep row
// that chose it. Dispatch (Engine::plan), the candidate lists, the fused launch's grid arithmetic
// and `vif-sweep --candidates` all read this table (kernel_table.cu); nothing else names a shape.
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

// One selection rule: variant `variant` of slot `slot` for pictures of that scale with
// min_pixels <= w * h < max_pixels, at the bit depths in `depths`. The first matching rule of
// an architecture wins; every slot ends with a rule that always matches.
struct IntRule {
    int slot;
    const char* variant; // IntVariant::id
    long min_pixels;
    long max_pixels;
    unsigned depths;
    const char* source; // the sweep row that chose it (docs/perf/)
};
const std::vector<IntRule>& int_rules(Arch a);
// Which architecture's rules `a` uses (itself when it has its own, else sm_90's).
Arch int_rules_owner(Arch a);
// Where the measurements behind `a`'s rules were taken, in words (docs and vif-sweep print it).
const char* int_rules_measured_on(Arch a);
// Whether `a`'s rules may pick tensor-core variants (KernelLaunch::tensor_cores).
bool arch_has_tensor_cores(Arch a);

// The variant (index into int_variants(slot)) the rules pick.
int int_select(Arch a, int slot, int bpc, int w, int h);

// Integer frames of w x h (scale 0) that one batched launch should carry when the backend has
// several waiting (1: launch each frame on its own): small frames leave most SMs idle and end
// each scale on a tail, so several of them per launch (grid.z) fill the waves. The rule cites
// its sweep rows like the tile rules.
struct IntBatchRule {
    long max_pixels; // frames with w * h < max_pixels
    int frames;
    const char* source;
};
const std::vector<IntBatchRule>& int_batch_rules(Arch a);
int int_batch_frames(Arch a, int bpc, int w, int h);

// Float frames: which kernel set (engine/engine.cu's float_sets, by id) the engine runs when none
// is forced and the filter widths are the default ones (other widths: the generic kernels). The
// first rule with w * h < max_pixels wins; the last always matches.
struct FloatRule {
    long max_pixels;
    const char* set; // FloatVariant::id, e.g. "s64"
    const char* source;
};
const std::vector<FloatRule>& float_rules(Arch a);
const char* float_select(Arch a, int w, int h);

// Every rule of architecture `a` (integer tiles, batching, float sets) as one Markdown table:
// slot, variant id and tile shape, pixel range of the slot's scale, bit depths, the sweep row
// that chose it. docs/cuda.md carries sm_90's and a test checks that it is this text (vif-sweep
// heads its report with it too).
std::string int_rules_markdown(Arch a);

// Which rules each architecture uses and where they were measured, as one Markdown table
// (docs/cuda.md carries it; a test checks that it is this text).
std::string rules_by_arch_markdown();

// Index of the variant with this id in slot `slot`, or -1.
int int_variant_index(int slot, const std::string& id);

} // namespace vif::cuda
