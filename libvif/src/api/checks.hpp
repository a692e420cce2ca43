// Argument checks at the C boundary (checks.cpp): enum fields read as ints, options, configs into
// Params, pictures against a context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/backend.hpp"
#include "vif/vif.h"

namespace vif {

// The int a C caller stored in an enum (field or argument), read without an enum-typed load: a
// value outside the enumerators is undefined behaviour to load as the enum (UBSan: invalid enum
// load), so every public entry point reads enums through this before comparing them.
template <typename Enum>
int enum_value(const Enum& e) {
    static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
    int v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

// Largest stride accepted (bytes): with at most 32768 rows a plane then spans less than 2^46
// bytes, so no offset computation can overflow.
constexpr ptrdiff_t kMaxStride = VIF_MAX_STRIDE;

// Checks the options a metric name depends on (variant, gain limit, kernel scale); shared by
// vif_create and vif_metric_name.
VifStatus check_options(const VifConfig& cfg);

// Smallest frame side the filters allow for these parameters (at least 16).
uint32_t min_size(const Params& p);

// Checks one picture against the context (bit depth, size limits, stride, flags).
VifStatus check_picture(const Params& p, const VifPicture* pic, const char* which);

// Validates a config and converts it to Params; on failure records the error.
VifStatus params_from_config(const VifConfig& cfg, Params* out);

} // namespace vif
