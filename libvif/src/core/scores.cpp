// Turning raw per-scale accumulators into libvmaf's values (docs/algorithm.md §6.6, §7.6, §8.1).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/scores.hpp"

namespace vif {

void finalize_scores(const Params& params, const FrameRaw& raw, VifScores* out) {
    out->frame_index = raw.index;
    double num_sum = 0.0, den_sum = 0.0;
    for (int s = 0; s < VIF_NUM_SCALES; ++s) {
        const ScaleRaw& r = raw.scale[s];
        // Float variables: the float rounding is part of the result (docs/algorithm.md §11.7).
        volatile float num, den;
        double score;
        if (params.variant == VIF_VARIANT_INTEGER) {
            num = static_cast<float>(
                static_cast<double>(r.nl) / 2048.0 +
                (static_cast<double>(r.dn) - (static_cast<double>(r.nn) / 16384.0) / 65025.0));
            den =
                static_cast<float>(static_cast<double>(r.dl) / 2048.0 + static_cast<double>(r.dn));
            const float q = num / den;
            score = q;
        } else {
            num = r.num;
            den = r.den;
            score = static_cast<double>(num) / static_cast<double>(den);
            if (s > 0) score = std::max(score, 0.0); // vif_scaleN_min_val defaults to 0
        }
        out->scale[s] = score;
        out->num[s] = num;
        out->den[s] = den;
        num_sum += out->num[s];
        den_sum += out->den[s];
    }
    out->num_sum = num_sum;
    out->den_sum = den_sum;
    out->combined = den_sum == 0.0 ? 1.0 : num_sum / den_sum;
}

} // namespace vif
