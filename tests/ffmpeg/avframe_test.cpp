// vif_ffmpeg (vif/vif_ffmpeg.h): AVFrames in every supported software format score exactly
// libvmaf's values from testdata/expected; unsupported formats and bad arguments fail clearly.
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

#include "ffmpeg_test_util.hpp"

namespace vif::fftest {
namespace {

// Formats whose luma libvif takes as is, by bit depth. Every one must be supported.
const std::map<uint32_t, std::vector<AVPixelFormat>> kSupported = {
    {8,
     {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV440P,
      AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ444P,
      AV_PIX_FMT_GRAY8, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_NV16, AV_PIX_FMT_NV24,
      AV_PIX_FMT_NV42, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA444P}},
    {10,
     {AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV444P10LE,
      AV_PIX_FMT_YUV440P10LE, AV_PIX_FMT_GRAY10LE, AV_PIX_FMT_P010LE, AV_PIX_FMT_P210LE,
      AV_PIX_FMT_P410LE, AV_PIX_FMT_NV20LE, AV_PIX_FMT_YUVA420P10LE}},
    {12,
     {AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_YUV422P12LE, AV_PIX_FMT_YUV444P12LE,
      AV_PIX_FMT_YUV440P12LE, AV_PIX_FMT_GRAY12LE}},
    {16,
     {AV_PIX_FMT_YUV420P16LE, AV_PIX_FMT_YUV422P16LE, AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_GRAY16LE,
      AV_PIX_FMT_P016LE, AV_PIX_FMT_P216LE, AV_PIX_FMT_P416LE, AV_PIX_FMT_YUVA444P16LE}},
};

// Formats without a luma plane libvif can take as is: refused with VIF_ERROR_UNSUPPORTED.
const std::vector<AVPixelFormat> kRefused = {
    AV_PIX_FMT_YUYV422,     AV_PIX_FMT_UYVY422,  AV_PIX_FMT_RGB24,      AV_PIX_FMT_BGR0,
    AV_PIX_FMT_GBRP,        AV_PIX_FMT_PAL8,     AV_PIX_FMT_YA8,        AV_PIX_FMT_GRAY16BE,
    AV_PIX_FMT_YUV420P10BE, AV_PIX_FMT_P010BE,   AV_PIX_FMT_YUV420P9LE, AV_PIX_FMT_YUV420P14LE,
    AV_PIX_FMT_GRAY9LE,     AV_PIX_FMT_GRAY14LE, AV_PIX_FMT_GRAYF32LE,  AV_PIX_FMT_Y210LE,
    AV_PIX_FMT_MONOBLACK,   AV_PIX_FMT_VAAPI,
};

// Cases, one or more per bit depth and chroma layout.
const char* const kCases[] = {
    "kodim23pan_576x324_8b_crf35",     "foreman_176x144_8b_crf45",
    "bsds100007pan_481x271_8b_crf35",  "img1012576pan_576x324_444_8b_crf35",
    "kodim23pan_576x324_422_8b_crf35", "cosmospan_576x324_10b_crf35",
    "cosmospan_576x324_12b_x265crf35", "cosmospan_576x324_16b_blur",
    "checker_352x288_16b_shift1",
};

const char* name_of(AVPixelFormat f) {
    const char* n = av_get_pix_fmt_name(f);
    return n ? n : "?";
}

// Scores every frame of case c, each built in format fmt, through vif_ffmpeg_submit.
std::vector<VifScores> score_case_as(const GoldenCase& c, AVPixelFormat fmt, const BuildOptions& o,
                                     std::string* error) {
    std::vector<VifScores> out;
    Ctx ctx(c.width, c.height, c.bitdepth);
    for (uint32_t i = 0; i < c.frames; ++i) {
        RawFrame r, d;
        if (!read_raw_frame(c, c.ref_path(), i, &r) || !read_raw_frame(c, c.dist_path(), i, &d)) {
            *error = "cannot read frame " + std::to_string(i);
            return out;
        }
        FramePtr fr = build_frame(r, fmt, o), fd = build_frame(d, fmt, o);
        if (!fr || !fd) {
            *error = std::string("cannot build a ") + name_of(fmt) + " frame";
            return out;
        }
        uint64_t index = ~0ull;
        if (ctx.submit(fr.get(), fd.get(), &index, &out) != VIF_OK) {
            *error = vif_ffmpeg_last_error();
            return out;
        }
        EXPECT_EQ(index, i);
        ctx.collect(&out, false); // poll, as an encoder loop does
    }
    ctx.collect(&out, true);
    return out;
}

TEST(VifFfmpegFormats, SupportTableMatchesDescriptors) {
    for (const auto& [depth, fmts] : kSupported)
        for (AVPixelFormat f : fmts)
            EXPECT_EQ(vif_ffmpeg_pix_fmt_supported(f), int(depth)) << name_of(f);
    for (AVPixelFormat f : kRefused) EXPECT_EQ(vif_ffmpeg_pix_fmt_supported(f), 0) << name_of(f);
    const int cuda = vif_ffmpeg_pix_fmt_supported(AV_PIX_FMT_CUDA);
    EXPECT_TRUE(cuda == 0 || cuda == 1) << cuda;
    EXPECT_EQ(vif_ffmpeg_pix_fmt_supported(-1), 0);
    EXPECT_EQ(vif_ffmpeg_pix_fmt_supported(100000), 0);
}

TEST(VifFfmpegFormats, PictureMapping) {
    RawFrame raw;
    raw.w = 64;
    raw.h = 32;
    raw.cw = 32;
    raw.ch = 16;
    raw.depth = 10;
    for (int p = 0; p < 3; ++p) raw.plane[p].assign(p ? 32 * 16 : 64 * 32, 0x155);
    FramePtr p010 = build_frame(raw, AV_PIX_FMT_P010LE);
    ASSERT_TRUE(p010);
    VifPicture pic;
    ASSERT_EQ(vif_ffmpeg_picture(p010.get(), &pic), VIF_OK);
    EXPECT_EQ(pic.data, p010->data[0]);
    EXPECT_EQ(pic.stride, p010->linesize[0]);
    EXPECT_EQ(pic.width, 64u);
    EXPECT_EQ(pic.height, 32u);
    EXPECT_EQ(pic.bitdepth, 10u);
    EXPECT_EQ(pic.flags, VIF_PICTURE_MSB_ALIGNED);
    EXPECT_EQ(reinterpret_cast<const uint16_t*>(pic.data)[0], 0x155 << 6);

    FramePtr planar = build_frame(raw, AV_PIX_FMT_YUV420P10LE);
    ASSERT_EQ(vif_ffmpeg_picture(planar.get(), &pic), VIF_OK);
    EXPECT_EQ(pic.flags, 0u);
    EXPECT_EQ(reinterpret_cast<const uint16_t*>(pic.data)[0], 0x155);

    BuildOptions crop;
    crop.crop_left = 6;
    crop.crop_top = 3;
    crop.crop_right = 2;
    crop.crop_bottom = 5;
    FramePtr cropped = build_frame(raw, AV_PIX_FMT_YUV444P10LE, crop);
    ASSERT_EQ(vif_ffmpeg_picture(cropped.get(), &pic), VIF_OK);
    EXPECT_EQ(pic.width, 64u);
    EXPECT_EQ(pic.height, 32u);
    EXPECT_EQ(static_cast<const uint8_t*>(pic.data),
              cropped->data[0] + 3 * cropped->linesize[0] + 6 * 2);

    VifConfig cfg;
    vif_default_config(&cfg);
    ASSERT_EQ(vif_ffmpeg_config_from_frame(&cfg, cropped.get()), VIF_OK);
    EXPECT_EQ(cfg.max_width, 64u);
    EXPECT_EQ(cfg.max_height, 32u);
    EXPECT_EQ(cfg.bitdepth, 10u);
    EXPECT_EQ(cfg.variant, VIF_VARIANT_INTEGER); // untouched
}

// Every supported format of a case's bit depth gives libvmaf's scores for that case.
class VifFfmpegGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(VifFfmpegGolden, EveryFormatScoresExpected) {
    VIF_REQUIRE_CASE(c, GetParam());
    const auto& fmts = kSupported.at(c->bitdepth);
    for (AVPixelFormat fmt : fmts) {
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(fmt);
        // 4:2:0-style formats need no even size: chroma rounds up (481x271 works as well).
        std::string err;
        auto got = score_case_as(*c, fmt, {}, &err);
        ASSERT_TRUE(err.empty()) << name_of(fmt) << ": " << err;
        expect_golden(*c, got, std::string(c->name) + " as " + d->name);
    }
}

TEST_P(VifFfmpegGolden, PaddedLinesizeAndCropScoreExpected) {
    VIF_REQUIRE_CASE(c, GetParam());
    const AVPixelFormat fmt = kSupported.at(c->bitdepth).front();
    BuildOptions o;
    o.extra_linesize = 96;
    o.crop_left = 16;
    o.crop_top = 9;
    o.crop_right = 7;
    o.crop_bottom = 2;
    std::string err;
    auto got = score_case_as(*c, fmt, o, &err);
    ASSERT_TRUE(err.empty()) << err;
    expect_golden(*c, got, std::string(c->name) + " padded and cropped");
}

INSTANTIATE_TEST_SUITE_P(Cases, VifFfmpegGolden, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param); });

// A reference in one format against a distorted frame in another (same luma, same depth): an
// encoder scoring its P010 reconstruction against a yuv420p10le source.
TEST(VifFfmpegFormats, MixedFormatsInOnePair) {
    VIF_REQUIRE_CASE(c, "cosmospan_576x324_10b_crf35");
    RawFrame r, d;
    ASSERT_TRUE(read_raw_frame(*c, c->ref_path(), 0, &r));
    ASSERT_TRUE(read_raw_frame(*c, c->dist_path(), 0, &d));
    FramePtr fr = build_frame(r, AV_PIX_FMT_YUV420P10LE), fd = build_frame(d, AV_PIX_FMT_P010LE);
    Ctx ctx(c->width, c->height, 10);
    std::vector<VifScores> got;
    ASSERT_EQ(ctx.submit(fr.get(), fd.get(), nullptr, &got), VIF_OK) << vif_ffmpeg_last_error();
    ctx.collect(&got, true);
    GoldenCase one = *c;
    one.frames = 1;
    expect_golden(one, got, "yuv420p10le ref vs p010le dist");
}

// Frames made by libswscale from the case's native format (not by hand) score the same.
TEST(VifFfmpegFormats, SwscaleConvertedFramesScoreExpected) {
    VIF_REQUIRE_CASE(c, "kodim23pan_576x324_8b_crf35");
    const AVPixelFormat targets[] = {AV_PIX_FMT_NV12, AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV422P,
                                     AV_PIX_FMT_NV21};
    for (AVPixelFormat target : targets) {
        Ctx ctx(c->width, c->height, 8);
        std::vector<VifScores> got;
        for (uint32_t i = 0; i < c->frames; ++i) {
            FramePtr conv[2];
            for (int k = 0; k < 2; ++k) {
                RawFrame raw;
                ASSERT_TRUE(read_raw_frame(*c, k ? c->dist_path() : c->ref_path(), i, &raw));
                FramePtr src = build_frame(raw, AV_PIX_FMT_YUV420P);
                conv[k].reset(av_frame_alloc());
                conv[k]->format = target;
                conv[k]->width = src->width;
                conv[k]->height = src->height;
                ASSERT_GE(av_frame_get_buffer(conv[k].get(), 0), 0);
                SwsContext* sws =
                    sws_getContext(src->width, src->height, AV_PIX_FMT_YUV420P, src->width,
                                   src->height, target, SWS_POINT, nullptr, nullptr, nullptr);
                ASSERT_TRUE(sws);
                sws_scale(sws, src->data, src->linesize, 0, src->height, conv[k]->data,
                          conv[k]->linesize);
                sws_freeContext(sws);
                // libswscale must have carried luma over unchanged for the comparison to mean
                // anything.
                for (int y = 0; y < src->height; ++y)
                    ASSERT_EQ(std::memcmp(src->data[0] + y * src->linesize[0],
                                          conv[k]->data[0] + y * conv[k]->linesize[0],
                                          size_t(src->width)),
                              0)
                        << name_of(target) << " row " << y;
            }
            ASSERT_EQ(ctx.submit(conv[0].get(), conv[1].get(), nullptr, &got), VIF_OK)
                << vif_ffmpeg_last_error();
            ctx.collect(&got, false);
        }
        ctx.collect(&got, true);
        expect_golden(*c, got, std::string("swscale to ") + name_of(target));
    }
}

// ---- Bad inputs ------------------------------------------------------------------------------
RawFrame flat_frame(uint32_t w, uint32_t h, uint32_t depth) {
    RawFrame r;
    r.w = w;
    r.h = h;
    r.cw = (w + 1) / 2;
    r.ch = (h + 1) / 2;
    r.depth = depth;
    r.plane[0].resize(size_t(w) * h);
    for (size_t i = 0; i < r.plane[0].size(); ++i)
        r.plane[0][i] = uint16_t((i * 7) % (1u << depth));
    r.plane[1].assign(size_t(r.cw) * r.ch, uint16_t(1u << (depth - 1)));
    r.plane[2] = r.plane[1];
    return r;
}

TEST(VifFfmpegErrors, UnsupportedFormatsAreRefusedClearly) {
    Ctx ctx(64, 64, 8);
    FramePtr good = build_frame(flat_frame(64, 64, 8), AV_PIX_FMT_YUV420P);
    for (AVPixelFormat fmt :
         {AV_PIX_FMT_YUYV422, AV_PIX_FMT_RGB24, AV_PIX_FMT_GRAY16BE, AV_PIX_FMT_YUV420P9LE}) {
        FramePtr bad(av_frame_alloc());
        bad->format = fmt;
        bad->width = 64;
        bad->height = 64;
        ASSERT_GE(av_frame_get_buffer(bad.get(), 0), 0);
        EXPECT_EQ(vif_ffmpeg_submit(ctx, good.get(), bad.get(), nullptr), VIF_ERROR_UNSUPPORTED)
            << name_of(fmt);
        const std::string msg = vif_ffmpeg_last_error();
        EXPECT_NE(msg.find("dist"), std::string::npos) << msg;
        EXPECT_NE(msg.find(name_of(fmt)), std::string::npos) << msg;
        VifPicture pic;
        EXPECT_EQ(vif_ffmpeg_picture(bad.get(), &pic), VIF_ERROR_UNSUPPORTED);
    }
    EXPECT_EQ(vif_pending(ctx), 0u);
}

TEST(VifFfmpegErrors, SizeAndDepthMismatches) {
    Ctx ctx(64, 64, 8);
    FramePtr a = build_frame(flat_frame(64, 64, 8), AV_PIX_FMT_YUV420P);
    FramePtr b = build_frame(flat_frame(64, 48, 8), AV_PIX_FMT_YUV420P);
    EXPECT_EQ(vif_ffmpeg_submit(ctx, a.get(), b.get(), nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_ffmpeg_last_error()).find("sizes differ: ref 64x64, dist 64x48"),
              std::string::npos)
        << vif_ffmpeg_last_error();

    FramePtr c10 = build_frame(flat_frame(64, 64, 10), AV_PIX_FMT_YUV420P10LE);
    EXPECT_EQ(vif_ffmpeg_submit(ctx, a.get(), c10.get(), nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_ffmpeg_last_error()).find("bit depths differ"), std::string::npos)
        << vif_ffmpeg_last_error();

    // Both 10-bit, the context 8-bit: vif_submit's own message comes through.
    EXPECT_EQ(vif_ffmpeg_submit(ctx, c10.get(), c10.get(), nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_ffmpeg_last_error()).find("10-bit"), std::string::npos)
        << vif_ffmpeg_last_error();

    // Larger than the context allows.
    FramePtr big = build_frame(flat_frame(80, 64, 8), AV_PIX_FMT_YUV420P);
    EXPECT_EQ(vif_ffmpeg_submit(ctx, big.get(), big.get(), nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_STRNE(vif_ffmpeg_last_error(), "");

    EXPECT_EQ(vif_ffmpeg_submit(ctx, nullptr, a.get(), nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_ffmpeg_submit(ctx, a.get(), nullptr, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_ffmpeg_submit(nullptr, a.get(), a.get(), nullptr), VIF_ERROR_INVALID_ARGUMENT);
    FramePtr empty(av_frame_alloc());
    EXPECT_EQ(vif_ffmpeg_submit(ctx, empty.get(), a.get(), nullptr), VIF_ERROR_UNSUPPORTED);
    EXPECT_EQ(vif_pending(ctx), 0u);

    // After all that the context still works, and an error clears on success.
    ASSERT_EQ(vif_ffmpeg_submit(ctx, a.get(), a.get(), nullptr), VIF_OK);
    EXPECT_STREQ(vif_ffmpeg_last_error(), "");
    VifScores s;
    ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    EXPECT_EQ(s.frame_index, 0u);
}

// vif_ffmpeg_submit_flags: VIF_FFMPEG_FRAMES_KEPT changes nothing for software frames (they are
// copied during the call); unknown bits are refused with nothing queued.
TEST(VifFfmpegErrors, SubmitFlags) {
    VIF_REQUIRE_CASE(c, "foreman_176x144_8b_crf45");
    Ctx ctx(c->width, c->height, 8);
    std::vector<VifScores> got;
    for (uint32_t i = 0; i < c->frames; ++i) {
        RawFrame r, d;
        ASSERT_TRUE(read_raw_frame(*c, c->ref_path(), i, &r));
        ASSERT_TRUE(read_raw_frame(*c, c->dist_path(), i, &d));
        FramePtr fr = build_frame(r, AV_PIX_FMT_YUV420P), fd = build_frame(d, AV_PIX_FMT_NV12);
        if (i == 0) {
            EXPECT_EQ(vif_ffmpeg_submit_flags(ctx, fr.get(), fd.get(), 2u, nullptr),
                      VIF_ERROR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(vif_ffmpeg_last_error()).find("unknown flags 0x2"),
                      std::string::npos)
                << vif_ffmpeg_last_error();
            EXPECT_EQ(vif_pending(ctx), 0u);
        }
        uint64_t index = ~0ull;
        VifStatus st;
        VifScores s;
        while ((st = vif_ffmpeg_submit_flags(ctx, fr.get(), fd.get(), VIF_FFMPEG_FRAMES_KEPT,
                                             &index)) == VIF_AGAIN)
            if (vif_receive(ctx, &s, 1) == VIF_OK) got.push_back(s);
        ASSERT_EQ(st, VIF_OK) << vif_ffmpeg_last_error();
        EXPECT_EQ(index, i);
    }
    ctx.collect(&got, true);
    expect_golden(*c, got, "vif_ffmpeg_submit_flags(VIF_FFMPEG_FRAMES_KEPT)");
}

// A full queue (queue_depth frames' scores not received) comes back as VIF_AGAIN, as from
// vif_submit, with nothing queued; after receiving, the same call succeeds.
TEST(VifFfmpegErrors, FullQueueIsAgain) {
    Ctx ctx(64, 64, 8, VIF_VARIANT_INTEGER, 1);
    FramePtr a = build_frame(flat_frame(64, 64, 8), AV_PIX_FMT_NV12);
    uint64_t index = 99, submitted = 0;
    VifStatus st;
    // The backend may round the depth up (to its thread count): submit until it is full.
    while ((st = vif_ffmpeg_submit(ctx, a.get(), a.get(), &index)) == VIF_OK) {
        EXPECT_EQ(index, submitted);
        ASSERT_LT(++submitted, 1000u) << "the queue never filled";
    }
    ASSERT_EQ(st, VIF_AGAIN) << vif_ffmpeg_last_error();
    EXPECT_STRNE(vif_ffmpeg_last_error(), "");
    EXPECT_GE(submitted, 1u);
    EXPECT_EQ(vif_pending(ctx), submitted);
    VifScores s;
    ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    EXPECT_EQ(s.frame_index, 0u);
    ASSERT_EQ(vif_ffmpeg_submit(ctx, a.get(), a.get(), &index), VIF_OK) << vif_ffmpeg_last_error();
    EXPECT_EQ(index, submitted);
    for (uint64_t i = 1; i <= submitted; ++i) {
        ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
        EXPECT_EQ(s.frame_index, i);
    }
    EXPECT_EQ(vif_pending(ctx), 0u);
}

TEST(VifFfmpegErrors, CudaFramesWithoutCudaBuild) {
    if (vif_ffmpeg_pix_fmt_supported(AV_PIX_FMT_CUDA))
        GTEST_SKIP() << "this build takes CUDA frames (tested on a GPU machine with FFmpeg)";
    Ctx ctx(64, 64, 8);
    FramePtr a = build_frame(flat_frame(64, 64, 8), AV_PIX_FMT_YUV420P);
    FramePtr hw(av_frame_alloc());
    hw->format = AV_PIX_FMT_CUDA;
    hw->width = 64;
    hw->height = 64;
    EXPECT_EQ(vif_ffmpeg_submit(ctx, hw.get(), hw.get(), nullptr), VIF_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(vif_ffmpeg_last_error()).find("CUDA"), std::string::npos);
    VifConfig cfg;
    vif_default_config(&cfg);
    EXPECT_EQ(vif_ffmpeg_config_from_frame(&cfg, hw.get()), VIF_ERROR_UNSUPPORTED);
    VifPicture pic;
    EXPECT_EQ(vif_ffmpeg_picture(hw.get(), &pic), VIF_ERROR_UNSUPPORTED);
}

} // namespace
} // namespace vif::fftest
