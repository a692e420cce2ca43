// Helpers for tests/ffmpeg: golden cases, AVFrames built from raw testdata in any pixel format,
// scoring through libvif, lossless encodes made with the ffmpeg CLI in a temporary folder.
#pragma once

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
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
#include "vif/vif.h"
#include "vif/vif_ffmpeg.h"

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
        if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
            return false;
        out->plane[p].resize(n);
        for (size_t i = 0; i < n; ++i)
            out->plane[p][i] = bps == 1 ? bytes[i] : uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8));
    }
    return true;
}

struct FrameDeleter {
    void operator()(AVFrame* f) const { av_frame_free(&f); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;

struct BuildOptions {
    int extra_linesize = 0;          // bytes added to every plane's linesize (0: FFmpeg's own)
    int crop_left = 0, crop_top = 0, crop_right = 0, crop_bottom = 0;  // junk border + crop_*
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
                            : rng() & maxv;  // junk the crop must hide
                } else if (luma_like) {
                    v = maxv;  // alpha
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

// A context for frames of this size and depth on the CPU backend (integer variant).
struct Ctx {
    VifContext* ctx = nullptr;
    Ctx(uint32_t w, uint32_t h, uint32_t depth, VifVariant variant = VIF_VARIANT_INTEGER,
        uint32_t queue_depth = 0) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = w;
        cfg.max_height = h;
        cfg.bitdepth = depth;
        cfg.variant = variant;
        cfg.backend = VIF_BACKEND_CPU;
        cfg.threads = 2;
        cfg.queue_depth = queue_depth;
        if (vif_create(&ctx, &cfg) != VIF_OK) ADD_FAILURE() << "vif_create: " << vif_last_error();
    }
    ~Ctx() { vif_destroy(ctx); }
    Ctx(const Ctx&) = delete;
    Ctx& operator=(const Ctx&) = delete;
    operator VifContext*() const { return ctx; }

    // vif_ffmpeg_submit / vif_submit; on VIF_AGAIN (queue_depth frames' scores wait to be
    // received) takes the oldest scores into *out and tries again.
    VifStatus submit(const AVFrame* r, const AVFrame* d, uint64_t* index,
                     std::vector<VifScores>* out) {
        VifStatus st;
        VifScores s;
        while ((st = vif_ffmpeg_submit(ctx, r, d, index)) == VIF_AGAIN &&
               vif_receive(ctx, &s, 1) == VIF_OK)
            out->push_back(s);
        return st;
    }
    VifStatus submit(const VifPicture* r, const VifPicture* d, uint64_t* index,
                     std::vector<VifScores>* out) {
        VifStatus st;
        VifScores s;
        while ((st = vif_submit(ctx, r, d, index)) == VIF_AGAIN && vif_receive(ctx, &s, 1) == VIF_OK)
            out->push_back(s);
        return st;
    }

    // Polls for ready scores (block = false), or drains (block = true).
    void collect(std::vector<VifScores>* out, bool block) {
        VifScores s;
        while (vif_receive(ctx, &s, block ? 1 : 0) == VIF_OK) out->push_back(s);
    }
};

// Checks scores against expected rows (integer VIF: every value equal) and that frame indices
// run 0, 1, 2, ... Returns the number of frames compared.
inline void expect_golden(const GoldenCase& c, const std::vector<VifScores>& got,
                          const std::string& what) {
    const auto rows = vif::testing::load_expected(c.expected_path());
    ASSERT_GE(rows.size(), size_t(c.frames)) << c.expected_path();
    ASSERT_EQ(got.size(), size_t(c.frames)) << what << ": frames scored";
    for (size_t i = 0; i < got.size(); ++i) {
        const auto& r = rows[i];
        const VifScores& s = got[i];
        EXPECT_EQ(s.frame_index, i) << what;
        for (int k = 0; k < 4; ++k) {
            const std::string n = std::to_string(k);
            EXPECT_EQ(s.scale[k], r.at("integer_vif_scale" + n)) << what << " frame " << i << " scale " << k;
            EXPECT_EQ(s.num[k], r.at("integer_vif_num_scale" + n)) << what << " frame " << i << " num " << k;
            EXPECT_EQ(s.den[k], r.at("integer_vif_den_scale" + n)) << what << " frame " << i << " den " << k;
        }
        EXPECT_EQ(s.combined, r.at("integer_vif")) << what << " frame " << i;
    }
}

// ---- Temporary folder and the ffmpeg CLI ---------------------------------------------------
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

struct CommandResult {
    int status = -1;
    std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& cmd) {
    CommandResult r;
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline std::string ffmpeg_binary() {
    const char* env = std::getenv("VIF_TEST_FFMPEG");
    std::string bin = env && *env ? env : VIF_FFMPEG_EXECUTABLE;
    if (bin.empty()) return "";
    if (run_command(shell_quote(bin) + " -hide_banner -version").status != 0) return "";
    return bin;
}

// A folder under $TMPDIR removed (with its files) when the process ends.
inline const std::string& temp_dir() {
    static std::string dir = [] {
        const char* t = std::getenv("TMPDIR");
        std::string tmpl = std::string(t && *t ? t : "/tmp") + "/vif_ffmpeg_test_XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (!::mkdtemp(buf.data())) return std::string();
        std::string d = buf.data();
        static struct Cleanup {
            std::string dir;
            ~Cleanup() {
                if (!dir.empty() && !std::getenv("VIF_TEST_KEEP_TMP"))
                    run_command("rm -rf " + shell_quote(dir));
            }
        } cleanup;
        cleanup.dir = d;
        return d;
    }();
    return dir;
}

#define VIF_REQUIRE_FFMPEG(bin)                                                                \
    const std::string bin = ::vif::fftest::ffmpeg_binary();                                   \
    if (bin.empty()) GTEST_SKIP() << "the ffmpeg binary is not available (set VIF_TEST_FFMPEG)"

#define VIF_REQUIRE_CASE(var, name)                                                            \
    const ::vif::fftest::GoldenCase* var = ::vif::fftest::find_case(name);                   \
    if (!var) GTEST_SKIP() << "test case " << name << " not in testdata (looked in '"         \
                           << ::vif::fftest::data_dir() << "')"

}  // namespace vif::fftest
