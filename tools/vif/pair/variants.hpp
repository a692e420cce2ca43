// The scoring contexts of a pair run: one VariantRun per VIF variant asked for (--feature, one or
// both), each with the contexts it may need: the backend asked for, the CUDA one beside it for
// --check-parity, and the CUDA one that takes over from the CPU with --backend auto.
#ifndef VIF_TOOLS_PAIR_VARIANTS_HPP
#define VIF_TOOLS_PAIR_VARIANTS_HPP

#include "frame_source.hpp"
#include "options.hpp"

#include <vif/vif.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vifcli {

class MapWriter;
class WorstPictures;

/** One scoring context and the scores it returned, in frame order. Throws Failure. */
struct Scorer {
    VifContext *ctx = nullptr;
    std::string backend;
    std::vector<VifScores> scores;
    MapWriter *maps = nullptr;      ///< --map: every received frame's maps go here (cfg.maps set)
    WorstPictures *worst = nullptr; ///< --map-frames worst:N: every pair is shown to it
    Scorer() = default;
    Scorer(const Scorer &) = delete;
    Scorer &operator=(const Scorer &) = delete;
    ~Scorer() { vif_destroy(ctx); }

    void create(VifConfig cfg, VifBackend b);
    /** Submits a pair; when the queue is full, takes the oldest scores first. */
    void submit(const VifPicture &ref, const VifPicture &dist);
    /** Takes the scores that are ready (all of them, waiting, with `block`). */
    void drain(bool block);

private:
    /** vif_receive, or vif_receive_maps handing the maps to `maps`. */
    VifStatus receive(VifScores *s, int block);
};

/** One VIF variant being scored: its configuration and its contexts. */
struct VariantRun {
    VifConfig cfg;
    Scorer primary;   ///< the backend asked for (or the CPU until the hand-over)
    Scorer secondary; ///< --check-parity: the cuda backend
    Scorer gpu;       ///< --backend auto: the GPU, once CUDA has started
};

using Variants = std::vector<std::unique_ptr<VariantRun>>;

/** The variants asked for, configured for frames like `ri`; no context created yet. */
Variants make_variants(const Options &o, const VideoInfo &ri, std::optional<uint64_t> expected);

/** Throws a Failure (an internal error) unless every variant has `submitted` primary scores. */
void check_all_scored(const Variants &variants, uint64_t submitted);

} // namespace vifcli

#endif
