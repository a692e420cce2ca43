// Pooling of per-frame values over a clip (docs/algorithm.md §9).
#include "core/pool.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace vif {

Status pool_values(const double* values, size_t n, int method, double param, double* result) {
    switch (method) {
    case VIF_POOL_MEAN: {
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i) sum += values[i];
        *result = sum / static_cast<double>(n);
        return {};
    }
    case VIF_POOL_HARMONIC_MEAN: {
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i) sum += 1.0 / (values[i] + 1.0);
        *result = static_cast<double>(n) / sum - 1.0;
        return {};
    }
    case VIF_POOL_MIN:
        *result = *std::min_element(values, values + n);
        return {};
    case VIF_POOL_MAX:
        *result = *std::max_element(values, values + n);
        return {};
    case VIF_POOL_PERCENTILE: {
        if (!(param >= 0.0 && param <= 100.0))
            return {VIF_ERROR_INVALID_ARGUMENT, "vif_pool: percentile must be in [0, 100]"};
        std::vector<double> v(values, values + n);
        std::sort(v.begin(), v.end());
        const double pos = param / 100.0 * static_cast<double>(n - 1);
        const size_t lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, n - 1);
        const double frac = pos - static_cast<double>(lo);
        *result = v[lo] + (v[hi] - v[lo]) * frac;
        return {};
    }
    }
    return {VIF_ERROR_INVALID_ARGUMENT, "vif_pool: unknown method " + std::to_string(method)};
}

} // namespace vif
