// FFmpeg-decoded input for the vif CLI: anything libavformat/libavcodec open (MP4, MKV, Y4M,
// raw H.264/HEVC/AV1 streams, FFV1, ...). Luma is delivered at the stream's native bit depth;
// pixels are converted (libswscale) only when the decoded format has no luma plane libvif can
// take as is (see libvif/ffmpeg/reader.hpp). MSB-aligned words (P010, P016) stay as they are and
// are flagged VIF_PICTURE_MSB_ALIGNED.
#include "ffmpeg_source.hpp"

#include <cstdio>
#include <cstring>
#include <mutex>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
}

#include "reader.hpp"
#include "vif/vif.h"

namespace vifcli {

namespace {

std::string chroma_layout(int pix_fmt) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(pix_fmt));
    if (!d) return "";
    if (d->nb_components <= 2 && !(d->flags & AV_PIX_FMT_FLAG_RGB)) return "400";
    if (d->flags & AV_PIX_FMT_FLAG_RGB) return "444";
    if (d->log2_chroma_w == 1 && d->log2_chroma_h == 1) return "420";
    if (d->log2_chroma_w == 1 && d->log2_chroma_h == 0) return "422";
    if (d->log2_chroma_w == 0 && d->log2_chroma_h == 0) return "444";
    return "";
}

class FfmpegSource final : public FrameSource {
public:
    explicit FfmpegSource(const SourceRequest& req)
        : name_(req.label + " '" + req.path + "'") {
        std::string err;
        if (!reader_.open(req.path, 0, &err)) throw InputError(name_ + ": " + err);
        info_.width = reader_.width();
        info_.height = reader_.height();
        info_.bitdepth = reader_.bitdepth();
        info_.format = reader_.description();
        check_frame_size(name_, info_.width, info_.height);
        if (!supported_bitdepth(info_.bitdepth))
            throw InputError(name_ + ": " + std::to_string(info_.bitdepth) +
                             "-bit luma is not supported (8, 10, 12 or 16)");
        // Self-describing input: sizes given on the command line must agree with the file.
        if ((req.width && req.width != info_.width) || (req.height && req.height != info_.height))
            throw InputError(name_ + ": -w/-h say " + std::to_string(req.width) + "x" +
                             std::to_string(req.height) + " but the file is " +
                             std::to_string(info_.width) + "x" + std::to_string(info_.height));
        if (req.bitdepth && req.bitdepth != info_.bitdepth)
            throw InputError(name_ + ": the bit depth given is " + std::to_string(req.bitdepth) +
                             " but the file is " + std::to_string(info_.bitdepth) + "-bit");
        // Decode the first frame now so that its flags are known; read_luma hands it out first.
        VifPicture pic;
        const int r = reader_.next(&pic, &err);
        if (r < 0) throw InputError(name_ + ": " + err);
        if (r == 0) throw InputError(name_ + ": no frames could be decoded");
        if (!req.pixel_format.empty()) {
            const std::string layout = chroma_layout(reader_.frame()->format);
            if (!layout.empty() && layout != req.pixel_format)
                throw InputError(name_ + ": the pixel format given is " + req.pixel_format +
                                 " but the file is " + layout);
        }
        // 9, 11, 13-15-bit streams are scored at the next depth libvif has: say so, since that
        // conversion scales the sample values.
        if (const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(
                static_cast<AVPixelFormat>(reader_.frame()->format));
            d && uint32_t(d->comp[0].depth) != info_.bitdepth)
            std::fprintf(stderr, "vif: warning: %s: %d-bit %s is scored as %u-bit (%s)\n",
                         name_.c_str(), d->comp[0].depth, d->name, info_.bitdepth,
                         info_.format.c_str());
        info_.picture_flags = pic.flags;
        first_ = pic;
        have_first_ = true;
    }

    const VideoInfo& info() const override { return info_; }

    bool read_luma(uint8_t* dst, ptrdiff_t stride) override {
        VifPicture pic;
        if (!next(&pic)) return false;
        const size_t row = info_.row_bytes();
        const auto* src = static_cast<const uint8_t*>(pic.data);
        if (pic.flags == info_.picture_flags) {
            for (uint32_t y = 0; y < info_.height; ++y)
                std::memcpy(dst + y * stride, src + y * pic.stride, row);
            return true;
        }
        // The decoder switched between MSB- and LSB-aligned words mid-stream: re-align to the
        // layout announced in info().
        const unsigned shift = 16 - info_.bitdepth;
        const bool to_msb = info_.picture_flags & VIF_PICTURE_MSB_ALIGNED;
        for (uint32_t y = 0; y < info_.height; ++y) {
            const auto* s = reinterpret_cast<const uint16_t*>(src + y * pic.stride);
            auto* d = reinterpret_cast<uint16_t*>(dst + y * stride);
            for (uint32_t x = 0; x < info_.width; ++x)
                d[x] = static_cast<uint16_t>(to_msb ? s[x] << shift : s[x] >> shift);
        }
        return true;
    }

    uint64_t skip(uint64_t n) override {
        uint64_t done = 0;
        VifPicture pic;
        while (done < n && next(&pic)) ++done;
        return done;
    }

private:
    bool next(VifPicture* pic) {
        if (have_first_) {
            have_first_ = false;
            *pic = first_;
            return true;
        }
        std::string err;
        const int r = reader_.next(pic, &err);
        if (r < 0) throw InputError(name_ + ": " + err);
        return r > 0;
    }

    std::string name_;
    vif::ffmpeg::VideoReader reader_;
    VideoInfo info_;
    VifPicture first_{};
    bool have_first_ = false;
};

}  // namespace

bool ffmpeg_recognises(const std::string& path) { return vif::ffmpeg::probe_is_media(path); }

std::unique_ptr<FrameSource> open_ffmpeg_source(const SourceRequest& req) {
    static std::once_flag quiet;
    // FFmpeg's own log: errors only (decoder warnings would interleave with the CLI's output).
    std::call_once(quiet, [] { av_log_set_level(AV_LOG_ERROR); });
    return std::make_unique<FfmpegSource>(req);
}

}  // namespace vifcli
