// The libvif side of the element: one VifContext per variant (integer, float, or both), frames
// queued as pairs or as a ladder (vif_submit_multi), and the scores handed back in submission
// order with the tag of the frame they belong to. No GStreamer types beyond plain timestamps.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "vif/vif.h"

namespace gstvif {

enum class Variant { kInteger = 0, kFloat = 1, kBoth = 2 };

struct ScoringSettings {
    Variant variant = Variant::kInteger;
    VifBackend backend = VIF_BACKEND_AUTO;
    int device = 0;
    uint32_t threads = 0;
    double enhn_gain_limit = 100.0;
    double kernelscale = 1.0;
};

// What a score belongs to: the distorted pad, the frame's index on that pad, its times.
struct FrameTag {
    unsigned pad = 0; // index into the element's distorted pads (0 = sink_1)
    uint64_t frame = 0;
    uint64_t pts = 0, stream_time = 0, running_time = 0, duration = 0; // GstClockTime values
    std::function<void()> release;                                     // called once scored
};

struct FrameResult {
    FrameTag tag;
    std::array<VifScores, 2> scores{}; // [i] for contexts()[i]
    std::array<bool, 2> have{};
};

class Scorer {
public:
    using Sink = std::function<void(FrameResult &)>;

    Scorer() = default;
    ~Scorer() { close(); }
    Scorer(const Scorer &) = delete;
    Scorer &operator=(const Scorer &) = delete;

    // Creates the contexts for frames of this size and depth. `rungs`: distorted pads (so that a
    // CUDA context's queue holds a whole ladder). False with error() on failure.
    bool open(const ScoringSettings &s, uint32_t width, uint32_t height, uint32_t bitdepth,
              size_t rungs);
    bool is_open() const { return count_ > 0; }
    void close();

    size_t variants() const { return count_; }
    const VifConfig &config(size_t i) const { return cfg_[i]; }
    const char *backend_name() const { return count_ ? vif_backend_name(ctx_[0]) : ""; }
    VifContext *context(size_t i) const { return ctx_[i]; }

    // Host pictures: one reference against dists.size() distorted pictures (a pair or a
    // ladder), tags[k] for dists[k]. Scores that become ready go to `sink`.
    bool submit_host(const VifPicture &ref, const std::vector<const VifPicture *> &dists,
                     std::vector<FrameTag> tags, const Sink &sink);
    // Any submission through `submit` (called per context, returns its status), with retries
    // while the queue is full.
    bool submit_each(const std::function<VifStatus(VifContext *)> &submit,
                     std::vector<FrameTag> tags, const Sink &sink);

    // Hands over every score that is ready (block: waits for all pending ones).
    bool drain(bool block, const Sink &sink);

    const std::string &error() const { return error_; }

private:
    bool fail(const char *what, VifStatus st);
    bool finish_head(bool block, const Sink &sink, bool *done);

    std::array<VifContext *, 2> ctx_{};
    std::array<VifConfig, 2> cfg_{};
    size_t count_ = 0;
    std::deque<FrameResult> pending_;
    std::string error_;
};

} // namespace gstvif
