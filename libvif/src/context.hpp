// The object behind the opaque VifContext handle, and internal helpers shared by the C entry
// points and optional front ends (vif_cuda.h, vif_ffmpeg.h).
#pragma once

#include <memory>
#include <string>

#include "backend.hpp"
#include "vif/vif.h"

struct VifContext {
    VifConfig config;
    vif::Params params;
    std::unique_ptr<vif::Backend> backend;
    uint64_t next_index = 0;
    bool failed = false;  // a backend error left the context unusable
};

namespace vif {

// Records msg as this thread's last error and returns status (so callers can `return fail(..)`).
VifStatus fail(VifStatus status, const std::string& msg);
inline VifStatus fail(const Error& e) { return fail(e.status, e.message); }
void clear_error();
const char* last_error_cstr();

// Smallest frame side the filters allow for these parameters (at least 16).
uint32_t min_size(const Params& p);

// Checks one picture against the context (bit depth, size limits, stride, flags).
VifStatus check_picture(const Params& p, const VifPicture* pic, const char* which);

// Validates a config and converts it to Params; on failure records the error.
VifStatus params_from_config(const VifConfig& cfg, Params* out);

// Backend selection (registry.cpp).
std::unique_ptr<Backend> create_backend(const Params& params, VifBackend kind, Error* err);

// Raw accumulators to libvmaf's values (scores.cpp).
void finalize_scores(const Params& params, const FrameRaw& raw, VifScores* out);

// The backend behind a context (for vif_cuda.h / vif_ffmpeg.h front ends).
Backend* context_backend(VifContext* ctx);

}  // namespace vif
