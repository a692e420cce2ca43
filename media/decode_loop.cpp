// See decode_loop.hpp.
#include "decode_loop.hpp"
#include "stream_info.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace vif::media {

std::string av_error_text(int err) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(err, buf, sizeof buf);
    return buf;
}

DecodeLoop::DecodeLoop(AVCodecContext *dec, PacketSource *source)
    : dec_(dec), source_(source), pkt_(av_packet_alloc()), frame_(av_frame_alloc()) {}

DecodeLoop::~DecodeLoop() {
    av_frame_free(&frame_);
    av_packet_free(&pkt_);
}

int DecodeLoop::run(FrameSink *sink, std::string *error) {
    if (!pkt_ || !frame_) {
        *error = "out of memory";
        failed_at_ = DecodeStep::receive;
        return -1;
    }
    for (;;) {
        int r = avcodec_receive_frame(dec_, frame_);
        if (r == 0) {
            const int taken = sink->take(frame_, error);
            av_frame_unref(frame_);
            if (taken < 0) {
                failed_at_ = DecodeStep::sink;
                return -1;
            }
            if (taken == 0) return 1;
            continue;
        }
        if (r == AVERROR_EOF) return 0;
        if (r != AVERROR(EAGAIN)) {
            *error = "decoding failed: " + av_error_text(r);
            failed_at_ = DecodeStep::receive;
            return -1;
        }
        // EAGAIN after the end of the stream was sent would be a decoder bug: the end.
        if (flushed_) return 0;
        if (!pending_) {
            const int got = source_->read(pkt_, error);
            if (got < 0) {
                failed_at_ = DecodeStep::source;
                return -1;
            }
            if (got == 0) {
                avcodec_send_packet(dec_, nullptr);
                flushed_ = true;
                continue;
            }
            pending_ = true;
        }
        r = avcodec_send_packet(dec_, pkt_);
        if (r == AVERROR(EAGAIN)) continue; // no room: take frames, then send it again
        av_packet_unref(pkt_);
        pending_ = false;
        if (r < 0) {
            *error = "decoding failed: " + av_error_text(r);
            failed_at_ = DecodeStep::send;
            return -1;
        }
    }
}

bool open_video_input(const std::string &url, AVIOContext *io, int known_stream, VideoInput *out,
                      std::string *error) {
    AVFormatContext *fmt = nullptr;
    if (io) {
        fmt = avformat_alloc_context();
        if (!fmt) {
            *error = "out of memory";
            return false;
        }
        fmt->pb = io;
        fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    }
    const std::string name = io ? std::string() : url == "-" ? std::string("pipe:0") : url;
    int r = avformat_open_input(&fmt, name.c_str(), nullptr, nullptr);
    if (r < 0) { // fmt is freed (a custom AVIOContext stays the caller's)
        *error = "cannot open: " + av_error_text(r);
        return false;
    }
    int stream = known_stream;
    const AVCodec *codec = nullptr;
    if (known_stream >= 0) {
        if (known_stream >= int(fmt->nb_streams)) {
            *error = "the file changed while it was opened";
            avformat_close_input(&fmt);
            return false;
        }
    } else {
        // Readers decode a first frame themselves: no decoding pass where the header says the
        // rest (stream_info.hpp).
        r = read_stream_info(fmt);
        if (r < 0) {
            *error = "cannot read stream information: " + av_error_text(r);
            avformat_close_input(&fmt);
            return false;
        }
        stream = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
        if (stream < 0) {
            *error = "no video stream";
            out->stream = stream;
            avformat_close_input(&fmt);
            return false;
        }
    }
    for (unsigned i = 0; i < fmt->nb_streams; ++i)
        if (int(i) != stream) fmt->streams[i]->discard = AVDISCARD_ALL;
    out->fmt = fmt;
    out->stream = stream;
    out->codec = codec;
    return true;
}

int StreamDemuxer::read(AVPacket *pkt) {
    for (;;) {
        const int r = av_read_frame(fmt_, pkt);
        if (r == AVERROR_EOF) return 0;
        if (r < 0) return r;
        if (pkt->stream_index == stream_) {
            ++packets_;
            return 1;
        }
        av_packet_unref(pkt);
    }
}

} // namespace vif::media
