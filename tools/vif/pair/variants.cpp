#include "pair/variants.hpp"

#include "maps/map_writer.hpp"
#include "maps/worst_pictures.hpp"
#include "pair/failure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace vifcli {

void Scorer::create(VifConfig cfg, VifBackend b) {
    // The CLI makes its own start-up choices (media/decode_choice, the hand-over of
    // host_scoring.cpp, measured on the GPU): `auto` is settled here, not by the library's
    // hand-over backend.
    if (b == VIF_BACKEND_AUTO) b = vif_cuda_available() ? VIF_BACKEND_CUDA : VIF_BACKEND_CPU;
    cfg.backend = b;
    VifStatus st = vif_create(&ctx, &cfg);
    if (st == VIF_ERROR_NO_DEVICE) throw Failure{vif_error("backend cuda: no usable GPU", st)};
    if (st != VIF_OK) throw Failure{vif_error("cannot create the VIF context", st)};
    backend = vif_backend_name(ctx);
}

VifStatus Scorer::receive(VifScores *s, int block) {
    if (worst) {
        const VifStatus st = vif_receive(ctx, s, block);
        if (st == VIF_OK) worst->scored(*s);
        return st;
    }
    if (!maps) return vif_receive(ctx, s, block);
    VifMaps m;
    const VifStatus st = vif_receive_maps(ctx, s, &m, block);
    if (st == VIF_OK) maps->take(*s, m);
    return st;
}

void Scorer::submit(const VifPicture &ref, const VifPicture &dist) {
    if (worst) worst->submitted(ref, dist);
    for (;;) {
        VifStatus st = vif_submit(ctx, &ref, &dist, nullptr);
        if (st == VIF_OK) return;
        if (st != VIF_AGAIN) throw Failure{vif_error("scoring failed", st)};
        // The queue is full of scores waiting for us: take the oldest, then retry.
        VifScores s;
        st = receive(&s, 1);
        if (st != VIF_OK) throw Failure{vif_error("scoring failed", st)};
        scores.push_back(s);
    }
}

void Scorer::drain(bool block) {
    for (;;) {
        VifScores s;
        VifStatus st = receive(&s, block ? 1 : 0);
        if (st == VIF_AGAIN) return;
        if (st != VIF_OK) throw Failure{vif_error("scoring failed", st)};
        scores.push_back(s);
    }
}

Variants make_variants(const Options &o, const VideoInfo &ri, std::optional<uint64_t> expected) {
    Variants variants;
    for (const VariantSpec &spec : o.variants) {
        auto v = std::make_unique<VariantRun>();
        vif_default_config(&v->cfg);
        apply_variant(spec, &v->cfg);
        v->cfg.threads = o.threads;
        // No more CPU workers (each with frame-sized scratch) than there are frames to score.
        if (v->cfg.threads == 0 && expected)
            v->cfg.threads = uint32_t(std::clamp<uint64_t>(
                *expected, 1, std::max(1u, std::thread::hardware_concurrency())));
        v->cfg.max_width = ri.width;
        v->cfg.max_height = ri.height;
        v->cfg.bitdepth = ri.bitdepth;
        // worst:N: the clip is scored without maps, the N worst frames again with them at the
        // end (WorstPictures).
        v->cfg.maps = o.map.enabled() && o.map.frames != MapOptions::Frames::kWorst ? 1 : 0;
        variants.push_back(std::move(v));
    }
    return variants;
}

void check_all_scored(const Variants &variants, uint64_t submitted) {
    for (const auto &v : variants)
        if (v->primary.scores.size() != submitted)
            throw Failure{fmt::format("internal error: {} frames submitted, {} scored", submitted,
                                      v->primary.scores.size())};
}

} // namespace vifcli
