// See stream_info.hpp.
#include "stream_info.hpp"

#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace vif::media {

namespace {

// The demuxers whose headers carry every stream's codec parameters (FFmpeg's names).
bool container_describes_streams(const char *name) {
    if (!name) return false;
    return std::strcmp(name, "matroska,webm") == 0 ||
           std::strcmp(name, "mov,mp4,m4a,3gp,3g2,mj2") == 0 || std::strcmp(name, "ivf") == 0;
}

} // namespace

bool header_is_enough(const AVFormatContext *fmt) {
    if (!fmt || !fmt->iformat || !container_describes_streams(fmt->iformat->name)) return false;
    const AVStream *video = nullptr;
    for (unsigned i = 0; i < fmt->nb_streams; ++i) {
        const AVStream *st = fmt->streams[i];
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        // Several (a cover picture counts): FFmpeg's ranking of them uses the pass.
        if (video) return false;
        video = st;
    }
    if (!video) return false;
    const AVCodecParameters *par = video->codecpar;
    if (par->codec_id == AV_CODEC_ID_NONE || !avcodec_find_decoder(par->codec_id)) return false;
    if (par->width <= 0 || par->height <= 0) return false;
    // The frame rate the reports and the map videos use: the pass would estimate a missing one.
    const bool rate = (video->avg_frame_rate.num > 0 && video->avg_frame_rate.den > 0) ||
                      (video->r_frame_rate.num > 0 && video->r_frame_rate.den > 0);
    if (!rate) return false;
    // H.264 and HEVC in these containers keep their parameter sets in the header (avcC, hvcC);
    // a stream without them is Annex B in a container, left to the pass.
    if ((par->codec_id == AV_CODEC_ID_H264 || par->codec_id == AV_CODEC_ID_HEVC) &&
        par->extradata_size <= 0)
        return false;
    return true;
}

int read_stream_info(AVFormatContext *fmt) {
    if (header_is_enough(fmt)) return 0;
    return avformat_find_stream_info(fmt, nullptr);
}

} // namespace vif::media
