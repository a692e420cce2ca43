// Pooling of per-frame values over a clip (pool.cpp; vif_pool checks the arguments first).
#pragma once

#include <cstddef>

#include "core/backend.hpp"

namespace vif {

// values[0..n) with n >= 1 pooled by VifPoolMethod `method` (param: the percentile) into *result.
Status pool_values(const double* values, size_t n, int method, double param, double* result);

} // namespace vif
