// FFmpeg-decoded input for the vif CLI: anything libavformat/libavcodec open (MP4, MKV, Y4M,
// raw H.264/HEVC/AV1 streams, FFV1, ...). Luma is delivered at the stream's native bit depth;
// pixels are converted (libswscale) only when the decoded format has no luma plane libvif can
// take as is (see media/ffmpeg_reader.hpp). MSB-aligned words (P010, P016) stay as they are and
// are flagged VIF_PICTURE_MSB_ALIGNED.
#include "ffmpeg_source.hpp"
#include "input_file.hpp"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

extern "C" {
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/frame.h>
#include <libavutil/mem.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
}

#include "ffmpeg_reader.hpp"
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

/**
 * FFmpeg reads an input that cannot be reopened by name (a pipe, a FIFO, /dev/stdin, process
 * substitution, or standard input) through the InputFile the CLI opened: from its first byte,
 * including the bytes already looked at (InputFile keeps them), forwards only unless the input
 * is a regular file.
 */
class InputFileIo {
public:
    explicit InputFileIo(std::unique_ptr<InputFile> file) : file_(std::move(file)) {
        constexpr int kBuffer = 64 * 1024;
        auto* buf = static_cast<unsigned char*>(av_malloc(kBuffer));
        if (!buf) throw InputError(file_->name() + ": out of memory");
        ctx_ = avio_alloc_context(buf, kBuffer, 0, this, &InputFileIo::read, nullptr,
                                  file_->seekable() ? &InputFileIo::seek : nullptr);
        if (!ctx_) {
            av_free(buf);
            throw InputError(file_->name() + ": out of memory");
        }
        ctx_->seekable = file_->seekable() ? AVIO_SEEKABLE_NORMAL : 0;
    }
    ~InputFileIo() {
        if (ctx_) av_freep(&ctx_->buffer);
        avio_context_free(&ctx_);
    }
    InputFileIo(const InputFileIo&) = delete;
    InputFileIo& operator=(const InputFileIo&) = delete;

    AVIOContext* context() const { return ctx_; }
    /** The read error behind a failed FFmpeg call, if there was one. */
    const std::string& error() const { return error_; }

private:
    static int read(void* opaque, uint8_t* buf, int size) {
        auto* self = static_cast<InputFileIo*>(opaque);
        try {
            const size_t n = self->file_->read_at(self->pos_, buf, size_t(size));
            self->pos_ += n;
            return n ? int(n) : AVERROR_EOF;
        } catch (const InputError& e) {
            self->error_ = e.what();
            return AVERROR(EIO);
        }
    }
    static int64_t seek(void* opaque, int64_t offset, int whence) {
        auto* self = static_cast<InputFileIo*>(opaque);
        const int64_t size = int64_t(self->file_->size().value_or(0));
        switch (whence & ~AVSEEK_FORCE) {
        case AVSEEK_SIZE:
            return size;
        case SEEK_SET:
            break;
        case SEEK_CUR:
            offset += int64_t(self->pos_);
            break;
        case SEEK_END:
            offset += size;
            break;
        default:
            return AVERROR(EINVAL);
        }
        if (offset < 0) return AVERROR(EINVAL);
        self->pos_ = uint64_t(offset);
        return offset;
    }

    std::unique_ptr<InputFile> file_;
    AVIOContext* ctx_ = nullptr;
    uint64_t pos_ = 0;
    std::string error_;
};

class FfmpegSource final : public FrameSource {
public:
    FfmpegSource(const SourceRequest& req, std::unique_ptr<InputFile> file) : name_(file->name()) {
        std::string err;
        // A regular file named on the command line: FFmpeg opens it itself. Anything else is
        // read through the file already open, from its first byte.
        if (file->seekable() && req.path != "-") {
            file.reset();
        } else {
            io_ = std::make_unique<InputFileIo>(std::move(file));
        }
        if (!reader_.open(req.path, req.decoder_threads, &err, io_ ? io_->context() : nullptr))
            throw InputError(name_ + ": " + (io_ && !io_->error().empty() ? io_->error() : err));
        info_.width = reader_.width();
        info_.height = reader_.height();
        info_.bitdepth = reader_.bitdepth();
        info_.format = reader_.description();
        reader_.frame_rate(&info_.rate_num, &info_.rate_den);
        check_decoded_info(name_, info_, req);
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
        if (const AVPixFmtDescriptor* d =
                av_pix_fmt_desc_get(static_cast<AVPixelFormat>(reader_.frame()->format));
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
        if (r < 0)
            throw InputError(name_ + ": " + (io_ && !io_->error().empty() ? io_->error() : err));
        return r > 0;
    }

    std::string name_;
    std::unique_ptr<InputFileIo> io_; // declared before reader_: outlives it
    vif::ffmpeg::VideoReader reader_;
    VideoInfo info_;
    VifPicture first_{};
    bool have_first_ = false;
};

} // namespace

bool ffmpeg_recognises(const char* head, size_t size) {
    return vif::ffmpeg::probe_is_media(head, size);
}

std::unique_ptr<FrameSource> open_ffmpeg_source(const SourceRequest& req,
                                                std::unique_ptr<InputFile> file) {
    static std::once_flag quiet;
    // FFmpeg's own log lines would come before (and say less than) the one-line error that
    // names the input and the frame: silent, unless --verbose asks for its errors.
    std::call_once(quiet, [&] { av_log_set_level(req.verbose ? AV_LOG_ERROR : AV_LOG_QUIET); });
    return std::make_unique<FfmpegSource>(req, std::move(file));
}

} // namespace vifcli
