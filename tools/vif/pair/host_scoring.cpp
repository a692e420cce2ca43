#include "pair/host_scoring.hpp"

#include "maps/map_contexts.hpp"
#include "maps/map_writer.hpp"
#include "maps/worst_pictures.hpp"
#include "pair/failure.hpp"
#include "pair/pair_report.hpp"
#include "pair/progress.hpp"
#include "pair/timeline.hpp"
#include "pair/variants.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace vifcli {
namespace {

// --check-parity and --backend cuda need a GPU: wait for CUDA's start-up and say clearly if
// there is none.
void require_gpu(const Options &o, CudaWarmup &warmup) {
    const VifStatus st = warmup.wait();
    g_timeline.mark("waited for the CUDA start-up");
    if (st == VIF_OK) return;
    const std::string why = warmup.message().empty() ? "" : " (" + warmup.message() + ")";
    const char *who = o.check_parity ? "--check-parity needs the cuda backend" : "--backend cuda";
    throw Failure{std::string(who) + ": this build has no CUDA backend or no usable GPU was found" +
                  why};
}

// The contexts every variant starts with: the CPU and CUDA for --check-parity, the CPU while
// a hand-over is pending, else the backend asked for.
void create_contexts(const Options &o, Variants &variants, CudaWarmup &warmup, bool hand_over,
                     std::optional<uint64_t> expected) {
    for (auto &v : variants) {
        if (o.check_parity) {
            v->primary.create(v->cfg, VIF_BACKEND_CPU);
            v->secondary.create(v->cfg, VIF_BACKEND_CUDA);
        } else if (hand_over) {
            v->primary.create(v->cfg, VIF_BACKEND_CPU);
        } else {
            if (o.backend == VIF_BACKEND_AUTO) warmup.wait(); // done already: no wait
            v->primary.create(v->cfg, o.backend);
        }
        if (expected) {
            v->primary.scores.reserve(size_t(*expected));
            if (o.check_parity) v->secondary.scores.reserve(size_t(*expected));
        }
    }
    g_timeline.mark("scoring contexts created");
}

// The hand-over's CUDA contexts, made on the warm-up's thread as soon as CUDA has started while
// the CPU goes on scoring (creating them took 41-113 ms on the H200 machine: on the scoring
// thread, that was time no frame was submitted). Shared with that thread, which may outlive
// the run: contexts never taken are destroyed with it.
struct GpuContexts {
    std::atomic<bool> ready{false}; ///< the fields below are set
    VifStatus start_up = VIF_OK;    ///< CUDA's start-up
    std::string error;              ///< why a context could not be made
    std::vector<VifContext *> ctxs; ///< one a variant, all or none
    ~GpuContexts() {
        for (VifContext *c : ctxs) vif_destroy(c);
    }
};

std::shared_ptr<GpuContexts> start_gpu_contexts(const Variants &variants, CudaWarmup &warmup) {
    auto made = std::make_shared<GpuContexts>();
    std::vector<VifConfig> cfgs;
    for (const auto &v : variants) cfgs.push_back(v->cfg);
    warmup.then([made, cfgs](VifStatus st) {
        made->start_up = st;
        if (st == VIF_OK) {
            for (VifConfig cfg : cfgs) {
                cfg.backend = VIF_BACKEND_CUDA;
                VifContext *ctx = nullptr;
                if (vif_create(&ctx, &cfg) != VIF_OK) {
                    made->error = vif_last_error();
                    for (VifContext *c : made->ctxs) vif_destroy(c);
                    made->ctxs.clear();
                    break;
                }
                made->ctxs.push_back(ctx);
            }
        }
        made->ready.store(true, std::memory_order_release);
    });
    return made;
}

// The hand-over, once the contexts are made: every later frame goes to CUDA, or (no GPU, or a
// context failed) everything stays on the CPU; nothing was sent to CUDA yet.
void hand_over_to_gpu(Variants &variants, GpuContexts &made, const CudaWarmup &warmup,
                      std::optional<uint64_t> expected, bool verbose) {
    if (made.start_up != VIF_OK) {
        // Said once: a machine without a CUDA driver or GPU scores on the CPU (docs/packaging.md).
        if (verbose)
            std::fprintf(stderr, "vif: no usable GPU (%s): scoring on the cpu\n",
                         warmup.message().c_str());
        return;
    }
    if (made.ctxs.size() != variants.size()) {
        if (verbose)
            std::fprintf(stderr, "vif: staying on the cpu: cannot create the VIF context: %s\n",
                         made.error.c_str());
        return;
    }
    for (size_t i = 0; i < variants.size(); ++i) {
        Scorer &g = variants[i]->gpu;
        g.ctx = made.ctxs[i];
        g.backend = vif_backend_name(g.ctx);
        g.scores.reserve(expected ? size_t(*expected) : 0);
    }
    made.ctxs.clear(); // the Scorers own them now
    g_timeline.mark("GPU ready: frames from here on go to cuda");
}

// The output is written and run_pair leaves with _Exit next: the scoring contexts (their worker
// threads, a CUDA context's device and pinned memory), the readers and the decoders are left to
// the process exit, which frees them anyway, sooner than tearing them down here. Sanitizer
// builds tear down (and return through exit()) for the leak check.
void leave_to_the_exit(HostInputs &in, Variants &variants, std::optional<MapContexts> &map_ctxs,
                       std::unique_ptr<MapWriter> &maps, std::unique_ptr<WorstPictures> &worst) {
#if !defined(__SANITIZE_ADDRESS__)
    if (map_ctxs) map_ctxs->leave_to_the_exit();
    // The maps' buffers and the worst frames' pictures (tens of MB to unmap; their threads
    // are joined): ~1.5 ms of teardown after the output, at 720p.
    (void)maps.release();
    (void)worst.release();
    (void)in.ref_reader.release();
    (void)in.dist_reader.release();
    (void)in.ref.release();
    (void)in.dist.release();
    for (auto &v : variants) v->primary.ctx = v->secondary.ctx = v->gpu.ctx = nullptr;
#else
    (void)in;
    (void)variants;
    (void)map_ctxs;
    (void)maps;
    (void)worst;
#endif
}

void drain_all(const Options &o, Variants &variants, bool block) {
    for (auto &v : variants) {
        v->primary.drain(block);
        if (o.check_parity) v->secondary.drain(block);
        if (v->gpu.ctx) v->gpu.drain(block);
    }
}

} // namespace

int score_host_pairs(const Options &o, HostInputs &in, CudaWarmup &warmup,
                     std::optional<OutputFile> &out, EarlyContexts *early) {
    const VideoInfo &ri = in.ref->info(), &di = in.dist->info();
    Prefetcher &rpf = *in.ref_reader, &dpf = *in.dist_reader;
    auto variants = make_variants(o, ri, in.expected);

    if (!o.read_only && (o.check_parity || o.backend == VIF_BACKEND_CUDA)) require_gpu(o, warmup);
    // --backend auto while CUDA is still starting: score on the CPU at once and hand the frames
    // over to the GPU as soon as it is ready. Short clips are then done before CUDA's 0.2-0.3 s
    // start-up is. Not with --map: every frame's maps come from the one context (and its
    // frame numbers), so `auto` waits for the start-up and scores on the backend it picks.
    // Not where `auto`'s estimate says the CPU's frames would cost more than they save.
    const bool hand_over = !o.read_only && !o.check_parity && !o.map.enabled() &&
                           o.backend == VIF_BACKEND_AUTO && o.cpu_while_cuda_starts &&
                           warmup.running();
    bool handed_over = false;
    if (!o.read_only && !hand_over && early && early->take(&variants)) {
        g_timeline.mark("scoring contexts made while the inputs opened");
        if (in.expected)
            for (auto &v : variants) v->primary.scores.reserve(size_t(*in.expected));
    } else if (!o.read_only) {
        create_contexts(o, variants, warmup, hand_over, in.expected);
    }
    const std::shared_ptr<GpuContexts> gpu_made =
        hand_over ? start_gpu_contexts(variants, warmup) : nullptr;
    std::vector<uint64_t> frame_nums;
    // --map: checked (and its temporary folder made) before any frame is scored.
    std::unique_ptr<MapWriter> maps; // pointers: left to the process exit (leave_to_the_exit)
    std::optional<MapContexts> map_ctxs;
    std::unique_ptr<WorstPictures> worst; // its early threads use map_ctxs and maps: last
    if (o.map.enabled()) {
        maps = std::make_unique<MapWriter>(o.map);
        maps->set_frame_numbers(&frame_nums);
        // The heat-map video plays at the inputs' rate (the distorted one's, else the
        // reference's; raw YUV has none: 25).
        maps->set_frame_rate(di.rate_num ? di.rate_num : ri.rate_num,
                             di.rate_num ? di.rate_den : ri.rate_den);
        if (o.map.frames == MapOptions::Frames::kWorst) {
            worst = std::make_unique<WorstPictures>(o.map.worst);
            worst->set_frame_numbers(&frame_nums);
            worst->set_pictures_stay(rpf.mapped() && dpf.mapped());
            worst->set_verbose(o.verbose);
            worst->set_bands(variants[0]->cfg.kernelscale <= 1.0);
            variants[0]->primary.worst = &*worst;
            // The contexts that score the worst frames again, made while the clip is scored.
            const VifBackend map_backend =
                variants[0]->primary.backend == "cuda" ? VIF_BACKEND_CUDA : VIF_BACKEND_CPU;
            VifConfig map_cfg = variants[0]->cfg;
            // VIF_MAP_BAND_CONTEXTS=B: contexts made for a band's crop, each frame in B bands.
            uint32_t bands = WorstPictures::band_contexts(ri.height);
            if (map_backend != VIF_BACKEND_CPU || variants[0]->cfg.kernelscale > 1.0) bands = 0;
            if (bands >= 2) {
                map_cfg.max_height = WorstPictures::band_crop_rows(ri.height, bands);
                worst->force_bands(bands);
            }
            map_ctxs.emplace(map_cfg, map_backend, o.map.worst, in.expected.value_or(0),
                             std::max<uint32_t>(1, bands));
            // And the buffers of the frames mapped at once (one a context on the CPU).
            const uint64_t at_once =
                std::min<uint64_t>(o.map.worst, std::max(1u, std::thread::hardware_concurrency()));
            maps->reserve_frames(size_t(at_once), ri.width, ri.height);
        } else {
            variants[0]->primary.maps = &*maps;
        }
    }

    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    Progress progress(show_progress, in.expected);
    if (in.expected) frame_nums.reserve(size_t(*in.expected));
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t submitted = 0;
    std::vector<uint8_t> scratch(o.read_only ? ri.luma_bytes() + di.luma_bytes() : 0);
    VifPicture rpic{nullptr,     ptrdiff_t(ri.row_bytes()), ri.width, ri.height,
                    ri.bitdepth, ri.picture_flags};
    VifPicture dpic{nullptr,     ptrdiff_t(di.row_bytes()), di.width, di.height,
                    di.bitdepth, di.picture_flags};
    auto scored = [&] {
        return variants[0]->primary.scores.size() + variants[0]->gpu.scores.size();
    };
    for (;;) {
        Prefetcher::Frame fa, fb;
        auto sa = rpf.next(&fa);
        auto sb = dpf.next(&fb);
        if (sa == Prefetcher::Status::kFrame && sb == Prefetcher::Status::kFrame) {
            if (gpu_made && !handed_over && gpu_made->ready.load(std::memory_order_acquire)) {
                handed_over = true; // taken once, whatever the outcome
                hand_over_to_gpu(variants, *gpu_made, warmup, in.expected, o.verbose);
            }
            if (!o.read_only) {
                rpic.data = fa.data;
                dpic.data = fb.data;
                for (auto &v : variants) {
                    (v->gpu.ctx ? v->gpu : v->primary).submit(rpic, dpic);
                    if (o.check_parity) v->secondary.submit(rpic, dpic);
                }
            } else {
                // Stand in for vif_submit's copy, so that the speed is that of real input.
                std::memcpy(scratch.data(), fa.data, ri.luma_bytes());
                std::memcpy(scratch.data() + ri.luma_bytes(), fb.data, di.luma_bytes());
            }
            frame_nums.push_back(fa.pair);
            rpf.release();
            dpf.release();
            ++submitted;
            if (submitted == 1) g_timeline.mark("first frame pair read and submitted");
            if (!o.read_only) drain_all(o, variants, false);
            progress.update(o.read_only ? submitted : scored());
            continue;
        }
        if (sa == Prefetcher::Status::kError) throw Failure{rpf.error()};
        if (sb == Prefetcher::Status::kError) throw Failure{dpf.error()};
        if (sa != sb && !in.counts_differ) {
            const bool ref_short = sa == Prefetcher::Status::kEnd;
            const uint64_t common = submitted ? frame_nums.back() + 1 : 0;
            warn_input_ended_early(ref_short, (ref_short ? o.skip_ref : o.skip_dist) + common,
                                   common);
        }
        break;
    }
    rpf.stop();
    dpf.stop();
    // worst:N: the worst frames so far are scored again while the last ones are.
    if (worst && !o.read_only) worst->start_early(*map_ctxs, *maps);
    if (!o.read_only) drain_all(o, variants, true);
    // Frames scored on the CPU before the hand-over come first: submission order is kept.
    const bool on_gpu = variants[0]->gpu.ctx != nullptr;
    const size_t cpu_frames = on_gpu ? variants[0]->primary.scores.size() : 0;
    // --verbose names the backend once: here, unless the hand-over already said why it stayed
    // on the CPU (or the line below says how the frames were shared).
    if (!on_gpu && o.verbose && !o.read_only && !(hand_over && handed_over))
        std::fprintf(stderr, "vif: scoring on the %s backend%s\n",
                     variants[0]->primary.backend.c_str(),
                     hand_over ? " (every frame scored before CUDA was ready)" : "");
    if (on_gpu) {
        if (o.verbose)
            std::fprintf(stderr, "vif: %zu frames on the cpu while CUDA started, %zu on cuda\n",
                         cpu_frames, variants[0]->gpu.scores.size());
        for (auto &v : variants)
            v->primary.scores.insert(v->primary.scores.end(), v->gpu.scores.begin(),
                                     v->gpu.scores.end());
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g_timeline.mark("all frames scored");
    progress.update(o.read_only ? submitted : variants[0]->primary.scores.size(), true);
    progress.finish();
    if (submitted == 0) throw Failure{"no frames to score"};

    if (o.read_only) {
        double mb = double(submitted) * double(ri.luma_bytes() + di.luma_bytes()) / 1e6;
        std::printf("read %llu frame pairs (luma only, %s) in %.3f s: %.1f fps, %.1f MB/s\n",
                    (unsigned long long)submitted, rpf.mapped() ? "mapped" : "pread", secs,
                    double(submitted) / secs, mb / secs);
        flush_stdout();
        return 0;
    }
    check_all_scored(variants, submitted);
    if (maps) {
        if (worst) {
            map_ctxs->get(); // (made, or waited for, here unless before the first frame)
            g_timeline.mark("contexts of the worst frames' maps ready");
            worst->write_maps(*map_ctxs, *maps);
            g_timeline.mark("worst frames scored again with maps");
        }
        maps->commit();
        g_timeline.mark("maps written");
        if (o.verbose)
            std::fprintf(stderr, "vif: %zu map files in %s\n", maps->files_written(),
                         o.map.dir.c_str());
    }
    const int code = write_report(o, variants, std::move(frame_nums),
                                  secs > 0 ? double(submitted) / secs : 0, ri,
                                  !on_gpu      ? variants[0]->primary.backend
                                  : cpu_frames ? "cpu+cuda"
                                               : "cuda",
                                  out);
    leave_to_the_exit(in, variants, map_ctxs, maps, worst);
    return code;
}

} // namespace vifcli
