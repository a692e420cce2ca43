// The dispatch table (kernel_table.hpp): the shipped integer variants (those a row below picks),
// one typed launcher each (int_launchers.cuh), and the selection rules per GPU architecture.
// Changing a choice is one rule, which cites the sweep row that made it (docs/perf/, "Fastest
// tile candidate per kernel" tables; docs/journal/2026-11-25-performance.md). The candidates no rule picks live in
// tuning/int_candidates.cu and join the lists only in -DVIF_BUILD_TUNING=ON builds (the sweep,
// the parity gate of every candidate); promoting one is moving its row here and adding its rule.
#include "dispatch/kernel_table.hpp"

#include <array>
#include <climits>

#include "dispatch/int_launchers.cuh"

namespace vif::cuda {

namespace {

// ---- Tile shapes ---------------------------------------------------------------------------
// IntTile<TileW, TileH, Threads, VertRows, HorizCols, MinBlocks, StatsILP, VertMma, HorizMma,
// Stat> (kernels/tile_policy.hpp). Balance notes: the vertical pass has (kTileW + 2r) * kTileH /
// kVertRows tasks and the horizontal pass kTileH * kTileW / kHorizCols; a task count just above
// a multiple of kThreads idles threads. Small grids are latency-bound (one block per SM runs its
// whole instruction path alone), so the small-scale shapes give each thread less work.
using Int0 = IntTile<48, 16, 256, 2, 3, 4>;
// Vertical pass on the integer tensor cores (8-bit only; kVertRows unused there): 48x16 has 64
// columns of tile + halo, one 8-column block per warp.
using Int0t = IntTile<48, 16, 256, 2, 3, 4, false, true>;
// With the statistic's options (exact conversions, the division without its branch, the 8 KB
// packed log table in shared memory).
using Int0tp = IntTile<48, 16, 256, 2, 3, 4, false, true, false, kQP>;
using Int0p = IntTile<48, 16, 256, 2, 3, 4, false, false, false, kQP>;

using Int1 = IntTile<56, 16, 256, 4, 4, 3>;
using Int1p = IntTile<56, 16, 256, 4, 4, 3, false, false, false, kQP>;
using Int1s = IntTile<24, 16, 256, 2, 2, 4>;

using Int2 = IntTile<60, 16, 256, 4, 4, 2>;
using Int3 = IntTile<32, 16, 128, 4, 4, 4>;

// Fused scales 2+3: one block size for both parts.
using Int23_2 = IntTile<28, 16, 256, 2, 2, 4>;
using Int23_3 = IntTile<62, 8, 256, 2, 2, 4>;
using Int23b_2 = IntTile<60, 16, 256, 4, 4, 2>;
using Int23b_3 = IntTile<62, 8, 256, 2, 2, 2>;
using Int23bp_2 = IntTile<60, 16, 256, 4, 4, 2, false, false, false, kQP>;
using Int23bp_3 = IntTile<62, 8, 256, 2, 2, 2, false, false, false, kQP>;

// ---- The shipped variants ----------------------------------------------------------------------
// Index 0 of each slot is the variant its last, always-matching rule picks.
const std::vector<IntVariant> kShipped[kIntSlots] = {
    {
        {"0", 0, kAllDepths, &launch_scale0<Int0, kAllDepths>},
        {"0t", 0, k8, &launch_scale0<Int0t, k8>},
        {"0tp", 0, k8, &launch_scale0<Int0tp, k8>},
        {"0p", 0, k10, &launch_scale0<Int0p, k10>},
    },
    {
        {"1", 1, kAllDepths, &launch_scale<1, Int1>},
        {"1s", 1, kAllDepths, &launch_scale<1, Int1s>},
        {"1p", 1, kAllDepths, &launch_scale<1, Int1p>},
    },
    {
        {"2", 2, kAllDepths, &launch_scale<2, Int2>},
    },
    {
        {"3", 3, kAllDepths, &launch_scale<3, Int3>},
    },
    {
        {"23", 4, kAllDepths, &launch_fused23<Int23_2, Int23_3>},
        {"23b", 4, kAllDepths, &launch_fused23<Int23b_2, Int23b_3>},
        {"23bp", 4, kAllDepths, &launch_fused23<Int23bp_2, Int23bp_3>},
    },
};

// The shipped variants, then (tuning builds) the candidates.
const std::array<std::vector<IntVariant>, kIntSlots>& all_variants() {
    static const std::array<std::vector<IntVariant>, kIntSlots> all = [] {
        std::array<std::vector<IntVariant>, kIntSlots> v;
        for (int slot = 0; slot < kIntSlots; ++slot) {
            v[slot] = kShipped[slot];
            const std::vector<IntVariant>& c = int_candidates(slot);
            v[slot].insert(v[slot].end(), c.begin(), c.end());
        }
        return v;
    }();
    return all;
}

// ---- Selection rules -------------------------------------------------------------------------
// Pixel counts are of the slot's own scale (slot 4: scale 2). T1 = docs/perf/h200-tile-candidates.md
// (sweep 4, commit 594a4f5), T2 = docs/perf/h200-tile-candidates-2.md (sweep 5, after the vector
// tile loads), both "Fastest tile candidate per kernel", 8-bit, H200. S1 =
// docs/perf/h100-stat-options.md (the statistic's options, Nsight Compute and CUDA events, H100).
constexpr long kNoMax = LONG_MAX;
constexpr unsigned k10Up = (1u << 10) | (1u << 12) | (1u << 16);
// Integer tiles (Engine::plan), then batching, float sets and ladder tiles, in one format.
const std::vector<DispatchRow> kRowsSm90 = {
    {Pick::IntTile, 0, "0tp", 0, 1500000, kNoMax, k8,
     "S1 (docs/perf/h100-stat-options.md, H100, Nsight Compute) int_s0_8b 1920x1080: 0t with the "
     "exact conversions, the division without its branch and the packed log table in shared "
     "memory 45.8 us vs 47.3 (0t), 26.9 vs 29.0 M warp instructions. 3840x2160 not measured at "
     "8 bits (the same statistic gains 4% at 10 bits there)."},
    {Pick::IntTile, 0, "0p", 0, 1500000, kNoMax, k10,
     "S1 int_s0_10b: 48x16 with the statistic's options and the packed table 56.4 vs 58.2 us "
     "(1920x1080), 202.4 vs 210.8 (3840x2160); frame (events, pipelined) 77.1 vs 80.9 us, 254.0 "
     "vs 271.0."},
    {Pick::IntTile, 0, "0t", 0, 0, kNoMax, k8,
     "T3 (docs/perf/h200-tensor-ncu.md, Nsight Compute) int_s0_8b, 48x16 with the vertical pass "
     "on the integer tensor cores: 1920x1080 46.6 us vs 50.7 (0b, chosen before) and 50.9 (0); "
     "3840x2160 167.0 vs 179.2 (0b); 576x324 8.7 vs 9.3 (0). Before: 0b >= 2 Mpx (T1), else 0."},
    {Pick::IntTile, 0, "0", 0, 0, kNoMax, kAllDepths,
     "T1/T2 576x324 int_s0_8b: 48x16/256t/v2h3 fastest (11.2 us); on CUDA cores at 1920x1080 "
     "(T2) 52.5 us vs 52.2 for the fastest, 64x16/v4h4"},
    {Pick::IntTile, 1, "1s", 0, 0, 200000, kAllDepths,
     "sweep 3 (docs/journal/2026-11-25-performance.md): 576x324 scale 1 24x16/v2h2 8.4 vs 10.3 us; "
     "T2 576x324 int_s1: "
     "24x16/256t/v2h2 7.0-7.2 us"},
    {Pick::IntTile, 1, "1p", 0, 400000, kNoMax, kAllDepths,
     "S1 int_s1 (16-bit samples at every depth): 56x16 with the packed log table 14.0 vs 15.4 us "
     "(1920x1080), 39.7 vs 43.5 (3840x2160)."},
    {Pick::IntTile, 1, "1", 0, 0, kNoMax, kAllDepths,
     "T2 1920x1080 int_s1: 56x16/256t/v4h4 16.3 vs 16.8 (64x16/288t); 3840x2160 43.9 vs 45.4"},
    {Pick::IntTile, 2, "2", 0, 0, kNoMax, kAllDepths,
     "unfused only (sweeps); T2 3840x2160 int_s2: 60x16 15.0 us fastest"},
    {Pick::IntTile, 3, "3", 0, 0, kNoMax, kAllDepths, "unfused only (sweeps and the parity gate)"},
    {Pick::IntTile, kFusedSlot, "23bp", 0, 100000, kNoMax, kAllDepths,
     "S1 int_s23: 60x16+62x8 with the packed log table 9.0 vs 9.8 us (1920x1080), 16.6 vs 20.2 "
     "(3840x2160; 4 blocks/SM at 64 registers instead of 3 at 66)."},
    {Pick::IntTile, kFusedSlot, "23b", 0, 100000, kNoMax, kAllDepths,
     "T1 1920x1080 int_s23: 60x16+62x8 11.4 vs 12.4 us; 3840x2160 23.0 vs 25.1"},
    {Pick::IntTile, kFusedSlot, "23", 0, 0, kNoMax, kAllDepths,
     "T1 576x324 int_s23: 28x16+62x8 9.2 vs 10.2 (60x16+62x8); sweep 3: fusing saves 7-9 us/frame"},
    // Batched launches (Engine::enqueue_batch). B = docs/perf/h200-small-batch.md: Nsight Compute,
    // sum of the kernels' gpu__time_duration per frame, H200, 576x324.
    {Pick::IntBatch, 0, nullptr, 16, 0, 250000, kAllDepths,
     "B 576x324 8-bit: 7.2 us/frame at 16 frames a launch vs 23.4 one by one; 10-bit: 8.8 at 8"},
    {Pick::IntBatch, 0, nullptr, 1, 250000, kNoMax, kAllDepths,
     "larger frames not measured batched: one launch each (1080p fills 1-2 waves)"},
    // Float kernel sets (engine/engine.cu). F = docs/perf/h100-sweep-float-3.md, H100, per frame.
    {Pick::FloatSet, 0, "s32", 0, 0, 500000, kAllDepths,
     "F 576x324: 32x16 scale-0 tiles 32.5 vs 33.4 us (64x16: its grid is under one wave); the "
     "threshold lies between the measured 0.19 and 2.07 Mpx"},
    {Pick::FloatSet, 0, "s64", 0, 500000, kNoMax, kAllDepths,
     "F 64x16 scale-0 tiles 1920x1080 108.2 vs 119.0 us, 3840x2160 340.2 vs 384.3"},
    // Ladder tiles (Engine::enqueue_multi; dispatch/ladder_variants.cu): one reference against K
    // rungs, every launch with the pair's large-frame statistic.
    {Pick::LadderTile, 0, "L0t", 0, 0, kNoMax, k8,
     "H100 (docs/journal/2026-11-25-performance.md, \"H100, the ladder's rung loop on the tensor "
     "cores\"): 1080p ladder of 6, 48x16 with the vertical passes on the integer tensor cores and "
     "two barriers a rung 298-303 us vs 323-330 with the CUDA-core rung loop; the packed "
     "statistic in all three launches 284.3-286.1 vs 298.7 (docs/perf/h100-final-2026-11-25.md)"},
    {Pick::LadderTile, 0, "L0l", 0, 0, kNoMax, k8,
     "without tensor cores (sm_75's rows): 48x16 on CUDA cores with two barriers a rung, the "
     "fastest CUDA-core ladder of the same H100 run (317.6 us vs 323.6 with four)"},
    {Pick::LadderTile, 0, "L0", 0, 0, kNoMax, k10Up,
     "H200 (journal, \"Ladders and batches\"): a 6-rung ladder's scale-0 launch 48x16/v2h3 "
     "237.6 us at 1080p, 882.5 at 2160p vs 261.0 and 930.5 with 64x16/v4h4"},
    {Pick::LadderTile, 1, "L1", 0, 0, kNoMax, kAllDepths,
     "the pair's 1 (56x16/v4h4) with the packed statistic (journal, \"Ladders and batches\")"},
    {Pick::LadderTile, kFusedSlot, "L23", 0, 0, kNoMax, kAllDepths,
     "the pair's 23b (60x16+62x8) with the packed statistic (journal, \"Ladders and batches\"); "
     "2160p ladder of 6 985.0-989.3 us with the packed statistic vs 1071.2 with the hardware log2 "
     "(docs/perf/h100-final-2026-11-25.md)"},
};

// Whether the variant a tile row names uses the sm_80 tensor cores at any of the row's depths.
bool row_needs_tensor_cores(const DispatchRow& r) {
    if (r.pick != Pick::IntTile && r.pick != Pick::LadderTile) return false;
    for (int d : {8, 10, 12, 16}) {
        if (!((r.depths >> d) & 1u)) continue;
        if (r.pick == Pick::IntTile) {
            const int i = int_variant_index(r.slot, r.choice);
            if (i >= 0 && int_variants(r.slot)[i].has_depth(d) &&
                int_variants(r.slot)[i].launch(d, 64, 64).tensor_cores)
                return true;
        } else {
            const int i = ladder_variant_index(r.slot, r.choice);
            if (i >= 0 && ladder_variants(r.slot)[i].has_depth(d) &&
                ladder_variants(r.slot)[i].launch(d, 64, 64).tensor_cores)
                return true;
        }
    }
    return false;
}

// sm_75 (Turing): no Turing GPU has been measured. Its rows are sm_90's without the rows that
// pick tensor-core variants, so every slot falls through to the CUDA-core choice measured on the
// H200/H100 (8-bit scale 0: "0", whose row cites the CUDA-core 1080p numbers too; the ladder's
// 8-bit scale 0: "L0l"). Built from kRowsSm90 so that a new sm_90 row reaches Turing unless it
// needs the tensor cores.
const std::vector<DispatchRow>& rows_sm75() {
    static const std::vector<DispatchRow> rows = [] {
        std::vector<DispatchRow> out;
        for (const DispatchRow& r : kRowsSm90)
            if (!row_needs_tensor_cores(r)) out.push_back(r);
        return out;
    }();
    return rows;
}

// Compiled like every kernel of this file, so its attributes say which PTX architecture the
// driver loaded this file's kernels from (device_code_ptx_arch).
__global__ void code_arch_probe() {}

// The first row of `pick` (and, for the tile picks, `slot`) matching the size and depth.
const DispatchRow* first_match(Arch a, Pick pick, int slot, int bpc, long px) {
    for (const DispatchRow& r : dispatch_rows(a))
        if (r.pick == pick && r.slot == slot && px >= r.min_pixels && px < r.max_pixels &&
            ((r.depths >> bpc) & 1u))
            return &r;
    return nullptr;
}

} // namespace

const char* float_select(Arch a, int w, int h) {
    const DispatchRow* r = first_match(a, Pick::FloatSet, 0, 8, long(w) * h);
    return r ? r->choice : "s64"; // unreachable: the last float row always matches (tests)
}

int int_batch_frames(Arch a, int bpc, int w, int h) {
    const DispatchRow* r = first_match(a, Pick::IntBatch, 0, bpc, long(w) * h);
    return r ? r->frames : 1;
}

Arch arch_of(int major, int minor) {
    if (major == 7 && minor == 5) return Arch::Sm75;
    if (major == 8 && minor == 0) return Arch::Sm80;
    if (major == 8 && minor == 6) return Arch::Sm86;
    if (major == 8 && minor == 9) return Arch::Sm89;
    if (major == 9 && minor == 0) return Arch::Sm90;
    return Arch::Ptx;
}

const char* arch_name(Arch a) {
    switch (a) {
    case Arch::Sm75:
        return "sm_75";
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

bool arch_from_name(const std::string& name, Arch* out) {
    for (Arch a : {Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Ptx})
        if (name == arch_name(a)) {
            *out = a;
            return true;
        }
    return false;
}

int device_code_ptx_arch() {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, code_arch_probe) != cudaSuccess) {
        cudaGetLastError(); // e.g. no image for this device: the first launch will say so
        return 0;
    }
    return attr.ptxVersion;
}

bool device_code_has_tensor_cores() {
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    const int ptx = device_code_ptx_arch();
    return major >= 8 && (ptx == 0 || ptx >= 80);
}

const std::vector<IntVariant>& int_variants(int slot) {
    return all_variants()[slot];
}

#if !VIF_BUILD_TUNING
const std::vector<IntVariant>& int_candidates(int) {
    static const std::vector<IntVariant> none;
    return none;
}
#endif

// Only sm_90 (H200, H100) has been swept; the other architectures of compute capability 8.0 and
// newer use its rules until a sweep on them adds their own vector here (the kernels and the
// candidate lists are the same everywhere). sm_75 has its own: sm_90's without tensor cores.
Arch int_rules_owner(Arch a) {
    return a == Arch::Sm75 ? Arch::Sm75 : Arch::Sm90;
}

const char* int_rules_measured_on(Arch a) {
    if (int_rules_owner(a) == Arch::Sm75)
        return "sm_90's rows without tensor cores (measured on the H200 and H100; no Turing GPU "
               "measured)";
    return a == Arch::Sm90 ? "sm_90 (H200, H100)"
                           : "sm_90's rows (measured on the H200 and H100; this architecture not "
                             "measured)";
}

bool arch_has_tensor_cores(Arch a) {
    return a != Arch::Sm75;
}

const std::vector<DispatchRow>& dispatch_rows(Arch a) {
    switch (int_rules_owner(a)) {
    case Arch::Sm75:
        return rows_sm75();
    default:
        return kRowsSm90;
    }
}

std::vector<DispatchRow> dispatch_rows(Arch a, Pick pick) {
    std::vector<DispatchRow> v;
    for (const DispatchRow& r : dispatch_rows(a))
        if (r.pick == pick) v.push_back(r);
    return v;
}

int int_variant_index(int slot, const std::string& id) {
    const auto& v = int_variants(slot);
    for (size_t i = 0; i < v.size(); ++i)
        if (id == v[i].id) return static_cast<int>(i);
    return -1;
}

namespace {

std::string pixel_range(long lo, long hi) {
    return "[" + std::to_string(lo) + ", " +
           (hi == LONG_MAX ? std::string("inf") : std::to_string(hi)) + ")";
}

std::string depth_list(unsigned depths, int* first) {
    std::string s;
    *first = 0;
    for (int d : {8, 10, 12, 16})
        if ((depths >> d) & 1u) {
            s += (s.empty() ? "" : ", ") + std::to_string(d);
            if (!*first) *first = d;
        }
    return s;
}

std::string slot_name(int slot) {
    return slot == kFusedSlot ? std::string("2+3") : std::to_string(slot);
}

} // namespace

std::string dispatch_markdown(Arch a) {
    std::string md = "| slot | variant | pixels of the scale | depths | source |\n"
                     "|---|---|---|---|---|\n";
    for (const DispatchRow& r : dispatch_rows(a)) {
        int first = 0;
        const std::string depths = depth_list(r.depths, &first);
        std::string what, choice;
        switch (r.pick) {
        case Pick::IntTile: {
            what = slot_name(r.slot);
            const int i = int_variant_index(r.slot, r.choice);
            choice = "`" + std::string(r.choice) + "`" +
                     (i >= 0 ? " " + int_variants(r.slot)[i].launch(first, 1920, 1080).shape : "");
            break;
        }
        case Pick::IntBatch:
            what = "batch";
            choice = std::to_string(r.frames) + " frames a launch";
            break;
        case Pick::FloatSet:
            what = "float";
            choice = "`" + std::string(r.choice) + "`";
            break;
        case Pick::LadderTile: {
            what = "ladder " + slot_name(r.slot);
            const int i = ladder_variant_index(r.slot, r.choice);
            choice =
                "`" + std::string(r.choice) + "`" +
                (i >= 0 ? " " + ladder_variants(r.slot)[i].launch(first, 1920, 1080).shape : "");
            break;
        }
        }
        md += "| " + what + " | " + choice + " | " + pixel_range(r.min_pixels, r.max_pixels) +
              " | " + depths + " | " + r.source + " |\n";
    }
    return md;
}

std::string rules_by_arch_markdown() {
    std::string md = "| architecture | rules | measured on |\n|---|---|---|\n";
    for (Arch a : {Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Ptx})
        md += std::string("| ") + (a == Arch::Ptx ? "other, >= 8.0 (`ptx`)" : arch_name(a)) +
              " | " + arch_name(int_rules_owner(a)) +
              (arch_has_tensor_cores(a) ? "" : " (no tensor cores)") + " | " +
              int_rules_measured_on(a) + " |\n";
    return md;
}

int int_select(Arch a, int slot, int bpc, int w, int h) {
    const long px = long(w) * h;
    for (const DispatchRow& r : dispatch_rows(a)) {
        if (r.pick != Pick::IntTile || r.slot != slot || px < r.min_pixels || px >= r.max_pixels ||
            !((r.depths >> bpc) & 1u))
            continue;
        const int i = int_variant_index(slot, r.choice);
        if (i >= 0 && int_variants(slot)[i].has_depth(bpc)) return i;
    }
    return 0; // unreachable: every slot ends with a row that always matches (kernel_table_test)
}

int ladder_select(Arch a, int slot, int bpc, int w, int h) {
    const long px = long(w) * h;
    for (const DispatchRow& r : dispatch_rows(a)) {
        if (r.pick != Pick::LadderTile || r.slot != slot || px < r.min_pixels ||
            px >= r.max_pixels || !((r.depths >> bpc) & 1u))
            continue;
        const int i = ladder_variant_index(slot, r.choice);
        if (i >= 0 && ladder_variants(slot)[i].has_depth(bpc)) return i;
    }
    return -1; // unreachable: every ladder slot and depth has a row (tests)
}

} // namespace vif::cuda
