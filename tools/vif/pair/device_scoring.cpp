#include "pair/device_scoring.hpp"

#include "hw_decode.hpp"
#include "pair/early_contexts.hpp"
#include "pair/failure.hpp"
#include "pair/timeline.hpp"

#include <cstdio>
#include <string>
#if defined(VIF_WITH_NVDEC)
#include "device_pairs.hpp"
#include "pair/pair_report.hpp"
#include "pair/progress.hpp"
#include "pair/variants.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

#include <unistd.h>
#endif

namespace vifcli {
namespace {

#if defined(VIF_WITH_NVDEC)
// The output is written: tearing down NVDEC sessions, device buffers and the CUDA contexts takes
// 0.1-0.3 s that the process exit does for free, so leave them to it.
void leave_without_teardown(HwDecodeInputs &hw, Variants &variants,
                            std::unique_ptr<Prefetcher> &rpf, std::unique_ptr<Prefetcher> &dpf) {
    (void)hw.ref_decoder.release();
    (void)hw.dist_decoder.release();
    (void)rpf.release();
    (void)dpf.release();
    (void)hw.ref_source.release();
    (void)hw.dist_source.release();
    for (auto &v : variants) v->primary.ctx = nullptr;
}

VideoInfo info_of(SegmentDecoder *d, FrameSource *s) {
    if (s) return s->info();
    VideoInfo v;
    v.width = d->width();
    v.height = d->height();
    v.bitdepth = d->bitdepth();
    v.format = d->description();
    return v;
}
#endif

/** Scores pairs decoded by NVDEC on the GPU (device_pairs.hpp). */
int score_on_device(const Options &o, HwDecodeInputs &hw, const PairRequests &rq,
                    std::optional<OutputFile> &out, EarlyContexts &early) {
#if !defined(VIF_WITH_NVDEC)
    (void)o, (void)hw, (void)rq, (void)out, (void)early;
    throw Failure{"--hwdec: this build has no NVDEC support"};
#else
    DeviceInput ri, di;
    ri.decoder = hw.ref_decoder.get();
    di.decoder = hw.dist_decoder.get();
    ri.info = info_of(ri.decoder, hw.ref_source.get());
    di.info = info_of(di.decoder, hw.dist_source.get());
    ri.name = rq.ref.label + " '" + rq.ref.path + "'";
    di.name = rq.dist.label + " '" + rq.dist.path + "'";
    check_same_format(ri.info, di.info);
    // A host input (raw/Y4M) applies skip and subsample in its prefetcher, as on the host path;
    // a decoder input drops its skip first and the loop applies the subsample.
    const bool mixed = hw.ref_source || hw.dist_source;
    if (mixed && o.subsample > 1)
        throw Failure{"--subsample with one encoded and one raw input needs --hwdec none",
                      kExitUsage};
    std::unique_ptr<Prefetcher> rpf, dpf;
    auto host_plan = [&](uint64_t skip, const char *opt) {
        ReadPlan p;
        p.skip = skip;
        p.skip_option = opt;
        if (o.max_frames) p.max_delivered = *o.max_frames;
        return p;
    };
    if (hw.ref_source)
        rpf = std::make_unique<Prefetcher>(*hw.ref_source, ri.name,
                                           host_plan(o.skip_ref, "--skip-ref"), 8);
    else
        ri.skip = o.skip_ref;
    if (hw.dist_source)
        dpf = std::make_unique<Prefetcher>(*hw.dist_source, di.name,
                                           host_plan(o.skip_dist, "--skip-dist"), 8);
    else
        di.skip = o.skip_dist;
    ri.prefetcher = rpf.get();
    di.prefetcher = dpf.get();
    if (hw.nvdec_joins_later) {
        // CUDA is up: NVDEC joins the software decoders (its sessions open on threads of their
        // own while the scoring contexts are made here and the scoring starts).
        if (hw.ref_decoder) hw.ref_decoder->join_nvdec();
        if (hw.dist_decoder) hw.dist_decoder->join_nvdec();
    }
    g_timeline.mark("inputs opened (hwdec)");
    auto variants = make_variants(o, ri.info, std::nullopt);
    std::vector<VifContext *> ctxs;
    if (!o.read_only) {
        // Made while the NVDEC sessions opened, where they fit (early_contexts.hpp).
        const bool made = early.take(&variants);
        for (auto &v : variants) {
            if (!made) v->primary.create(v->cfg, VIF_BACKEND_CUDA);
            ctxs.push_back(v->primary.ctx);
        }
        g_timeline.mark(made ? "scoring contexts made while NVDEC opened"
                             : "scoring contexts created");
    }
    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    Progress progress(show_progress, std::nullopt);
    auto on_progress = [](uint64_t done, void *arg) { static_cast<Progress *>(arg)->update(done); };
    const auto t0 = std::chrono::steady_clock::now();
    DeviceRunResult res;
    try {
        res = run_device_pairs(ctxs, int(variants[0]->cfg.cuda_device), ri, di, o.subsample,
                               o.max_frames ? *o.max_frames : UINT64_MAX, on_progress, &progress);
    } catch (const InputError &e) {
        throw Failure{e.what()};
    } catch (const std::runtime_error &e) {
        throw Failure{e.what()};
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g_timeline.mark("all frames decoded and scored");
    progress.update(res.submitted, true);
    progress.finish();
    if (res.submitted == 0) throw Failure{"no frames to score"};
    if (!res.short_input.empty())
        warn_input_ended_early(res.short_input == "reference", res.short_frames, res.short_frames);
    if (o.verbose) {
        for (const auto &[what, d] :
             {std::pair{"reference", ri.decoder}, std::pair{"distorted", di.decoder}}) {
            if (!d) continue;
            std::string shared;
            if (hw.nvdec_joins_later) {
                const SegmentSharing sh = d->sharing();
                shared =
                    ": " + std::to_string(sh.in_software) + " decoded in software, " +
                    std::to_string(sh.by_nvdec) + " by NVDEC" +
                    (sh.nvdec_note.empty() ? "" : " (NVDEC did not join: " + sh.nvdec_note + ")");
            }
            std::fprintf(stderr, "vif: hwdec: %s: %llu segments%s\n", what,
                         (unsigned long long)d->segments(), shared.c_str());
        }
    }
    if (o.read_only) {
        std::printf("decoded %llu frame pairs (%s) in %.3f s: %.1f fps\n",
                    (unsigned long long)res.submitted,
                    ri.decoder ? ri.info.format.c_str() : di.info.format.c_str(), secs,
                    double(res.submitted) / secs);
        flush_stdout();
        leave_without_teardown(hw, variants, rpf, dpf);
        return 0;
    }
    for (size_t c = 0; c < variants.size(); ++c)
        variants[c]->primary.scores = std::move(res.scores[c]);
    check_all_scored(variants, res.submitted);
    const int code = write_report(o, variants, std::move(res.frame_nums),
                                  secs > 0 ? double(res.submitted) / secs : 0, ri.info,
                                  variants[0]->primary.backend, out);
    leave_without_teardown(hw, variants, rpf, dpf);
    return code;
#endif
}

} // namespace

std::optional<int> score_on_device_if_chosen(const Options &o, CudaWarmup &warmup,
                                             const PairRequests &rq,
                                             std::optional<OutputFile> &out) {
    HwDecodeRequest hr;
    hr.mode = *parse_hwdec(o.hwdec); // checked by parse_options
    hr.decoders = o.decoders;
    hr.cpu_decoders = o.cpu_decoders;
    hr.verbose = o.verbose;
    hr.max_frames = o.max_frames.value_or(0);
    hr.skip_ref = o.skip_ref;
    hr.skip_dist = o.skip_dist;
    hr.subsample = o.subsample;
    hr.may_start_in_software = true;
    hr.host_only = (o.backend == VIF_BACKEND_CPU && !o.read_only) ||
                   (o.read_only && hr.mode != HwDecode::kCuda);
    EarlyContexts early; // the CUDA contexts, made while NVDEC's sessions open
    hr.gpu_ready = [&](std::string *why) {
        const VifStatus st = warmup.wait();
        g_timeline.mark("waited for the CUDA start-up");
        if (st != VIF_OK) *why = "no usable GPU (" + warmup.message() + ")";
        if (st == VIF_OK) early.start_cuda(o, rq.ref);
        return st == VIF_OK;
    };
    std::optional<HwDecodeInputs> hw;
    try {
        hw = open_hw_decode(hr, rq.ref, rq.dist);
    } catch (const HwDecodeError &e) {
        throw Failure{e.message};
    } catch (const InputError &e) {
        throw Failure{e.what()};
    }
    if (!hw) return std::nullopt;
    if (hw->nvdec_joins_later) {
        // Decoding started in software while CUDA started: without a GPU after all, the host
        // path scores the pair from its start (the decoders stop here).
        std::string why;
        if (!hr.gpu_ready(&why)) {
            if (o.verbose) std::fprintf(stderr, "vif: hwdec: %s: host path\n", why.c_str());
            return std::nullopt;
        }
    }
    return score_on_device(o, *hw, rq, out, early);
}

} // namespace vifcli
