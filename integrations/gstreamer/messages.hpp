// The element's bus messages: one "vif" element message per scored frame and distorted pad,
// one "vif-summary" per distorted pad at the end (pooled over its frames). Field names are
// libvmaf's keys for the variant and options in use (integer_vif_scale0, vif_scale2_egl_1, ...).
#pragma once

#include <gst/gst.h>

#include <array>
#include <string>
#include <vector>

#include "scoring.hpp"

namespace gstvif {

// The libvmaf keys of the four scales and the combined score for contexts()[i].
struct MetricNames {
    std::array<std::array<std::string, 5>, 2> keys; // [variant][scale0..3, combined]
    size_t variants = 0;
    void build(const Scorer &scorer);
};

// The "vif" structure of one frame (owned by the caller / the message).
GstStructure *frame_structure(const MetricNames &names, const FrameResult &r, const char *pad_name);

// Every frame's values of one distorted pad, pooled at the end.
class PadPool {
public:
    void add(const FrameResult &r, size_t variants);
    size_t frames() const { return frames_; }
    // The "vif-summary" structure: pad, frames, and for each key a structure with mean,
    // harmonic_mean, min and max (libvmaf's pooled metrics). NULL when no frame was scored.
    GstStructure *summary(const MetricNames &names, const char *pad_name) const;
    // Every frame's full scores, for the result file.
    const std::vector<VifScores> &scores(size_t variant) const { return all_[variant]; }

private:
    std::array<std::vector<VifScores>, 2> all_;
    size_t frames_ = 0;
};

} // namespace gstvif
