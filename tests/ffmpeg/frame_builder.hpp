// Golden cases and AVFrames built from raw testdata in any pixel format, for tests/ffmpeg.
// No GoogleTest here: the CUDA-frames test (a plain program, for GPU machines) uses it too.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
}

#include "common/golden_data.hpp"

namespace vif::fftest {

using vif::testing::GoldenCase;

inline bool file_exists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

// The project's testdata/, or the shared set when the project has none.
inline std::string data_dir() {
    if (file_exists(std::string(VIF_TESTDATA_DIR) + "/MANIFEST.csv")) return VIF_TESTDATA_DIR;
    if (file_exists(std::string(VIF_SHARED_TESTDATA_DIR) + "/MANIFEST.csv"))
        return VIF_SHARED_TESTDATA_DIR;
    return "";
}

inline const GoldenCase* find_case(const std::string& name) {
    static const std::vector<GoldenCase> cases = vif::testing::load_manifest(data_dir());
    for (const auto& c : cases)
        if (c.name == name) return &c;
    return nullptr;
}

inline std::string ffmpeg_pix_fmt(const GoldenCase& c) {
    std::string base = c.pix == "444" ? "yuv444p" : c.pix == "422" ? "yuv422p" : "yuv420p";
    if (c.bitdepth > 8) base += std::to_string(c.bitdepth) + "le";
    return base;
}

// One raw frame: Y, U, V sample values (8-bit or 16-bit words widened).
struct RawFrame {
    uint32_t w = 0, h = 0, cw = 0, ch = 0, depth = 8;
    std::vector<uint16_t> plane[3];
};

inline bool read_raw_frame(const GoldenCase& c, const std::string& path, uint32_t index,
                           RawFrame* out) {
    const uint32_t sx = c.pix == "444" ? 0 : 1, sy = c.pix == "420" ? 1 : 0;
    out->w = c.width;
    out->h = c.height;
    out->cw = (c.width + (1u << sx) - 1) >> sx;
    out->ch = (c.height + (1u << sy) - 1) >> sy;
    out->depth = c.bitdepth;
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(c.frame_bytes() * index));
    const uint32_t bps = c.bytes_per_sample();
    for (int p = 0; p < 3; ++p) {
        const size_t n = p == 0 ? size_t(out->w) * out->h : size_t(out->cw) * out->ch;
        std::vector<uint8_t> bytes(n * bps);
        if (!in.read(reinterpret_cast<char*>(bytes.data()),
                     static_cast<std::streamsize>(bytes.size())))
            return false;
        out->plane[p].resize(n);
        for (size_t i = 0; i < n; ++i)
            out->plane[p][i] =
                bps == 1 ? bytes[i] : uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8));
    }
    return true;
}

struct FrameDeleter {
    void operator()(AVFrame* f) const { av_frame_free(&f); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;

struct BuildOptions {
    int extra_linesize = 0; // bytes added to every plane's linesize (0: FFmpeg's own)
    int crop_left = 0, crop_top = 0, crop_right = 0, crop_bottom = 0; // junk border + crop_*
};

// Writes one sample of component c at (x, y) of the frame, as the descriptor lays it out.
inline void put_sample(AVFrame* f, const AVPixFmtDescriptor* d, int c, int x, int y, uint32_t v) {
    const AVComponentDescriptor& cd = d->comp[c];
    uint8_t* p = f->data[cd.plane] + ptrdiff_t(y) * f->linesize[cd.plane] + ptrdiff_t(x) * cd.step +
                 cd.offset;
    const uint32_t word = v << cd.shift;
    if (cd.depth + cd.shift > 8) {
        if (d->flags & AV_PIX_FMT_FLAG_BE) {
            p[0] = uint8_t(word >> 8);
            p[1] = uint8_t(word);
        } else {
            p[0] = uint8_t(word);
            p[1] = uint8_t(word >> 8);
        }
    } else {
        *p = uint8_t(word);
    }
}

// An AVFrame of pixel format `fmt` whose luma is raw's luma (same depth required); chroma is
// raw's chroma where the layouts agree and mid-grey otherwise; alpha opaque.
inline FramePtr build_frame(const RawFrame& raw, AVPixelFormat fmt, const BuildOptions& o = {}) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(fmt);
    if (!d || d->comp[0].depth != static_cast<int>(raw.depth)) return nullptr;
    FramePtr f(av_frame_alloc());
    f->format = fmt;
    f->width = int(raw.w) + o.crop_left + o.crop_right;
    f->height = int(raw.h) + o.crop_top + o.crop_bottom;
    if (o.extra_linesize) {
        // Linesizes of our own: FFmpeg's for the width, plus a margin.
        FramePtr probe(av_frame_alloc());
        probe->format = fmt;
        probe->width = f->width;
        probe->height = f->height;
        if (av_frame_get_buffer(probe.get(), 1) < 0) return nullptr;
        for (int i = 0; i < 4; ++i)
            f->linesize[i] = probe->linesize[i] ? probe->linesize[i] + o.extra_linesize : 0;
    }
    if (av_frame_get_buffer(f.get(), 0) < 0) return nullptr;
    std::mt19937 rng(1234);
    const int cw = AV_CEIL_RSHIFT(f->width, d->log2_chroma_w);
    const int chh = AV_CEIL_RSHIFT(f->height, d->log2_chroma_h);
    const uint32_t maxv = (1u << raw.depth) - 1;
    const bool same_chroma = d->nb_components >= 3 &&
                             uint32_t(AV_CEIL_RSHIFT(int(raw.w), d->log2_chroma_w)) == raw.cw &&
                             uint32_t(AV_CEIL_RSHIFT(int(raw.h), d->log2_chroma_h)) == raw.ch &&
                             !o.crop_left && !o.crop_top;
    for (int c = 0; c < d->nb_components; ++c) {
        const bool luma_like = c == 0 || c == 3 || d->nb_components <= 2;
        const int pw = luma_like ? f->width : cw, ph = luma_like ? f->height : chh;
        for (int y = 0; y < ph; ++y)
            for (int x = 0; x < pw; ++x) {
                uint32_t v;
                if (c == 0) {
                    const int rx = x - o.crop_left, ry = y - o.crop_top;
                    v = (rx >= 0 && ry >= 0 && rx < int(raw.w) && ry < int(raw.h))
                            ? raw.plane[0][size_t(ry) * raw.w + rx]
                            : rng() & maxv; // junk the crop must hide
                } else if (luma_like) {
                    v = maxv; // alpha
                } else if (same_chroma && x < int(raw.cw) && y < int(raw.ch)) {
                    v = raw.plane[c][size_t(y) * raw.cw + x];
                } else {
                    v = 1u << (raw.depth - 1);
                }
                put_sample(f.get(), d, c, x, y, v);
            }
    }
    f->crop_left = size_t(o.crop_left);
    f->crop_right = size_t(o.crop_right);
    f->crop_top = size_t(o.crop_top);
    f->crop_bottom = size_t(o.crop_bottom);
    return f;
}

} // namespace vif::fftest
