// The object behind the opaque VifContext handle, and internal helpers shared by the C entry
// points and optional front ends (vif_cuda.h, vif_ffmpeg.h).
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "backend.hpp"
#include "vif/vif.h"

struct VifContext {
    VifConfig config;
    vif::Params params;
    std::unique_ptr<vif::Backend> backend;
    uint64_t next_index = 0;
    bool failed = false; // a backend error left the context unusable
};

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

// Records msg as this thread's last error and returns status (so callers can `return fail(..)`).
VifStatus fail(VifStatus status, const std::string& msg);
inline VifStatus fail(const Status& e) {
    return fail(e.status, e.message);
}
void clear_error();
const char* last_error_cstr();

// Smallest frame side the filters allow for these parameters (at least 16).
uint32_t min_size(const Params& p);

// Checks one picture against the context (bit depth, size limits, stride, flags).
VifStatus check_picture(const Params& p, const VifPicture* pic, const char* which);

// Validates a config and converts it to Params; on failure records the error.
VifStatus params_from_config(const VifConfig& cfg, Params* out);

// Backend selection (registry.cpp).
std::unique_ptr<Backend> create_backend(const Params& params, VifBackend kind, Status* err);

// Raw accumulators to libvmaf's values (scores.cpp).
void finalize_scores(const Params& params, const FrameRaw& raw, VifScores* out);

// The backend behind a context (for vif_cuda.h / vif_ffmpeg.h front ends).
Backend* context_backend(VifContext* ctx);

} // namespace vif
