// `--hwdec auto` on a short clip: whether NVDEC pays for its start-up, decided from the clip's
// length and size before any decoder opens. The rates behind the rule are written down here and
// nowhere else (decode_choice.cpp); bench/startup measures them.
//
// Decoding a pair with NVDEC costs a start-up (its sessions opened, each input probed on the
// GPU) and then a fast rate; decoding it with FFmpeg on the CPU threads starts at once but runs
// slower. NVDEC is worth it from the clip length where the two lines cross.
#ifndef VIF_MEDIA_DECODE_CHOICE_HPP
#define VIF_MEDIA_DECODE_CHOICE_HPP

#include <cstdint>
#include <optional>
#include <string>

namespace vifcli {

/** What the container says of one encoded input, read from its header alone (no decoding). */
struct ClipShape {
    uint64_t frames = 0; ///< 0: the container does not say
    uint32_t width = 0, height = 0;
    std::string codec; ///< FFmpeg's codec name ("h264", "hevc", "av1", ...)
    /// Luma bits as libvif scores them (8, 10, 12 or 16) where the header says (its pixel
    /// format, or an 8-bit-only H.264 or HEVC profile); 0: it does not say.
    uint32_t bitdepth = 0;
    /// The file's size over its frames (0: unknown); for a pair (run_shape), both inputs'.
    double bytes_per_frame = 0;
};

/** The header of `path`; nullopt when FFmpeg cannot open it or it has no video stream. */
std::optional<ClipShape> probe_clip_shape(const std::string &path);

struct NvdecChoice {
    bool nvdec = true;
    std::string why; ///< one line for --verbose
};

/**
 * Whether NVDEC should decode a pair of `frames` frames (the most the run will score, 0:
 * unknown: NVDEC) of the given shape on a machine with `cores` CPU threads.
 */
NvdecChoice choose_nvdec(uint64_t frames, const ClipShape &shape, unsigned cores);

struct StartChoice {
    bool software_first = false; ///< software decoders start at once, NVDEC joins later
    unsigned decoders = 1;       ///< software decoders an input
    unsigned threads = 1;        ///< libavcodec threads each
    std::string why;             ///< one line for --verbose
};

/**
 * A pair NVDEC decodes (choose_nvdec): whether software decoders should start on it at once,
 * while CUDA and the NVDEC sessions start, and NVDEC join them (SegmentDecoderOptions::
 * nvdec_later): when the CPU threads decode at least a segment's worth of pairs
 * (`segment_frames`) in that start-up time.
 */
StartChoice choose_decoding_start(const ClipShape &shape, unsigned cores, unsigned segment_frames);

struct CpuChoice {
    bool cpu_only = false;
    /// When CUDA is chosen: whether CPU threads score the first frames while CUDA starts (the
    /// hand-over). Only where the GPU time those frames save exceeds what the hand-over costs:
    /// the frames still on the CPU when CUDA is ready (one a thread) and CUDA's start-up slowed
    /// by busy cores. Raw input by that rule; encoded input (decoding-bound) always.
    bool cpu_while_cuda_starts = true;
    /// Encoded input that goes to CUDA near the crossing (the CPU run estimated at most 1.8
    /// times CUDA's for light decoding, less the heavier the decoding, from the bits a pixel):
    /// decoded in software, the CPU scoring while CUDA starts and CUDA after (what --hwdec none
    /// does), not by NVDEC. Decoding alone takes less than the whole CPU run, about CUDA's time
    /// there, and starts at once; NVDEC's start-up is paid back only further on.
    bool software_decoding = false;
    std::string why; ///< one line for --verbose
};

/**
 * `--backend auto`: whether a run of `frames` pairs (0: unknown: no) of the given shape (codec
 * "raw" for raw YUV and Y4M input) is done sooner on the CPU threads alone than CUDA can start,
 * score it (NVDEC decoding encoded input) and let the process go: then CUDA is never started,
 * which also spares the driver's teardown at exit (about 0.1 s even after _Exit). `variants`:
 * how many VIF variants each frame is scored in. Just past that crossing, encoded input is
 * decoded in software (CpuChoice::software_decoding) up to where the CPU run is estimated at
 * `software_band` times CUDA's (0: from how heavy the decoding is, ClipShape::bytes_per_frame).
 */
CpuChoice choose_cpu_only(uint64_t frames, const ClipShape &shape, unsigned cores,
                          unsigned variants, double software_band = 0);

} // namespace vifcli

#endif
