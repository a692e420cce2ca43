// The object behind the opaque VifContext handle, shared by the C entry points and the optional
// front ends (vif_cuda.h, vif_ffmpeg.h). The core below (core/) never includes it.
#pragma once

#include <memory>
#include <string>

#include "core/backend.hpp"
#include "vif/vif.h"

struct VifContext {
    VifConfig config;
    vif::Params params;
    std::unique_ptr<vif::Backend> backend;
    uint64_t next_index = 0;
    // The maps of the frame last given out by vif_receive_maps (its arrays point into them).
    std::shared_ptr<const vif::FrameMaps> last_maps;
    bool failed = false; // a backend error left the context unusable
};

namespace vif {

// The backend behind a context (for vif_cuda.h / vif_ffmpeg.h front ends).
Backend* context_backend(VifContext* ctx);

} // namespace vif
