// The input pipeline of a pair run on the host: the -r/-d paths and the raw-video options become
// SourceRequests; each input is opened as the FrameSource that fits it (raw, Y4M, FFmpeg, or
// FFmpeg in segments with --decoders; frame_source.hpp, hw_decode.hpp); the two are checked
// against each other (size, bit depth, frame counts after the skips) and read ahead by a
// Prefetcher thread each, which applies --skip-ref/--skip-dist, --subsample and --frames.
// (Inputs that NVDEC decodes take the device path instead: pair/device_scoring.hpp.)
#ifndef VIF_TOOLS_PAIR_INPUTS_HPP
#define VIF_TOOLS_PAIR_INPUTS_HPP

#include "frame_source.hpp"
#include "options.hpp"
#include "prefetch.hpp"
#include "std_streams.hpp"

#include <cstdint>
#include <memory>
#include <optional>

namespace vifcli {

/** What to open for -r and -d. */
struct PairRequests {
    SourceRequest ref, dist;
};

/** The requests of the options; refuses an input on standard input when it is closed. Throws
 *  Failure. */
PairRequests pair_requests(const Options &o, const StdStreams &streams);

/** Throws a Failure unless the two inputs have the same frame size and bit depth. */
void check_same_format(const VideoInfo &ri, const VideoInfo &di);

/** Warns that one input ended after `ended_after` frames while the other had more, and that the
 *  `common` frames were scored. */
void warn_input_ended_early(bool reference_short, uint64_t ended_after, uint64_t common);

/** Both host inputs, open and read ahead. Members are destroyed readers first. */
struct HostInputs {
    std::unique_ptr<FrameSource> ref, dist;
    std::unique_ptr<Prefetcher> ref_reader, dist_reader;
    /** Pairs that will be scored, when both inputs say how many frames they have. */
    std::optional<uint64_t> expected;
    /** Whether the frame counts were known to differ (and a warning said so already). */
    bool counts_differ = false;
};

/**
 * Opens both inputs, checks them against each other and starts their readers; returns once the
 * first frame of each has been read (so that a header announcing a frame the input does not
 * hold fails before the scoring contexts allocate for it). Throws Failure.
 */
HostInputs open_host_inputs(const Options &o, const PairRequests &rq);

} // namespace vifcli

#endif
