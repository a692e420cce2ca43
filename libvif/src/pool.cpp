// Pooling of per-frame values over a clip.
#include <algorithm>
#include <cmath>
#include <vector>

#include "context.hpp"

extern "C" VifStatus vif_pool(const double* values, size_t n, VifPoolMethod method_enum,
                              double param, double* result) {
    const int method = vif::enum_value(method_enum);
    if (!values || !result || n == 0)
        return vif::fail(VIF_ERROR_INVALID_ARGUMENT, "vif_pool: need at least one value");
    switch (method) {
    case VIF_POOL_MEAN: {
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i) sum += values[i];
        *result = sum / static_cast<double>(n);
        return VIF_OK;
    }
    case VIF_POOL_HARMONIC_MEAN: {
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i) sum += 1.0 / (values[i] + 1.0);
        *result = static_cast<double>(n) / sum - 1.0;
        return VIF_OK;
    }
    case VIF_POOL_MIN:
        *result = *std::min_element(values, values + n);
        return VIF_OK;
    case VIF_POOL_MAX:
        *result = *std::max_element(values, values + n);
        return VIF_OK;
    case VIF_POOL_PERCENTILE: {
        if (!(param >= 0.0 && param <= 100.0))
            return vif::fail(VIF_ERROR_INVALID_ARGUMENT,
                             "vif_pool: percentile must be in [0, 100]");
        std::vector<double> v(values, values + n);
        std::sort(v.begin(), v.end());
        const double pos = param / 100.0 * static_cast<double>(n - 1);
        const size_t lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, n - 1);
        const double frac = pos - static_cast<double>(lo);
        *result = v[lo] + (v[hi] - v[lo]) * frac;
        return VIF_OK;
    }
    }
    return vif::fail(VIF_ERROR_INVALID_ARGUMENT,
                     "vif_pool: unknown method " + std::to_string(method));
}
