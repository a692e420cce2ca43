// The result log (vif/vif_log.h): libvmaf's layouts written out by hand here for small tables of
// chosen values (the pooled values are this file's arithmetic), the escaping of names in the
// details block, the atomic file, and every refusal. The CLI's golden tests check the same text
// against libvmaf's own files.
#include <vif/vif_log.h>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using LogPtr = std::unique_ptr<VifLog, void (*)(VifLog *)>;

VifLogRun small_run() {
    VifLogRun run{};
    run.width = 64;
    run.height = 32;
    run.bitdepth = 8;
    run.fps = 12.5;
    run.backend = "cpu";
    run.reference = "ref.yuv";
    run.distorted = "dist.yuv";
    run.subsample = 1;
    run.precision = VIF_LOG_PRECISION_LIBVMAF;
    return run;
}

VifScores scores_of(double s0, double s1, double s2, double s3) {
    VifScores s{};
    s.scale[0] = s0;
    s.scale[1] = s1;
    s.scale[2] = s2;
    s.scale[3] = s3;
    return s;
}

LogPtr make_log(VifLogFormat f, const VifLogRun &run, const char *path = nullptr) {
    VifLog *raw = nullptr;
    EXPECT_EQ(vif_log_create(&raw, f, &run, path), VIF_OK) << vif_last_error();
    return LogPtr(raw, vif_log_destroy);
}

std::string render(const VifLog *log, VifLogFormat f) {
    size_t n = 0;
    EXPECT_EQ(vif_log_render(log, f, nullptr, 0, &n), VIF_OK) << vif_last_error();
    std::string s(n + 1, '\0');
    EXPECT_EQ(vif_log_render(log, f, &s[0], s.size(), &n), VIF_OK) << vif_last_error();
    s.resize(n);
    return s;
}

// Two integer frames: scale0 0.5 and 0.25 (mean 0.375, harmonic mean 1/3 in libvmaf's form
// 1 / mean(1 / (x + 1)) - 1 = 0.371428...), the other scales constant.
LogPtr two_frames(VifLogFormat f, VifLogRun run = small_run()) {
    LogPtr log = make_log(f, run);
    VifConfig cfg;
    vif_default_config(&cfg);
    int v = -1;
    EXPECT_EQ(vif_log_add_variant(log.get(), &cfg, VIF_LOG_METRICS_DEFAULT, &v), VIF_OK);
    EXPECT_EQ(v, 0);
    const VifScores a = scores_of(0.5, 1.0, 0.75, 0.125), b = scores_of(0.25, 1.0, 0.75, 0.125);
    EXPECT_EQ(vif_log_add_frame(log.get(), v, 0, &a), VIF_OK);
    EXPECT_EQ(vif_log_add_frame(log.get(), v, 1, &b), VIF_OK);
    return log;
}

std::string version() {
    return vif_version();
}

TEST(Log, CsvIsLibvmafLayout) {
    LogPtr log = two_frames(VIF_LOG_CSV);
    EXPECT_EQ(render(log.get(), VIF_LOG_CSV),
              "Frame,integer_vif_scale0,integer_vif_scale1,integer_vif_scale2,integer_vif_scale3,\n"
              "0,0.500000,1.000000,0.750000,0.125000,\n"
              "1,0.250000,1.000000,0.750000,0.125000,\n");
}

TEST(Log, JsonIsLibvmafLayout) {
    LogPtr log = two_frames(VIF_LOG_JSON);
    // harmonic mean of 0.5, 0.25 in libvmaf's form: 1 / ((1/1.5 + 1/1.25) / 2) - 1 = 0.363636..
    const std::string expected =
        "{\n  \"version\": \"" + version() +
        "\",\n  \"fps\": 12.50,\n  \"frames\": [\n"
        "    {\n      \"frameNum\": 0,\n      \"metrics\": {\n"
        "        \"integer_vif_scale0\": 0.500000,\n"
        "        \"integer_vif_scale1\": 1.000000,\n"
        "        \"integer_vif_scale2\": 0.750000,\n"
        "        \"integer_vif_scale3\": 0.125000\n      }\n    },\n"
        "    {\n      \"frameNum\": 1,\n      \"metrics\": {\n"
        "        \"integer_vif_scale0\": 0.250000,\n"
        "        \"integer_vif_scale1\": 1.000000,\n"
        "        \"integer_vif_scale2\": 0.750000,\n"
        "        \"integer_vif_scale3\": 0.125000\n      }\n    }\n  ],\n"
        "  \"pooled_metrics\": {\n"
        "    \"integer_vif_scale0\": {\n      \"min\": 0.250000,\n      \"max\": 0.500000,\n"
        "      \"mean\": 0.375000,\n      \"harmonic_mean\": 0.363636\n    },\n"
        "    \"integer_vif_scale1\": {\n      \"min\": 1.000000,\n      \"max\": 1.000000,\n"
        "      \"mean\": 1.000000,\n      \"harmonic_mean\": 1.000000\n    },\n"
        "    \"integer_vif_scale2\": {\n      \"min\": 0.750000,\n      \"max\": 0.750000,\n"
        "      \"mean\": 0.750000,\n      \"harmonic_mean\": 0.750000\n    },\n"
        "    \"integer_vif_scale3\": {\n      \"min\": 0.125000,\n      \"max\": 0.125000,\n"
        "      \"mean\": 0.125000,\n      \"harmonic_mean\": 0.125000\n    }\n  },\n"
        "  \"aggregate_metrics\": {\n  }\n}\n";
    EXPECT_EQ(render(log.get(), VIF_LOG_JSON), expected);
}

TEST(Log, XmlIsLibvmafLayout) {
    LogPtr log = two_frames(VIF_LOG_XML);
    const std::string expected =
        "<VMAF version=\"" + version() +
        "\">\n  <params qualityWidth=\"64\" qualityHeight=\"32\" />\n  <fyi fps=\"12.50\" />\n"
        "  <frames>\n"
        "    <frame frameNum=\"0\" integer_vif_scale0=\"0.500000\" integer_vif_scale1=\"1.000000\" "
        "integer_vif_scale2=\"0.750000\" integer_vif_scale3=\"0.125000\" />\n"
        "    <frame frameNum=\"1\" integer_vif_scale0=\"0.250000\" integer_vif_scale1=\"1.000000\" "
        "integer_vif_scale2=\"0.750000\" integer_vif_scale3=\"0.125000\" />\n"
        "  </frames>\n  <pooled_metrics>\n"
        "    <metric name=\"integer_vif_scale0\" min=\"0.250000\" max=\"0.500000\" "
        "mean=\"0.375000\" harmonic_mean=\"0.363636\" />\n"
        "    <metric name=\"integer_vif_scale1\" min=\"1.000000\" max=\"1.000000\" "
        "mean=\"1.000000\" harmonic_mean=\"1.000000\" />\n"
        "    <metric name=\"integer_vif_scale2\" min=\"0.750000\" max=\"0.750000\" "
        "mean=\"0.750000\" harmonic_mean=\"0.750000\" />\n"
        "    <metric name=\"integer_vif_scale3\" min=\"0.125000\" max=\"0.125000\" "
        "mean=\"0.125000\" harmonic_mean=\"0.125000\" />\n"
        "  </pooled_metrics>\n  <aggregate_metrics />\n</VMAF>\n";
    EXPECT_EQ(render(log.get(), VIF_LOG_XML), expected);
}

TEST(Log, TwoVariantsSideBySideWithOptionKeys) {
    LogPtr log = make_log(VIF_LOG_CSV, small_run());
    VifConfig i, f;
    vif_default_config(&i);
    vif_default_config(&f);
    f.variant = VIF_VARIANT_FLOAT;
    f.enhn_gain_limit = 1.0;
    int vi = -1, vf = -1;
    ASSERT_EQ(vif_log_add_variant(log.get(), &i, 1, &vi), VIF_OK);
    ASSERT_EQ(vif_log_add_variant(log.get(), &f, 1, &vf), VIF_OK);
    EXPECT_EQ(vi, 0);
    EXPECT_EQ(vf, 1);
    const VifScores a = scores_of(0.5, 0, 0, 0), b = scores_of(0.0000000270185687, 0, 0, 0);
    ASSERT_EQ(vif_log_add_frame(log.get(), vi, 4, &a), VIF_OK);
    ASSERT_EQ(vif_log_add_frame(log.get(), vf, 4, &b), VIF_OK);
    EXPECT_EQ(vif_log_frames(log.get()), 1u);
    EXPECT_EQ(render(log.get(), VIF_LOG_CSV),
              "Frame,integer_vif_scale0,vif_scale0_egl_1,\n4,0.500000,0.0000000270185687,\n");
}

TEST(Log, DetailsBlockEscapesNames) {
    VifLogRun run = small_run();
    run.details = 1;
    run.reference = "q\"b\\\t\x01\xff.y4m";
    run.distorted = "<a&b>\xc3\xa9.mkv";
    LogPtr json = two_frames(VIF_LOG_JSON, run);
    const std::string j = render(json.get(), VIF_LOG_JSON);
    EXPECT_NE(j.find("    \"reference\": \"q\\\"b\\\\\\t\\u0001\\ufffd.y4m\",\n"),
              std::string::npos)
        << j;
    EXPECT_NE(j.find("    \"distorted\": \"<a&b>\xc3\xa9.mkv\",\n"), std::string::npos) << j;
    EXPECT_NE(j.find("    \"variant\": \"integer\",\n"), std::string::npos);
    EXPECT_NE(j.find("      \"integer_vif_scale0\": {\n        \"p1\": 0.252500,\n"),
              std::string::npos)
        << j;
    LogPtr xml = two_frames(VIF_LOG_XML, run);
    const std::string x = render(xml.get(), VIF_LOG_XML);
    EXPECT_NE(x.find("reference=\"q&quot;b\\&#9;\xef\xbf\xbd\xef\xbf\xbd.y4m\" "
                     "distorted=\"&lt;a&amp;b&gt;\xc3\xa9.mkv\" bitdepth=\"8\" subsample=\"1\" "
                     "frames_scored=\"2\">"),
              std::string::npos)
        << x;
}

TEST(Log, SummaryHasTheTable) {
    LogPtr log = two_frames(VIF_LOG_SUMMARY);
    const std::string s = render(log.get(), VIF_LOG_SUMMARY);
    EXPECT_EQ(s.substr(0, s.find('\n') + 1),
              "vif " + version() + ": 2 frames of 64x32 8-bit, integer VIF on cpu, 12.5 fps\n");
    EXPECT_NE(s.find("integer_vif_scale0      0.375000     0.250000     0.500000       0.363636\n"),
              std::string::npos)
        << s;
}

TEST(Log, NonFiniteFpsIsNullInJson) {
    LogPtr log = two_frames(VIF_LOG_JSON);
    ASSERT_EQ(vif_log_set_fps(log.get(), NAN), VIF_OK);
    EXPECT_NE(render(log.get(), VIF_LOG_JSON).find("\"fps\": null,"), std::string::npos);
}

TEST(Log, FormatValue) {
    char b[64];
    ASSERT_EQ(vif_log_format_value(0.357244, VIF_LOG_PRECISION_LIBVMAF, b, sizeof b), VIF_OK);
    EXPECT_STREQ(b, "0.357244");
    ASSERT_EQ(vif_log_format_value(1.0000000270185687, VIF_LOG_PRECISION_LIBVMAF, b, sizeof b),
              VIF_OK);
    EXPECT_STREQ(b, "1.0000000270185687");
    ASSERT_EQ(vif_log_format_value(0.1, VIF_LOG_PRECISION_MAX, b, sizeof b), VIF_OK);
    EXPECT_STREQ(b, "0.10000000000000001");
    ASSERT_EQ(vif_log_format_value(0.357244123, 3, b, sizeof b), VIF_OK);
    EXPECT_STREQ(b, "0.357");
    EXPECT_EQ(vif_log_format_value(0.5, 18, b, sizeof b), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_format_value(0.5, VIF_LOG_PRECISION_LIBVMAF, b, 8),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("buffer"), std::string::npos);
    EXPECT_EQ(vif_log_format_value(0.5, 6, nullptr, 8), VIF_ERROR_INVALID_ARGUMENT);
}

TEST(Log, RefusesBadArguments) {
    VifLog *log = nullptr;
    VifLogRun run = small_run();
    EXPECT_EQ(vif_log_create(nullptr, VIF_LOG_JSON, &run, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_create(&log, VIF_LOG_JSON, nullptr, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_create(&log, VifLogFormat(9), &run, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("unknown log format 9"), std::string::npos);
    run.precision = 18;
    EXPECT_EQ(vif_log_create(&log, VIF_LOG_JSON, &run, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    run = small_run();
    run.bitdepth = 9;
    EXPECT_EQ(vif_log_create(&log, VIF_LOG_JSON, &run, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("bit depth 9"), std::string::npos);
    run = small_run();
    run.width = 0;
    EXPECT_EQ(vif_log_create(&log, VIF_LOG_JSON, &run, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    run = small_run();
    run.reserved[3] = 1;
    EXPECT_EQ(vif_log_create(&log, VIF_LOG_JSON, &run, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(log, nullptr);

    LogPtr l = make_log(VIF_LOG_JSON, small_run());
    size_t n = 0;
    // Nothing to write yet: no variant, then no frame.
    EXPECT_EQ(vif_log_render(l.get(), VIF_LOG_JSON, nullptr, 0, &n), VIF_ERROR_INVALID_STATE);
    VifConfig cfg;
    vif_default_config(&cfg);
    int v = -1;
    EXPECT_EQ(vif_log_add_variant(l.get(), &cfg, 0, &v), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_add_variant(l.get(), &cfg, VIF_METRIC_COUNT + 1, &v),
              VIF_ERROR_INVALID_ARGUMENT);
    VifConfig bad = cfg;
    bad.enhn_gain_limit = 0.5;
    EXPECT_EQ(vif_log_add_variant(l.get(), &bad, 4, &v), VIF_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(vif_log_add_variant(l.get(), &cfg, 4, &v), VIF_OK);
    int w = -1;
    ASSERT_EQ(vif_log_add_variant(l.get(), &cfg, 4, &w), VIF_OK);
    EXPECT_EQ(vif_log_render(l.get(), VIF_LOG_JSON, nullptr, 0, &n), VIF_ERROR_INVALID_STATE);
    const VifScores s = scores_of(0.5, 0.5, 0.5, 0.5);
    EXPECT_EQ(vif_log_add_frame(l.get(), 2, 0, &s), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_add_frame(l.get(), -1, 0, &s), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_add_frame(l.get(), v, 0, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(vif_log_add_frame(l.get(), v, 0, &s), VIF_OK);
    // Variants with different frame counts, or different frame numbers, are refused.
    EXPECT_EQ(vif_log_render(l.get(), VIF_LOG_JSON, nullptr, 0, &n), VIF_ERROR_INVALID_STATE);
    EXPECT_NE(std::string(vif_last_error()).find("no frame for variant 1"), std::string::npos)
        << vif_last_error();
    EXPECT_EQ(vif_log_add_frame(l.get(), w, 7, &s), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_add_variant(l.get(), &cfg, 4, &v), VIF_ERROR_INVALID_STATE);
    ASSERT_EQ(vif_log_add_frame(l.get(), w, 0, &s), VIF_OK);
    ASSERT_EQ(vif_log_render(l.get(), VIF_LOG_JSON, nullptr, 0, &n), VIF_OK);
    std::string small(n, '\0'); // one byte short of the NUL
    EXPECT_EQ(vif_log_render(l.get(), VIF_LOG_JSON, &small[0], small.size(), &n),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_render(l.get(), VIF_LOG_JSON, nullptr, 5, &n), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_log_finish(l.get()), VIF_ERROR_INVALID_STATE); // no path
    EXPECT_EQ(vif_log_finish(nullptr), VIF_ERROR_INVALID_ARGUMENT);
    vif_log_destroy(nullptr);
}

// A scratch directory, removed with what is in it.
class LogFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/vif_log_test.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override {
        for (const auto &n : entries()) std::remove((dir_ + "/" + n).c_str());
        rmdir(dir_.c_str());
    }
    std::vector<std::string> entries() const {
        std::vector<std::string> out;
        if (DIR *d = opendir(dir_.c_str())) {
            while (dirent *e = readdir(d))
                if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
                    out.push_back(e->d_name);
            closedir(d);
        }
        return out;
    }
    static std::string slurp(const std::string &p) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    std::string dir_;
};

LogPtr two_frames_to(const std::string &path, VifStatus *st) {
    VifLogRun run = small_run();
    VifLog *raw = nullptr;
    *st = vif_log_create(&raw, VIF_LOG_CSV, &run, path.c_str());
    LogPtr log(raw, vif_log_destroy);
    if (*st != VIF_OK) return log;
    VifConfig cfg;
    vif_default_config(&cfg);
    int v = 0;
    vif_log_add_variant(log.get(), &cfg, 4, &v);
    const VifScores a = scores_of(0.5, 1.0, 0.75, 0.125);
    vif_log_add_frame(log.get(), v, 0, &a);
    return log;
}

TEST_F(LogFileTest, AppearsOnlyWhenFinished) {
    const std::string path = dir_ + "/out.csv";
    VifStatus st;
    LogPtr log = two_frames_to(path, &st);
    ASSERT_EQ(st, VIF_OK) << vif_last_error();
    struct stat sb {};
    EXPECT_NE(stat(path.c_str(), &sb), 0); // nothing at the path before finish
    ASSERT_EQ(vif_log_finish(log.get()), VIF_OK) << vif_last_error();
    EXPECT_EQ(slurp(path), render(log.get(), VIF_LOG_CSV));
    EXPECT_EQ(entries(), std::vector<std::string>{"out.csv"}); // no temporary file left
    ASSERT_EQ(stat(path.c_str(), &sb), 0);
    const mode_t mask = umask(0);
    umask(mask);
    EXPECT_EQ(sb.st_mode & 0777, 0666 & ~mask);
    EXPECT_EQ(vif_log_finish(log.get()), VIF_ERROR_INVALID_STATE); // once
}

TEST_F(LogFileTest, UnfinishedLeavesTheOldFile) {
    const std::string path = dir_ + "/out.csv";
    { std::ofstream(path) << "old"; }
    chmod(path.c_str(), 0640);
    {
        VifStatus st;
        LogPtr log = two_frames_to(path, &st);
        ASSERT_EQ(st, VIF_OK) << vif_last_error();
    } // destroyed without finish: a cut run
    EXPECT_EQ(slurp(path), "old");
    EXPECT_EQ(entries(), std::vector<std::string>{"out.csv"});
    VifStatus st;
    LogPtr log = two_frames_to(path, &st);
    ASSERT_EQ(vif_log_finish(log.get()), VIF_OK) << vif_last_error();
    EXPECT_EQ(slurp(path).substr(0, 6), "Frame,");
    struct stat sb {};
    ASSERT_EQ(stat(path.c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 0777, 0640u); // the replaced file's permission bits
}

TEST_F(LogFileTest, FollowsSymlinks) {
    const std::string target = dir_ + "/target.csv", link = dir_ + "/link.csv";
    ASSERT_EQ(symlink("target.csv", link.c_str()), 0);
    VifStatus st;
    LogPtr log = two_frames_to(link, &st);
    ASSERT_EQ(st, VIF_OK) << vif_last_error();
    ASSERT_EQ(vif_log_finish(log.get()), VIF_OK) << vif_last_error();
    struct stat sb {};
    ASSERT_EQ(lstat(link.c_str(), &sb), 0);
    EXPECT_TRUE(S_ISLNK(sb.st_mode));
    EXPECT_EQ(slurp(target).substr(0, 6), "Frame,");
}

TEST_F(LogFileTest, UnwritablePathsFailAtCreate) {
    VifStatus st;
    LogPtr a = two_frames_to(dir_ + "/missing/out.csv", &st);
    EXPECT_EQ(st, VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find(dir_ + "/missing/out.csv"), std::string::npos)
        << vif_last_error();
    LogPtr b = two_frames_to(dir_, &st);
    EXPECT_EQ(st, VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("is a directory"), std::string::npos);
    LogPtr c = two_frames_to("", &st);
    EXPECT_EQ(st, VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(entries().empty());
}

TEST_F(LogFileTest, DevicesAreWrittenThrough) {
    VifStatus st;
    LogPtr log = two_frames_to("/dev/null", &st);
    ASSERT_EQ(st, VIF_OK) << vif_last_error();
    EXPECT_EQ(vif_log_finish(log.get()), VIF_OK) << vif_last_error();
    struct stat sb {};
    ASSERT_EQ(stat("/dev/null", &sb), 0);
    EXPECT_TRUE(S_ISCHR(sb.st_mode)); // still the device
}

} // namespace
