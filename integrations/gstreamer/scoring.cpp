#include "scoring.hpp"

#include <utility>

namespace gstvif {

bool Scorer::open(const ScoringSettings &s, uint32_t width, uint32_t height, uint32_t bitdepth,
                  size_t rungs) {
    close();
    const VifVariant kinds[2] = {VIF_VARIANT_INTEGER, VIF_VARIANT_FLOAT};
    size_t first = s.variant == Variant::kFloat ? 1 : 0;
    size_t n = s.variant == Variant::kBoth ? 2 : 1;
    for (size_t i = 0; i < n; ++i) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = width;
        cfg.max_height = height;
        cfg.bitdepth = bitdepth;
        cfg.variant = kinds[first + i];
        cfg.backend = s.backend;
        cfg.cuda_device = s.device;
        cfg.threads = s.threads;
        cfg.enhn_gain_limit = s.enhn_gain_limit;
        // libvif takes a kernel scale for the float variant only; the integer one keeps 1.
        cfg.kernelscale = cfg.variant == VIF_VARIANT_FLOAT ? s.kernelscale : 1.0;
        // A CUDA context counts each rung of a ladder as one queue place.
        if (rungs > 1) cfg.queue_depth = static_cast<uint32_t>(rungs * 2);
        VifContext *ctx = nullptr;
        const VifStatus st = vif_create(&ctx, &cfg);
        if (st != VIF_OK) {
            error_ = std::string("cannot create the libvif context: ") + vif_last_error();
            close();
            return false;
        }
        ctx_[i] = ctx;
        cfg_[i] = cfg;
        count_ = i + 1;
    }
    return true;
}

void Scorer::close() {
    for (size_t i = 0; i < count_; ++i) vif_destroy(ctx_[i]);
    ctx_ = {};
    count_ = 0;
    for (auto &r : pending_)
        if (r.tag.release) r.tag.release();
    pending_.clear();
}

bool Scorer::fail(const char *what, VifStatus st) {
    error_ = std::string(what) + ": " + vif_status_string(st) + ": " + vif_last_error();
    return false;
}

bool Scorer::finish_head(bool block, const Sink &sink, bool *done) {
    *done = false;
    FrameResult &head = pending_.front();
    for (size_t i = 0; i < count_; ++i) {
        if (head.have[i]) continue;
        const VifStatus st = vif_receive(ctx_[i], &head.scores[i], block ? 1 : 0);
        if (st == VIF_AGAIN) return true;
        if (st != VIF_OK) return fail("scoring failed", st);
        head.have[i] = true;
    }
    FrameResult r = std::move(head);
    pending_.pop_front();
    if (r.tag.release) r.tag.release();
    r.tag.release = nullptr;
    sink(r);
    *done = true;
    return true;
}

bool Scorer::drain(bool block, const Sink &sink) {
    while (!pending_.empty()) {
        bool done = false;
        if (!finish_head(block, sink, &done)) return false;
        if (!done) break;
    }
    return true;
}

bool Scorer::submit_each(const std::function<VifStatus(VifContext *)> &submit,
                         std::vector<FrameTag> tags, const Sink &sink) {
    // On failure the frames' held resources go back at once (they will never be scored).
    auto give_up = [&tags]() {
        for (auto &t : tags)
            if (t.release) t.release();
        return false;
    };
    for (size_t i = 0; i < count_; ++i) {
        for (;;) {
            const VifStatus st = submit(ctx_[i]);
            if (st == VIF_OK) break;
            if (st != VIF_AGAIN) return fail("cannot queue the frame", st) || give_up();
            // The queue is full: the oldest frame's scores free a place (queue rule, vif.h).
            bool done = false;
            if (pending_.empty())
                return fail("the queue is full with nothing pending", st) || give_up();
            if (!finish_head(true, sink, &done)) return give_up();
        }
    }
    for (auto &t : tags) {
        FrameResult r;
        r.tag = std::move(t);
        pending_.push_back(std::move(r));
    }
    return drain(false, sink);
}

bool Scorer::submit_host(const VifPicture &ref, const std::vector<const VifPicture *> &dists,
                         std::vector<FrameTag> tags, const Sink &sink) {
    if (dists.size() == 1)
        return submit_each([&](VifContext *c) { return vif_submit(c, &ref, dists[0], nullptr); },
                           std::move(tags), sink);
    return submit_each(
        [&](VifContext *c) {
            return vif_submit_multi(c, &ref, dists.data(), dists.size(), nullptr);
        },
        std::move(tags), sink);
}

} // namespace gstvif
