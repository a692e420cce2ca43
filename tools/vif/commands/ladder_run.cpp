#include "commands/ladder_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "batch/outputs.hpp"
#include "frame_source.hpp"
#if defined(VIF_WITH_NVDEC)
#include <cuda_runtime_api.h>

#include "device_pairs.hpp"
#include "hw_decode.hpp"
#endif
#include "maps/map_contexts.hpp"
#include "maps/map_writer.hpp"
#include "maps/worst_pictures.hpp"
#include "pair/failure.hpp"
#include "prefetch.hpp"
#include "report.hpp"

namespace vifcli {

using vif::batch::SummaryRow;

const char *format_extension(Format f) {
    switch (f) {
    case Format::kCsv:
        return "csv";
    case Format::kXml:
        return "xml";
    case Format::kJson:
        break;
    }
    return "json";
}

// The row's raw-video parameters apply to raw inputs (.yuv, .raw): a self-describing rung of
// another size (an encode) must not be held to the reference's raw size.
bool raw_name(const std::string &path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    return ext == ".yuv" || ext == ".raw" || ext == ".YUV" || ext == ".RAW";
}

SourceRequest request(const std::string &path, const std::string &label,
                      const vif::batch::ManifestRow &row, int decoder_threads, bool allow_mapping) {
    SourceRequest q;
    q.path = path;
    q.label = label;
    q.decoder_threads = decoder_threads;
    q.allow_mapping = allow_mapping;
    if (!raw_name(path)) return q;
    q.width = row.width;
    q.height = row.height;
    q.bitdepth = row.bitdepth;
    q.pixel_format = row.pixel_format;
    return q;
}

#if defined(VIF_WITH_NVDEC)
// A group scored on CUDA may be decoded by the NVDEC engines of its GPU (the device paths of
// score_group: a row of its own, or a reference and its rungs of the reference's size).
static bool device_path_wanted(size_t todo, const LadderSettings &s) {
    return todo >= 1 && s.hwdec && !s.decode_on_host && s.backend == VIF_BACKEND_CUDA &&
           !s.map.enabled() && !s.simulate_device_failure;
}
#endif

// The reference's decoder threads on the host path: its own count where it serves several
// rungs (decoded once for all of them, it is the group's longest decoding).
static int reference_threads(const LadderSettings &s, size_t rungs) {
    return rungs > 1 && s.reference_decoder_threads >= 0 ? s.reference_decoder_threads
                                                         : s.decoder_threads;
}

// An input opened on a thread of its own (an open reads and probes the stream: tens of
// milliseconds each); where no thread is to be had, opened when taken.
static std::future<std::unique_ptr<FrameSource>> open_soon(SourceRequest q) {
    auto open = [q] { return open_frame_source(q); };
    try {
        return std::async(std::launch::async, open);
    } catch (const std::system_error &) {
        return std::async(std::launch::deferred, open);
    }
}

#if defined(VIF_WITH_NVDEC)
// (`ahead`: for a row opened ahead, whose sessions' turns come after those of rows to be
// scored now.)
static HwDecodeRequest hw_request(const LadderSettings &s, bool ahead) {
    HwDecodeRequest hr;
    if (s.session_turns) hr.session_turn = s.session_turns->gate(s.cuda_device, ahead);
    hr.mode = s.hwdec_always ? HwDecode::kCuda : HwDecode::kAuto;
    hr.cuda_device = s.cuda_device;
    hr.decoders = s.nvdec_decoders;
    hr.verbose = s.verbose;
    hr.gpu_ready = [device = s.cuda_device](std::string *why) {
        if (vif_cuda_prepare(device) == VIF_OK) return true;
        *why = vif_last_error();
        return false;
    };
    return hr;
}

// A ladder's inputs for open_nvdec_group: its reference, and the rungs to score in order.
static SourceRequest group_reference(const std::vector<RungJob> &jobs, const LadderSettings &s) {
    const vif::batch::ManifestRow &first = jobs.front().row;
    return request(first.reference, "reference", first, s.decoder_threads, !s.no_mmap);
}
static std::vector<SourceRequest> group_rungs(const std::vector<RungJob> &jobs,
                                              const LadderSettings &s) {
    std::vector<SourceRequest> out;
    for (const RungJob &j : jobs)
        if (!j.reused)
            out.push_back(
                request(j.row.distorted, "distorted", j.row, s.decoder_threads, !s.no_mmap));
    return out;
}

// An NVDEC-decoded input of the device paths (`name`: "reference 'a.mp4'").
static DeviceInput decoder_input(SegmentDecoder *d, std::string name) {
    DeviceInput in;
    in.decoder = d;
    in.info.width = d->width();
    in.info.height = d->height();
    in.info.bitdepth = d->bitdepth();
    in.info.format = d->description();
    in.name = std::move(name);
    return in;
}

// The device paths' scoring context: the settings' variant on their CUDA device, for frames
// of the reference's size and depth.
static VifConfig device_config(const LadderSettings &s, const VideoInfo &ri) {
    VifConfig cfg;
    vif_default_config(&cfg);
    apply_variant(s.variant, &cfg);
    cfg.backend = VIF_BACKEND_CUDA;
    cfg.cuda_device = s.cuda_device;
    cfg.max_width = ri.width;
    cfg.max_height = ri.height;
    cfg.bitdepth = ri.bitdepth;
    return cfg;
}
#endif

#if defined(VIF_WITH_NVDEC)
// A group of several rungs opened ahead: on NVDEC, or (the group goes the host path) its host
// sources being opened.
struct AheadGroup {
    std::optional<NvdecGroup> nvdec;
    std::future<std::unique_ptr<FrameSource>> ref;
    std::vector<std::future<std::unique_ptr<FrameSource>>> rungs; ///< by rung (invalid: reused)
};
#endif

struct OpenedAhead {
#if defined(VIF_WITH_NVDEC)
    std::future<std::optional<HwDecodeInputs>> hw; ///< a row's device path (valid when tried)
    std::future<AheadGroup> group;                 ///< a ladder's (valid when tried)
#endif
    std::future<std::unique_ptr<FrameSource>> ref;                ///< the host path's
    std::vector<std::future<std::unique_ptr<FrameSource>>> rungs; ///< by rung (invalid: reused)
};

void OpenedAheadDeleter::operator()(OpenedAhead *o) const {
    delete o;
}

OpenedAheadPtr open_ahead(const std::vector<RungJob> &jobs, const LadderSettings &s) {
    OpenedAheadPtr o(new OpenedAhead);
    size_t todo = 0;
    for (const RungJob &j : jobs) todo += !j.reused;
    if (todo == 0) return o;
#if defined(VIF_WITH_NVDEC)
    if (device_path_wanted(todo, s) && todo > 1) {
        const HwDecodeRequest hr = hw_request(s, /*ahead=*/true);
        vif::batch::OpenPriority *priority = hr.session_turn ? nullptr : s.open_priority;
        // (The host path's requests too: where the group goes that way, its opens start here.)
        const vif::batch::ManifestRow &first = jobs.front().row;
        const SourceRequest host_ref =
            request(first.reference, "reference", first, reference_threads(s, todo), !s.no_mmap);
        std::vector<std::optional<SourceRequest>> host_rungs(jobs.size());
        for (size_t i = 0; i < jobs.size(); ++i)
            if (!jobs[i].reused)
                host_rungs[i] = request(jobs[i].row.distorted, "distorted", jobs[i].row,
                                        s.decoder_threads, !s.no_mmap);
        auto open = [hr, priority, ref = group_reference(jobs, s), host_ref, host_rungs] {
            AheadGroup g;
            try {
                if (priority) priority->wait_for_urgent(); // rows to be scored now go first
                std::vector<SourceRequest> rungs; // (the rungs to score, in order: group_rungs)
                for (const auto &r : host_rungs)
                    if (r) rungs.push_back(*r);
                g.nvdec = open_nvdec_group(hr, ref, rungs);
            } catch (...) {
                g.nvdec.reset();
            }
            if (!g.nvdec) {
                g.ref = open_soon(host_ref);
                g.rungs.resize(host_rungs.size());
                for (size_t i = 0; i < host_rungs.size(); ++i)
                    if (host_rungs[i]) g.rungs[i] = open_soon(*host_rungs[i]);
            }
            return g;
        };
        try {
            o->group = std::async(std::launch::async, open);
        } catch (const std::system_error &) {
            // no thread: score_group opens them
        }
        return o;
    }
    if (device_path_wanted(todo, s) && todo == 1) {
        const RungJob &j =
            *std::find_if(jobs.begin(), jobs.end(), [](const RungJob &x) { return !x.reused; });
        const HwDecodeRequest hr = hw_request(s, /*ahead=*/true);
        const SourceRequest a =
            request(j.row.reference, "reference", j.row, s.decoder_threads, !s.no_mmap);
        const SourceRequest b =
            request(j.row.distorted, "distorted", j.row, s.decoder_threads, !s.no_mmap);
        // (Where the sessions' making takes turns, those put rows to be scored now first: nothing
        // else of the row's opening waits.)
        vif::batch::OpenPriority *priority = hr.session_turn ? nullptr : s.open_priority;
        try {
            o->hw = std::async(std::launch::async, [hr, a, b, priority] {
                if (priority) priority->wait_for_urgent(); // rows to be scored now go first
                return open_hw_decode(hr, a, b);
            });
        } catch (const std::system_error &) {
            // no thread: score_group opens them
        }
        return o;
    }
#endif
    const vif::batch::ManifestRow &first = jobs.front().row;
    o->ref = open_soon(
        request(first.reference, "reference", first, reference_threads(s, todo), !s.no_mmap));
    o->rungs.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i)
        if (!jobs[i].reused)
            o->rungs[i] = open_soon(request(jobs[i].row.distorted, "distorted", jobs[i].row,
                                            s.decoder_threads, !s.no_mmap));
    return o;
}

namespace {

struct Rung {
    RungJob job;
    SummaryRow summary;
    std::string path; // output file
    std::unique_ptr<FrameSource> src;
    std::unique_ptr<vifcli::LumaScaler> scaler;
    std::unique_ptr<Prefetcher> reader; // decodes ahead on a thread of its own
    bool active = false;
    bool reported = false; // `done` called for it
    std::string note;      // frame counts that differ, for the summary
    std::vector<VifScores> scores;
    std::unique_ptr<MapWriter> maps; // --map: this pair's maps, into map.dir/<stem>/
    // --map-frames worst:N: the pictures of its N worst frames so far, scored again with maps
    // after the last frame (as a pair's, tools/vif/maps/worst_pictures.hpp)
    std::unique_ptr<WorstPictures> worst;
};

void fail(Rung &r, const std::string &why) {
    r.active = false;
    r.summary.status = "failed";
    r.summary.error = why;
    r.summary.has_scores = false;
}

// A rung's note where its frame count and the reference's differ, the same whichever path
// decoded it (the summaries must not differ): `shorter` is the input that ended first, after
// `frames` pairs ("" none).
std::string short_note(const std::string &shorter, uint64_t frames) {
    if (shorter == "distorted")
        return fmt::format("the distorted has {} frames, fewer than the reference; scored those",
                           frames);
    if (shorter == "reference")
        return fmt::format("the distorted has more frames than the reference ({}); scored the {} "
                           "common ones",
                           frames, frames);
    return "";
}

double mean(const std::vector<double> &v) {
    double m = 0;
    if (!v.empty() && vif_pool(v.data(), v.size(), VIF_POOL_MEAN, 0, &m) != VIF_OK) m = 0;
    return m;
}

} // namespace

std::vector<SummaryRow> score_group(const std::vector<RungJob> &jobs, const LadderSettings &s,
                                    const std::function<void(const SummaryRow &)> &done) {
    using Clock = std::chrono::steady_clock;
    const auto started = Clock::now();
    GroupTimes unused_times;
    GroupTimes &times = s.times ? *s.times : unused_times;
    auto since = [](Clock::time_point t) {
        return std::chrono::duration<double>(Clock::now() - t).count();
    };
    // The whole group's time, however it ends.
    struct Total {
        GroupTimes &t;
        Clock::time_point from;
        ~Total() { t.total += std::chrono::duration<double>(Clock::now() - from).count(); }
    } total{times, started};
    std::vector<Rung> rungs(jobs.size());
    auto report = [&](Rung &r) {
        if (!r.reported && done) done(r.summary);
        r.reported = true;
    };
    const char *ext = format_extension(s.format);
    size_t todo = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        Rung &r = rungs[i];
        r.job = jobs[i];
        r.summary.row = jobs[i].row.row;
        r.summary.reference = jobs[i].row.reference;
        r.summary.distorted = jobs[i].row.distorted;
        r.summary.output = jobs[i].stem + "." + ext;
        r.path = (std::filesystem::path(s.out_dir) / r.summary.output).string();
        if (jobs[i].reused) {
            r.summary = *jobs[i].reused;
            report(r);
            continue;
        }
        r.active = true;
        ++todo;
    }
    auto finish_all = [&](const std::string &why) {
        for (Rung &r : rungs)
            if (r.active || r.summary.status.empty()) fail(r, why);
        for (Rung &r : rungs) report(r);
        std::vector<SummaryRow> out;
        for (Rung &r : rungs) out.push_back(r.summary);
        return out;
    };
    if (todo == 0) return finish_all("");
    // The caller learns once that the inputs are open (and may open its next group's).
    bool announced = false;
    auto announce_open = [&] {
        if (!announced && s.inputs_open) s.inputs_open();
        announced = true;
    };

    // --map-frames worst:N: the rungs are scored without maps, each rung's N worst frames again
    // with them after the last frame, on contexts made while the group is scored.
    const bool worst_maps = s.map.enabled() && s.map.frames == MapOptions::Frames::kWorst;
    std::optional<MapContexts> map_ctxs;

    // Writes every rung that scored (and reports every rung): the output file, then its summary.
    auto write_outputs = [&](VifContext *ctx, const VifConfig &cfg, const VideoInfo &ri,
                             uint64_t frames, double secs) {
        for (Rung &r : rungs) {
            if (!r.summary.status.empty()) {
                report(r);
                continue;
            }
            if (r.scores.empty()) {
                fail(r, "no frames to score");
                report(r);
                continue;
            }
            Report rep;
            rep.fps = secs > 0 ? double(frames) / secs : 0;
            rep.width = ri.width;
            rep.height = ri.height;
            rep.bitdepth = ri.bitdepth;
            rep.backend = vif_backend_name(ctx);
            rep.reference = r.job.row.reference;
            rep.distorted = r.job.row.distorted;
            if (add_variant_columns(rep, cfg, r.scores, VIF_METRIC_SCALE3 + 1) != VIF_OK) {
                fail(r, vif_last_error());
                report(r);
                continue;
            }
            for (int m = VIF_METRIC_SCALE0; m <= VIF_METRIC_SCALE3; ++m) {
                std::vector<double> column(r.scores.size());
                for (size_t i = 0; i < column.size(); ++i)
                    column[i] = vif_metric_value(&r.scores[i], VifMetric(m));
                r.summary.scale[size_t(m - VIF_METRIC_SCALE0)] = mean(column);
            }
            std::vector<double> combined(r.scores.size());
            for (size_t i = 0; i < combined.size(); ++i) {
                combined[i] = r.scores[i].combined;
                rep.frame_nums.push_back(i);
            }
            try {
                if (r.worst && r.maps) r.worst->write_maps(*map_ctxs, *r.maps);
                if (r.maps) r.maps->commit(); // before the output: a pair is complete or failed
                vif::batch::write_atomically(r.path, render(rep, s.format, s.precision));
            } catch (const Failure &f) {
                fail(r, f.message);
                r.maps.reset();
                report(r);
                continue;
            } catch (const std::exception &e) {
                fail(r, e.what());
                report(r);
                continue;
            }
            r.summary.status = "ok";
            r.summary.frames = r.scores.size();
            r.summary.width = ri.width;
            r.summary.height = ri.height;
            r.summary.has_scores = true;
            r.summary.vif = mean(combined);
            r.summary.error = r.note;
            if (!r.note.empty())
                std::fprintf(stderr, "vif: warning: row %zu (%s): %s\n", r.summary.row,
                             r.job.row.distorted.c_str(), r.note.c_str());
            report(r);
        }
        std::vector<SummaryRow> out;
        for (Rung &r : rungs) out.push_back(r.summary);
        return out;
    };

#if defined(VIF_WITH_NVDEC)
    // The device paths' scoring context, from the worker's cache: a device that cannot make one
    // (or is gone) is the device's failure, anything else the group's (null).
    auto device_context = [&](ContextLease &lease, const VifConfig &cfg) -> VifContext * {
        times.device_path = true;
        const auto getting = Clock::now();
        if (const VifStatus st = lease.open(cfg); st != VIF_OK) {
            if (st == VIF_ERROR_NO_DEVICE || st == VIF_ERROR_DEVICE)
                throw DeviceFailure(vif_last_error());
            return nullptr;
        }
        times.context += since(getting);
        return lease.get();
    };
    // A reference and its rungs, all encoded and of its size: the reference decoded once by
    // NVDEC for every rung, each frame scored against all of them by one submission. A group
    // this path does not take goes the host way below (the rungs of a ladder's smaller sizes
    // are upscaled there), with whatever was opened ahead for it.
    if (device_path_wanted(todo, s) && todo > 1) {
        std::vector<Rung *> going;
        for (Rung &r : rungs)
            if (r.active) going.push_back(&r);
        std::optional<NvdecGroup> g;
        std::optional<vif::batch::OpenPriority::Urgent> urgent;
        const auto opening = Clock::now();
        if (s.opened && s.opened->group.valid()) {
            AheadGroup ahead = s.opened->group.get();
            g = std::move(ahead.nvdec);
            if (!g) {
                s.opened->ref = std::move(ahead.ref);
                s.opened->rungs = std::move(ahead.rungs);
            }
        } else {
            if (s.open_priority) urgent.emplace(*s.open_priority);
            try {
                g = open_nvdec_group(hw_request(s, /*ahead=*/false), group_reference(jobs, s),
                                     group_rungs(jobs, s));
            } catch (...) {
                g.reset();
            }
        }
        times.open += since(opening);
        urgent.reset();
        if (g) {
            announce_open();
            DeviceInput a = decoder_input(
                g->ref.get(), fmt::format("reference '{}'", jobs.front().row.reference));
            std::vector<DeviceInput> b;
            std::vector<DeviceInput *> bp;
            b.reserve(going.size());
            for (size_t k = 0; k < going.size(); ++k) {
                b.push_back(
                    decoder_input(g->rungs.at(k).get(),
                                  fmt::format("distorted '{}'", going[k]->job.row.distorted)));
                bp.push_back(&b.back());
                going[k]->summary.source_width = b.back().info.width;
                going[k]->summary.source_height = b.back().info.height;
            }
            VifConfig cfg = device_config(s, a.info);
            cfg.threads = s.threads;
            // (as the host path's: room for two submissions of every rung)
            cfg.queue_depth = uint32_t(std::max<size_t>(4, 2 * rungs.size()));
            ContextLease lease(s.contexts);
            VifContext *ctx = device_context(lease, cfg);
            if (!ctx) return finish_all(vif_last_error());
            const auto t0 = Clock::now();
            DeviceGroupResult res;
            try {
                res = run_device_group(ctx, s.cuda_device, a, bp);
                lease.reusable = true; // every score set received
                for (size_t k = 0; k < going.size(); ++k) {
                    Rung &r = *going[k];
                    r.scores = std::move(res.scores[k]);
                    if (!res.error[k].empty()) {
                        fail(r, res.error[k]);
                        continue;
                    }
                    r.note = short_note(res.short_input[k], res.short_frames[k]);
                }
            } catch (const std::exception &e) {
                for (Rung *r : going)
                    if (r->summary.status.empty()) fail(*r, e.what());
            }
            const double secs = since(t0);
            times.decode_wait += res.input_wait_seconds;
            times.score_wait += std::max(0.0, secs - res.input_wait_seconds);
            times.frames += res.submitted;
            return write_outputs(ctx, cfg, a.info, res.submitted, secs);
        }
    }
    // One rung of two encoded inputs, scored on CUDA: both decoded by the NVDEC engines of the
    // scoring GPU and scored where they were decoded (no decoded frame crosses PCIe). Anything
    // this path does not take (raw input, sizes or depths that differ, an input NVDEC cannot
    // decode or that fails to open) goes the host way below, which says what is wrong.
    if (device_path_wanted(todo, s) && todo == 1) {
        Rung &r = *std::find_if(rungs.begin(), rungs.end(), [](const Rung &x) { return x.active; });
        std::optional<HwDecodeInputs> hw;
        // Rows opened ahead wait while this row opens (batch/open_priority.hpp).
        std::optional<vif::batch::OpenPriority::Urgent> urgent;
        const auto opening = Clock::now();
        try {
            if (s.opened && s.opened->hw.valid()) {
                hw = s.opened->hw.get();
            } else {
                if (s.open_priority) urgent.emplace(*s.open_priority);
                const HwDecodeRequest hr = hw_request(s, /*ahead=*/false);
                hw = open_hw_decode(hr,
                                    request(r.job.row.reference, "reference", r.job.row,
                                            s.decoder_threads, !s.no_mmap),
                                    request(r.job.row.distorted, "distorted", r.job.row,
                                            s.decoder_threads, !s.no_mmap));
            }
        } catch (...) {
            hw.reset();
        }
        times.open += since(opening);
        urgent.reset();
        if (hw) announce_open(); // (else the host path opens them: announced there)
        if (hw && hw->ref_decoder && hw->dist_decoder &&
            hw->ref_decoder->width() == hw->dist_decoder->width() &&
            hw->ref_decoder->height() == hw->dist_decoder->height() &&
            hw->ref_decoder->bitdepth() == hw->dist_decoder->bitdepth()) {
            DeviceInput a = decoder_input(hw->ref_decoder.get(),
                                          fmt::format("reference '{}'", r.job.row.reference));
            DeviceInput b = decoder_input(hw->dist_decoder.get(),
                                          fmt::format("distorted '{}'", r.job.row.distorted));
            r.summary.source_width = b.info.width;
            r.summary.source_height = b.info.height;
            const VifConfig cfg = device_config(s, a.info);
            ContextLease lease(s.contexts);
            VifContext *ctx = device_context(lease, cfg);
            if (!ctx) return finish_all(vif_last_error());
            if (hw->nvdec_joins_later) { // (a software start: the batch asks for none)
                hw->ref_decoder->join_nvdec();
                hw->dist_decoder->join_nvdec();
            }
            const auto t0 = std::chrono::steady_clock::now();
            DeviceRunResult res;
            try {
                res = run_device_pairs({ctx}, s.cuda_device, a, b, 1, UINT64_MAX, nullptr, nullptr);
                lease.reusable = true; // every frame received
                r.scores = std::move(res.scores.at(0));
                r.note = short_note(res.short_input, res.short_frames);
            } catch (const std::exception &e) {
                fail(r, e.what());
            }
            const double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            times.decode_wait += res.input_wait_seconds;
            times.score_wait += std::max(0.0, secs - res.input_wait_seconds);
            times.frames += res.submitted;
            return write_outputs(ctx, cfg, a.info, res.submitted, secs);
        }
    }
#endif

    const vif::batch::ManifestRow &first = jobs.front().row;
    const auto opening = Clock::now();
    // Every input of the group is opened at once (an open reads and probes the stream: tens of
    // milliseconds each, which one after the other would add up to a group's decoding time),
    // unless the caller opened them ahead; what was opened is then taken on this thread, in
    // order.
    OpenedAhead *pre = s.opened;
    std::future<std::unique_ptr<FrameSource>> ref_opening =
        pre && pre->ref.valid() ? std::move(pre->ref)
                                : open_soon(request(first.reference, "reference", first,
                                                    reference_threads(s, todo), !s.no_mmap));
    std::vector<std::future<std::unique_ptr<FrameSource>>> rung_opening(rungs.size());
    for (size_t i = 0; i < rungs.size(); ++i) {
        if (!rungs[i].active) continue;
        if (pre && i < pre->rungs.size() && pre->rungs[i].valid())
            rung_opening[i] = std::move(pre->rungs[i]);
        else
            rung_opening[i] = open_soon(request(rungs[i].job.row.distorted, "distorted",
                                                rungs[i].job.row, s.decoder_threads, !s.no_mmap));
    }
    std::unique_ptr<FrameSource> ref;
    try {
        ref = ref_opening.get();
    } catch (const std::exception &e) {
        return finish_all(e.what()); // (the rungs' opens are waited for by their futures)
    }
    const VideoInfo ri = ref->info();
    // Read-ahead per input: a few frames, about 16 MiB of buffers at most each.
    const size_t ahead =
        std::clamp<size_t>((16u << 20) / std::max<size_t>(ri.luma_bytes(), 1), 2, 8);

    for (size_t i = 0; i < rungs.size(); ++i) {
        Rung &r = rungs[i];
        if (!r.active) continue;
        try {
            r.src = rung_opening[i].get();
            const VideoInfo &di = r.src->info();
            r.summary.source_width = di.width;
            r.summary.source_height = di.height;
            if (di.bitdepth != ri.bitdepth)
                throw std::runtime_error(fmt::format("the reference is {}-bit but the distorted "
                                                     "is {}-bit",
                                                     ri.bitdepth, di.bitdepth));
            if (di.width != ri.width || di.height != ri.height) {
#if defined(VIF_MEDIA_HAVE_SCALER)
                if (di.picture_flags & VIF_PICTURE_MSB_ALIGNED)
                    throw std::runtime_error("MSB-aligned decoder output cannot be upscaled");
                r.scaler = std::make_unique<vifcli::LumaScaler>(di.width, di.height, ri.width,
                                                                ri.height, ri.bitdepth, s.scaler);
#else
                throw std::runtime_error(fmt::format(
                    "the distorted is {}x{}, the reference {}x{}: upscaling needs a build with "
                    "FFmpeg (libswscale)",
                    di.width, di.height, ri.width, ri.height));
#endif
            }
        } catch (const std::exception &e) {
            fail(r, e.what());
            report(r);
        }
    }
    times.open += since(opening);
    announce_open();

    // --map: a folder per pair under the root, made now so that a bad place fails before any
    // scoring; a pair whose folder cannot be made fails alone.
    if (s.map.enabled()) {
        std::error_code ec;
        std::filesystem::create_directories(s.map.dir, ec);
        for (Rung &r : rungs) {
            if (!r.active) continue;
            MapOptions m = s.map;
            m.dir = (std::filesystem::path(s.map.dir) / r.job.stem).string();
            try {
                r.maps = std::make_unique<MapWriter>(m);
                if (worst_maps) r.worst = std::make_unique<WorstPictures>(s.map.worst);
                const VideoInfo &di = r.src->info();
                r.maps->set_frame_rate(di.rate_num ? di.rate_num : ri.rate_num,
                                       di.rate_num ? di.rate_den : ri.rate_den);
            } catch (const Failure &f) {
                fail(r, f.message);
                report(r);
            }
        }
    }

    VifConfig cfg;
    vif_default_config(&cfg);
    apply_variant(s.variant, &cfg);
    cfg.maps = s.map.enabled() && !worst_maps ? 1 : 0;
    cfg.cuda_device = s.cuda_device;
    cfg.threads = s.threads;
    cfg.max_width = ri.width;
    cfg.max_height = ri.height;
    cfg.bitdepth = ri.bitdepth;
    // The CUDA backend gives each pair of a ladder a place of the queue (vif.h): room for two
    // source frames.
    // (On the CPU a call takes one place: the automatic depth is right there.)
    const bool cuda =
        s.backend == VIF_BACKEND_CUDA || (s.backend == VIF_BACKEND_AUTO && vif_cuda_available());
    // `auto` settled here, as the pair's (pair/variants.cpp), not by the library's hand-over.
    cfg.backend = cuda ? VIF_BACKEND_CUDA : VIF_BACKEND_CPU;
    if (cuda) cfg.queue_depth = uint32_t(std::max<size_t>(4, 2 * rungs.size()));
    // A device that cannot make a context (or is gone) is the device's failure, not the rows'.
    auto device_status = [&](VifStatus st) {
        return cuda && (st == VIF_ERROR_NO_DEVICE || st == VIF_ERROR_DEVICE ||
                        st == VIF_ERROR_INVALID_STATE);
    };
    auto device_failure = [&](const std::string &what) { return DeviceFailure(what); };

    // The readers start decoding before the context is made: its making (and a device's
    // start-up still going on) overlaps the first frames' decoding.
    Prefetcher ref_reader(*ref, fmt::format("reference '{}'", first.reference), ReadPlan{}, ahead);
    for (Rung &r : rungs)
        if (r.active)
            r.reader = std::make_unique<Prefetcher>(
                *r.src, fmt::format("distorted '{}'", r.job.row.distorted), ReadPlan{}, ahead);
    const auto getting = Clock::now();
    ContextLease lease(s.contexts);
    if (const VifStatus st = lease.open(cfg); st != VIF_OK) {
        if (device_status(st)) throw device_failure(vif_last_error());
        return finish_all(vif_last_error());
    }
    VifContext *ctx = lease.get();
    times.context += since(getting);
    if (worst_maps &&
        std::any_of(rungs.begin(), rungs.end(), [](const Rung &r) { return r.worst != nullptr; }))
        map_ctxs.emplace(
            cfg, std::string(vif_backend_name(ctx)) == "cuda" ? VIF_BACKEND_CUDA : VIF_BACKEND_CPU,
            s.map.worst, 0);

    // Which rung each submitted pair belongs to, in submission order (= receive order).
    std::deque<size_t> owners;
    auto receive = [&](bool block) {
        VifScores sc;
        VifStatus st;
        VifMaps maps;
        while (!owners.empty() &&
               (st = cfg.maps ? vif_receive_maps(ctx, &sc, &maps, block ? 1 : 0)
                              : vif_receive(ctx, &sc, block ? 1 : 0)) == VIF_OK) {
            Rung &r = rungs[owners.front()];
            if (r.worst) {
                try {
                    r.worst->scored(sc, r.scores.size());
                } catch (const Failure &f) {
                    fail(r, f.message);
                    r.worst.reset();
                    r.maps.reset();
                }
            } else if (r.maps) {
                try {
                    r.maps->take(sc, maps, r.scores.size());
                } catch (const Failure &f) {
                    fail(r, f.message); // its frames still come back; they are dropped
                    r.maps.reset();
                }
            }
            r.scores.push_back(sc);
            owners.pop_front();
        }
        if (!owners.empty() && st != VIF_AGAIN) {
            if (device_status(st)) throw device_failure(vif_last_error());
            throw std::runtime_error(fmt::format("scoring failed: {}", vif_last_error()));
        }
    };

    const auto t0 = std::chrono::steady_clock::now();
    uint64_t frames = 0;
    std::vector<VifPicture> pics;
    std::vector<const VifPicture *> ptrs;
    std::vector<size_t> members;
    try {
        for (;;) {
            bool any = false;
            for (const Rung &r : rungs) any |= r.active;
            if (!any) break;
            Prefetcher::Frame rf;
            auto waiting = Clock::now();
            const Prefetcher::Status rs = ref_reader.next(&rf);
            times.decode_wait += since(waiting);
            if (rs == Prefetcher::Status::kError) throw std::runtime_error(ref_reader.error());
            if (rs == Prefetcher::Status::kEnd) {
                // Rungs still going have more frames than the reference: say so, as `vif` does.
                for (Rung &r : rungs) {
                    Prefetcher::Frame f;
                    if (r.active && r.reader->next(&f) == Prefetcher::Status::kFrame)
                        r.note = short_note("reference", frames);
                }
                break;
            }
            pics.clear();
            members.clear();
            for (size_t i = 0; i < rungs.size(); ++i) {
                Rung &r = rungs[i];
                if (!r.active) continue;
                const VideoInfo &di = r.src->info();
                Prefetcher::Frame f;
                waiting = Clock::now();
                const Prefetcher::Status st = r.reader->next(&f);
                times.decode_wait += since(waiting);
                if (st == Prefetcher::Status::kEnd) {
                    r.active = false; // shorter than the reference: its common frames
                    r.note = short_note("distorted", frames);
                    continue;
                }
                if (st == Prefetcher::Status::kError) {
                    fail(r, r.reader->error());
                    continue;
                }
                VifPicture p{f.data,      ptrdiff_t(di.row_bytes()), di.width, di.height,
                             di.bitdepth, di.picture_flags};
                if (r.scaler) {
                    p.data = r.scaler->scale(f.data, ptrdiff_t(di.row_bytes()));
                    p.stride = r.scaler->out_stride();
                    p.width = ri.width;
                    p.height = ri.height;
                }
                pics.push_back(p);
                members.push_back(i);
            }
            if (pics.empty()) break;
            ptrs.clear();
            for (const VifPicture &p : pics) ptrs.push_back(&p);
            const VifPicture rp{rf.data,     ptrdiff_t(ri.row_bytes()), ri.width, ri.height,
                                ri.bitdepth, ri.picture_flags};
            VifStatus st;
            waiting = Clock::now();
            while ((st = vif_submit_multi(ctx, &rp, ptrs.data(), ptrs.size(), nullptr)) ==
                   VIF_AGAIN)
                receive(true);
            times.score_wait += since(waiting);
            if (st != VIF_OK) {
                if (device_status(st)) throw device_failure(vif_last_error());
                throw std::runtime_error(fmt::format("scoring failed: {}", vif_last_error()));
            }
            if (s.simulate_device_failure)
                throw DeviceFailure("simulated failure (VIF_TEST_FAIL_DEVICE)");
            // worst:N keeps its own copies of the pictures that may be mapped again.
            for (size_t k = 0; k < members.size(); ++k)
                if (Rung &r = rungs[members[k]]; r.worst) r.worst->submitted(rp, pics[k]);
            // The pictures were copied: their buffers go back to the readers.
            ref_reader.release();
            for (size_t i : members) {
                rungs[i].reader->release();
                owners.push_back(i);
            }
            receive(false);
            ++frames;
        }
        const auto draining = Clock::now();
        receive(true);
        times.score_wait += since(draining);
        lease.reusable = true; // every frame it was given came back
    } catch (const DeviceFailure &) {
        throw; // the caller scores the rows on another device
    } catch (const std::exception &e) {
        // The reference (or the context) failed: every rung still going fails with it.
        for (Rung &r : rungs)
            if (r.summary.status.empty()) fail(r, e.what());
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    times.frames += frames;
    return write_outputs(ctx, cfg, ri, frames, secs);
}

} // namespace vifcli
