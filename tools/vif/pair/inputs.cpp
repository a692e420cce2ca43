#include "pair/inputs.hpp"

#include "pair/failure.hpp"
#include "pair/timeline.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "hw_decode.hpp"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <thread>

namespace vifcli {

PairRequests pair_requests(const Options &o, const StdStreams &streams) {
    PairRequests p;
    SourceRequest &rq = p.ref, &dq = p.dist;
    rq.path = o.reference;
    rq.label = "reference";
    dq.path = o.distorted;
    dq.label = "distorted";
    rq.allow_mapping = dq.allow_mapping = !o.no_mmap;
    rq.width = dq.width = o.width;
    rq.height = dq.height = o.height;
    rq.pixel_format = dq.pixel_format = o.pixel_format;
    rq.bitdepth = dq.bitdepth = o.bitdepth;
    rq.verbose = dq.verbose = o.verbose;
    rq.decoder_threads = dq.decoder_threads = int(o.decoder_threads);
    for (const SourceRequest *q : {&rq, &dq})
        if (streams.closed[0] && names_std_fd(q->path, 0))
            throw Failure{fmt::format("the {} is standard input ('{}'), but standard input is "
                                      "closed",
                                      q->label, q->path)};
    return p;
}

void check_same_format(const VideoInfo &ri, const VideoInfo &di) {
    if (ri.width != di.width || ri.height != di.height)
        throw Failure{fmt::format("the reference is {}x{} but the distorted is {}x{}", ri.width,
                                  ri.height, di.width, di.height)};
    if (ri.bitdepth != di.bitdepth)
        throw Failure{fmt::format("the reference is {}-bit but the distorted is {}-bit",
                                  ri.bitdepth, di.bitdepth)};
}

void warn_input_ended_early(bool reference_short, uint64_t ended_after, uint64_t common) {
    std::fprintf(stderr,
                 "vif: warning: different frame counts: the %s ended after %llu frames but the "
                 "%s has more; scored the %llu common frames\n",
                 reference_short ? "reference" : "distorted", (unsigned long long)ended_after,
                 reference_short ? "distorted" : "reference", (unsigned long long)common);
}

namespace {

// --decoders N on the host path: software decoding in segments (see hw_decode.hpp).
std::unique_ptr<FrameSource> open_input(const Options &o, const SourceRequest &q) {
#if defined(VIF_WITH_FFMPEG)
    if (o.decoders) {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const unsigned threads =
            o.decoder_threads ? o.decoder_threads : std::max(1u, cores / (2 * o.decoders));
        if (auto src = open_segmented_source(q, o.decoders, threads)) return src;
    }
#else
    (void)o;
#endif
    return open_frame_source(q);
}

} // namespace

namespace {

// libavcodec threads of each software decoder when the user gave none: two encoded inputs
// decode at once, so each gets half the cores (FFmpeg's automatic count gives each a thread a
// core, up to 16: on the H200 machine's 16 cores the 48-frame probe pair took 0.349 s with it,
// 0.304 s with 8 each, 0.332 s with 4 and 0.335 s with 12; bench/startup, 2026-11-26). One
// encoded input keeps FFmpeg's count.
PairRequests with_decoder_threads(const Options &o, PairRequests rq) {
#if defined(VIF_WITH_FFMPEG)
    if (o.decoder_threads == 0 && encoded_input(rq.ref) && encoded_input(rq.dist)) {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        rq.ref.decoder_threads = rq.dist.decoder_threads = int(std::clamp(cores / 2, 1u, 16u));
    }
#else
    (void)o;
#endif
    return rq;
}

} // namespace

HostInputs open_host_inputs(const Options &o, const PairRequests &requests) {
    const PairRequests rq = with_decoder_threads(o, requests);
    HostInputs in;
    // Both inputs open at once: each open reads a header and decodes a first frame (the
    // decoder's threads start there), which on a short clip is a good part of the run. The
    // reference's error is reported first when both fail, as when they opened in turn.
    std::future<std::unique_ptr<FrameSource>> dist =
        std::async(std::launch::async, [&] { return open_input(o, rq.dist); });
    try {
        in.ref = open_input(o, rq.ref);
    } catch (const InputError &e) {
        dist.wait(); // its thread reads rq and o: done before they go
        throw Failure{e.what()};
    }
    try {
        in.dist = dist.get();
    } catch (const InputError &e) {
        throw Failure{e.what()};
    }
    const VideoInfo &ri = in.ref->info(), &di = in.dist->info();
    const std::string rname =
        o.reference == "-" ? "reference (stdin)" : fmt::format("reference '{}'", o.reference);
    const std::string dname =
        o.distorted == "-" ? "distorted (stdin)" : fmt::format("distorted '{}'", o.distorted);
    check_same_format(ri, di);

    // Frame counts: score the common frames; say so when they differ.
    const uint64_t skip_ref = o.skip_ref, skip_dist = o.skip_dist, subsample = o.subsample;
    ReadPlan rp, dp;
    rp.skip = skip_ref;
    rp.skip_option = "--skip-ref";
    dp.skip = skip_dist;
    dp.skip_option = "--skip-dist";
    rp.subsample = dp.subsample = subsample;
    if (o.max_frames) rp.max_delivered = dp.max_delivered = *o.max_frames;
    if (ri.frames && skip_ref >= *ri.frames && *ri.frames > 0)
        throw Failure{fmt::format("--skip-ref {} skips past the end of the {} ({} frames)",
                                  skip_ref, rname, *ri.frames)};
    if (di.frames && skip_dist >= *di.frames && *di.frames > 0)
        throw Failure{fmt::format("--skip-dist {} skips past the end of the {} ({} frames)",
                                  skip_dist, dname, *di.frames)};
    if (ri.frames && di.frames) {
        uint64_t a = *ri.frames - std::min(skip_ref, *ri.frames);
        uint64_t b = *di.frames - std::min(skip_dist, *di.frames);
        uint64_t common = std::min(a, b);
        if (a != b) {
            std::fprintf(stderr,
                         "vif: warning: different frame counts: the reference has %llu frames "
                         "and the distorted %llu%s; scoring the %llu common frames\n",
                         (unsigned long long)a, (unsigned long long)b,
                         (skip_ref || skip_dist) ? " (after the skips)" : "",
                         (unsigned long long)common);
            in.counts_differ = true;
        }
        rp.max_pairs = dp.max_pairs = common;
        uint64_t n = (common + subsample - 1) / subsample;
        in.expected = o.max_frames ? std::min(n, *o.max_frames) : n;
    }

    // Reader threads: a few frames ahead, about 64 MiB of buffers per input at most (allocated
    // as they fill).
    const size_t slots =
        std::clamp<size_t>((64u << 20) / std::max<size_t>(ri.luma_bytes(), 1), 3, 16);
    in.ref_reader = std::make_unique<Prefetcher>(*in.ref, rname, rp, slots);
    in.dist_reader = std::make_unique<Prefetcher>(*in.dist, dname, dp, slots);
    g_timeline.mark("inputs opened");

    // The scoring contexts are sized to the frame and to the worker threads; they are created
    // only once the first frame of each input has been read, so that a header announcing a huge
    // frame that the input does not hold fails here, before any of that memory is allocated.
    Prefetcher::Frame first;
    if (in.ref_reader->next(&first) == Prefetcher::Status::kError)
        throw Failure{in.ref_reader->error()};
    if (in.dist_reader->next(&first) == Prefetcher::Status::kError)
        throw Failure{in.dist_reader->error()};
    g_timeline.mark("first frames read");
    return in;
}

} // namespace vifcli
