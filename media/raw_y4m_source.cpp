// Raw planar YUV and YUV4MPEG2 sources: luma only, straight from the file into the caller's
// buffer (one pread per frame for raw, two for Y4M: the frame header, then the plane).
#include "decimal.hpp"
#include "input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace vifcli {

namespace {

struct Layout {
    uint32_t chroma_w = 0, chroma_h = 0, chroma_planes = 0, extra_full_planes = 0;
    const char *name = "";
};

// Chroma plane sizes of odd frame sizes round up, as FFmpeg writes them.
Layout layout_for(const std::string &pf, uint32_t w, uint32_t h, bool *ok) {
    Layout l;
    *ok = true;
    if (pf == "420") {
        l = {(w + 1) / 2, (h + 1) / 2, 2, 0, "4:2:0"};
    } else if (pf == "422") {
        l = {(w + 1) / 2, h, 2, 0, "4:2:2"};
    } else if (pf == "444") {
        l = {w, h, 2, 0, "4:4:4"};
    } else if (pf == "411") {
        l = {(w + 3) / 4, h, 2, 0, "4:1:1"};
    } else if (pf == "400") {
        l = {0, 0, 0, 0, "4:0:0"};
    } else if (pf == "444alpha") {
        l = {w, h, 2, 1, "4:4:4+alpha"};
    } else {
        *ok = false;
    }
    return l;
}

uint64_t frame_bytes(const VideoInfo &vi, const Layout &l) {
    uint64_t bps = vi.bytes_per_sample();
    uint64_t luma = uint64_t(vi.width) * vi.height;
    return bps *
           (luma * (1 + l.extra_full_planes) + uint64_t(l.chroma_planes) * l.chroma_w * l.chroma_h);
}

// Reads one luma plane stored packed (row_bytes apart) at `offset` into dst (stride apart).
// Returns the number of bytes read.
size_t read_plane(InputFile &f, uint64_t offset, const VideoInfo &vi, uint8_t *dst,
                  ptrdiff_t stride) {
    size_t row = vi.row_bytes();
    if (size_t(stride) == row) return f.read_at(offset, dst, vi.luma_bytes());
    size_t total = 0;
    for (uint32_t y = 0; y < vi.height; ++y) {
        size_t got = f.read_at(offset + uint64_t(y) * row, dst + ptrdiff_t(y) * stride, row);
        total += got;
        if (got < row) break;
    }
    return total;
}

class RawSource final : public FrameSource {
public:
    RawSource(std::unique_ptr<InputFile> f, VideoInfo vi, uint64_t fbytes, bool allow_mapping)
        : f_(std::move(f)), vi_(std::move(vi)), fbytes_(fbytes),
          base_(allow_mapping && vi_.frames ? f_->map() : nullptr) {}

    const VideoInfo &info() const override { return vi_; }

    bool supports_mapping() const override { return base_ != nullptr; }

    const uint8_t *map_luma() override {
        if (next_ >= *vi_.frames) return nullptr;
        return base_ + fbytes_ * next_++;
    }

    bool read_luma(uint8_t *dst, ptrdiff_t stride) override {
        if (vi_.frames && next_ >= *vi_.frames) return false;
        uint64_t off = next_ * fbytes_;
        size_t got = read_plane(*f_, off, vi_, dst, stride);
        if (got == 0) {
            check_previous_complete(off);
            return false;
        }
        if (got < vi_.luma_bytes()) throw incomplete(next_);
        ++next_;
        return true;
    }

    uint64_t skip(uint64_t n) override {
        if (vi_.frames) {
            uint64_t k = std::min(n, *vi_.frames - std::min(next_, *vi_.frames));
            next_ += k;
            return k;
        }
        // A pipe: read the frames (the bytes must be consumed anyway).
        uint64_t k = 0;
        uint8_t probe;
        for (; k < n; ++k) {
            uint64_t off = next_ * fbytes_;
            if (f_->read_at(off + fbytes_ - 1, &probe, 1) == 0) {
                auto end = f_->known_end();
                if (end && *end > off) throw incomplete(next_);
                check_previous_complete(off);
                break;
            }
            ++next_;
        }
        return k;
    }

private:
    void check_previous_complete(uint64_t off) {
        auto end = f_->known_end();
        if (end && *end < off) throw incomplete(next_ - 1);
    }
    InputError incomplete(uint64_t frame) const {
        return InputError(fmt::format(
            "{}: frame {} is incomplete: the input is not a whole number of {}x{} {} frames "
            "({} bytes each)",
            f_->name(), frame, vi_.width, vi_.height, vi_.format, fbytes_));
    }

    std::unique_ptr<InputFile> f_;
    VideoInfo vi_;
    uint64_t fbytes_;
    const uint8_t *base_;
    uint64_t next_ = 0;
};

class Y4mSource final : public FrameSource {
public:
    Y4mSource(std::unique_ptr<InputFile> f, VideoInfo vi, uint64_t fbytes, uint64_t data_start,
              bool allow_mapping)
        : f_(std::move(f)), vi_(std::move(vi)), fbytes_(fbytes), next_off_(data_start),
          base_(allow_mapping ? f_->map() : nullptr) {}

    const VideoInfo &info() const override { return vi_; }

    bool supports_mapping() const override { return base_ != nullptr; }

    const uint8_t *map_luma() override {
        uint64_t plane_off;
        if (!frame_header(&plane_off)) return nullptr;
        ++index_;
        return base_ + plane_off;
    }

    bool read_luma(uint8_t *dst, ptrdiff_t stride) override {
        uint64_t plane_off;
        if (!frame_header(&plane_off)) return false;
        size_t got = read_plane(*f_, plane_off, vi_, dst, stride);
        if (got < vi_.luma_bytes()) throw incomplete(index_);
        ++index_;
        return true;
    }

    uint64_t skip(uint64_t n) override {
        uint64_t k = 0;
        for (uint64_t plane_off; k < n && frame_header(&plane_off); ++k) ++index_;
        return k;
    }

private:
    // Parses the header of frame index_ at next_off_; sets *plane_off to its luma plane and
    // advances next_off_ past the frame. False at a clean end of the stream (also after one
    // trailing newline, which some writers add and libvmaf accepts).
    bool frame_header(uint64_t *plane_off) {
        char buf[256];
        size_t got = read_header_bytes(next_off_, buf, sizeof buf);
        if (got == 0 || (got == 1 && buf[0] == '\n')) {
            auto end = f_->known_end();
            if (end && *end < next_off_ && index_ > 0) throw incomplete(index_ - 1);
            return false;
        }
        if (got < 5 || std::memcmp(buf, "FRAME", 5) != 0 ||
            (got > 5 && buf[5] != ' ' && buf[5] != '\n'))
            throw InputError(fmt::format("{}: frame {}: bad Y4M frame header (expected "
                                         "\"FRAME\" at byte offset {})",
                                         f_->name(), index_, next_off_));
        // The line's end: in this buffer, or further on for a FRAME line with long parameters.
        uint64_t line_len = 0;
        for (uint64_t off = next_off_;;) {
            const char *nl = static_cast<const char *>(std::memchr(buf, '\n', got));
            if (nl) {
                line_len = off - next_off_ + uint64_t(nl - buf);
                break;
            }
            off += got;
            if (off - next_off_ > kMaxLine || got < sizeof buf)
                throw InputError(fmt::format("{}: frame {}: bad Y4M frame header (no newline "
                                             "{} at byte offset {})",
                                             f_->name(), index_,
                                             got < sizeof buf ? "before the end of the input"
                                                              : "in its first 1 MiB",
                                             next_off_));
            got = read_header_bytes(off, buf, sizeof buf);
        }
        *plane_off = next_off_ + line_len + 1;
        next_off_ = *plane_off + fbytes_;
        // A regular file tells at once whether the whole frame is there.
        if (f_->size() && *f_->size() < next_off_) throw incomplete(index_);
        return true;
    }

    // Up to n bytes at `off`: straight from the mapping when there is one (no system call).
    size_t read_header_bytes(uint64_t off, char *dst, size_t n) {
        if (!base_) return f_->read_at(off, dst, n);
        const uint64_t size = *f_->size();
        const size_t got = size_t(std::min<uint64_t>(n, size - std::min(off, size)));
        if (got) std::memcpy(dst, base_ + off, got);
        return got;
    }

    static constexpr uint64_t kMaxLine = 1u << 20;

    InputError incomplete(uint64_t frame) const {
        return InputError(fmt::format("{}: frame {} is incomplete: the Y4M file ends inside it "
                                      "({}x{} {} frames take {} bytes each)",
                                      f_->name(), frame, vi_.width, vi_.height, vi_.format,
                                      fbytes_));
    }

    std::unique_ptr<InputFile> f_;
    VideoInfo vi_;
    uint64_t fbytes_;
    uint64_t next_off_;
    const uint8_t *base_;
    uint64_t index_ = 0;
};

} // namespace

bool supported_bitdepth(uint32_t b) {
    return b == 8 || b == 10 || b == 12 || b == 16;
}

void check_decoded_info(const std::string &name, const VideoInfo &info, const SourceRequest &req) {
    check_frame_size(name, info.width, info.height);
    if (!supported_bitdepth(info.bitdepth))
        throw InputError(name + ": " + std::to_string(info.bitdepth) +
                         "-bit luma is not supported (8, 10, 12 or 16)");
    // Self-describing input: sizes given on the command line must agree with the file.
    if ((req.width && req.width != info.width) || (req.height && req.height != info.height))
        throw InputError(name + ": -w/-h say " + std::to_string(req.width) + "x" +
                         std::to_string(req.height) + " but the file is " +
                         std::to_string(info.width) + "x" + std::to_string(info.height));
    if (req.bitdepth && req.bitdepth != info.bitdepth)
        throw InputError(name + ": the bit depth given is " + std::to_string(req.bitdepth) +
                         " but the file is " + std::to_string(info.bitdepth) + "-bit");
}

void check_frame_size(const std::string &what, uint64_t w, uint64_t h) {
    if (w == 0 || h == 0)
        throw InputError(
            fmt::format("{}: frame size {}x{}: width and height must be > 0", what, w, h));
    if (w > 32768 || h > 32768)
        throw InputError(fmt::format("{}: frame size {}x{} is absurd (the limit is 32768 each "
                                     "way)",
                                     what, w, h));
    if (w < 16 || h < 16)
        throw InputError(fmt::format("{}: frame size {}x{} is unsupported (VIF needs at least "
                                     "16x16)",
                                     what, w, h));
}

std::unique_ptr<FrameSource> open_raw_source(const SourceRequest &req,
                                             std::unique_ptr<InputFile> f) {
    const std::string name = f->name();
    if (req.width == 0 && req.height == 0)
        throw InputError(fmt::format("{}: raw YUV input needs -w/--width and -h/--height "
                                     "(or give a Y4M file)",
                                     name));
    check_frame_size(name, req.width, req.height);
    if (req.pixel_format.empty() || req.bitdepth == 0)
        throw InputError(fmt::format("{}: raw YUV input needs -p/--pixel-format and "
                                     "-b/--bitdepth",
                                     name));
    bool ok;
    Layout l = layout_for(req.pixel_format, req.width, req.height, &ok);
    if (!ok || req.pixel_format == "411" || req.pixel_format == "444alpha")
        throw InputError(
            fmt::format("unknown pixel format '{}' (use 420, 422, 444 or 400)", req.pixel_format));
    if (!supported_bitdepth(req.bitdepth))
        throw InputError(
            fmt::format("unsupported bit depth {} (use 8, 10, 12 or 16)", req.bitdepth));
    VideoInfo vi;
    vi.width = req.width;
    vi.height = req.height;
    vi.bitdepth = req.bitdepth;
    vi.format = fmt::format("{} {}-bit", l.name, req.bitdepth);
    uint64_t fb = frame_bytes(vi, l);
    if (auto size = f->size()) {
        if (*size % fb != 0)
            throw InputError(fmt::format(
                "{}: file size {} is not a whole number of {}x{} {} frames ({} bytes each; "
                "{} frames and {} bytes over): check -w/-h/-p/-b",
                name, *size, vi.width, vi.height, vi.format, fb, *size / fb, *size % fb));
        vi.frames = *size / fb;
    }
    vi.format = "raw " + vi.format;
    return std::make_unique<RawSource>(std::move(f), std::move(vi), fb, req.allow_mapping);
}

std::unique_ptr<FrameSource> open_y4m_source(const SourceRequest &req,
                                             std::unique_ptr<InputFile> f) {
    const std::string name = f->name();
    // The header line, read in pieces (a header may carry long X parameters), up to 1 MiB.
    std::string header;
    uint64_t data_start = 0;
    for (;;) {
        char buf[4096];
        const size_t got = f->read_at(header.size(), buf, sizeof buf);
        const char *nl = static_cast<const char *>(std::memchr(buf, '\n', got));
        header.append(buf, nl ? size_t(nl - buf) : got);
        if (nl) {
            data_start = header.size() + 1;
            break;
        }
        if (got < sizeof buf)
            throw InputError(fmt::format("{}: broken Y4M header: no end of line before the end "
                                         "of the input ({} bytes)",
                                         name, header.size()));
        if (header.size() > (1u << 20))
            throw InputError(fmt::format("{}: broken Y4M header: no end of line in its first "
                                         "1 MiB",
                                         name));
    }
    if (!header.empty() && header.back() == '\r')
        throw InputError(fmt::format("{}: broken Y4M header: it ends in CR LF (a Windows line "
                                     "end); Y4M lines end in LF alone",
                                     name));
    if (const size_t cr = header.find('\r'); cr != std::string::npos)
        throw InputError(
            fmt::format("{}: broken Y4M header: a carriage return (CR) at byte {}", name, cr));
    if (const size_t nul = header.find('\0'); nul != std::string::npos)
        throw InputError(fmt::format("{}: broken Y4M header: a NUL byte at byte {}", name, nul));

    uint32_t w = 0, h = 0, rate_num = 0, rate_den = 0;
    bool have_w = false, have_h = false;
    std::string cs = "420jpeg";
    size_t pos = 0;
    bool first = true;
    while (pos <= header.size()) {
        size_t end = header.find(' ', pos);
        if (end == std::string::npos) end = header.size();
        std::string tok = header.substr(pos, end - pos);
        pos = end + 1;
        if (first) {
            if (tok != "YUV4MPEG2")
                throw InputError(
                    fmt::format("{}: broken Y4M header: no YUV4MPEG2 signature", name));
            first = false;
            continue;
        }
        if (tok.empty()) continue;
        std::string val = tok.substr(1);
        switch (tok[0]) {
        case 'W':
            have_w = parse_small_decimal(val, &w);
            if (!have_w)
                throw InputError(fmt::format("{}: broken Y4M header: bad width '{}'", name, tok));
            break;
        case 'H':
            have_h = parse_small_decimal(val, &h);
            if (!have_h)
                throw InputError(fmt::format("{}: broken Y4M header: bad height '{}'", name, tok));
            break;
        case 'C':
            cs = val;
            break;
        case 'F': { // "F30000:1001"; a malformed rate is only a missing one (it is not scored)
            const size_t colon = val.find(':');
            if (colon == std::string::npos ||
                !parse_small_decimal(val.substr(0, colon), &rate_num) ||
                !parse_small_decimal(val.substr(colon + 1), &rate_den) || !rate_num || !rate_den)
                rate_num = rate_den = 0;
            break;
        }
        case 'I':
        case 'A':
        case 'X':
            break;
        default:
            throw InputError(
                fmt::format("{}: broken Y4M header: unknown parameter '{}'", name, tok));
        }
    }
    if (!have_w || !have_h)
        throw InputError(fmt::format("{}: broken Y4M header: no {} parameter", name,
                                     have_w ? "H (height)" : "W (width)"));
    check_frame_size(name, w, h);

    // Colour space: 420jpeg/420paldv/420mpeg2/420, 422, 444, 444alpha, 411, mono, each with an
    // optional bit depth ("420p10", "444p16", "mono10", "mono16").
    std::string pf;
    uint32_t depth = 8;
    std::string rest;
    static const char *const kPrefixes[][2] = {
        {"420jpeg", "420"},       {"420paldv", "420"}, {"420mpeg2", "420"},
        {"444alpha", "444alpha"}, {"420", "420"},      {"422", "422"},
        {"444", "444"},           {"411", "411"},      {"mono", "400"}};
    for (const auto &p : kPrefixes) {
        if (cs.compare(0, std::strlen(p[0]), p[0]) == 0) {
            pf = p[1];
            rest = cs.substr(std::strlen(p[0]));
            break;
        }
    }
    if (pf.empty())
        throw InputError(fmt::format("{}: unsupported Y4M colour space 'C{}'", name, cs));
    if (!rest.empty()) {
        std::string digits = rest[0] == 'p' ? rest.substr(1) : rest;
        if (!parse_small_decimal(digits, &depth) || depth < 8 || depth > 16)
            throw InputError(fmt::format("{}: unsupported Y4M colour space 'C{}'", name, cs));
    }
    if (!supported_bitdepth(depth))
        throw InputError(fmt::format("{}: unsupported bit depth {} (Y4M colour space 'C{}'; "
                                     "libvif scores 8, 10, 12 and 16-bit video)",
                                     name, depth, cs));
    bool ok;
    Layout l = layout_for(pf, w, h, &ok);

    // Raw parameters given on the command line must agree with the header.
    if ((req.width && req.width != w) || (req.height && req.height != h))
        throw InputError(fmt::format("{}: the Y4M header says {}x{} but -w/-h say {}x{}", name, w,
                                     h, req.width, req.height));
    if (req.bitdepth && req.bitdepth != depth)
        throw InputError(fmt::format("{}: the Y4M header says {}-bit but -b says {}", name, depth,
                                     req.bitdepth));
    if (!req.pixel_format.empty() && req.pixel_format != pf &&
        !(pf == "444alpha" && req.pixel_format == "444"))
        throw InputError(
            fmt::format("{}: the Y4M header says C{} but -p says {}", name, cs, req.pixel_format));

    VideoInfo vi;
    vi.width = w;
    vi.height = h;
    vi.bitdepth = depth;
    vi.format = fmt::format("{} {}-bit", l.name, depth);
    vi.rate_num = rate_num;
    vi.rate_den = rate_den;
    uint64_t fb = frame_bytes(vi, l);
    // The frame count, when every frame header is a bare "FRAME\n" (what FFmpeg writes).
    if (auto size = f->size()) {
        char fh[6];
        size_t n = f->read_at(data_start, fh, sizeof fh);
        if (n == 6 && std::memcmp(fh, "FRAME\n", 6) == 0 && (*size - data_start) % (fb + 6) == 0)
            vi.frames = (*size - data_start) / (fb + 6);
        else if (n == 0)
            vi.frames = 0;
        // A header that announces frames larger than the file (W32768 H32768 on a few bytes):
        // say so now, before anything is sized to that frame.
        if (n > 0 && *size - data_start < fb + 6)
            throw InputError(fmt::format(
                "{}: frame 0 is incomplete: the Y4M header says {}x{} {} ({} bytes a frame), "
                "but the file holds only {} bytes after the header",
                name, w, h, vi.format, fb, *size - data_start));
    }
    vi.format = "Y4M " + vi.format;
    return std::make_unique<Y4mSource>(std::move(f), std::move(vi), fb, data_start,
                                       req.allow_mapping);
}

} // namespace vifcli
