// Turning raw per-scale accumulators into libvmaf's values (docs/algorithm.md §6.6, §7.6, §8), and
// libvmaf's output key names.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "context.hpp"

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

namespace {

const char* const kBaseNames[VIF_METRIC_COUNT] = {
    "scale0",      "scale1",      "scale2",      "scale3",      "",
    "_num",        "_den",        "_num_scale0", "_den_scale0", "_num_scale1",
    "_den_scale1", "_num_scale2", "_den_scale2", "_num_scale3", "_den_scale3"};

} // namespace

extern "C" VifStatus vif_metric_name(const VifConfig* cfg, VifMetric metric, char* buf,
                                     size_t size) {
    const int m = vif::enum_value(metric);
    if (!cfg || !buf)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, "vif_metric_name: cfg or buf is NULL");
    if (m < 0 || m >= VIF_METRIC_COUNT)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT,
                         "vif_metric_name: unknown metric " + std::to_string(m));
    // The name spells the options: they must be values vif_create accepts (no "_egl_nan").
    if (VifStatus st = vif::check_options(*cfg); st != VIF_OK) return st;
    const bool integer = vif::enum_value(cfg->variant) == VIF_VARIANT_INTEGER;
    std::string name = integer ? "integer_vif" : "vif";
    name += m <= VIF_METRIC_SCALE3 ? std::string("_") + kBaseNames[m] : kBaseNames[m];
    // Non-default options add `_<alias>_<%g value>`, sorted by option name (algorithm.md §8.3).
    char tmp[64];
    if (cfg->enhn_gain_limit != 100.0) {
        std::snprintf(tmp, sizeof tmp, "_egl_%g", cfg->enhn_gain_limit);
        name += tmp;
    }
    if (!integer && cfg->kernelscale != 1.0) {
        std::snprintf(tmp, sizeof tmp, "_ks_%g", cfg->kernelscale);
        name += tmp;
    }
    if (name.size() + 1 > size)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, "vif_metric_name: buffer too small");
    std::memcpy(buf, name.c_str(), name.size() + 1);
    return VIF_OK;
}

extern "C" double vif_metric_value(const VifScores* s, VifMetric metric_enum) {
    const int metric = vif::enum_value(metric_enum);
    if (!s) return NAN;
    switch (metric) {
    case VIF_METRIC_SCALE0:
    case VIF_METRIC_SCALE1:
    case VIF_METRIC_SCALE2:
    case VIF_METRIC_SCALE3:
        return s->scale[metric - VIF_METRIC_SCALE0];
    case VIF_METRIC_COMBINED:
        return s->combined;
    case VIF_METRIC_NUM:
        return s->num_sum;
    case VIF_METRIC_DEN:
        return s->den_sum;
    default:
        break;
    }
    if (metric > VIF_METRIC_DEN && metric < VIF_METRIC_COUNT) {
        const int k = metric - VIF_METRIC_NUM_SCALE0;
        return (k % 2 == 0) ? s->num[k / 2] : s->den[k / 2];
    }
    return NAN;
}
