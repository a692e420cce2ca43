// `--hwdec auto|cuda|none`: whether the inputs are decoded by NVDEC straight into GPU memory
// (device_pairs.hpp scores them there) or on the CPU (the host path, pair/host_scoring.hpp).
//
//   none: software decoding, host path.
//   cuda: every encoded input (not raw/Y4M, not stdin) is decoded with NVDEC; a GPU, a CUDA
//         backend and an input NVDEC decodes are required, anything else is an error.
//   auto: NVDEC for each encoded input it can decode when the scoring runs on CUDA; software
//         for the others; the host path when neither input goes to NVDEC, or when the clip is
//         too short for NVDEC's start-up to pay (decode_choice.hpp). Where the CPU decodes a
//         segment's worth while CUDA and NVDEC start, decoding starts in software at once and
//         NVDEC joins (may_start_in_software; not with --cpu-decoders 0). --verbose says which.
// A raw/Y4M input next to an NVDEC-decoded one is read on the host and uploaded.
#ifndef VIF_TOOLS_HW_DECODE_HPP
#define VIF_TOOLS_HW_DECODE_HPP

#include "frame_source.hpp"
#include "prefetch.hpp"
#include "segment_decoder.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vifcli {

enum class HwDecode { kAuto, kCuda, kNone };

/** Parses the option value; nullopt for an unknown one. */
std::optional<HwDecode> parse_hwdec(const std::string &s);

/** An input NVDEC could take: a named regular file FFmpeg demuxes that is not Y4M or raw YUV
 *  (looks at its first bytes only). */
bool encoded_input(const SourceRequest &r);

/** What the device path reads: per input a SegmentDecoder or a host FrameSource. */
struct HwDecodeInputs {
    std::unique_ptr<SegmentDecoder> ref_decoder, dist_decoder;
    std::unique_ptr<FrameSource> ref_source, dist_source;
    /// The decoders started in software before CUDA was up (SegmentDecoderOptions::nvdec_later):
    /// once it is, the caller calls join_nvdec() on each; if it never is, the caller drops
    /// these inputs and scores on the host path.
    bool nvdec_joins_later = false;
};

struct HwDecodeRequest {
    HwDecode mode = HwDecode::kAuto;
    /// Whether the scoring will run on CUDA (waits for the CUDA start-up); asked only when an
    /// input is encoded. Sets *why when not.
    std::function<bool(std::string *why)> gpu_ready;
    bool host_only = false; ///< the scoring cannot run on CUDA (--backend cpu): host path
    int cuda_device = 0;
    unsigned decoders = 0; ///< NVDEC decoders per input, 0: automatic
    int cpu_decoders = -1; ///< software decoders beside them per input, -1: automatic
    bool verbose = false;
    uint64_t max_frames = 0;              ///< --frames: the most pairs the run scores, 0: all
    uint64_t skip_ref = 0, skip_dist = 0; ///< frames skipped at the start of each input
    uint64_t subsample = 1;               ///< --subsample: pairs read a pair scored
    /// auto (unless --cpu-decoders 0): encoded inputs may start decoding in software at once,
    /// without waiting for CUDA, NVDEC joining later (decode_choice.hpp, choose_decoding_start).
    /// Environment VIF_TEST_SOFTWARE_FIRST=1 (tests): always, whatever the clip.
    bool may_start_in_software = false;
    /// Where NVDEC sessions take turns (SegmentDecoderOptions::session_turn); empty: none.
    std::function<std::shared_ptr<void>()> session_turn;
};

/** Thrown for `--hwdec cuda` requests that cannot be met: one line. */
struct HwDecodeError {
    std::string message;
};

/**
 * Decides and opens. Returns nullopt when the host path should run (mode none, no encoded
 * input, auto without a GPU or without an input NVDEC takes). Throws HwDecodeError (cuda mode
 * cannot be met) or InputError (an input is broken).
 */
std::optional<HwDecodeInputs> open_hw_decode(const HwDecodeRequest &req, const SourceRequest &ref,
                                             const SourceRequest &dist);

/** A reference and the distorted inputs scored against it (a ladder's rungs), each decoded by
 *  NVDEC: the group's device path, the reference decoded once for all its rungs. */
struct NvdecGroup {
    std::unique_ptr<SegmentDecoder> ref;
    std::vector<std::unique_ptr<SegmentDecoder>> rungs; ///< in the order asked for
};

/**
 * Opens a group's inputs on the NVDEC engines of req.cuda_device (req.decoders sessions each,
 * its session turns). Returns nullopt, having made no session where the headers tell, when the
 * group goes the host path instead: mode none, an input that is not an encoded file, a rung
 * whose size or depth differs from the reference's (upscaled on the host), with auto a clip too
 * short for NVDEC's start-up to pay (decode_choice.hpp), an input NVDEC cannot decode, no usable
 * GPU, or an input that fails to open (the host path says what is wrong with it).
 */
std::optional<NvdecGroup> open_nvdec_group(const HwDecodeRequest &req, const SourceRequest &ref,
                                           const std::vector<SourceRequest> &rungs);

/**
 * Software decoding of an encoded input with `decoders` decoders on segments of their own
 * (SegmentDecoder), `threads` libavcodec threads each, as a host FrameSource. Returns null when
 * the input is not one that can be split this way (stdin, raw, Y4M) or its frames need a pixel
 * format conversion; the caller then opens it as usual.
 */
std::unique_ptr<FrameSource> open_segmented_source(const SourceRequest &req, unsigned decoders,
                                                   unsigned threads);

} // namespace vifcli

#endif
