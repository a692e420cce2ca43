#include "ffmpeg_reader.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "vif/vif_ffmpeg.h"

#include "decode_loop.hpp"

namespace vif::ffmpeg {

namespace {

std::string av_err(int err) {
    return media::av_error_text(err);
}

const char* pix_name(int fmt) {
    const char* n = av_get_pix_fmt_name(static_cast<AVPixelFormat>(fmt));
    return n ? n : "none";
}

// Format to convert a decoded frame into when libvif cannot take its luma plane as is: the same
// bit depth (8, 10, 12 or 16 after rounding up) and the same family, gray stays gray (full range
// in libswscale's view) and everything else becomes planar 4:4:4 YUV (limited range), so that
// libswscale copies luma samples unchanged wherever the source already has a luma component.
AVPixelFormat conversion_target(int fmt) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(fmt));
    int depth = d ? d->comp[0].depth : 8;
    const bool gray =
        d && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) && d->nb_components <= 2;
    if (depth <= 8) return gray ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV444P;
    if (depth <= 10) return gray ? AV_PIX_FMT_GRAY10LE : AV_PIX_FMT_YUV444P10LE;
    if (depth <= 12) return gray ? AV_PIX_FMT_GRAY12LE : AV_PIX_FMT_YUV444P12LE;
    return gray ? AV_PIX_FMT_GRAY16LE : AV_PIX_FMT_YUV444P16LE;
}

} // namespace

// The reader's part of the decode loop (decode_loop.hpp): its packets come from the input's
// video stream, checked for a cut-short input; each frame pauses the loop and waits in `frame`
// until next() hands it out.
struct VideoReader::Impl : media::PacketSource, media::FrameSink {
    std::string path;
    AVFormatContext* fmt = nullptr;
    AVCodecContext* dec = nullptr;
    AVFrame* frame = nullptr;     // last decoded frame
    AVFrame* converted = nullptr; // frame after libswscale, when needed
    SwsContext* sws = nullptr;
    int sws_src_fmt = AV_PIX_FMT_NONE;
    int stream = -1;
    std::unique_ptr<media::StreamDemuxer> demuxer;
    std::unique_ptr<media::DecodeLoop> loop;
    bool have_first =
        false; // frame holds the first frame, decoded by open() and not yet handed out
    uint32_t width = 0, height = 0, bitdepth = 0;
    int first_format = AV_PIX_FMT_NONE;
    uint64_t count = 0;
    int64_t demuxed_end = AV_NOPTS_VALUE; // largest pts + duration of our stream's packets
    int64_t last_duration = 0;

    // At the end of the demuxed data: whether the video stream stops well before the end its
    // container announces for it (a file cut short that the demuxer ended quietly, as Matroska's
    // does). Only when the duration is the stream's own: the stream's DURATION tag (Matroska
    // files written by FFmpeg or mkvmerge), or the container's when the file has one stream.
    bool ends_early(std::string* error) const {
        const AVStream* st = fmt->streams[stream];
        if (demuxed_end == AV_NOPTS_VALUE || st->time_base.num <= 0) return false;
        int64_t announced = AV_NOPTS_VALUE;
        if (const AVDictionaryEntry* tag = av_dict_get(st->metadata, "DURATION", nullptr, 0)) {
            unsigned h = 0, m = 0;
            double sec = 0;
            if (std::sscanf(tag->value, "%u:%u:%lf", &h, &m, &sec) == 3)
                announced = av_rescale_q(int64_t((h * 3600.0 + m * 60.0 + sec) * AV_TIME_BASE),
                                         AV_TIME_BASE_Q, st->time_base) +
                            (st->start_time != AV_NOPTS_VALUE ? st->start_time : 0);
        } else if (fmt->nb_streams == 1 && st->duration > 0 && st->duration != AV_NOPTS_VALUE) {
            announced = st->duration + (st->start_time != AV_NOPTS_VALUE ? st->start_time : 0);
        }
        if (announced == AV_NOPTS_VALUE) return false;
        // More than one and a half frames missing: not rounding in the container's numbers.
        int64_t frame = last_duration;
        if (frame <= 0 && st->avg_frame_rate.num > 0)
            frame = av_rescale_q(1, av_inv_q(st->avg_frame_rate), st->time_base);
        if (frame <= 0) return false;
        if (announced - demuxed_end <= frame + frame / 2) return false;
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "the input ends here, %.3f s before the end its header announces (cut "
                      "short?)",
                      double(announced - demuxed_end) * av_q2d(st->time_base));
        *error = buf;
        return true;
    }

    ~Impl() override {
        loop.reset();
        sws_freeContext(sws);
        av_frame_free(&converted);
        av_frame_free(&frame);
        avcodec_free_context(&dec);
        avformat_close_input(&fmt);
    }

    // PacketSource: the stream's packets, with the end of the input checked against what its
    // header announces and packets the demuxer got short refused.
    int read(AVPacket* pkt, std::string* error) override {
        const int r = demuxer->read(pkt);
        if (r == 0) return ends_early(error) ? -1 : 0;
        if (r < 0) {
            *error = "reading failed: " + av_err(r);
            return -1;
        }
        const int64_t t = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
        if (t != AV_NOPTS_VALUE) {
            const int64_t end = t + (pkt->duration > 0 ? pkt->duration : 0);
            if (demuxed_end == AV_NOPTS_VALUE || end > demuxed_end) demuxed_end = end;
            if (pkt->duration > 0) last_duration = pkt->duration;
        }
        // The demuxer got fewer bytes than the packet has: the input ends inside it.
        if (pkt->flags & AV_PKT_FLAG_CORRUPT) {
            av_packet_unref(pkt);
            *error = "the input is cut short or corrupt (an incomplete packet)";
            return -1;
        }
        return 1;
    }

    // FrameSink: keeps the frame in `frame` and pauses the loop.
    int take(AVFrame* f, std::string* error) override {
        av_frame_unref(frame);
        av_frame_move_ref(frame, f);
        // A frame the decoder had to conceal errors in is not the frame encoded.
        if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT)) {
            *error = "decoding failed: the frame is damaged (the input is cut short or corrupt)";
            return -1;
        }
        return 0;
    }

    // Decodes the next frame into `frame`: 1, 0 at the end, or -1 with *error.
    int decode(std::string* error) { return loop->run(this, error); }

    // Luma view of `frame`, converting it first if it must. 0 on success, -1 with *error.
    int luma(VifPicture* pic, std::string* error) {
        if (vif_ffmpeg_picture(frame, pic) == VIF_OK) return 0;
        const AVPixelFormat target = conversion_target(frame->format);
        if (!sws || sws_src_fmt != frame->format || converted->width != frame->width ||
            converted->height != frame->height) {
            sws_freeContext(sws);
            sws = sws_getContext(frame->width, frame->height,
                                 static_cast<AVPixelFormat>(frame->format), frame->width,
                                 frame->height, target, SWS_POINT | SWS_ACCURATE_RND, nullptr,
                                 nullptr, nullptr);
            if (!sws) {
                *error = std::string("cannot convert pixel format ") + pix_name(frame->format) +
                         " to " + pix_name(target);
                return -1;
            }
            sws_src_fmt = frame->format;
            av_frame_unref(converted);
            converted->format = target;
            converted->width = frame->width;
            converted->height = frame->height;
            if (av_frame_get_buffer(converted, 0) < 0) {
                *error = "out of memory";
                return -1;
            }
        }
        if (av_frame_make_writable(converted) < 0 ||
            sws_scale(sws, frame->data, frame->linesize, 0, frame->height, converted->data,
                      converted->linesize) != frame->height) {
            *error =
                std::string("pixel format conversion from ") + pix_name(frame->format) + " failed";
            return -1;
        }
        converted->crop_left = frame->crop_left;
        converted->crop_right = frame->crop_right;
        converted->crop_top = frame->crop_top;
        converted->crop_bottom = frame->crop_bottom;
        if (vif_ffmpeg_picture(converted, pic) != VIF_OK) {
            *error = vif_ffmpeg_last_error();
            return -1;
        }
        return 0;
    }
};

VideoReader::VideoReader() : impl_(new Impl) {}
VideoReader::~VideoReader() = default;

bool VideoReader::open(const std::string& path, int threads, std::string* error, AVIOContext* io) {
    impl_.reset(new Impl);
    Impl& s = *impl_;
    s.path = path;
    media::VideoInput in;
    if (!media::open_video_input(path, io, -1, &in, error)) {
        if (in.stream < 0 && *error == "no video stream")
            *error += in.stream == AVERROR_DECODER_NOT_FOUND ? " (no decoder for it)"
                                                             : " (not a video file)";
        return false;
    }
    s.fmt = in.fmt;
    s.stream = in.stream;
    const AVCodec* codec = in.codec;
    AVStream* st = s.fmt->streams[s.stream];
    s.dec = avcodec_alloc_context3(codec);
    if (!s.dec || avcodec_parameters_to_context(s.dec, st->codecpar) < 0) {
        *error = "cannot set up the decoder";
        return false;
    }
    s.dec->thread_count = threads;
    int r = avcodec_open2(s.dec, codec, nullptr);
    if (r < 0) {
        *error = std::string("cannot open the ") + codec->name + " decoder: " + av_err(r);
        return false;
    }
    s.frame = av_frame_alloc();
    s.converted = av_frame_alloc();
    if (!s.frame || !s.converted) {
        *error = "out of memory";
        return false;
    }
    s.demuxer = std::make_unique<media::StreamDemuxer>(s.fmt, s.stream);
    s.loop = std::make_unique<media::DecodeLoop>(s.dec, &s);
    r = s.decode(error);
    if (r < 0) {
        *error = "frame 0: " + *error;
        return false;
    }
    if (r == 0) {
        *error = "no frames could be decoded (frame 0 is missing or cut short)";
        return false;
    }
    VifPicture pic;
    if (s.luma(&pic, error) < 0) return false;
    s.width = pic.width;
    s.height = pic.height;
    s.bitdepth = pic.bitdepth;
    s.first_format = s.frame->format;
    s.have_first = true;
    return true;
}

uint32_t VideoReader::width() const {
    return impl_->width;
}
uint32_t VideoReader::height() const {
    return impl_->height;
}
uint32_t VideoReader::bitdepth() const {
    return impl_->bitdepth;
}
uint64_t VideoReader::frames_read() const {
    return impl_->count;
}
const AVFrame* VideoReader::frame() const {
    return impl_->count ? impl_->frame : nullptr;
}

std::string VideoReader::description() const {
    const Impl& s = *impl_;
    if (!s.fmt || !s.dec) return s.path;
    std::string d =
        std::string(s.dec->codec ? s.dec->codec->name : "?") + " (" + pix_name(s.first_format);
    if (!vif_ffmpeg_pix_fmt_supported(s.first_format))
        d += std::string(" converted to ") + pix_name(conversion_target(s.first_format));
    d += ", " + std::to_string(s.width) + "x" + std::to_string(s.height) + ", " +
         std::to_string(s.bitdepth) + "-bit) in " + s.fmt->iformat->name;
    return d;
}

bool VideoReader::frame_rate(uint32_t* num, uint32_t* den) const {
    const Impl& s = *impl_;
    *num = *den = 0;
    if (!s.fmt || s.stream < 0) return false;
    AVRational r = s.fmt->streams[s.stream]->avg_frame_rate;
    if (r.num <= 0 || r.den <= 0) r = s.fmt->streams[s.stream]->r_frame_rate;
    if (r.num <= 0 || r.den <= 0) return false;
    *num = uint32_t(r.num);
    *den = uint32_t(r.den);
    return true;
}

int64_t VideoReader::frame_count_hint() const {
    const Impl& s = *impl_;
    if (!s.fmt || s.stream < 0) return -1;
    const int64_t n = s.fmt->streams[s.stream]->nb_frames;
    return n > 0 ? n : -1;
}

int VideoReader::next(VifPicture* picture, std::string* error) {
    Impl& s = *impl_;
    if (!s.dec) {
        *error = "VideoReader: not open";
        return -1;
    }
    if (s.have_first) {
        s.have_first = false;
    } else {
        const int r = s.decode(error);
        if (r < 0) *error = "frame " + std::to_string(s.count) + ": " + *error;
        if (r <= 0) return r;
    }
    if (s.luma(picture, error) < 0) {
        *error = "frame " + std::to_string(s.count) + ": " + *error;
        return -1;
    }
    if (picture->width != s.width || picture->height != s.height ||
        picture->bitdepth != s.bitdepth) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "frame %llu is %ux%u %u-bit (%s), but the stream started %ux%u %u-bit",
                      static_cast<unsigned long long>(s.count), picture->width, picture->height,
                      picture->bitdepth, pix_name(s.frame->format), s.width, s.height, s.bitdepth);
        *error = buf;
        return -1;
    }
    ++s.count;
    return 1;
}

bool probe_is_media(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    char head[4096];
    const size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return probe_is_media(head, n);
}

bool probe_is_media(const void* head, size_t size) {
    if (size == 0) return false;
    std::vector<unsigned char> buf(size + AVPROBE_PADDING_SIZE, 0);
    std::memcpy(buf.data(), head, size);
    AVProbeData pd;
    std::memset(&pd, 0, sizeof pd);
    pd.filename = ""; // content only: raw YUV's .yuv extension would match the rawvideo demuxer
    pd.buf = buf.data();
    pd.buf_size = static_cast<int>(size);
    int score = 0;
    const AVInputFormat* fmt = av_probe_input_format3(&pd, 1, &score);
    // A score of 25 or less is a guess (raw streams that any byte soup might match).
    return fmt && score > AVPROBE_SCORE_MAX / 4;
}

} // namespace vif::ffmpeg
