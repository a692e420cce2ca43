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

/** The run; `*leave_now` is set when the process should end without tearing down. */
int score_pair(const Options &o, CudaWarmup &warmup, const StdStreams &streams, bool *leave_now) {
    const PairRequests rq = pair_requests(o, streams);
    // The output file first: an unwritable path fails now, not after the scoring.
    std::optional<OutputFile> out;
    open_output(o, streams, &out);
#if defined(VIF_WITH_FFMPEG)
    // --hwdec: encoded inputs that NVDEC decodes go to the device path.
    if (!o.check_parity) {
        if (std::optional<int> code = score_on_device_if_chosen(o, warmup, rq, out)) {
            *leave_now = true;
            return *code;
        }
    }
#else
    (void)leave_now;
#endif
    HostInputs in = open_host_inputs(o, rq);
    return score_host_pairs(o, in, warmup, out);
}

} // namespace

int run_pair(const Options &asked, const StdStreams &streams) {
    // --map: the library keeps maps on the CPU backend only, so the run is a CPU run (no CUDA
    // start-up, no device path).
    Options o = asked;
    if (o.map.enabled()) o.backend = VIF_BACKEND_CPU;
    install_signal_handlers();
    if (o.verbose) g_timeline.enable();
    g_timeline.mark("options parsed");
    // CUDA's start-up overlaps opening the inputs (see CudaWarmup).
    CudaWarmup warmup;
    if (CudaWarmup::wanted(o)) warmup.start();

    int code = kExitError;
    bool leave_now = false;
    try {
        code = score_pair(o, warmup, streams, &leave_now);
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
    // The device path left its decoders and contexts to the process exit; or everything was
    // done (scored on the CPU, or failed) before CUDA finished starting: the output is complete
    // and closed or removed, so leave without waiting for a GPU we did not use.
    if (leave_now || warmup.running()) {
        std::fflush(nullptr);
        std::_Exit(code);
    }
    return code;
}

} // namespace vifcli
