// Scoring a reference group: one reference input against every rung (distorted input) that
// shares it, the reference decoded once and each source frame scored against all rungs in one
// vif_submit_multi call. Rungs of another size are upscaled to the reference size first
// (media/luma_scaler.hpp, FFmpeg's scale filter bit for bit). Used by `vif -r SRC -d R1 -d R2
// -o DIR` (one group) and by `vif batch` (every group of a manifest).
//
// A rung that cannot be scored (missing file, other bit depth, a read error) fails alone: its
// summary row says why and the other rungs go on. Each rung's output is written atomically
// (DIR/<stem>.<ext>); a rung the caller marks as reused (resume, batch/progress_log.hpp) is not
// read at all.
#ifndef VIF_TOOLS_LADDER_RUN_HPP
#define VIF_TOOLS_LADDER_RUN_HPP

#include <vif/vif.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frame_source.hpp"
#include "luma_scaler.hpp"
#include "batch/manifest.hpp"
#include "batch/open_priority.hpp"
#include "batch/session_turns.hpp"
#include "commands/context_cache.hpp"
#include "batch/summary.hpp"
#include "options.hpp"

namespace vifcli {

/** A group's inputs being opened ahead of its scoring (demuxers, stream probes and, for a row
 *  decoded by NVDEC, its decoders' sessions: tenths of a second a row, NVDEC sessions being
 *  made one at a time for the whole host). Destroying it waits for the opens under way. */
struct OpenedAhead;
struct OpenedAheadDeleter {
    void operator()(OpenedAhead *o) const;
};
using OpenedAheadPtr = std::unique_ptr<OpenedAhead, OpenedAheadDeleter>;

struct LadderSettings {
    std::string out_dir;
    Format format = Format::kJson;
    int precision = kPrecisionLibvmaf;
    VariantSpec variant;
    VifBackend backend = VIF_BACKEND_AUTO;
    int cuda_device = 0;
    uint32_t threads = 0; ///< CPU worker threads of the context (0: one per core)
    vifcli::ScalerKernel scaler = vifcli::ScalerKernel::kBicubic;
    bool resume = true; ///< reuse rows whose output the progress log vouches for
    bool verbose = false;
    /// Raw inputs read with pread into buffers instead of mapped (`vif batch --no-mmap`).
    bool no_mmap = false;
    /// libavcodec threads per encoded input, 0 = one per core (FFmpeg's choice); -1 (run_groups
    /// only): the cores shared among the inputs its workers decode at once.
    int decoder_threads = 0;
    /// libavcodec threads of a group's reference on the host path, where it is decoded once
    /// for several rungs (the group's longest decoding); -1: decoder_threads.
    int reference_decoder_threads = -1;
    /// A group of one rung whose inputs NVDEC decodes, on CUDA: decoded and scored on the GPU
    /// (`vif batch --hwdec auto`, its default); false: every input decoded on the host.
    bool hwdec = false;
    /// With hwdec: NVDEC whatever the clip's length (`vif batch --hwdec cuda`; auto decodes a
    /// short clip on the host, done before NVDEC would have started).
    bool hwdec_always = false;
    std::string manifest_id; ///< the run's identity (vif::batch::manifest_identity), every row
    /** --map: map.dir is the root; each scored pair's maps go to map.dir/<stem>/ (MapWriter). */
    MapOptions map;
    /// Test hook (VIF_TEST_FAIL_DEVICE, group_runner.hpp): the device fails, as a lost GPU
    /// would, once the group's first frame is submitted.
    bool simulate_device_failure = false;
    /// NVDEC decoders per input of the device path, 0: media/'s default (hw_decode.hpp). A
    /// batch with several rows on a GPU at once gives each fewer: the rows keep its engines busy.
    unsigned nvdec_decoders = 0;
    /// Where the group's scoring context comes from: kept by the caller across groups (a
    /// worker's, context_cache.hpp) or, when null, made for the group and destroyed after it.
    ScoringContextCache *contexts = nullptr;
    /// When set, where the group's time went is added to it (`vif batch --timings`).
    GroupTimes *times = nullptr;
    /// run_groups: print where the run's time went, per device (`vif batch --timings`).
    bool timings = false;
    /// run_groups: its `workers` is default_workers' choice (--workers not given): when the
    /// device plan leaves devices out, the running ones get the workers as many GPUs get.
    bool workers_default = false;
    /// The group's inputs, opened ahead by open_ahead (with the same rungs and settings) while
    /// the group before was scored; null: opened by score_group.
    OpenedAhead *opened = nullptr;
    /// NVDEC rows opened ahead wait while rows to be scored now are opening (run_groups'), where
    /// the sessions take no turns.
    vif::batch::OpenPriority *open_priority = nullptr;
    /// NVDEC rows take turns to make their sessions, the devices interleaved (run_groups', on
    /// several devices; null: no turns). A turn covers the making of a session only.
    vif::batch::SessionTurns *session_turns = nullptr;
    /// A worker of the host's share beside NVDEC (run_groups): groups NVDEC would decode are
    /// decoded on the host instead.
    bool decode_on_host = false;
    /// Called once (from score_group's thread) when the group's inputs are open and its
    /// decoding begins: the moment a caller may start opening its next group's (open_ahead),
    /// off this group's critical path and not in the way of its opening.
    std::function<void()> inputs_open;
};

/** The device (not an input) failed while scoring a group: a lost or broken GPU. The group's
 *  rows that were not reported are to be scored elsewhere (group_runner.hpp). */
struct DeviceFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/** One rung to score: its manifest row and the output name (batch/outputs.hpp); `reused`
 *  holds the earlier run's summary line when the rung's output is taken as it is (resume). */
struct RungJob {
    vif::batch::ManifestRow row;
    std::string stem;
    std::optional<vif::batch::SummaryRow> reused;
};

/** Whether `path` names raw video (.yuv, .raw): the row's raw parameters apply to it. */
bool raw_name(const std::string &path);

/** How a row's input is opened: `path` with the row's raw-video parameters where it is raw;
 *  `allow_mapping` false: files read with pread, never mapped (--no-mmap). */
SourceRequest request(const std::string &path, const std::string &label,
                      const vif::batch::ManifestRow &row, int decoder_threads,
                      bool allow_mapping = true);

/** Starts opening the inputs of `rungs` (those not reused) on threads of their own, as
 *  score_group with `settings` would open them; score_group takes them through
 *  settings.opened. Never throws for an input: its failure comes out of score_group. */
OpenedAheadPtr open_ahead(const std::vector<RungJob> &rungs, const LadderSettings &settings);

/** Extension of the per-rung output files for a format: "json", "csv" or "xml". */
const char *format_extension(Format f);

/**
 * Scores every rung of one reference group and writes their outputs. Returns one summary row
 * per rung, in the order given (never throws for a problem with an input: that becomes a failed
 * row). `done` (if set) is called once per rung with its final summary row, from this thread,
 * after the rung's output is written.
 * Throws DeviceFailure when the CUDA device fails (context creation, a CUDA error while
 * scoring): `done` was then called only for the rungs that failed on their own inputs (or were
 * reused) before it, none for a rung that scored.
 */
std::vector<vif::batch::SummaryRow>
score_group(const std::vector<RungJob> &rungs, const LadderSettings &settings,
            const std::function<void(const vif::batch::SummaryRow &)> &done);

} // namespace vifcli

#endif
