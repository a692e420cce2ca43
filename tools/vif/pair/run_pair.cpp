#include "pair/run_pair.hpp"

#include "pair/cuda_warmup.hpp"
#include "pair/exit_holder.hpp"
#include "pair/failure.hpp"
#include "pair/host_scoring.hpp"
#include "pair/inputs.hpp"
#include "pair/pair_report.hpp"
#include "pair/signals.hpp"
#include "pair/timeline.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "decode_choice.hpp"
#include "hw_decode.hpp"
#include "pair/device_scoring.hpp"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace vifcli {
namespace {

#if defined(VIF_WITH_FFMPEG)
// The run's length (pairs, after the skips and --frames) and its largest frame, from what the
// inputs say without decoding: an encoded file's container header, a raw or Y4M file opened
// (its size and header only). Nothing when an input cannot say (standard input, a pipe, a
// container without a frame count, a file that does not open: the run itself reports that).
bool run_shape(const Options &o, const PairRequests &rq, uint64_t *frames, ClipShape *shape) {
    *frames = UINT64_MAX;
    shape->codec = "raw";
    for (const SourceRequest *q : {&rq.ref, &rq.dist}) {
        ClipShape s;
        if (encoded_input(*q)) {
            const std::optional<ClipShape> p = probe_clip_shape(q->path);
            if (!p) return false;
            s = *p;
        } else {
            struct stat st {};
            if (q->path == "-" || ::stat(q->path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
                return false;
            try {
                // The source outlives its info (a reference into it).
                const std::unique_ptr<FrameSource> src = open_frame_source(*q);
                const VideoInfo &vi = src->info();
                if (!vi.frames) return false;
                s.frames = *vi.frames;
                s.width = vi.width;
                s.height = vi.height;
                s.codec = "raw";
            } catch (...) {
                return false;
            }
        }
        if (s.frames == 0) return false;
        const uint64_t skip = q == &rq.ref ? o.skip_ref : o.skip_dist;
        *frames = std::min(*frames, s.frames > skip ? s.frames - skip : 0);
        if (s.codec != "raw") shape->codec = s.codec;
        shape->bytes_per_frame += s.bytes_per_frame;
        shape->width = std::max(shape->width, s.width);
        shape->height = std::max(shape->height, s.height);
    }
    const uint64_t sub = std::max<uint64_t>(1, o.subsample);
    if (o.max_frames && *o.max_frames < *frames / sub) *frames = *o.max_frames * sub;
    return *frames > 0;
}

// --backend auto on a run the CPU threads finish before CUDA could have started, scored it and
// let the process go (decode_choice.hpp): the run is a CPU run, and CUDA is never started (a
// process that started it pays the driver's teardown at exit too). For a run that goes to
// CUDA, the same estimate says whether CPU threads score its first frames meanwhile.
void choose_auto_backend(Options &o, const StdStreams &streams) {
    if (o.backend != VIF_BACKEND_AUTO || o.check_parity || o.read_only || o.hwdec == "cuda") return;
    uint64_t frames = 0;
    ClipShape shape;
    try {
        if (!run_shape(o, pair_requests(o, streams), &frames, &shape)) return;
    } catch (...) {
        return; // the run reports it
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned threads = o.threads ? std::min(unsigned(o.threads), cores) : cores;
    // Bench hook: VIF_SOFTWARE_BAND=<ratio> sets where the software-decoding band ends,
    // however heavy the decoding.
    const char *band_end = std::getenv("VIF_SOFTWARE_BAND");
    const double band = band_end && *band_end ? std::atof(band_end) : 0.0;
    const CpuChoice c = choose_cpu_only(frames, shape, threads, unsigned(o.variants.size()), band);
    if (o.verbose) std::fprintf(stderr, "vif: auto: %s\n", c.why.c_str());
    if (c.cpu_only) o.backend = VIF_BACKEND_CPU;
    // Test hook: VIF_TEST_HAND_OVER=1 keeps the hand-over, so that the GPU tests can check it.
    const char *force = std::getenv("VIF_TEST_HAND_OVER");
    o.cpu_while_cuda_starts = c.cpu_while_cuda_starts || (force && std::strcmp(force, "1") == 0);
    // Near the crossing, encoded input is decoded in software (the host path's hand-over), not
    // by NVDEC; VIF_SOFTWARE_NEAR_CROSSING=0 keeps NVDEC there (bench/startup compares both).
    const char *near = std::getenv("VIF_SOFTWARE_NEAR_CROSSING");
    if (c.software_decoding && o.hwdec == "auto" && !(near && std::strcmp(near, "0") == 0))
        o.hwdec = "none";
}
#endif

/** The run. */
int score_pair(const Options &o, CudaWarmup &warmup, const StdStreams &streams) {
    const PairRequests rq = pair_requests(o, streams);
    // The output file first: an unwritable path fails now, not after the scoring.
    std::optional<OutputFile> out;
    open_output(o, streams, &out);
#if defined(VIF_WITH_FFMPEG)
    // --hwdec: encoded inputs that NVDEC decodes go to the device path.
    if (!o.check_parity) {
        if (std::optional<int> code = score_on_device_if_chosen(o, warmup, rq, out)) return *code;
    }
#endif
    EarlyContexts early; // made while the inputs open, where they can be
    early.start(o, rq);
    HostInputs in = open_host_inputs(o, rq);
    return score_host_pairs(o, in, warmup, out, &early);
}

} // namespace

int run_pair(const Options &asked, const StdStreams &streams) {
    // --map: the maps are written from host arrays, which frames submitted from the host get
    // on either backend (docs/api.md, "Per-pixel maps"): no NVDEC device path (--hwdec cuda is
    // a usage error with --map).
    Options o = asked;
    if (o.map.enabled()) o.hwdec = "none";
    install_signal_handlers();
    if (o.verbose) g_timeline.enable();
    g_timeline.mark("options parsed");
#if defined(VIF_WITH_FFMPEG)
    choose_auto_backend(o, streams);
#endif
    // The teardown at exit can be left to a holder (exit_holder.hpp); CUDA's start-up overlaps
    // opening the inputs (see CudaWarmup).
    if (exit_holder_wanted()) start_exit_holder();
    CudaWarmup warmup;
    if (CudaWarmup::wanted(o)) warmup.start();

    int code = kExitError;
    try {
        code = score_pair(o, warmup, streams);
        g_timeline.mark("scoring contexts destroyed");
        g_timeline.print();
    } catch (const Failure &f) {
        if (::isatty(STDERR_FILENO)) std::fputs("\r\033[K", stderr); // over the progress bar
        std::fprintf(stderr, "vif: error: %s\n", f.message.c_str());
        code = f.code;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        code = kExitError;
    }
    // Every output is complete and closed, or removed on an error (their destructors ran as the
    // run unwound): leave now. What is left -- the CUDA driver's teardown (about 0.1-0.14 s),
    // decoders and contexts the device path left standing, a CUDA start-up still running for an
    // `auto` context that finished on the CPU, static destructors -- is what the process exit
    // frees anyway (docs/design.md, "Start-up and exit in the CLI").
    if (std::fflush(nullptr) != 0 && code == 0) {
        std::fprintf(stderr, "vif: error: cannot write to standard output\n");
        code = kExitError;
    }
#if defined(__SANITIZE_ADDRESS__)
    return code; // sanitizer builds: through exit(), so that the leak check runs
#else
    std::_Exit(code);
#endif
}

} // namespace vifcli
