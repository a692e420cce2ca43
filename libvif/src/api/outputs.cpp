// The C entry points over scores: libvmaf's key names, values by metric, pooling.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "api/checks.hpp"
#include "api/last_error.hpp"
#include "core/pool.hpp"

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

extern "C" VifStatus vif_pool(const double* values, size_t n, VifPoolMethod method_enum,
                              double param, double* result) {
    const int method = vif::enum_value(method_enum);
    if (!values || !result || n == 0)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, "vif_pool: need at least one value");
    if (vif::Status e = vif::pool_values(values, n, method, param, result)) return vif::fail(e);
    return VIF_OK;
}
