// The GStreamer element `vif` in appsrc pipelines, fed the golden cases: its per-frame and
// summary messages against the `vif` CLI's scores (run here as an independent path, every bit
// printed) and libvmaf's golden CSVs, its result file against the CLI's bytes, a two-rung ladder
// against two pairs, and every error it documents reaching the bus.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/golden_data.hpp"

#if defined(__SANITIZE_ADDRESS__)
// Sanitizer builds: GLib's own allocation in its library constructor is reported as a leak when a
// pipeline stops on an error; only allocations made from a library constructor are matched (full
// stacks on allocation so that the match can see it), so the element's own leaks still show.
extern "C" __attribute__((visibility("default"), used)) const char *__asan_default_options() {
    return "fast_unwind_on_malloc=0";
}
extern "C" __attribute__((visibility("default"), used)) const char *__lsan_default_suppressions() {
    return "leak:_dl_init\n";
}
#endif

namespace {

using vif::testing::GoldenCase;
using Json = nlohmann::json;

// One stream fed to a sink pad: frames of a golden file in a GStreamer format.
struct Stream {
    const GoldenCase *gc = nullptr;
    std::string path;
    GstVideoFormat format = GST_VIDEO_FORMAT_I420;
    uint32_t frames = 0;       // how many frames to push (default: the case's count)
    int width = 0, height = 0; // 0: the case's
    uint16_t poke = 0;         // non-zero: the first luma sample of frame 0 becomes this value
};

struct Outcome {
    std::vector<GstStructure *> frames;    // "vif" messages, in order
    std::vector<GstStructure *> summaries; // "vif-summary" messages
    std::vector<std::string> errors, warnings;
    bool eos = false;
    int buffers_out = 0;
    ~Outcome() {
        for (auto *s : frames) gst_structure_free(s);
        for (auto *s : summaries) gst_structure_free(s);
    }
    std::vector<const GstStructure *> of_pad(const char *pad) const {
        std::vector<const GstStructure *> out;
        for (auto *s : frames)
            if (g_strcmp0(gst_structure_get_string(s, "pad"), pad) == 0) out.push_back(s);
        return out;
    }
};

GstVideoFormat format_for(const GoldenCase &c) {
    if (c.bitdepth == 16) return GST_VIDEO_FORMAT_GRAY16_LE; // GStreamer has no 16-bit I420
    if (c.bitdepth == 12) return GST_VIDEO_FORMAT_I420_12LE;
    if (c.bitdepth == 10) return GST_VIDEO_FORMAT_I420_10LE;
    if (c.pix == "444") return GST_VIDEO_FORMAT_Y444;
    if (c.pix == "422") return GST_VIDEO_FORMAT_Y42B;
    return GST_VIDEO_FORMAT_I420;
}

// A buffer of `info`'s layout whose luma is the case's frame (chroma zero).
GstBuffer *make_buffer(const GstVideoInfo &info, const GoldenCase &c, const std::string &path,
                       uint32_t frame, uint16_t poke) {
    std::vector<uint8_t> luma = vif::testing::read_luma(c, path, frame);
    if (luma.empty()) return nullptr;
    GstBuffer *buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstMapInfo map;
    gst_buffer_map(buf, &map, GST_MAP_WRITE);
    memset(map.data, 0, map.size);
    const GstVideoFormatInfo *f = info.finfo;
    const int shift = GST_VIDEO_FORMAT_INFO_SHIFT(f, 0);
    const size_t bps = c.bytes_per_sample();
    uint8_t *plane = map.data + GST_VIDEO_INFO_PLANE_OFFSET(&info, 0);
    const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
    for (uint32_t y = 0; y < c.height; ++y) {
        uint8_t *row = plane + size_t(y) * stride;
        const uint8_t *src = luma.data() + size_t(y) * c.width * bps;
        if (bps == 1) {
            memcpy(row, src, c.width);
        } else {
            for (uint32_t x = 0; x < c.width; ++x) {
                uint16_t v = uint16_t(src[2 * x] | (src[2 * x + 1] << 8));
                v = uint16_t(v << shift);
                row[2 * x] = uint8_t(v & 0xff);
                row[2 * x + 1] = uint8_t(v >> 8);
            }
        }
    }
    if (poke && frame == 0) {
        plane[0] = uint8_t(poke & 0xff);
        if (bps == 2) plane[1] = uint8_t(poke >> 8);
    }
    gst_buffer_unmap(buf, &map);
    const GstClockTime d = GST_SECOND / 25;
    GST_BUFFER_PTS(buf) = frame * d;
    GST_BUFFER_DURATION(buf) = d;
    return buf;
}

// Runs "appsrc(s) -> vif -> [downstream] -> fakesink" with `props` on vif ("key=value ...").
void run(const std::vector<Stream> &streams, const std::string &props, Outcome *out,
         const std::string &downstream = "") {
    std::ostringstream desc;
    desc << "vif name=v " << props << " ! " << (downstream.empty() ? "" : downstream + " ! ")
         << "fakesink name=out signal-handoffs=true";
    for (size_t i = 0; i < streams.size(); ++i)
        desc << " appsrc name=s" << i << " format=time ! v.sink_" << i;
    GError *err = nullptr;
    GstElement *pipe = gst_parse_launch(desc.str().c_str(), &err);
    ASSERT_TRUE(pipe) << (err ? err->message : "parse failed");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "out");
    g_signal_connect(sink, "handoff",
                     G_CALLBACK(+[](GstElement *, GstBuffer *, GstPad *, gpointer data) {
                         ++static_cast<Outcome *>(data)->buffers_out;
                     }),
                     out);
    gst_object_unref(sink);
    gst_element_set_state(pipe, GST_STATE_PLAYING);
    for (size_t i = 0; i < streams.size(); ++i) {
        const Stream &s = streams[i];
        GstVideoInfo info;
        const int w = s.width ? s.width : int(s.gc->width);
        const int h = s.height ? s.height : int(s.gc->height);
        gst_video_info_set_format(&info, s.format, w, h);
        GST_VIDEO_INFO_FPS_N(&info) = 25;
        GST_VIDEO_INFO_FPS_D(&info) = 1;
        GstCaps *caps = gst_video_info_to_caps(&info);
        gchar *name = g_strdup_printf("s%zu", i);
        GstElement *src = gst_bin_get_by_name(GST_BIN(pipe), name);
        g_free(name);
        gst_app_src_set_caps(GST_APP_SRC(src), caps);
        gst_caps_unref(caps);
        GoldenCase sized = *s.gc;
        if (s.width) sized.width = s.width, sized.height = s.height;
        const uint32_t n = s.frames ? s.frames : s.gc->frames;
        for (uint32_t f = 0; f < n; ++f) {
            GstBuffer *b = make_buffer(info, sized, s.path, f, s.poke);
            ASSERT_TRUE(b) << "cannot read frame " << f << " of " << s.path;
            gst_app_src_push_buffer(GST_APP_SRC(src), b);
        }
        gst_app_src_end_of_stream(GST_APP_SRC(src));
        gst_object_unref(src);
    }
    GstBus *bus = gst_element_get_bus(pipe);
    for (;;) {
        // After the first error, the others that follow it (upstream's "internal data stream
        // error" may come first) are collected too.
        GstMessage *m = gst_bus_timed_pop(bus, (out->errors.empty() ? 60 : 1) * GST_SECOND /
                                                   (out->errors.empty() ? 1 : 2));
        if (!m) break; // the test fails below on !eos and no error
        bool done = false;
        switch (GST_MESSAGE_TYPE(m)) {
        case GST_MESSAGE_ELEMENT: {
            const GstStructure *st = gst_message_get_structure(m);
            if (gst_structure_has_name(st, "vif"))
                out->frames.push_back(gst_structure_copy(st));
            else if (gst_structure_has_name(st, "vif-summary"))
                out->summaries.push_back(gst_structure_copy(st));
            break;
        }
        case GST_MESSAGE_ERROR:
        case GST_MESSAGE_WARNING: {
            GError *e = nullptr;
            gchar *dbg = nullptr;
            if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
                gst_message_parse_error(m, &e, &dbg);
                out->errors.push_back(e->message);
            } else {
                gst_message_parse_warning(m, &e, &dbg);
                out->warnings.push_back(e->message);
            }
            g_error_free(e);
            g_free(dbg);
            break;
        }
        case GST_MESSAGE_EOS:
            out->eos = true;
            done = true;
            break;
        default:
            break;
        }
        gst_message_unref(m);
        if (done) break;
    }
    gst_element_set_state(pipe, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipe);
}

std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The lines of a result file without the measured speed (fps differs between any two runs).
std::string without_fps(const std::string &text) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line))
        if (line.find("fps") == std::string::npos) out += line + "\n";
    return out;
}

std::string tmp_path(const std::string &name) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/vif_gst_" + std::to_string(getpid()) + "_" + name;
}

// The CLI on the same pair; returns its output file's text ("" on failure).
std::string run_cli(const GoldenCase &c, const std::string &dist, const std::string &args,
                    const std::string &ext) {
    const std::string out = tmp_path("cli." + ext);
    std::ostringstream cmd;
    cmd << VIF_CLI_PATH << " -r " << c.ref_path() << " -d " << dist << " -w " << c.width << " -h "
        << c.height << " -p " << c.pix << " -b " << c.bitdepth << " --backend cpu -q " << args
        << " -o " << out << " 2>/dev/null";
    if (std::system(cmd.str().c_str()) != 0) return "";
    std::string text = slurp(out);
    std::remove(out.c_str());
    return text;
}

Json cli_json(const GoldenCase &c, const std::string &dist) {
    const std::string text =
        run_cli(c, dist, "--feature vif --feature float_vif --debug-metrics --precision max --json",
                "json");
    return text.empty() ? Json() : Json::parse(text);
}

const char *kKeys[] = {"integer_vif_scale0", "integer_vif_scale1",
                       "integer_vif_scale2", "integer_vif_scale3",
                       "integer_vif",        "vif_scale0",
                       "vif_scale1",         "vif_scale2",
                       "vif_scale3",         "vif"};

double field(const GstStructure *s, const char *key) {
    double v = -1.0;
    EXPECT_TRUE(gst_structure_get_double(s, key, &v)) << "no " << key;
    return v;
}

// Every frame message of `pad` equals the CLI's values bit for bit, and the summary its pooled
// values.
void expect_matches_cli(const Outcome &o, const char *pad, const Json &cli) {
    const auto frames = o.of_pad(pad);
    ASSERT_EQ(frames.size(), cli["frames"].size()) << pad;
    for (size_t f = 0; f < frames.size(); ++f) {
        guint64 index = 99;
        EXPECT_TRUE(gst_structure_get_uint64(frames[f], "frame", &index));
        EXPECT_EQ(index, f);
        GstClockTime ts = 0;
        EXPECT_TRUE(gst_structure_get_uint64(frames[f], "timestamp", &ts));
        EXPECT_EQ(ts, f * (GST_SECOND / 25));
        for (const char *k : kKeys)
            EXPECT_EQ(field(frames[f], k), cli["frames"][f]["metrics"][k].get<double>())
                << pad << " frame " << f << " " << k;
    }
    const GstStructure *sum = nullptr;
    for (auto *s : o.summaries)
        if (g_strcmp0(gst_structure_get_string(s, "pad"), pad) == 0) sum = s;
    ASSERT_TRUE(sum) << "no vif-summary for " << pad;
    for (const char *k : kKeys) {
        const GstStructure *pooled = nullptr;
        const GValue *v = gst_structure_get_value(sum, k);
        ASSERT_TRUE(v && GST_VALUE_HOLDS_STRUCTURE(v)) << k;
        pooled = gst_value_get_structure(v);
        for (const char *m : {"mean", "harmonic_mean", "min", "max"})
            EXPECT_EQ(field(pooled, m), cli["pooled_metrics"][k][m].get<double>())
                << pad << " pooled " << k << " " << m;
    }
}

bool contains(const std::vector<std::string> &v, const std::string &needle) {
    for (const auto &s : v)
        if (s.find(needle) != std::string::npos) return true;
    return false;
}

class GstVif : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        // The element from the build tree, a registry of the tests' own, plugins scanned in this
        // process (sanitizer builds: the instrumented element loads only where the runtime is).
        g_setenv("GST_PLUGIN_PATH", VIF_GST_PLUGIN_DIR, TRUE);
        g_setenv("GST_PLUGIN_SYSTEM_PATH", VIF_GST_SYSTEM_PLUGIN_DIR, TRUE);
        g_setenv("GST_REGISTRY", VIF_GST_REGISTRY, TRUE);
        g_setenv("GST_REGISTRY_FORK", "no", TRUE);
        gst_init(nullptr, nullptr);
        cases_ = vif::testing::load_manifest(VIF_TESTDATA_DIR);
    }
    const GoldenCase *find(const std::string &name) {
        for (const auto &c : cases_)
            if (c.name == name) return &c;
        return nullptr;
    }
    static std::vector<GoldenCase> cases_;
};
std::vector<GoldenCase> GstVif::cases_;

TEST_F(GstVif, ElementIsRegisteredWithItsProperties) {
    GstElement *e = gst_element_factory_make("vif", nullptr);
    ASSERT_TRUE(e) << "vif not found: is GST_PLUGIN_PATH set to the build folder?";
    for (const char *p : {"variant", "backend", "device-id", "threads", "frame-message",
                          "result-file", "result-format", "enhn-gain-limit", "kernelscale"})
        EXPECT_TRUE(g_object_class_find_property(G_OBJECT_GET_CLASS(e), p)) << p;
    gst_object_unref(e);
}

// Every golden case, both variants: each frame's message and the pooled summary equal the CLI's
// values bit for bit; integer VIF also equals libvmaf's golden CSV.
TEST_F(GstVif, GoldenCasesEqualTheCli) {
    ASSERT_FALSE(cases_.empty());
    for (const auto &c : cases_) {
        SCOPED_TRACE(c.name);
        Outcome o;
        run({{&c, c.ref_path(), format_for(c)}, {&c, c.dist_path(), format_for(c)}},
            "variant=both backend=cpu", &o);
        ASSERT_TRUE(o.errors.empty()) << o.errors[0];
        ASSERT_TRUE(o.eos);
        EXPECT_EQ(o.buffers_out, int(c.frames)); // the reference passed through
        const Json cli = cli_json(c, c.dist_path());
        ASSERT_FALSE(cli.is_null()) << "the CLI failed";
        expect_matches_cli(o, "sink_1", cli);
        const auto golden = vif::testing::load_expected(c.expected_path());
        const auto frames = o.of_pad("sink_1");
        ASSERT_EQ(golden.size(), frames.size());
        for (size_t f = 0; f < frames.size(); ++f)
            for (int s = 0; s < 4; ++s) {
                const std::string k = "integer_vif_scale" + std::to_string(s);
                EXPECT_EQ(field(frames[f], k.c_str()), golden[f].at(k)) << k;
            }
    }
}

// Semi-planar and MSB-aligned layouts: NV12 and P010 score as I420 and I420_10LE do.
TEST_F(GstVif, Nv12AndP010MatchPlanar) {
    for (const char *name : {"kodim23pan_576x324_8b_crf35", "cosmospan_576x324_10b_crf35"}) {
        const GoldenCase *c = find(name);
        ASSERT_TRUE(c) << name;
        const GstVideoFormat f =
            c->bitdepth == 8 ? GST_VIDEO_FORMAT_NV12 : GST_VIDEO_FORMAT_P010_10LE;
        Outcome o;
        run({{c, c->ref_path(), f}, {c, c->dist_path(), f}}, "variant=both backend=cpu", &o);
        ASSERT_TRUE(o.errors.empty()) << o.errors[0];
        expect_matches_cli(o, "sink_1", cli_json(*c, c->dist_path()));
    }
}

// A two-rung ladder (vif_submit_multi): each pad's messages equal its pair run.
TEST_F(GstVif, TwoRungLadderEqualsTwoPairs) {
    const GoldenCase *a = find("kodim23pan_576x324_8b_crf35");
    const GoldenCase *b = find("kodim23pan_576x324_8b_blur");
    ASSERT_TRUE(a && b);
    Outcome o;
    run({{a, a->ref_path(), GST_VIDEO_FORMAT_I420},
         {a, a->dist_path(), GST_VIDEO_FORMAT_I420},
         {b, b->dist_path(), GST_VIDEO_FORMAT_I420}},
        "variant=both backend=cpu threads=2", &o);
    ASSERT_TRUE(o.errors.empty()) << o.errors[0];
    expect_matches_cli(o, "sink_1", cli_json(*a, a->dist_path()));
    expect_matches_cli(o, "sink_2", cli_json(*b, b->dist_path()));
    Outcome pair;
    run({{b, b->ref_path(), GST_VIDEO_FORMAT_I420}, {b, b->dist_path(), GST_VIDEO_FORMAT_I420}},
        "variant=both backend=cpu", &pair);
    const auto ladder2 = o.of_pad("sink_2"), pair1 = pair.of_pad("sink_1");
    ASSERT_EQ(ladder2.size(), pair1.size());
    for (size_t f = 0; f < pair1.size(); ++f)
        for (const char *k : kKeys) EXPECT_EQ(field(ladder2[f], k), field(pair1[f], k)) << k;
}

// Options reach libvif and name the keys as libvmaf does.
TEST_F(GstVif, GainLimitKeysAndValues) {
    const GoldenCase *c = find("foreman_352x288_8b_crf35");
    ASSERT_TRUE(c);
    Outcome o;
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420}, {c, c->dist_path(), GST_VIDEO_FORMAT_I420}},
        "enhn-gain-limit=1.0 backend=cpu", &o);
    ASSERT_TRUE(o.errors.empty()) << o.errors[0];
    const auto golden = vif::testing::load_expected(c->expected_path());
    const auto frames = o.of_pad("sink_1");
    ASSERT_EQ(frames.size(), golden.size());
    EXPECT_EQ(field(frames[0], "integer_vif_scale0_egl_1"),
              golden[0].at("integer_vif_scale0_egl_1"));
    EXPECT_FALSE(gst_structure_has_field(frames[0], "integer_vif_scale0"));
}

TEST_F(GstVif, FrameMessagesCanBeTurnedOff) {
    const GoldenCase *c = find("rav1esmall_64x64_8b_crf35");
    ASSERT_TRUE(c);
    Outcome o;
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420}, {c, c->dist_path(), GST_VIDEO_FORMAT_I420}},
        "frame-message=false backend=cpu", &o);
    EXPECT_TRUE(o.eos);
    EXPECT_TRUE(o.frames.empty());
    ASSERT_EQ(o.summaries.size(), 1u); // the summary still comes
}

// result-file: the CLI's bytes in each format (the measured fps line aside).
TEST_F(GstVif, ResultFileEqualsTheCliBytes) {
    const GoldenCase *c = find("foreman_176x144_8b_crf45");
    ASSERT_TRUE(c);
    const std::pair<const char *, const char *> formats[] = {
        {"json", "--json"}, {"xml", "--xml"}, {"csv", "--csv"}};
    for (const auto &fmt : formats) {
        const std::string path = tmp_path(std::string("element.") + fmt.first);
        Outcome o;
        run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420}, {c, c->dist_path(), GST_VIDEO_FORMAT_I420}},
            std::string("backend=cpu result-file=") + path + " result-format=" + fmt.first, &o);
        ASSERT_TRUE(o.errors.empty()) << o.errors[0];
        const std::string mine = slurp(path);
        const std::string cli = run_cli(*c, c->dist_path(), fmt.second, fmt.first);
        ASSERT_FALSE(cli.empty());
        EXPECT_EQ(without_fps(mine), without_fps(cli)) << fmt.first;
        std::remove(path.c_str());
    }
}

// ---- Errors and warnings reach the bus --------------------------------------------------------

TEST_F(GstVif, DifferentSizesAreAnError) {
    const GoldenCase *a = find("foreman_352x288_8b_crf35");
    const GoldenCase *b = find("foreman_176x144_8b_crf45");
    ASSERT_TRUE(a && b);
    Outcome o;
    run({{a, a->ref_path(), GST_VIDEO_FORMAT_I420, 1},
         {b, b->dist_path(), GST_VIDEO_FORMAT_I420, 1}},
        "backend=cpu", &o);
    ASSERT_FALSE(o.errors.empty());
    EXPECT_TRUE(contains(o.errors, "176x144")) << o.errors[0];
    EXPECT_TRUE(o.frames.empty());
}

TEST_F(GstVif, DifferentBitDepthsAreAnError) {
    const GoldenCase *a = find("cosmospan_576x324_10b_crf35");
    const GoldenCase *b = find("kodim23pan_576x324_8b_crf35");
    ASSERT_TRUE(a && b);
    Outcome o;
    run({{a, a->ref_path(), GST_VIDEO_FORMAT_I420_10LE, 1},
         {b, b->dist_path(), GST_VIDEO_FORMAT_I420, 1}},
        "backend=cpu", &o);
    ASSERT_FALSE(o.errors.empty());
    EXPECT_TRUE(contains(o.errors, "bit")) << o.errors[0];
}

TEST_F(GstVif, DownstreamRefusingTheReferenceIsAnError) {
    const GoldenCase *c = find("rav1esmall_64x64_8b_crf35");
    ASSERT_TRUE(c);
    Outcome o;
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420}, {c, c->dist_path(), GST_VIDEO_FORMAT_I420}},
        "backend=cpu", &o, "capsfilter caps=video/x-raw,format=NV12");
    ASSERT_FALSE(o.errors.empty());
    EXPECT_FALSE(o.eos);
}

TEST_F(GstVif, UnwritableResultFileIsAnErrorBeforeScoring) {
    const GoldenCase *c = find("rav1esmall_64x64_8b_crf35");
    ASSERT_TRUE(c);
    Outcome o;
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420}, {c, c->dist_path(), GST_VIDEO_FORMAT_I420}},
        "backend=cpu result-file=/nonexistent-dir/x/scores.json", &o);
    ASSERT_FALSE(o.errors.empty());
    EXPECT_TRUE(contains(o.errors, "result-file")) << o.errors[0];
    EXPECT_TRUE(contains(o.errors, "/nonexistent-dir/x/scores.json")) << o.errors[0];
    EXPECT_TRUE(o.frames.empty());
}

TEST_F(GstVif, LadderResultFileNeedsAPattern) {
    const GoldenCase *c = find("rav1esmall_64x64_8b_crf35");
    ASSERT_TRUE(c);
    Outcome o;
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420},
         {c, c->dist_path(), GST_VIDEO_FORMAT_I420},
         {c, c->dist_path(), GST_VIDEO_FORMAT_I420}},
        "backend=cpu result-file=" + tmp_path("ladder.json"), &o);
    ASSERT_FALSE(o.errors.empty());
    EXPECT_TRUE(contains(o.errors, "%u")) << o.errors[0];
}

TEST_F(GstVif, LadderResultFilesPerPad) {
    const GoldenCase *c = find("foreman_176x144_8b_crf45");
    ASSERT_TRUE(c);
    const std::string pattern = tmp_path("rung%u.csv");
    Outcome o;
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420},
         {c, c->dist_path(), GST_VIDEO_FORMAT_I420},
         {c, c->ref_path(), GST_VIDEO_FORMAT_I420}},
        "backend=cpu result-format=csv result-file=" + pattern, &o);
    ASSERT_TRUE(o.errors.empty()) << o.errors[0];
    const std::string one = tmp_path("rung1.csv"), two = tmp_path("rung2.csv");
    EXPECT_EQ(without_fps(slurp(one)), without_fps(run_cli(*c, c->dist_path(), "--csv", "csv")));
    EXPECT_EQ(without_fps(slurp(two)), without_fps(run_cli(*c, c->ref_path(), "--csv", "csv")));
    std::remove(one.c_str());
    std::remove(two.c_str());
}

TEST_F(GstVif, SampleAboveTheBitDepthIsAnError) {
    const GoldenCase *c = find("cosmospan_576x324_10b_crf35");
    ASSERT_TRUE(c);
    Outcome o;
    Stream bad{c, c->dist_path(), GST_VIDEO_FORMAT_I420_10LE};
    bad.poke = 4000; // above 1023
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420_10LE}, bad}, "backend=cpu", &o);
    ASSERT_FALSE(o.errors.empty());
    EXPECT_TRUE(contains(o.errors, "4000")) << o.errors[0];
}

TEST_F(GstVif, DistortedPadEndingEarlyIsAWarningNamingIt) {
    const GoldenCase *c = find("foreman_176x144_8b_crf45"); // 3 frames
    ASSERT_TRUE(c);
    Outcome o;
    Stream shorter{c, c->dist_path(), GST_VIDEO_FORMAT_I420, 1};
    run({{c, c->ref_path(), GST_VIDEO_FORMAT_I420}, shorter}, "backend=cpu", &o);
    EXPECT_TRUE(o.errors.empty());
    EXPECT_TRUE(o.eos);
    EXPECT_TRUE(contains(o.warnings, "sink_1")) << (o.warnings.empty() ? "" : o.warnings[0]);
    EXPECT_EQ(o.of_pad("sink_1").size(), 1u);
    EXPECT_EQ(o.buffers_out, int(c->frames)); // the reference still passes through
}

} // namespace
