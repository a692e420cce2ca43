// The one demux/decode loop of media/: packets from a source go to a libavcodec decoder, its
// frames to a sink. The FFmpeg reader (one decoder, frame by frame), the segment decoder's
// decoder threads (packets of the segments a thread takes, NVDEC or software) and the segment
// decoder's first-frame probe all run it; what differs between them is behind PacketSource and
// FrameSink.
//
// The loop takes every frame the decoder has ready before it sends the next packet, keeps a
// packet the decoder refused with EAGAIN until it has room, sends the end of the stream when the
// source ends, and stops when the decoder is drained. A segment starts where the source starts
// handing out its packets (a clean random-access point, media/random_access.hpp): the decoder is
// not flushed between segments.
#pragma once

#include <cstdint>
#include <string>

struct AVCodec;
struct AVCodecContext;
struct AVFormatContext;
struct AVFrame;
struct AVIOContext;
struct AVPacket;

namespace vif::media {

/** Where a decode loop's packets come from: one stream's, in decode order. */
class PacketSource {
public:
    virtual ~PacketSource() = default;
    /** The next packet into pkt (the loop unreferences it): 1, 0 at the end of the stream, -1
     *  on an error (*error set) or when the source stops. */
    virtual int read(AVPacket *pkt, std::string *error) = 0;
};

/** Where a decode loop's frames go. */
class FrameSink {
public:
    virtual ~FrameSink() = default;
    /** One decoded frame; the sink may move its reference out (the loop unreferences what is
     *  left). 1: go on; 0: pause (DecodeLoop::run returns 1); -1: an error (*error set). */
    virtual int take(AVFrame *frame, std::string *error) = 0;
};

/** The step of the loop that failed. */
enum class DecodeStep { none, source, send, receive, sink };

class DecodeLoop {
public:
    /** dec: an open decoder (not owned); source: not owned, outlives the loop. */
    DecodeLoop(AVCodecContext *dec, PacketSource *source);
    ~DecodeLoop();
    DecodeLoop(const DecodeLoop &) = delete;
    DecodeLoop &operator=(const DecodeLoop &) = delete;

    /** Decodes until the sink pauses (returns 1; a later run() goes on from there), the stream
     *  ends with every frame handed out (0), or an error (-1; *error set, failed_at() says
     *  where; a decoder's error reads "decoding failed: ..."). */
    int run(FrameSink *sink, std::string *error);
    DecodeStep failed_at() const { return failed_at_; }
    /** Whether the end of the stream was sent to the decoder. */
    bool flushed() const { return flushed_; }
    /** Whether a packet read from the source waits for room in the decoder (not sent yet). */
    bool holds_packet() const { return pending_; }

private:
    AVCodecContext *dec_;
    PacketSource *source_;
    AVPacket *pkt_;
    AVFrame *frame_;
    bool pending_ = false; // pkt_ holds a packet the decoder had no room for yet
    bool flushed_ = false;
    DecodeStep failed_at_ = DecodeStep::none;
};

/** One input opened at its best video stream, the others discarded. */
struct VideoInput {
    AVFormatContext *fmt = nullptr; ///< the caller's to close (avformat_close_input)
    int stream = -1;
    const AVCodec *codec = nullptr; ///< the stream's decoder, null if FFmpeg has none
};

/**
 * Opens `url` ("-": standard input; with io, the caller's AVIOContext is read instead, see
 * VideoReader::open) and finds its best video stream. With known_stream >= 0 the stream is that
 * one, found by an earlier opening of the same input (no stream information is read: that
 * decodes frames to learn what is already known); else the stream information is read only
 * where the header does not say enough (stream_info.hpp). On failure returns false with *error one line
 * ("cannot open: ...", "no video stream"; out->stream then holds av_find_best_stream's code).
 */
bool open_video_input(const std::string &url, AVIOContext *io, int known_stream, VideoInput *out,
                      std::string *error);

/** The packets of one stream of an open input, in decode order. */
class StreamDemuxer {
public:
    StreamDemuxer(AVFormatContext *fmt, int stream) : fmt_(fmt), stream_(stream) {}
    /** The next packet of the stream into pkt: 1, 0 at the end of the input, or a negative
     *  AVERROR of the demuxer. */
    int read(AVPacket *pkt);
    /** Packets of the stream read so far. */
    uint64_t packets() const { return packets_; }

private:
    AVFormatContext *fmt_;
    int stream_;
    uint64_t packets_ = 0;
};

/** FFmpeg's text for an AVERROR code. */
std::string av_error_text(int err);

} // namespace vif::media
