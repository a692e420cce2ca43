// The CPU scoring contexts of a host-path run, made on a thread of their own while the inputs
// open. Creating them (a worker thread each, with frame-sized scratch) took 14-17 ms of the
// 48-frame probe pair's 0.29 s on the H200 machine's 16 threads, after both inputs had decoded
// their first frames; made meanwhile, from the frame size and depth the reference's container
// header says, that time overlaps the opening. The run takes them only if they are exactly what
// it would make from the opened inputs (make_variants); else they are dropped and made as
// before. Only where both inputs are encoded files with such a header, on the CPU backend,
// without --check-parity, --map or --read-only, and for frames up to about 1080p (a header's
// size is not yet checked against the stream: no large allocation is made on its word); on the
// NVDEC device path, the CUDA contexts likewise (start_cuda).
#ifndef VIF_TOOLS_PAIR_EARLY_CONTEXTS_HPP
#define VIF_TOOLS_PAIR_EARLY_CONTEXTS_HPP

#include "options.hpp"
#include "pair/inputs.hpp"
#include "pair/variants.hpp"

#include <optional>
#include <thread>

namespace vifcli {

class EarlyContexts {
public:
    EarlyContexts() = default;
    EarlyContexts(const EarlyContexts &) = delete;
    EarlyContexts &operator=(const EarlyContexts &) = delete;
    ~EarlyContexts();

    /** Starts making them, where the run allows (see above). */
    void start(const Options &o, const PairRequests &rq);

    /** The same for the NVDEC device path, on the CUDA backend: called once CUDA is up, while
     *  the NVDEC sessions open (making the contexts took 42 ms after them on the H200
     *  machine); frames up to 4096x2304 whose reference header gives the depth. */
    void start_cuda(const Options &o, const SourceRequest &ref);

    /** Waits for them; moves their contexts into `variants` (made by make_variants for the
     *  opened inputs, no context yet) when they were made with the same configurations. */
    bool take(Variants *variants);

private:
    std::thread thread_;
    Variants made_;
};

} // namespace vifcli

#endif
