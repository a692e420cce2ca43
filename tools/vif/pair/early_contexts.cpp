// See early_contexts.hpp.
#include "pair/early_contexts.hpp"

#if defined(VIF_WITH_FFMPEG)
#include "decode_choice.hpp"
#include "hw_decode.hpp"
#endif

namespace vifcli {

namespace {
// Frames up to this many luma samples (1080p and a little more) are made early.
constexpr uint64_t kMaxEarlyPixels = 2304ull * 1296;
} // namespace

void EarlyContexts::start(const Options &o, const PairRequests &rq) {
#if defined(VIF_WITH_FFMPEG)
    if (o.read_only || o.check_parity || o.map.enabled() || o.backend != VIF_BACKEND_CPU) return;
    thread_ = std::thread([this, o, ref = rq.ref, dist = rq.dist] {
        try {
            if (!encoded_input(ref) || !encoded_input(dist)) return;
            const std::optional<ClipShape> s = probe_clip_shape(ref.path);
            if (!s || !s->bitdepth || !s->width || !s->height ||
                uint64_t(s->width) * s->height > kMaxEarlyPixels)
                return;
            VideoInfo vi;
            vi.width = s->width;
            vi.height = s->height;
            vi.bitdepth = s->bitdepth;
            // FFmpeg sources give no frame count (VideoInfo::frames), so the run's is unknown.
            Variants v = make_variants(o, vi, std::nullopt);
            for (auto &x : v) x->primary.create(x->cfg, VIF_BACKEND_CPU);
            made_ = std::move(v);
        } catch (...) {
            made_.clear(); // the run makes them itself, and reports what fails
        }
    });
#else
    (void)o, (void)rq;
#endif
}

void EarlyContexts::start_cuda(const Options &o, const SourceRequest &ref) {
#if defined(VIF_WITH_FFMPEG)
    if (o.read_only || o.check_parity || o.map.enabled() || thread_.joinable()) return;
    thread_ = std::thread([this, o, ref] {
        try {
            const std::optional<ClipShape> s = probe_clip_shape(ref.path);
            if (!s || !s->bitdepth || !s->width || !s->height || s->width > 4096 ||
                s->height > 2304)
                return;
            VideoInfo vi;
            vi.width = s->width;
            vi.height = s->height;
            vi.bitdepth = s->bitdepth;
            Variants v = make_variants(o, vi, std::nullopt); // as score_on_device makes them
            for (auto &x : v) x->primary.create(x->cfg, VIF_BACKEND_CUDA);
            made_ = std::move(v);
        } catch (...) {
            made_.clear();
        }
    });
#else
    (void)o, (void)ref;
#endif
}

bool EarlyContexts::take(Variants *variants) {
    if (thread_.joinable()) thread_.join();
    if (made_.size() != variants->size()) return false;
    for (size_t i = 0; i < made_.size(); ++i) {
        const VifConfig &a = made_[i]->cfg, &b = (*variants)[i]->cfg;
        if (a.max_width != b.max_width || a.max_height != b.max_height ||
            a.bitdepth != b.bitdepth || a.threads != b.threads || a.maps != b.maps ||
            a.variant != b.variant || a.queue_depth != b.queue_depth ||
            a.enhn_gain_limit != b.enhn_gain_limit || a.kernelscale != b.kernelscale ||
            !made_[i]->primary.ctx)
            return false;
    }
    for (size_t i = 0; i < made_.size(); ++i) {
        Scorer &to = (*variants)[i]->primary, &from = made_[i]->primary;
        to.ctx = from.ctx;
        to.backend = from.backend;
        from.ctx = nullptr;
    }
    made_.clear();
    return true;
}

EarlyContexts::~EarlyContexts() {
    if (thread_.joinable()) thread_.join();
}

} // namespace vifcli
