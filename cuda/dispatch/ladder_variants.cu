// The ladder kernels that ship (kernel_table.hpp, LadderVariant): one typed launcher each
// (ladder_launchers.cuh), picked by the table's ladder rows (kernel_table.cu). Every shipped ladder
// launch runs the pair's large-frame statistic (kStatP). The other scale-0 shapes and the
// hardware-log2 statistic are tuning candidates (tuning/ladder_candidates.cu).
#include <array>
#include <string>
#include <vector>

#include "dispatch/ladder_launchers.cuh"

namespace vif::cuda {

namespace {

// Index 0 of each slot is the variant its last, always-matching row picks.
const std::vector<LadderVariant> kShippedLadder[kIntSlots] = {
    {
        // 48x16 at every depth; at 8 bits its vertical passes on the integer tensor cores with
        // two barriers a rung (MultiLean).
        {"L0", 0, k10Up, &ladder_launch0<WithStat<Multi0, kStatP>, k10Up>},
        {"L0t", 0, k8, &ladder_launch0<WithStat<Multi0tLean, kStatP>, k8>},
        // Without the tensor cores (sm_75's rows): 8 bits on CUDA cores, two barriers a rung.
        {"L0l", 0, k8, &ladder_launch0<WithStat<Multi0Lean, kStatP>, k8>},
    },
    {
        {"L1", 1, kAllDepths, &ladder_launch1<WithStat<Multi1, kStatP>>},
    },
    {},
    {},
    {
        {"L23", kFusedSlot, kAllDepths,
         &ladder_launch23<WithStat<Multi23_2, kStatP>, WithStat<Multi23_3, kStatP>>},
    },
};

} // namespace

const std::vector<LadderVariant>& ladder_variants(int slot) {
    static const std::array<std::vector<LadderVariant>, kIntSlots> all = [] {
        std::array<std::vector<LadderVariant>, kIntSlots> v;
        for (int s = 0; s < kIntSlots; ++s) {
            v[s] = kShippedLadder[s];
            const std::vector<LadderVariant>& c = ladder_candidates(s);
            v[s].insert(v[s].end(), c.begin(), c.end());
        }
        return v;
    }();
    return all[slot];
}

#if !VIF_BUILD_TUNING
const std::vector<LadderVariant>& ladder_candidates(int) {
    static const std::vector<LadderVariant> none;
    return none;
}
#endif

int ladder_variant_index(int slot, const std::string& id) {
    const auto& v = ladder_variants(slot);
    for (size_t i = 0; i < v.size(); ++i)
        if (id == v[i].id) return static_cast<int>(i);
    return -1;
}

} // namespace vif::cuda
