#include "pair/run_pair.hpp"

#include "pair/cuda_warmup.hpp"
#include "pair/failure.hpp"
#include "pair/host_scoring.hpp"
#include "pair/inputs.hpp"
#include "pair/pair_report.hpp"
#include "pair/signals.hpp"
#include "pair/timeline.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "pair/device_scoring.hpp"
#endif

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <unistd.h>

namespace vifcli {
namespace {

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
    HostInputs in = open_host_inputs(o, rq);
    return score_host_pairs(o, in, warmup, out);
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
    // CUDA's start-up overlaps opening the inputs (see CudaWarmup).
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
