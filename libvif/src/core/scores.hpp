// Raw per-scale accumulators to libvmaf's values (scores.cpp), the one place the backends'
// results become scores.
#pragma once

#include "core/backend.hpp"

namespace vif {

void finalize_scores(const Params& params, const FrameRaw& raw, VifScores* out);

} // namespace vif
