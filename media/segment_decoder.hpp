// Decodes one encoded input with several decoders at once, handing out its frames in order.
//
// A demuxer thread reads the packets and cuts the stream into segments at clean random-access
// points (H.264/HEVC IDR pictures, AV1 key frames) at least `min_segment_frames` apart. Decoder
// threads, each with a decoder of its own (an NVDEC session through libavcodec's `cuda` hwaccel,
// or a software decoder), take the segments in order and decode them independently; next()
// returns the frames of segment 0, then of segment 1, ... so the sequence is exactly what one
// decoder would produce from the whole stream (a segment starts where the decoder's state is
// reset by the stream itself, so nothing before it is referenced).
//
// Memory is bounded: a decoder keeps at most `queue_frames` decoded frames ready, and the
// demuxer reads at most a few segments ahead of the frame handed out.
//
// NVDEC frames (AV_PIX_FMT_CUDA, NV12/P010/P016) never leave the GPU: a decoder copies the luma
// plane of each mapped surface into a device buffer of its own and gives the surface back at
// once (a decoder has at most 32 surfaces; decoding ahead needs room for whole segments). The
// buffer is the caller's until release().
//
// Opening costs one decoder (one NVDEC session) per decoder: the probe's decoder, which decoded
// the first frame to learn the stream's size and depth, goes on as decoder 0 on segment 0 from
// the packet after those it was fed (libavcodec's H.264 makes a new NVDEC session after a
// flush, so flushing it and starting again would cost a second session an input).
//
// In a batch (decoder_pool.hpp), an HEVC decoder that decoded its input to the end is flushed and
// kept for the next input of the same shape (through a flush it keeps its NVDEC session).
//
// A decoder that cannot get an NVDEC session (out of sessions or memory) carries on in software
// for the rest of the run (one line on stderr says so); its frames are then host frames.
//
// Software decoders beside NVDEC ones (the start of a run, `nvdec_later`, or --cpu-decoders)
// must not hold up next(): while NVDEC decoders run, a software decoder takes only a segment it
// will finish, at its own measured rate, before next() gets there at NVDEC's (with a margin);
// NVDEC decoders always take the earliest segment left. A software decoder decodes one segment
// at a time (drained and reset in between), so it may take any segment. Before NVDEC has joined
// (or without it), software decoders take the earliest segments. Once CUDA is up (join_nvdec),
// a software decoder copies each frame's luma plane to the GPU itself, so the frames handed out
// are device frames whatever decoded them.
#ifndef VIF_TOOLS_SEGMENT_DECODER_HPP
#define VIF_TOOLS_SEGMENT_DECODER_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

struct AVFrame;

namespace vifcli {

struct SegmentDecoderOptions {
    bool cuda = true;                 ///< NVDEC decoders (else software)
    int cuda_device = 0;              ///< device ordinal (its primary context is used)
    unsigned decoders = 1;            ///< decoders working at once
    unsigned software_decoders = 0;   ///< with cuda: software decoders beside the NVDEC ones
    unsigned threads_per_decoder = 1; ///< software decoders: libavcodec threads each
    unsigned min_segment_frames = 30; ///< shortest segment worth a decoder of its own
    unsigned queue_frames = 4;        ///< decoded frames a decoder may keep ready
    unsigned held_frames = 8;         ///< frames the consumer may hold (surfaces kept spare)
    /// The probe's decoder goes on as decoder 0 (false: it is flushed and starts again from
    /// the first packet, one session more; tests compare the two)
    bool continue_probe = true;
    bool verbose = false;
    /// With cuda: start with the software decoders alone (at least one), the first frame probed
    /// in software, so that decoding starts before CUDA has; the NVDEC decoders join through
    /// join_nvdec().
    bool nvdec_later = false;
    /// Test hook for machines without NVDEC: with nvdec_later and without cuda, join_nvdec()
    /// starts `decoders` software decoders in the NVDEC decoders' place (taking the earliest
    /// segments as they do), so that the sharing is tested on the CPU.
    bool stand_ins_for_nvdec = false;
    /// Software decoders go on beside running NVDEC decoders (on segments they finish in time);
    /// false: they stop taking segments once NVDEC runs.
    bool software_beside_nvdec = true;
    /// The demuxer stops after this many packets, as if the stream ended there (0: reads it
    /// all): a run that scores the first frames only (--frames) decodes no more than those and
    /// the pictures reordering can bring before them (the caller adds that margin).
    uint64_t max_packets = 0;
    /// With cuda: called on a decoder's thread just before libavcodec makes (or, with the NVDEC
    /// builds' kept decoders, takes) its NVDEC session, in its hwaccel's initialisation; what
    /// it returns is held until the session is there (the decoder's first frame buffer asked
    /// for) or the decoding it was for has ended, then dropped. `vif batch` gives out turns this way (batch/session_turns.hpp): the
    /// driver makes sessions one at a time for the whole host, and only the making waits for a
    /// turn, not the demuxing or the decoding around it. Empty: no turns.
    std::function<std::shared_ptr<void>()> session_turn;
};

/** How a run's segments were shared out (SegmentDecoder::sharing()). */
struct SegmentSharing {
    uint64_t by_nvdec = 0;    ///< segments decoded by NVDEC (or the stand-ins)
    uint64_t in_software = 0; ///< by software decoders beside them or before they joined
    std::string nvdec_note;   ///< why NVDEC did not join (empty when it did or was not asked)
};

/** One decoded frame, owned by the caller until SegmentDecoder::release(). */
struct DecodedFrame {
    // NVDEC: the luma plane in a device buffer of the decoder's pool, already written.
    const void *data = nullptr;
    ptrdiff_t pitch = 0;
    bool on_device = false;
    uint32_t flags = 0; ///< VIF_PICTURE_MSB_ALIGNED for NVDEC's 16-bit surfaces
    int decoder = 0;    ///< whose pool the buffer goes back to
    // Software decoding (or a decoder that fell back to it): the host frame.
    AVFrame *frame = nullptr;
    uint64_t index = 0; ///< position in the stream (display order), from 0
};

class SegmentDecoder {
public:
    /**
     * Opens `path` (`name` prefixes messages: "reference 'a.mp4'"). With opts.cuda, the first
     * frame is decoded with NVDEC to learn whether it can: if not, throws NvdecUnsupported.
     * Other problems throw InputError. Starts the threads.
     */
    SegmentDecoder(const std::string &path, const std::string &name,
                   const SegmentDecoderOptions &opts);
    ~SegmentDecoder();
    SegmentDecoder(const SegmentDecoder &) = delete;
    SegmentDecoder &operator=(const SegmentDecoder &) = delete;

    uint32_t width() const;
    uint32_t height() const;
    uint32_t bitdepth() const; ///< of the coded samples (P010 holds 10)
    /** Pixel format of the frames: software decoders' output format, or the format NVDEC
     *  decodes into memory (an AVPixelFormat value). */
    int sw_format() const;
    const std::string &description() const; ///< "hevc (yuv420p10le via NVDEC, 4 decoders) in ..."

    /** Waits for the next frame: true with one, false at the end; throws InputError. */
    bool next(DecodedFrame *out);
    /** Gives a frame from next() back (unreferences it, recycles its event). */
    void release(DecodedFrame *f);
    /** Stops the threads (also done by the destructor). */
    void stop();

    /** Segments the stream was cut into so far. */
    uint64_t segments() const;

    /**
     * nvdec_later: the NVDEC decoders join, on a thread of their own (the first one checks on
     * the first frame that NVDEC decodes the stream; the others open their sessions at once,
     * each on its own thread), while decoding and next() go on; from now on the software
     * decoders copy their frames to the GPU. Call once, when CUDA has started (the device's
     * primary context is used). Does nothing without nvdec_later.
     */
    void join_nvdec();

    /** Segments decoded by NVDEC and in software so far. */
    SegmentSharing sharing() const;

    /** Whether NVDEC has delivered a frame (its session is open), or will not (it cannot
     *  decode the stream). */
    bool nvdec_started() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/** Thrown when NVDEC cannot decode an input (codec, profile, chroma format or size). */
struct NvdecUnsupported {
    std::string why;
};

/** Decoders the segment decoders of this process opened, and flushes of an open decoder that
 *  then decodes again (each one a new NVDEC session with libavcodec's H.264): tests count the
 *  sessions an input costs. */
struct DecoderSessionCounts {
    uint64_t opened = 0;
    uint64_t flushed = 0;
    uint64_t reused = 0; ///< decoders taken from those kept (decoder_pool.hpp)
    /// Inputs whose first frame was probed with NVDEC (their first session made then), and the
    /// time those probes took in all and at most (`vif batch --timings`: how long a session's
    /// making takes while others decode).
    uint64_t nvdec_probes = 0;
    double nvdec_probe_seconds = 0, nvdec_probe_most = 0;
};
DecoderSessionCounts decoder_session_counts();

/** Whether this build can decode with NVDEC at all (FFmpeg with the cuda hwaccel). */
bool nvdec_built_in();

} // namespace vifcli

#endif
