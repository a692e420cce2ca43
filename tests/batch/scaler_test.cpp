// The ladder upscaler against the usual workflow: lossy x264 rungs at half and two-thirds of the
// source size (960x540 and 1280x720 rungs of a 1080p source, 8-bit, 2 frames; the same ratios at
// 960x540, 8 and 10 bits, 4 frames) are upscaled by the Debian ffmpeg CLI (`-vf scale=W:H:flags=...`, yuv420p raw out) and by
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

#include "luma_scaler.hpp"
#include "vif/vif.h"

using namespace vifcli;

namespace {

namespace fs = std::filesystem;

struct UpscaleCase {
    int bpc, w, h, frames; // the source's bit depth, size and length
};

bool sh(const std::string& cmd) {
    return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0;
}

std::vector<uint8_t> read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

class LadderUpscale : public ::testing::TestWithParam<UpscaleCase> {
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
        W_ = GetParam().w;
        H_ = GetParam().h;
        frames_ = GetParam().frames;
    }
    int W_ = 0, H_ = 0, frames_ = 0;
    const char* pix() const { return GetParam().bpc == 8 ? "yuv420p" : "yuv420p10le"; }
    size_t bps() const { return GetParam().bpc == 8 ? 1 : 2; }

    // The source: a moving, noisy synthetic scene (fixed seed), raw.
    fs::path source() {
        const fs::path p = dir() / ("src_" + std::to_string(W_) + "_" + pix() + ".yuv");
        if (!fs::exists(p)) {
            EXPECT_TRUE(sh(ffmpeg() + "-f lavfi -i testsrc2=s=" + std::to_string(W_) + "x" +
                           std::to_string(H_) + ":r=25:d=1,noise=alls=6:allf=t:all_seed=7 " +
                           "-frames:v " + std::to_string(frames_) + " -pix_fmt " + pix() +
                           " -f rawvideo " + p.string()));
        }
        return p;
    }
    // A lossy x264 rung of size w x h made from the source (downscaled with bicubic too).
    fs::path rung(int w, int h) {
        const fs::path p = dir() / ("rung_" + std::to_string(w) + "_of_" + std::to_string(W_) +
                                    "_" + pix() + ".mkv");
        if (!fs::exists(p)) {
            EXPECT_TRUE(sh(ffmpeg() + "-f rawvideo -pix_fmt " + pix() + " -s " +
                           std::to_string(W_) + "x" + std::to_string(H_) + " -r 25 -i " +
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
    const int bpc = GetParam().bpc;
    const auto src = read_all(source());
    ASSERT_EQ(src.size(), frame_bytes(W_, H_) * frames_);
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = W_;
    cfg.max_height = H_;
    cfg.bitdepth = static_cast<uint32_t>(bpc);
    cfg.backend = VIF_BACKEND_CPU;
    VifContext* ctx = nullptr;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();

    struct Rung {
        int w, h;
    };
    const Rung rungs[] = {{W_ / 2, H_ / 2}, {W_ * 2 / 3, H_ * 2 / 3}}; // 960x540, 1280x720 of 1080p
    for (const char* kernel : {"bicubic", "lanczos", "bilinear"}) {
        ScalerKernel k;
        ASSERT_TRUE(parse_scaler(kernel, &k));
        std::vector<std::vector<uint8_t>> ours(2), theirs(2); // upscaled luma, all frames
        for (int r = 0; r < 2; ++r) {
            SCOPED_TRACE(std::string(kernel) + " " + std::to_string(rungs[r].w) + "x" +
                         std::to_string(rungs[r].h) + " " + std::to_string(bpc) + "-bit");
            const fs::path enc = rung(rungs[r].w, rungs[r].h);
            const auto small = decode(enc, "");
            const auto cli = decode(enc, "scale=" + std::to_string(W_) + ":" + std::to_string(H_) +
                                             ":flags=" + kernel);
            ASSERT_EQ(small.size(), frame_bytes(rungs[r].w, rungs[r].h) * frames_);
            ASSERT_EQ(cli.size(), frame_bytes(W_, H_) * frames_);
            LumaScaler scaler(rungs[r].w, rungs[r].h, W_, H_, bpc, k);
            const size_t luma = static_cast<size_t>(W_) * H_ * bps();
            for (int f = 0; f < frames_; ++f) {
                const uint8_t* in = small.data() + frame_bytes(rungs[r].w, rungs[r].h) * f;
                const uint8_t* up = scaler.scale(in, static_cast<ptrdiff_t>(rungs[r].w * bps()));
                const uint8_t* want = cli.data() + frame_bytes(W_, H_) * f;
                size_t differ = 0;
                for (size_t i = 0; i < luma; ++i) differ += up[i] != want[i];
                EXPECT_EQ(differ, 0u) << "frame " << f << ": bytes differing from the CLI's";
                ours[r].insert(ours[r].end(), up, up + luma);
                theirs[r].insert(theirs[r].end(), want, want + luma);
            }
        }
        // Scores: the CLI's upscale pair by pair, ours as one ladder call per source frame.
        const size_t luma = static_cast<size_t>(W_) * H_ * bps();
        const ptrdiff_t stride = static_cast<ptrdiff_t>(W_ * bps());
        for (int f = 0; f < frames_; ++f) {
            const VifPicture ref{src.data() + frame_bytes(W_, H_) * f, stride, W_, H_,
                                 static_cast<uint32_t>(bpc),           0};
            VifScores want[2], got[2];
            for (int r = 0; r < 2; ++r) {
                const VifPicture d{theirs[r].data() + luma * f, stride, W_, H_,
                                   static_cast<uint32_t>(bpc),  0};
                ASSERT_EQ(vif_score(ctx, &ref, &d, &want[r]), VIF_OK) << vif_last_error();
            }
            const VifPicture d0{ours[0].data() + luma * f,  stride, W_, H_,
                                static_cast<uint32_t>(bpc), 0};
            const VifPicture d1{ours[1].data() + luma * f,  stride, W_, H_,
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

INSTANTIATE_TEST_SUITE_P(Sources, LadderUpscale,
                         ::testing::Values(UpscaleCase{8, 960, 540, 4},
                                           UpscaleCase{10, 960, 540, 4},
                                           UpscaleCase{8, 1920, 1080, 2}),
                         [](const ::testing::TestParamInfo<UpscaleCase>& i) {
                             return std::to_string(i.param.bpc) + "bit_" +
                                    std::to_string(i.param.w) + "x" + std::to_string(i.param.h);
                         });

TEST(Scaler, NamesAndRefusals) {
    ScalerKernel k;
    EXPECT_FALSE(parse_scaler("spline", &k));
    EXPECT_TRUE(parse_scaler("lanczos", &k));
    EXPECT_STREQ(scaler_name(k), "lanczos");
    EXPECT_THROW(LumaScaler(64, 64, 128, 128, 9, ScalerKernel::kBicubic), std::runtime_error);
}

} // namespace
