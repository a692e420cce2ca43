// Lossless encodes of the golden cases (made here with the ffmpeg CLI), decoded with FFmpeg and
// scored three ways: the decoder's luma planes through vif_submit (what the vif CLI's FFmpeg
// source delivers), the decoded AVFrames through vif_ffmpeg_submit, and the vif CLI itself.
// Every way must give libvmaf's values from testdata/expected exactly.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "decode_choice.hpp"
#include "ffmpeg_test_util.hpp"
#include "ffmpeg_reader.hpp"
#include "stream_info.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/log.h>
}

namespace vif::fftest {
namespace {

// Decoders' banners (libdav1d prints its version) would clutter the test log.
const int kQuiet = (av_log_set_level(AV_LOG_ERROR), 0);

struct Encode {
    const char* name;    // test name part
    const char* ext;     // file extension
    const char* encoder; // encoder that must be available ("" for none)
    const char* args;    // output options
    const char* pix_fmt; // output pixel format ("" = the case's own)
    bool needs_even;     // encoder wants even sizes
};

const Encode kEncodes[] = {
    {"ffv1_mkv", "mkv", "ffv1", "-c:v ffv1 -level 3 -threads 1", "", false},
    {"x264_mp4", "mp4", "libx264", "-c:v libx264 -qp 0 -preset ultrafast -threads 1", "", true},
    {"y4m", "y4m", "", "-f yuv4mpegpipe -strict -1", "", false},
    {"h264_annexb", "h264", "libx264", "-c:v libx264 -qp 0 -preset ultrafast -threads 1 -f h264",
     "", true},
    {"hevc_lossless", "hevc", "libx265",
     "-c:v libx265 -x265-params lossless=1:log-level=error:pools=1:frame-threads=1 -f hevc", "",
     true},
    {"av1_lossless_ivf", "ivf", "libaom-av1",
     "-c:v libaom-av1 -aom-params lossless=1 -cpu-used 8 -threads 1 -f ivf", "", true},
    {"av1_lossless_obu", "obu", "libaom-av1",
     "-c:v libaom-av1 -aom-params lossless=1 -cpu-used 8 -threads 1 -f obu", "", true},
    {"rawvideo_yuyv422_nut", "nut", "", "-c:v rawvideo -f nut", "yuyv422", true},
    {"rawvideo_bigendian_nut", "nut", "", "-c:v rawvideo -f nut", "BE", false},
};

const Encode* find_encode(const std::string& name) {
    for (const Encode& e : kEncodes)
        if (name == e.name) return &e;
    return nullptr;
}

struct Combo {
    const char* case_name;
    const char* encode;
};

const Combo kCombos[] = {
    {"foreman_176x144_8b_crf45", "ffv1_mkv"},
    {"foreman_176x144_8b_crf45", "x264_mp4"},
    {"foreman_176x144_8b_crf45", "y4m"},
    {"foreman_176x144_8b_crf45", "h264_annexb"},
    {"foreman_176x144_8b_crf45", "hevc_lossless"},
    {"foreman_176x144_8b_crf45", "av1_lossless_ivf"},
    {"foreman_176x144_8b_crf45", "av1_lossless_obu"},
    {"foreman_176x144_8b_crf45", "rawvideo_yuyv422_nut"},
    {"src01_160x90_8b_vmafrepo", "x264_mp4"},
    {"bsds100007pan_481x271_8b_crf35", "ffv1_mkv"},
    {"bsds100007pan_481x271_8b_crf35", "y4m"},
    {"kodim23pan_576x324_422_8b_crf35", "ffv1_mkv"},
    {"kodim23pan_576x324_422_8b_crf35", "x264_mp4"},
    {"kodim23pan_576x324_422_8b_crf35", "rawvideo_yuyv422_nut"},
    {"img1012576pan_576x324_444_8b_crf35", "ffv1_mkv"},
    {"img1012576pan_576x324_444_8b_crf35", "x264_mp4"},
    {"cosmospan_576x324_10b_crf35", "ffv1_mkv"},
    {"cosmospan_576x324_10b_crf35", "x264_mp4"},
    {"cosmospan_576x324_10b_crf35", "y4m"},
    {"cosmospan_576x324_10b_crf35", "hevc_lossless"},
    {"cosmospan_576x324_10b_crf35", "av1_lossless_ivf"},
    {"cosmospan_576x324_10b_crf35", "rawvideo_bigendian_nut"},
    {"cosmospan_576x324_12b_x265crf35", "ffv1_mkv"},
    {"cosmospan_576x324_12b_x265crf35", "y4m"},
    {"cosmospan_576x324_12b_x265crf35", "hevc_lossless"},
    {"cosmospan_576x324_16b_blur", "ffv1_mkv"},
    {"cosmospan_576x324_16b_blur", "y4m"},
    {"cosmospan_576x324_16b_blur", "rawvideo_bigendian_nut"},
    {"checker_352x288_16b_shift1", "ffv1_mkv"},
};

std::string encoder_list(const std::string& ffmpeg) {
    static std::string list = run_command(shell_quote(ffmpeg) + " -hide_banner -encoders").output;
    return list;
}

std::string encoder_pix_fmts(const std::string& ffmpeg, const std::string& encoder) {
    return run_command(shell_quote(ffmpeg) + " -hide_banner -h encoder=" + encoder).output;
}

// Encodes `raw` (the case's raw YUV) into the temp folder; returns the path, or "" with *why.
std::string make_encode(const std::string& ffmpeg, const GoldenCase& c, const std::string& raw,
                        const Encode& e, const std::string& tag, std::string* why) {
    std::string pix = ffmpeg_pix_fmt(c);
    std::string out_pix = e.pix_fmt;
    if (out_pix == "BE") {
        if (c.bitdepth == 8) {
            *why = "8-bit has no big-endian variant";
            return "";
        }
        out_pix = pix.substr(0, pix.size() - 2) + "be";
    }
    if (*e.encoder) {
        if (encoder_list(ffmpeg).find(std::string(" ") + e.encoder + " ") == std::string::npos) {
            *why = std::string("encoder ") + e.encoder + " not in this ffmpeg";
            return "";
        }
        const std::string fmts = encoder_pix_fmts(ffmpeg, e.encoder);
        if (fmts.find(" " + pix + " ") == std::string::npos &&
            fmts.find(" " + pix + "\n") == std::string::npos) {
            *why = std::string(e.encoder) + " cannot take " + pix;
            return "";
        }
    }
    if (e.needs_even && ((c.width & 1) || (c.height & 1))) {
        *why = "odd frame size";
        return "";
    }
    const std::string out = temp_dir() + "/" + c.name + "_" + tag + "_" + e.name + "." + e.ext;
    std::ostringstream cmd;
    cmd << shell_quote(ffmpeg) << " -hide_banner -loglevel error -nostdin -y -f rawvideo -pix_fmt "
        << pix << " -s " << c.width << "x" << c.height << " -r 25 -i " << shell_quote(raw)
        << " -frames:v " << c.frames << " " << (out_pix.empty() ? "" : "-pix_fmt " + out_pix + " ")
        << e.args << " " << shell_quote(out);
    const CommandResult r = run_command(cmd.str());
    if (r.status != 0) {
        ADD_FAILURE() << "ffmpeg failed: " << cmd.str() << "\n" << r.output;
        return "";
    }
    return out;
}

// Decodes both files in lockstep and scores them; api = through vif_ffmpeg_submit on the
// decoded AVFrames (else the reader's luma planes through vif_submit).
void score_files(const GoldenCase& c, const std::string& ref, const std::string& dist, bool api,
                 std::vector<VifScores>* got) {
    vif::ffmpeg::VideoReader rr, rd;
    std::string err;
    ASSERT_TRUE(rr.open(ref, 0, &err)) << ref << ": " << err;
    ASSERT_TRUE(rd.open(dist, 0, &err)) << dist << ": " << err;
    ASSERT_EQ(rr.width(), c.width);
    ASSERT_EQ(rr.height(), c.height);
    ASSERT_EQ(rr.bitdepth(), c.bitdepth) << rr.description();
    Ctx ctx(rr.width(), rr.height(), rr.bitdepth());
    for (;;) {
        VifPicture pr, pd;
        const int a = rr.next(&pr, &err);
        ASSERT_GE(a, 0) << err;
        const int b = rd.next(&pd, &err);
        ASSERT_GE(b, 0) << err;
        ASSERT_EQ(a, b) << "frame counts differ";
        if (!a) break;
        uint64_t index = 0;
        if (api && vif_ffmpeg_pix_fmt_supported(rr.frame()->format) &&
            vif_ffmpeg_pix_fmt_supported(rd.frame()->format)) {
            ASSERT_EQ(ctx.submit(rr.frame(), rd.frame(), &index, got), VIF_OK)
                << vif_ffmpeg_last_error();
        } else if (api) {
            // The decoder's own format has no usable luma plane: refused, with a reason.
            EXPECT_EQ(ctx.submit(rr.frame(), rd.frame(), &index, got), VIF_ERROR_UNSUPPORTED);
            EXPECT_STRNE(vif_ffmpeg_last_error(), "");
            ASSERT_EQ(ctx.submit(&pr, &pd, &index, got), VIF_OK) << vif_last_error();
        } else {
            ASSERT_EQ(ctx.submit(&pr, &pd, &index, got), VIF_OK) << vif_last_error();
        }
        EXPECT_EQ(index, rr.frames_read() - 1);
        ctx.collect(got, false);
    }
    ctx.collect(got, true);
}

#if defined(VIF_CLI_PATH)
// Per-frame integer VIF values from the CLI's JSON output (libvmaf layout: frames[].metrics).
std::vector<std::map<std::string, double>> cli_frames(const std::string& json) {
    std::vector<std::map<std::string, double>> frames;
    const size_t start = json.find("\"frames\"");
    if (start == std::string::npos) return frames;
    const std::regex metric_re("\"([A-Za-z0-9_]+)\"\\s*:\\s*(-?[0-9.eE+-]+)");
    const std::string rest = json.substr(start);
    // Split at each frameNum.
    std::vector<size_t> at;
    for (size_t p = rest.find("\"frameNum\""); p != std::string::npos;
         p = rest.find("\"frameNum\"", p + 1))
        at.push_back(p);
    const size_t end_frames = rest.find("\"pooled_metrics\"");
    for (size_t i = 0; i < at.size(); ++i) {
        const size_t e = i + 1 < at.size() ? at[i + 1] : end_frames;
        const std::string chunk =
            rest.substr(at[i], e == std::string::npos ? std::string::npos : e - at[i]);
        std::map<std::string, double> f;
        for (auto it = std::sregex_iterator(chunk.begin(), chunk.end(), metric_re);
             it != std::sregex_iterator(); ++it)
            f[(*it)[1]] = std::strtod((*it)[2].str().c_str(), nullptr);
        frames.push_back(f);
    }
    return frames;
}
#endif

class Lossless : public ::testing::TestWithParam<Combo> {};

TEST_P(Lossless, DecodedScoresEqualRaw) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    VIF_REQUIRE_CASE(c, GetParam().case_name);
    const Encode* e = find_encode(GetParam().encode);
    ASSERT_TRUE(e);
    std::string why;
    const std::string ref = make_encode(ffmpeg, *c, c->ref_path(), *e, "ref", &why);
    if (ref.empty() && !why.empty()) GTEST_SKIP() << why;
    ASSERT_FALSE(ref.empty());
    const std::string dist = make_encode(ffmpeg, *c, c->dist_path(), *e, "dist", &why);
    ASSERT_FALSE(dist.empty()) << why;

    for (bool api : {false, true}) {
        std::vector<VifScores> got;
        score_files(*c, ref, dist, api, &got);
        if (HasFatalFailure()) return;
        expect_golden(*c, got,
                      std::string(e->name) + (api ? " via vif_ffmpeg_submit" : " via reader"));
    }

#if defined(VIF_CLI_PATH)
    // The vif CLI on the same files: every bit of every value (--precision max).
    const CommandResult r =
        run_command(shell_quote(VIF_CLI_PATH) + " -q -o - --precision max --debug-metrics -r " +
                    shell_quote(ref) + " -d " + shell_quote(dist));
    ASSERT_EQ(r.status, 0) << r.output;
    const auto frames = cli_frames(r.output);
    const auto rows = vif::testing::load_expected(c->expected_path());
    ASSERT_EQ(frames.size(), size_t(c->frames)) << r.output;
    for (size_t i = 0; i < frames.size(); ++i)
        for (const std::string key : {"integer_vif_scale0", "integer_vif_scale1",
                                      "integer_vif_scale2", "integer_vif_scale3", "integer_vif",
                                      "integer_vif_num_scale0", "integer_vif_den_scale3"}) {
            ASSERT_TRUE(frames[i].count(key)) << key << "\n" << r.output;
            EXPECT_EQ(frames[i].at(key), rows[i].at(key)) << "CLI frame " << i << " " << key;
        }
#endif
}

INSTANTIATE_TEST_SUITE_P(Encodes, Lossless, ::testing::ValuesIn(kCombos), [](const auto& info) {
    return std::string(info.param.case_name) + "_" + info.param.encode;
});

// ---- Bad inputs ------------------------------------------------------------------------------
TEST(ReaderErrors, NotAVideoFile) {
    const std::string txt = temp_dir() + "/not_video.txt";
    std::ofstream(txt) << "this is a text file, not a video\n";
    vif::ffmpeg::VideoReader r;
    std::string err;
    EXPECT_FALSE(r.open(txt, 0, &err));
    EXPECT_FALSE(err.empty());
    EXPECT_FALSE(r.open(temp_dir() + "/does_not_exist.mkv", 0, &err));
    EXPECT_NE(err.find("No such file"), std::string::npos) << err;
    EXPECT_FALSE(vif::ffmpeg::probe_is_media(txt));
}

TEST(ReaderErrors, AudioOnlyFile) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    const std::string wav = temp_dir() + "/tone.wav";
    const CommandResult m = run_command(shell_quote(ffmpeg) +
                                        " -hide_banner -loglevel error -nostdin -y -f lavfi -i "
                                        "sine=frequency=440:duration=0.2 " +
                                        shell_quote(wav));
    ASSERT_EQ(m.status, 0) << m.output;
    vif::ffmpeg::VideoReader r;
    std::string err;
    EXPECT_FALSE(r.open(wav, 0, &err));
    EXPECT_NE(err.find("no video stream"), std::string::npos) << err;
    EXPECT_TRUE(vif::ffmpeg::probe_is_media(wav));
}

TEST(ReaderErrors, ProbeTellsRawFromEncoded) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    VIF_REQUIRE_CASE(c, "foreman_176x144_8b_crf45");
    EXPECT_FALSE(vif::ffmpeg::probe_is_media(c->ref_path()));
    std::string why;
    const std::string mkv =
        make_encode(ffmpeg, *c, c->ref_path(), *find_encode("ffv1_mkv"), "probe", &why);
    ASSERT_FALSE(mkv.empty()) << why;
    EXPECT_TRUE(vif::ffmpeg::probe_is_media(mkv));
}

// --hwdec auto's short-clip rule (media/decode_choice.*): the container's header gives the clip's
// length and size without decoding (Matroska from its duration and frame rate, MP4 from its
// frame count), and NVDEC is chosen from a length on that falls as frames grow and rises with
// the CPU threads; a clip of unknown length goes to NVDEC as before.
TEST(DecodeChoice, HeaderGivesLengthAndSize) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    VIF_REQUIRE_CASE(c, "foreman_176x144_8b_crf45");
    for (const char* enc : {"ffv1_mkv", "x264_mp4"}) {
        SCOPED_TRACE(enc);
        std::string why;
        const std::string file =
            make_encode(ffmpeg, *c, c->ref_path(), *find_encode(enc), "shape", &why);
        if (file.empty()) GTEST_SKIP() << why;
        const std::optional<vifcli::ClipShape> s = vifcli::probe_clip_shape(file);
        ASSERT_TRUE(s);
        EXPECT_EQ(s->frames, uint64_t(c->frames));
        EXPECT_EQ(s->width, c->width);
        EXPECT_EQ(s->height, c->height);
        // The weight of its decoding: the file's size over its frames.
        EXPECT_DOUBLE_EQ(s->bytes_per_frame,
                         double(std::filesystem::file_size(file)) / double(c->frames));
    }
    EXPECT_FALSE(vifcli::probe_clip_shape(c->ref_path())); // raw YUV: no header
}

TEST(DecodeChoice, ShortClipsOnTheCpuLongOnesOnNvdec) {
    using vifcli::choose_nvdec;
    const vifcli::ClipShape hd{0, 1920, 1080, "h264"}, uhd{0, 3840, 2160, "hevc"};
    // The first length NVDEC is chosen for.
    auto crossing = [](const vifcli::ClipShape& s, unsigned cores) {
        uint64_t n = 1;
        while (n < 100000 && !choose_nvdec(n, s, cores).nvdec) ++n;
        for (uint64_t m = n; m < n + 50; ++m) EXPECT_TRUE(choose_nvdec(m, s, cores).nvdec) << m;
        return n;
    };
    const uint64_t hd16 = crossing(hd, 16), uhd16 = crossing(uhd, 16), hd64 = crossing(hd, 64);
    EXPECT_GT(hd16, 1u);    // a one-frame 1080p clip is not worth NVDEC's start-up
    EXPECT_LT(hd16, 1200u); // a 1,200-frame one is
    EXPECT_LT(uhd16, hd16); // bigger frames decode slower in software: NVDEC pays sooner
    EXPECT_GT(hd64, hd16);  // more CPU threads: software stays ahead longer
    EXPECT_TRUE(choose_nvdec(0, hd, 16).nvdec); // length unknown
    const vifcli::NvdecChoice c = choose_nvdec(48, hd, 16);
    EXPECT_NE(c.why.find("48 frames of 1920x1080 h264"), std::string::npos) << c.why;
}

// --backend auto's rule before CUDA starts (media/decode_choice.*): a run the CPU threads finish
// before CUDA could have started and scored it stays on the CPU; the length where CUDA takes
// over grows with the threads (up to the 16 measured) and falls with frame size and with the
// variants scored.
TEST(DecodeChoice, ShortRunsStayOnTheCpu) {
    using vifcli::choose_cpu_only;
    const vifcli::ClipShape h264{0, 1920, 1080, "h264"}, raw{0, 1920, 1080, "raw"},
        uhd{0, 3840, 2160, "hevc"};
    EXPECT_TRUE(choose_cpu_only(48, h264, 16, 1).cpu_only); // the probe pair
    EXPECT_FALSE(choose_cpu_only(1200, h264, 16, 1).cpu_only);
    EXPECT_TRUE(choose_cpu_only(48, raw, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(1200, raw, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(600, uhd, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(0, h264, 16, 1).cpu_only); // length unknown: CUDA as before
    auto crossing = [](const vifcli::ClipShape& s, unsigned cores, unsigned variants) {
        uint64_t n = 1;
        while (n < 100000 && choose_cpu_only(n, s, cores, variants).cpu_only) ++n;
        for (uint64_t m = n; m < n + 50; ++m)
            EXPECT_FALSE(choose_cpu_only(m, s, cores, variants).cpu_only) << m;
        return n;
    };
    const uint64_t h16 = crossing(h264, 16, 1);
    EXPECT_LT(crossing(h264, 8, 1), h16);
    EXPECT_EQ(crossing(h264, 64, 1), h16); // rates measured up to 16 threads only
    EXPECT_LT(crossing(h264, 16, 2), h16);
    EXPECT_LT(crossing(uhd, 16, 1), h16);
    EXPECT_LT(crossing(h264, 2, 1), 48u); // two threads: the probe pair is worth CUDA
    const vifcli::CpuChoice c = choose_cpu_only(48, h264, 16, 1);
    EXPECT_NE(c.why.find("48 frames of 1920x1080 h264: the CPU alone"), std::string::npos) << c.why;
}

// A raw run that goes to CUDA does not score its first frames on the CPU meanwhile when those
// frames save less GPU time than the CPU's last frames cost (measured on the H200 machine:
// 2160p, 600 frames: 0.68 s with them, 0.54 s without); encoded runs, bound by decoding, do.
TEST(DecodeChoice, RawRunsOnCudaSkipTheHandOverThatCostsMore) {
    using vifcli::choose_cpu_only;
    const vifcli::ClipShape raw{0, 1920, 1080, "raw"}, raw_uhd{0, 3840, 2160, "raw"},
        h264{0, 1920, 1080, "h264"};
    for (const auto& [shape, frames] :
         {std::pair{raw, uint64_t(1200)}, std::pair{raw_uhd, uint64_t(600)},
          std::pair{raw_uhd, uint64_t(48)}}) {
        const vifcli::CpuChoice c = choose_cpu_only(frames, shape, 16, 1);
        ASSERT_FALSE(c.cpu_only) << c.why;
        EXPECT_FALSE(c.cpu_while_cuda_starts) << c.why;
        EXPECT_NE(c.why.find("no CPU frames while CUDA starts"), std::string::npos) << c.why;
    }
    const vifcli::CpuChoice e = choose_cpu_only(1200, h264, 16, 1);
    ASSERT_FALSE(e.cpu_only);
    EXPECT_TRUE(e.cpu_while_cuda_starts);
}

// Just past the CPU/CUDA crossing, encoded input is decoded in software with the hand-over
// rather than by NVDEC (H200 machine, issue 26's curves: 200 frames of 1080p H.264 sat at the
// crossing, the CPU and NVDEC within noise of each other; session 7's points: software decoding
// 0.69-0.78x the faster backend at 150-300 frames); further on, for heavy decoding, and for big
// frames whose CPU decoding starts slowly (a 2160p HEVC frame), NVDEC as before; raw input
// never.
TEST(DecodeChoice, EncodedRunsNearTheCrossingDecodeInSoftware) {
    using vifcli::choose_cpu_only;
    // bench/nvdec's pair: 12.5 + 4.2 KB a frame; the probe pair: 76 + 10.8 KB (decoding heavy).
    const vifcli::ClipShape h264{0, 1920, 1080, "h264", 8, 16700}, uhd{0, 3840, 2160, "hevc"},
        raw{0, 1920, 1080, "raw"}, heavy{0, 1920, 1080, "h264", 8, 86800};
    for (uint64_t n = 1; n <= 1200; ++n) {
        EXPECT_FALSE(choose_cpu_only(n, heavy, 16, 1).software_decoding) << n;
        EXPECT_FALSE(
            choose_cpu_only(n, vifcli::ClipShape{0, 1920, 1080, "h264"}, 16, 1).software_decoding)
            << n << ": size unknown";
    }
    const vifcli::CpuChoice near = choose_cpu_only(200, h264, 16, 1);
    ASSERT_FALSE(near.cpu_only) << near.why;
    EXPECT_TRUE(near.software_decoding) << near.why;
    EXPECT_NE(near.why.find("decoded in software"), std::string::npos) << near.why;
    EXPECT_FALSE(choose_cpu_only(48, h264, 16, 1).software_decoding);  // the CPU alone
    EXPECT_TRUE(choose_cpu_only(300, h264, 16, 1).software_decoding);  // round 1: 0.77x NVDEC
    EXPECT_FALSE(choose_cpu_only(600, h264, 16, 1).software_decoding); // 1.08x NVDEC
    EXPECT_FALSE(choose_cpu_only(1200, h264, 16, 1).software_decoding);
    for (uint64_t n : {1u, 48u, 200u, 600u}) {
        EXPECT_FALSE(choose_cpu_only(n, uhd, 16, 1).software_decoding) << n;
        EXPECT_FALSE(choose_cpu_only(n, raw, 16, 1).software_decoding) << n;
    }
    // A band set outright (VIF_SOFTWARE_BAND) holds whatever the decoding's weight; 1.0 has
    // none.
    EXPECT_TRUE(choose_cpu_only(450, h264, 16, 1, 2.0).software_decoding);
    EXPECT_FALSE(choose_cpu_only(450, h264, 16, 1).software_decoding);
    EXPECT_TRUE(choose_cpu_only(200, heavy, 16, 1, 2.0).software_decoding);
    for (uint64_t n = 1; n <= 1200; ++n)
        EXPECT_FALSE(choose_cpu_only(n, h264, 16, 1, 1.0).software_decoding) << n;
    // The band starts where the CPU alone stops and is contiguous; it is shorter the heavier
    // the decoding (0.15 bits a pixel between the two pairs).
    auto band = [](const vifcli::ClipShape& s) {
        uint64_t first = 0, last = 0;
        for (uint64_t n = 1; n <= 1200; ++n) {
            const vifcli::CpuChoice c = choose_cpu_only(n, s, 16, 1);
            if (!c.software_decoding) continue;
            if (!first) {
                first = n;
                EXPECT_TRUE(choose_cpu_only(n - 1, s, 16, 1).cpu_only) << n;
            } else {
                EXPECT_EQ(last, n - 1) << "the band has a gap at " << n;
            }
            last = n;
        }
        return std::pair{first, last};
    };
    const auto [first, last] = band(h264);
    EXPECT_GT(first, 48u);
    EXPECT_GE(last, 340u);
    EXPECT_LT(last, 420u);
    const auto [mid_first, mid_last] = band(vifcli::ClipShape{0, 1920, 1080, "h264", 8, 38900});
    EXPECT_EQ(mid_first, first);
    EXPECT_GT(mid_last, first);
    EXPECT_LT(mid_last, last);
}

// The rule with the exit holder's smaller CUDA start-up and a CPU run's own first frames (the
// H200 machine's curves): the probe pair stays on the CPU, 200 frames of 1080p H.264 go to
// CUDA, and so does a single 2160p HEVC frame, whose first frames on the CPU take longer than
// CUDA's start-up.
TEST(DecodeChoice, CurvePointsOfTheH200Machine) {
    using vifcli::choose_cpu_only;
    const vifcli::ClipShape h264{0, 1920, 1080, "h264"}, uhd{0, 3840, 2160, "hevc"},
        raw{0, 1920, 1080, "raw"}, raw_uhd{0, 3840, 2160, "raw"};
    EXPECT_TRUE(choose_cpu_only(48, h264, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(200, h264, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(1, uhd, 16, 1).cpu_only);
    EXPECT_TRUE(choose_cpu_only(48, raw, 16, 1).cpu_only);
    EXPECT_TRUE(choose_cpu_only(64, raw, 16, 1).cpu_only); // the points cross at about 80
    EXPECT_FALSE(choose_cpu_only(100, raw, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(200, raw, 16, 1).cpu_only);
    // Raw 2160p: one frame's time on one thread first (0.12-0.17 s for one frame): the curves
    // cross at about 8 frames.
    EXPECT_TRUE(choose_cpu_only(1, raw_uhd, 16, 1).cpu_only);
    EXPECT_TRUE(choose_cpu_only(6, raw_uhd, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(10, raw_uhd, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(24, raw_uhd, 16, 1).cpu_only);
    EXPECT_FALSE(choose_cpu_only(48, raw_uhd, 16, 1).cpu_only);
}

// Where NVDEC decodes a long clip, whether software decoders start on it at once while CUDA
// and NVDEC start (media/decode_choice.*): yes for 1080p H.264 on 16 threads (the issue's
// 1,200-frame pair), no for 2160p HEVC (a few frames in that time) nor on 2 threads; the
// decoders share the cores between the two inputs.
TEST(DecodeChoice, SoftwareStartsWhereItDecodesASegmentBeforeNvdec) {
    using vifcli::choose_decoding_start;
    const vifcli::ClipShape hd{1200, 1920, 1080, "h264"}, uhd{600, 3840, 2160, "hevc"};
    const vifcli::StartChoice c = choose_decoding_start(hd, 16, 30);
    EXPECT_TRUE(c.software_first) << c.why;
    EXPECT_EQ(c.decoders * c.threads * 2, 16u);
    EXPECT_NE(c.why.find("starts in software"), std::string::npos) << c.why;
    EXPECT_FALSE(choose_decoding_start(uhd, 16, 30).software_first);
    EXPECT_FALSE(choose_decoding_start(hd, 2, 30).software_first);
    EXPECT_FALSE(choose_decoding_start(hd, 16, 100000).software_first);
    EXPECT_TRUE(choose_decoding_start(hd, 64, 30).software_first);
    EXPECT_GE(choose_decoding_start(hd, 1, 30).threads, 1u);
}

// The readers skip FFmpeg's stream-info pass (it decodes frames on one thread) where the header
// says what they need (media/stream_info.*): Matroska and MP4 yes, a raw H.264 stream no (its
// size is only known from decoding); the Lossless cases above score every one of these files to
// libvmaf's values through the reader.
TEST(StreamInfo, HeaderIsEnoughForContainersNotForRawStreams) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    VIF_REQUIRE_CASE(c, "foreman_176x144_8b_crf45");
    for (const auto& [enc, enough] : {std::pair<const char*, bool>{"ffv1_mkv", true},
                                      {"x264_mp4", true},
                                      {"h264_annexb", false},
                                      {"y4m", false}}) {
        SCOPED_TRACE(enc);
        std::string why;
        const std::string file =
            make_encode(ffmpeg, *c, c->ref_path(), *find_encode(enc), "info", &why);
        if (file.empty()) {
            EXPECT_FALSE(why.empty()); // an encoder this FFmpeg lacks, said why
            continue;
        }
        AVFormatContext* fmt = nullptr;
        ASSERT_GE(avformat_open_input(&fmt, file.c_str(), nullptr, nullptr), 0);
        EXPECT_EQ(vif::media::header_is_enough(fmt), enough);
        avformat_close_input(&fmt);
    }
}

#if defined(VIF_CLI_PATH)
TEST(CliErrors, MismatchedInputs) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    VIF_REQUIRE_CASE(small, "foreman_176x144_8b_crf45");
    VIF_REQUIRE_CASE(other, "foreman_352x288_8b_crf35");
    std::string why;
    const Encode& ffv1 = *find_encode("ffv1_mkv");
    const std::string a = make_encode(ffmpeg, *small, small->ref_path(), ffv1, "mm", &why);
    const std::string b = make_encode(ffmpeg, *other, other->ref_path(), ffv1, "mm", &why);
    ASSERT_FALSE(a.empty() || b.empty()) << why;
    // Size mismatch.
    CommandResult r =
        run_command(shell_quote(VIF_CLI_PATH) + " -r " + shell_quote(a) + " -d " + shell_quote(b));
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("176x144"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("352x288"), std::string::npos) << r.output;
    // Frame-count mismatch (the same clip cut to one frame): as with raw input, a clear
    // warning naming the shorter input, and the common frames scored.
    const std::string one = temp_dir() + "/one_frame.mkv";
    r = run_command(shell_quote(ffmpeg) + " -hide_banner -loglevel error -nostdin -y -i " +
                    shell_quote(a) + " -frames:v 1 -c:v ffv1 " + shell_quote(one));
    ASSERT_EQ(r.status, 0) << r.output;
    r = run_command(shell_quote(VIF_CLI_PATH) + " -q -o /dev/null -r " + shell_quote(a) + " -d " +
                    shell_quote(one));
    EXPECT_NE(r.output.find("different frame counts"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("distorted"), std::string::npos) << r.output;
    // Sizes on the command line that contradict the file.
    r = run_command(shell_quote(VIF_CLI_PATH) + " -w 352 -h 288 -r " + shell_quote(a) + " -d " +
                    shell_quote(a));
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("the file is 176x144"), std::string::npos) << r.output;
    // A file with no video stream.
    const std::string wav = temp_dir() + "/tone_cli.wav";
    r = run_command(shell_quote(ffmpeg) +
                    " -hide_banner -loglevel error -nostdin -y -f lavfi -i "
                    "sine=frequency=440:duration=0.2 " +
                    shell_quote(wav));
    ASSERT_EQ(r.status, 0) << r.output;
    r = run_command(shell_quote(VIF_CLI_PATH) + " -r " + shell_quote(wav) + " -d " +
                    shell_quote(a));
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("no video stream"), std::string::npos) << r.output;
    // Not a video.
    const std::string txt = temp_dir() + "/not_video2.txt";
    std::ofstream(txt) << "hello\n";
    r = run_command(shell_quote(VIF_CLI_PATH) + " -r " + shell_quote(txt) + " -d " +
                    shell_quote(a));
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("reference '"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("not_video2.txt"), std::string::npos) << r.output;
}

// The CLI reads an encoded stream from stdin too.
TEST(CliInput, EncodedStdin) {
    VIF_REQUIRE_FFMPEG(ffmpeg);
    VIF_REQUIRE_CASE(c, "foreman_176x144_8b_crf45");
    std::string why;
    const Encode& ffv1 = *find_encode("ffv1_mkv");
    const std::string ref = make_encode(ffmpeg, *c, c->ref_path(), ffv1, "stdin_ref", &why);
    const std::string dist = make_encode(ffmpeg, *c, c->dist_path(), ffv1, "stdin_dist", &why);
    ASSERT_FALSE(ref.empty() || dist.empty()) << why;
    const CommandResult r =
        run_command(shell_quote(VIF_CLI_PATH) + " -q -o - --precision max -r - -d " +
                    shell_quote(dist) + " < " + shell_quote(ref));
    ASSERT_EQ(r.status, 0) << r.output;
    const auto frames = cli_frames(r.output);
    const auto rows = vif::testing::load_expected(c->expected_path());
    ASSERT_EQ(frames.size(), size_t(c->frames)) << r.output;
    for (size_t i = 0; i < frames.size(); ++i)
        EXPECT_EQ(frames[i].at("integer_vif_scale0"), rows[i].at("integer_vif_scale0"));
}
#endif

} // namespace
} // namespace vif::fftest
