// The ladder upscaler against the usual workflow: lossy x264 rungs at half and two-thirds of the
// source size (the ratios of 960x540 and 1280x720 rungs of 1080p, at 960x540 to keep CI fast)
// are upscaled by the Debian ffmpeg CLI (`-vf scale=W:H:flags=...`, yuv420p raw out) and by
// LumaScaler in process. The luma samples must be identical, and so must the scores of each rung
// against the source, separately and through vif_submit_multi. Needs `ffmpeg` with libx264 on
// PATH; skips (with the reason) without it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "batch/luma_scaler.hpp"
#include "vif/vif.h"

using namespace vif::batch;

namespace {

namespace fs = std::filesystem;

constexpr int kW = 960, kH = 540, kFrames = 4;

bool sh(const std::string& cmd) {
    return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0;
}

std::vector<uint8_t> read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

class LadderUpscale : public ::testing::TestWithParam<int> { // param: bit depth
protected:
    // One folder per process (CTest runs the bit depths at once), made afresh by each run of
    // the suite; its clips are shared between the suite's tests.
    static void SetUpTestSuite() { fs::remove_all(dir()); }
    static void TearDownTestSuite() { fs::remove_all(dir()); }
    static fs::path dir() {
        return fs::temp_directory_path() / ("vif_scaler_test." + std::to_string(::getpid()));
    }
    static std::string ffmpeg() { return "ffmpeg -hide_banner -loglevel error -nostdin -y "; }
    void SetUp() override {
        if (!sh("ffmpeg -version")) GTEST_SKIP() << "ffmpeg CLI not on PATH: nothing compared";
        fs::create_directories(dir());
    }
    const char* pix() const { return GetParam() == 8 ? "yuv420p" : "yuv420p10le"; }
    size_t bps() const { return GetParam() == 8 ? 1 : 2; }

    // The source: a moving, noisy synthetic scene (fixed seed), raw.
    fs::path source() {
        const fs::path p = dir() / (std::string("src_") + pix() + ".yuv");
        if (!fs::exists(p)) {
            EXPECT_TRUE(sh(ffmpeg() + "-f lavfi -i testsrc2=s=" + std::to_string(kW) + "x" +
                           std::to_string(kH) + ":r=25:d=1,noise=alls=6:allf=t:all_seed=7 " +
                           "-frames:v " + std::to_string(kFrames) + " -pix_fmt " + pix() +
                           " -f rawvideo " + p.string()));
        }
        return p;
    }
    // A lossy x264 rung of size w x h made from the source (downscaled with bicubic too).
    fs::path rung(int w, int h) {
        const fs::path p = dir() / ("rung_" + std::to_string(w) + "_" + pix() + ".mkv");
        if (!fs::exists(p)) {
            EXPECT_TRUE(sh(ffmpeg() + "-f rawvideo -pix_fmt " + pix() + " -s " +
                           std::to_string(kW) + "x" + std::to_string(kH) + " -r 25 -i " +
                           source().string() + " -vf scale=" + std::to_string(w) + ":" +
                           std::to_string(h) +
                           ":flags=bicubic -c:v libx264 -preset veryfast "
                           "-crf 32 -threads 1 -pix_fmt " +
                           pix() + " " + p.string()))
                << "libx264 missing?";
        }
        return p;
    }
    // Raw frames of `in` through the ffmpeg CLI, optionally through -vf `vf`.
    std::vector<uint8_t> decode(const fs::path& in, const std::string& vf) {
        const fs::path out = dir() / "decoded.yuv";
        EXPECT_TRUE(sh(ffmpeg() + "-i " + in.string() + (vf.empty() ? "" : " -vf " + vf) +
                       " -f rawvideo -pix_fmt " + pix() + " " + out.string()));
        return read_all(out);
    }
    size_t frame_bytes(int w, int h) const {
        return (static_cast<size_t>(w) * h + 2 * static_cast<size_t>((w + 1) / 2) * ((h + 1) / 2)) *
               bps();
    }
};

TEST_P(LadderUpscale, SamplesAndScoresEqualTheFfmpegCli) {
    const int bpc = GetParam();
    const auto src = read_all(source());
    ASSERT_EQ(src.size(), frame_bytes(kW, kH) * kFrames);
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = kW;
    cfg.max_height = kH;
    cfg.bitdepth = static_cast<uint32_t>(bpc);
    cfg.backend = VIF_BACKEND_CPU;
    VifContext* ctx = nullptr;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();

    struct Rung {
        int w, h;
    };
    const Rung rungs[] = {{kW / 2, kH / 2}, {kW * 2 / 3, kH * 2 / 3}}; // 480x270, 640x360
    for (const char* kernel : {"bicubic", "lanczos", "bilinear"}) {
        ScalerKernel k;
        ASSERT_TRUE(parse_scaler(kernel, &k));
        std::vector<std::vector<uint8_t>> ours(2), theirs(2); // upscaled luma, all frames
        for (int r = 0; r < 2; ++r) {
            SCOPED_TRACE(std::string(kernel) + " " + std::to_string(rungs[r].w) + "x" +
                         std::to_string(rungs[r].h) + " " + std::to_string(bpc) + "-bit");
            const fs::path enc = rung(rungs[r].w, rungs[r].h);
            const auto small = decode(enc, "");
            const auto cli = decode(enc, "scale=" + std::to_string(kW) + ":" + std::to_string(kH) +
                                             ":flags=" + kernel);
            ASSERT_EQ(small.size(), frame_bytes(rungs[r].w, rungs[r].h) * kFrames);
            ASSERT_EQ(cli.size(), frame_bytes(kW, kH) * kFrames);
            LumaScaler scaler(rungs[r].w, rungs[r].h, kW, kH, bpc, k);
            const size_t luma = static_cast<size_t>(kW) * kH * bps();
            for (int f = 0; f < kFrames; ++f) {
                const uint8_t* in = small.data() + frame_bytes(rungs[r].w, rungs[r].h) * f;
                const uint8_t* up = scaler.scale(in, static_cast<ptrdiff_t>(rungs[r].w * bps()));
                const uint8_t* want = cli.data() + frame_bytes(kW, kH) * f;
                size_t differ = 0;
                for (size_t i = 0; i < luma; ++i) differ += up[i] != want[i];
                EXPECT_EQ(differ, 0u) << "frame " << f << ": bytes differing from the CLI's";
                ours[r].insert(ours[r].end(), up, up + luma);
                theirs[r].insert(theirs[r].end(), want, want + luma);
            }
        }
        // Scores: the CLI's upscale pair by pair, ours as one ladder call per source frame.
        const size_t luma = static_cast<size_t>(kW) * kH * bps();
        const ptrdiff_t stride = static_cast<ptrdiff_t>(kW * bps());
        for (int f = 0; f < kFrames; ++f) {
            const VifPicture ref{src.data() + frame_bytes(kW, kH) * f, stride, kW, kH,
                                 static_cast<uint32_t>(bpc),           0};
            VifScores want[2], got[2];
            for (int r = 0; r < 2; ++r) {
                const VifPicture d{theirs[r].data() + luma * f, stride, kW, kH,
                                   static_cast<uint32_t>(bpc),  0};
                ASSERT_EQ(vif_score(ctx, &ref, &d, &want[r]), VIF_OK) << vif_last_error();
            }
            const VifPicture d0{ours[0].data() + luma * f,  stride, kW, kH,
                                static_cast<uint32_t>(bpc), 0};
            const VifPicture d1{ours[1].data() + luma * f,  stride, kW, kH,
                                static_cast<uint32_t>(bpc), 0};
            const VifPicture* dists[] = {&d0, &d1};
            ASSERT_EQ(vif_submit_multi(ctx, &ref, dists, 2, nullptr), VIF_OK) << vif_last_error();
            for (auto& g : got) ASSERT_EQ(vif_receive(ctx, &g, 1), VIF_OK);
            for (int r = 0; r < 2; ++r) {
                for (int s = 0; s < 4; ++s) EXPECT_EQ(got[r].scale[s], want[r].scale[s]);
                EXPECT_EQ(got[r].combined, want[r].combined);
                EXPECT_LT(want[r].combined, 1.0); // lossy and rescaled: a real difference
            }
        }
    }
    vif_destroy(ctx);
}

INSTANTIATE_TEST_SUITE_P(BitDepths, LadderUpscale, ::testing::Values(8, 10),
                         [](const ::testing::TestParamInfo<int>& i) {
                             return std::to_string(i.param) + "bit";
                         });

TEST(Scaler, NamesAndRefusals) {
    ScalerKernel k;
    EXPECT_FALSE(parse_scaler("spline", &k));
    EXPECT_TRUE(parse_scaler("lanczos", &k));
    EXPECT_STREQ(scaler_name(k), "lanczos");
    EXPECT_THROW(LumaScaler(64, 64, 128, 128, 9, ScalerKernel::kBicubic), std::runtime_error);
}

} // namespace
