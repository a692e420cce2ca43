// The ladder kernel candidates no row picks (CudaOptions::ladder_shape0 1-4 at 8 bits, and the
// hardware-log2 statistic of every launch, CudaOptions::ladder_stat_packed = false), compiled
// only with -DVIF_BUILD_TUNING=ON (the ladder bench, the parity gate's Ladder cases). They join
// ladder_variants(slot) after the shipped ones of dispatch/ladder_variants.cu. Suffix ".h": the
// hardware-log2 statistic instead of the packed table.
#include "dispatch/ladder_launchers.cuh"

namespace vif::cuda {

namespace {

constexpr unsigned kHw = 0; // the hardware log2 with table reads near rounding boundaries

const std::vector<LadderVariant> kLadderCandidates[kIntSlots] = {
    {
        // 8 bits: 64x16/v4h4 (shape 1), 48x16 on CUDA cores with four barriers a rung, as at the
        // other depths (2), tensor cores with four barriers (3); CUDA cores with two (4) is the
        // shipped L0l.
        {"L0w", 0, k8, &ladder_launch0<WithStat<Multi0Wide, kStatP>, k8>},
        {"L0c", 0, k8, &ladder_launch0<WithStat<Multi0, kStatP>, k8>},
        {"L0t4", 0, k8, &ladder_launch0<WithStat<Multi0t, kStatP>, k8>},
        {"L0.h", 0, k10Up, &ladder_launch0<WithStat<Multi0, kHw>, k10Up>},
        {"L0t.h", 0, k8, &ladder_launch0<WithStat<Multi0tLean, kHw>, k8>},
        {"L0w.h", 0, k8, &ladder_launch0<WithStat<Multi0Wide, kHw>, k8>},
        {"L0c.h", 0, k8, &ladder_launch0<WithStat<Multi0, kHw>, k8>},
        {"L0t4.h", 0, k8, &ladder_launch0<WithStat<Multi0t, kHw>, k8>},
        {"L0l.h", 0, k8, &ladder_launch0<WithStat<Multi0Lean, kHw>, k8>},
    },
    {
        {"L1.h", 1, kAllDepths, &ladder_launch1<WithStat<Multi1, kHw>>},
    },
    {},
    {},
    {
        {"L23.h", kFusedSlot, kAllDepths,
         &ladder_launch23<WithStat<Multi23_2, kHw>, WithStat<Multi23_3, kHw>>},
    },
};

} // namespace

const std::vector<LadderVariant>& ladder_candidates(int slot) {
    return kLadderCandidates[slot];
}

} // namespace vif::cuda
