// The `vif` CLI end to end: the built binary run on the golden cases in testdata/ (and on the
// full shared set when present), in every output format, on Y4M and piped input, and on bad
// input. Expected values come from testdata/expected/*.csv and libvmaf's own JSON, never from
// libvif.
#include "cli_harness.hpp"

using namespace vif_cli_test;

namespace {

// ---- Golden values through the CLI -------------------------------------------------------

class GoldenCli : public CliTest, public ::testing::WithParamInterface<GoldenCase> {};

TEST_P(GoldenCli, IntegerJsonBitExact) {
    const GoldenCase &c = GetParam();
    json j = score_json(c, {"--precision", "max", "--debug-metrics"});
    auto rows = vif::testing::load_expected(c.expected_path());
    ASSERT_EQ(rows.size(), c.frames);
    expect_frames_match(j, rows, expected_keys(c.expected_path(), true, false), true, c.name);
}

TEST_P(GoldenCli, IntegerEgl1JsonBitExact) {
    const GoldenCase &c = GetParam();
    json j = score_json(
        c, {"--precision", "max", "--debug-metrics", "--feature-option", "vif_enhn_gain_limit=1"});
    auto rows = vif::testing::load_expected(c.expected_path());
    expect_frames_match(j, rows, expected_keys(c.expected_path(), true, true), true, c.name);
}

TEST_P(GoldenCli, FloatJsonWithin1e4) {
    const GoldenCase &c = GetParam();
    json j = score_json(c, {"--precision", "max", "--debug-metrics", "--variant", "float"});
    auto rows = vif::testing::load_expected(c.expected_path());
    expect_frames_match(j, rows, expected_keys(c.expected_path(), false, false), false, c.name);
}

TEST_P(GoldenCli, FloatEgl1JsonWithin1e4) {
    const GoldenCase &c = GetParam();
    json j = score_json(c, {"--precision", "max", "--debug-metrics", "--variant", "float",
                            "--feature-option", "egl=1"});
    auto rows = vif::testing::load_expected(c.expected_path());
    expect_frames_match(j, rows, expected_keys(c.expected_path(), false, true), false, c.name);
}

TEST_P(GoldenCli, Y4mInputBitExact) {
    const GoldenCase &c = GetParam();
    write_y4m(c, c.ref_path(), path("ref.y4m"));
    write_y4m(c, c.dist_path(), path("dist.y4m"), /*frame_params=*/true);
    CliRun r = vif({"-r", path("ref.y4m"), "-d", path("dist.y4m"), "--precision", "max", "-o",
                    path("out.json"), "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    json j = json::parse(slurp(path("out.json")));
    auto rows = vif::testing::load_expected(c.expected_path());
    auto keys = expected_keys(c.expected_path(), true, false);
    keys.resize(4); // the four scale scores by default
    expect_frames_match(j, rows, keys, true, c.name + " (y4m)");
}

TEST_P(GoldenCli, PreadPathBitExact) {
    // --no-mmap: the buffered (pread) reader instead of the file mapping, raw and Y4M.
    const GoldenCase &c = GetParam();
    auto rows = vif::testing::load_expected(c.expected_path());
    auto keys = expected_keys(c.expected_path(), true, false);
    keys.resize(4);
    json j = score_json(c, {"--precision", "max", "--no-mmap"});
    expect_frames_match(j, rows, keys, true, c.name + " (pread)");
    write_y4m(c, c.dist_path(), path("dist.y4m"), /*frame_params=*/true);
    j = score_json(c, {"--precision", "max", "--no-mmap"}, "", path("dist.y4m"));
    expect_frames_match(j, rows, keys, true, c.name + " (pread, y4m)");
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase> &info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Repo, GoldenCli, ::testing::ValuesIn(repo_cases()), case_name);

// ---- libvmaf's layout ----------------------------------------------------------------------

TEST_F(CliTest, JsonHasLibvmafLayoutAndSixDecimals) {
    const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
    json j = score_json(c, {"--details"});
    std::vector<std::string> top;
    for (auto it = j.begin(); it != j.end(); ++it) top.push_back(it.key());
    // libvmaf's keys in libvmaf's order, then our own block (asked for with --details).
    const std::vector<std::string> want = {"version",           "fps",   "frames", "pooled_metrics",
                                           "aggregate_metrics", "libvif"};
    EXPECT_EQ(top, want);
    EXPECT_TRUE(j["version"].is_string());
    EXPECT_TRUE(j["fps"].is_number());
    EXPECT_TRUE(j["aggregate_metrics"].is_object());
    ASSERT_TRUE(j["frames"].is_array());
    for (size_t i = 0; i < j["frames"].size(); ++i) {
        const auto &f = j["frames"][i];
        std::vector<std::string> fk;
        for (auto it = f.begin(); it != f.end(); ++it) fk.push_back(it.key());
        EXPECT_EQ(fk, (std::vector<std::string>{"frameNum", "metrics"}));
        EXPECT_EQ(f["frameNum"].get<uint64_t>(), i);
    }
    auto rows = vif::testing::load_expected(c.expected_path());
    // Values printed as libvmaf prints them: %.6f.
    const std::string text = slurp(path("out.json"));
    for (size_t i = 0; i < rows.size(); ++i) {
        char want_text[128];
        std::snprintf(want_text, sizeof want_text, "\"integer_vif_scale0\": %.6f",
                      rows[i].at("integer_vif_scale0"));
        EXPECT_NE(text.find(want_text), std::string::npos) << want_text;
    }
    // Pooled: min, max, mean, harmonic_mean per key, computed here from the expected values.
    for (const std::string k : {"integer_vif_scale0", "integer_vif_scale3"}) {
        const auto &p = j["pooled_metrics"][k];
        std::vector<std::string> pk;
        for (auto it = p.begin(); it != p.end(); ++it) pk.push_back(it.key());
        EXPECT_EQ(pk, (std::vector<std::string>{"min", "max", "mean", "harmonic_mean"}));
    }
}

TEST_F(CliTest, PooledValuesMatchExpectedFrames) {
    for (const char *name :
         {"src01_160x90_8b_vmafrepo", "foreman_176x144_8b_crf45", "rav1esmall_64x64_8b_crf35"}) {
        const GoldenCase &c = find_case(name);
        json j = score_json(c, {"--precision", "max", "--details"});
        auto rows = vif::testing::load_expected(c.expected_path());
        ASSERT_GE(rows.size(), 2u);
        for (int s = 0; s < 4; ++s) {
            const std::string k = "integer_vif_scale" + std::to_string(s);
            std::vector<double> v;
            for (const auto &r : rows) v.push_back(r.at(k));
            double sum = 0, inv = 0;
            for (double x : v) {
                sum += x;
                inv += 1.0 / (x + 1.0);
            }
            const double n = double(v.size());
            const auto &p = j["pooled_metrics"][k];
            EXPECT_EQ(p["min"].get<double>(), *std::min_element(v.begin(), v.end())) << name;
            EXPECT_EQ(p["max"].get<double>(), *std::max_element(v.begin(), v.end())) << name;
            EXPECT_NEAR(p["mean"].get<double>(), sum / n, 1e-15) << name << " " << k;
            EXPECT_NEAR(p["harmonic_mean"].get<double>(), n / inv - 1.0, 1e-14) << name << " " << k;
            std::vector<double> sorted = v;
            std::sort(sorted.begin(), sorted.end());
            if (sorted.size() % 2 == 1) {
                EXPECT_EQ(j["libvif"]["percentiles"][k]["median"].get<double>(),
                          sorted[sorted.size() / 2]);
            }
            const double p1 = j["libvif"]["percentiles"][k]["p1"].get<double>();
            EXPECT_GE(p1, sorted.front());
            EXPECT_LE(p1, sorted[1]);
        }
    }
}

TEST_F(CliTest, CsvOutputInLibvmafLayout) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    auto a = std::vector<std::string>{"-r", c.ref_path(), "-d", c.dist_path()};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"--csv", "--precision", "max", "-o", path("out.csv")});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream in(slurp(path("out.csv")));
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "Frame,integer_vif_scale0,integer_vif_scale1,integer_vif_scale2,"
                    "integer_vif_scale3,");
    auto rows = vif::testing::load_expected(c.expected_path());
    size_t i = 0;
    while (std::getline(in, line)) {
        auto f = vif::testing::split_csv_line(line);
        ASSERT_EQ(f.size(), 6u) << line; // frame, four values, and the trailing comma
        EXPECT_EQ(f[0], std::to_string(i));
        ASSERT_LT(i, rows.size());
        for (int s = 0; s < 4; ++s)
            EXPECT_EQ(std::strtod(f[size_t(1 + s)].c_str(), nullptr),
                      rows[i].at("integer_vif_scale" + std::to_string(s)))
                << "frame " << i << " scale " << s;
        EXPECT_EQ(f[5], "");
        ++i;
    }
    EXPECT_EQ(i, rows.size());
}

TEST_F(CliTest, XmlOutputInLibvmafLayout) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    auto a = std::vector<std::string>{"-r", c.ref_path(), "-d", c.dist_path()};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"--xml", "--precision", "max", "-o", path("out.xml")});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string x = slurp(path("out.xml"));
    EXPECT_EQ(x.rfind("<VMAF version=\"", 0), 0u);
    EXPECT_NE(x.find("<params qualityWidth=\"176\" qualityHeight=\"144\" />"), std::string::npos);
    EXPECT_NE(x.find("<aggregate_metrics />"), std::string::npos);
    EXPECT_NE(x.find("</VMAF>\n"), std::string::npos);
    auto rows = vif::testing::load_expected(c.expected_path());
    std::regex frame_re("<frame frameNum=\"(\\d+)\" ((?:\\w+=\"[^\"]*\" )+)/>");
    std::regex attr_re("(\\w+)=\"([^\"]*)\"");
    size_t n = 0;
    for (std::sregex_iterator it(x.begin(), x.end(), frame_re), end; it != end; ++it, ++n) {
        EXPECT_EQ(std::stoul((*it)[1]), n);
        std::string attrs = (*it)[2];
        std::vector<std::string> names;
        for (std::sregex_iterator a2(attrs.begin(), attrs.end(), attr_re); a2 != end; ++a2) {
            names.push_back((*a2)[1]);
            EXPECT_EQ(std::strtod((*a2)[2].str().c_str(), nullptr), rows.at(n).at((*a2)[1]))
                << "frame " << n << " " << (*a2)[1];
        }
        EXPECT_EQ(names.size(), 4u);
    }
    EXPECT_EQ(n, rows.size());
    std::regex metric_re("<metric name=\"(\\w+)\" min=\"[^\"]+\" max=\"[^\"]+\" mean=\"[^\"]+\" "
                         "harmonic_mean=\"[^\"]+\" />");
    EXPECT_EQ(
        std::distance(std::sregex_iterator(x.begin(), x.end(), metric_re), std::sregex_iterator()),
        4);
}

TEST_F(CliTest, OutputFormatFromExtensionAndPrecision) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    auto a = std::vector<std::string>{"-r", c.ref_path(), "-d", c.dist_path()};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    auto b = a;
    a.insert(a.end(), {"--precision", "3", "-o", path("x.csv")});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    auto rows = vif::testing::load_expected(c.expected_path());
    char want[64];
    std::snprintf(want, sizeof want, "0,%.3f,", rows[0].at("integer_vif_scale0"));
    EXPECT_NE(slurp(path("x.csv")).find(want), std::string::npos) << want;
    // Summary on stdout without -o: the pooled mean of each scale with 6 decimals.
    CliRun s = vif(b);
    ASSERT_EQ(s.code, 0) << s.err;
    double mean = 0;
    for (const auto &row : rows) mean += row.at("integer_vif_scale2");
    mean /= double(rows.size());
    std::snprintf(want, sizeof want, "%.6f", mean);
    EXPECT_NE(s.out.find("integer_vif_scale2"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find(want), std::string::npos) << s.out;
    // -q with -o: nothing on stdout, no progress bar on stderr (not a terminal anyway).
    b.insert(b.end(), {"-q", "-o", path("y.json")});
    CliRun q = vif(b);
    EXPECT_EQ(q.code, 0);
    EXPECT_EQ(q.out, "");
    EXPECT_EQ(q.err, "");
}

// ---- Frame selection -----------------------------------------------------------------------

TEST_F(CliTest, FramesSkipAndSubsample) {
    const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo"); // 3 frames here
    auto rows = vif::testing::load_expected(c.expected_path());
    ASSERT_EQ(rows.size(), 3u);
    auto keys = expected_keys(c.expected_path(), true, false);
    keys.resize(4);
    json j = score_json(c, {"--precision", "max", "--frames", "2"});
    expect_frames_match(j, rows, keys, true, "--frames 2", {0, 1});
    j = score_json(c, {"--precision", "max", "--subsample", "2"});
    expect_frames_match(j, rows, keys, true, "--subsample 2", {0, 2});
    ASSERT_EQ(j["frames"].size(), 2u);
    EXPECT_EQ(j["frames"][1]["frameNum"].get<int>(), 2);
    j = score_json(c, {"--precision", "max", "--skip-ref", "1", "--skip-dist", "1"});
    expect_frames_match(j, rows, keys, true, "--skip-ref/dist 1", {1, 2});
    EXPECT_EQ(j["frames"][0]["frameNum"].get<int>(), 0);
    // Skipping only the distorted: pairs (ref 0, dist 1), (ref 1, dist 2) -- not in the
    // expected data, but the scores must differ from the aligned ones and two frames result.
    j = score_json(c, {"--precision", "max", "--skip-dist", "1"});
    ASSERT_EQ(j["frames"].size(), 2u);
    EXPECT_NE(j["frames"][0]["metrics"]["integer_vif_scale0"].get<double>(),
              rows[1].at("integer_vif_scale0"));
}

TEST_F(CliTest, DifferentFrameCountsWarnAndScoreCommonFrames) {
    const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
    spit(path("dist2.yuv"), frame_bytes(c, c.dist_path(), 0, 2));
    auto rows = vif::testing::load_expected(c.expected_path());
    auto keys = expected_keys(c.expected_path(), true, false);
    keys.resize(4);
    std::vector<std::string> a = {"-r", c.ref_path(), "-d", path("dist2.yuv")};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"--precision", "max", "-o", path("out.json")});
    CliRun r = vif(a);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("different frame counts"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("3"), std::string::npos) << r.err;
    expect_frames_match(json::parse(slurp(path("out.json"))), rows, keys, true, "common", {0, 1});
    // The same through a pipe, where the count is only known at the end.
    CliRun p =
        shell("cat '" + path("dist2.yuv") + "' | '" + kCli + "' -r '" + c.ref_path() + "' -d - " +
              raw_args_str(c) + " --precision max -o '" + path("pipe.json") + "'");
    EXPECT_EQ(p.code, 0) << p.err;
    EXPECT_NE(p.err.find("different frame counts"), std::string::npos) << p.err;
    expect_frames_match(json::parse(slurp(path("pipe.json"))), rows, keys, true, "pipe", {0, 1});
}

TEST_F(CliTest, PipedRawAndY4mInput) {
    const GoldenCase &c = find_case("cosmospan_576x324_10b_crf35");
    auto rows = vif::testing::load_expected(c.expected_path());
    auto keys = expected_keys(c.expected_path(), true, false);
    keys.resize(4);
    CliRun r = shell("cat '" + c.ref_path() + "' | '" + kCli + "' -r - -d '" + c.dist_path() +
                     "' " + raw_args_str(c) + " --precision max -o '" + path("raw.json") + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    expect_frames_match(json::parse(slurp(path("raw.json"))), rows, keys, true, "raw pipe");
    write_y4m(c, c.ref_path(), path("ref.y4m"), true);
    r = shell("cat '" + path("ref.y4m") + "' | '" + kCli + "' -r - -d '" + c.dist_path() + "' " +
              raw_args_str(c) + " --precision max -o '" + path("y4m.json") + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    expect_frames_match(json::parse(slurp(path("y4m.json"))), rows, keys, true, "y4m pipe");
}

TEST_F(CliTest, ThreadCountDoesNotChangeScores) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    auto rows = vif::testing::load_expected(c.expected_path());
    auto keys = expected_keys(c.expected_path(), true, false);
    json j = score_json(c, {"--precision", "max", "--debug-metrics", "--threads", "1"});
    expect_frames_match(j, rows, keys, true, "--threads 1");
    j = score_json(c, {"--precision", "max", "--debug-metrics", "--threads", "3"});
    expect_frames_match(j, rows, keys, true, "--threads 3");
}

// ---- Bad input -----------------------------------------------------------------------------

TEST_F(CliTest, MissingFile) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    expect_failure(case_args(c, path("nope.yuv")), {"reference", "nope.yuv", "No such file"});
}

TEST_F(CliTest, UnreadableFile) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    fs::create_directory(path("adir.yuv"));
    expect_failure(case_args(c, "", path("adir.yuv")), {"distorted", "directory"}, {"adir.yuv"});
    if (geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not stop reads";
    spit(path("locked.yuv"), slurp(c.ref_path()));
    chmod(path("locked.yuv").c_str(), 0);
    expect_failure(case_args(c, path("locked.yuv")), {"reference", "Permission denied"},
                   {"adir.yuv", "locked.yuv"});
}

TEST_F(CliTest, NotAWholeNumberOfFrames) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    std::string d = slurp(c.dist_path());
    spit(path("short.yuv"), d.substr(0, d.size() - 100));
    expect_failure(case_args(c, "", path("short.yuv")),
                   {"distorted", "not a whole number of", "64x64"}, {"short.yuv"});
    // The same through a pipe, where it shows only at the end.
    CliRun r = shell("cat '" + path("short.yuv") + "' | '" + kCli + "' -r '" + c.ref_path() +
                     "' -d - " + raw_args_str(c) + " -q -o '" + path("out.json") + "'");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("incomplete"), std::string::npos) << r.err;
    EXPECT_TRUE(leftovers({"short.yuv"}).empty());
}

TEST_F(CliTest, BadFrameSizes) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    auto with = [&](const std::string &w, const std::string &h) {
        return std::vector<std::string>{"-r", c.ref_path(), "-d",  c.dist_path(), "-w", w, "-h",
                                        h,    "-p",         "420", "-b",          "8"};
    };
    expect_failure(with("0", "64"), {"0x64", "> 0"});
    expect_failure(with("64", "0"), {"64x0", "> 0"});
    expect_failure(with("40000", "64"), {"40000x64", "absurd"});
    expect_failure(with("8", "64"), {"8x64", "unsupported"});
    expect_failure(with("64", "15"), {"64x15", "unsupported"});
    expect_failure(with("abc", "64"), {"width", "abc"});
    // A size that does not divide the file: caught as such, naming the sizes.
    expect_failure(with("48", "64"), {"not a whole number", "48x64"});
}

TEST_F(CliTest, UnknownPixelFormatAndBitDepth) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    auto a =
        std::vector<std::string>{"-r", c.ref_path(), "-d", c.dist_path(), "-w", "64", "-h", "64"};
    auto p = a;
    p.insert(p.end(), {"-p", "yuv9", "-b", "8"});
    expect_failure(p, {"pixel format", "yuv9"});
    for (const char *b : {"9", "14", "0", "x"}) {
        auto q = a;
        q.insert(q.end(), {"-p", "420", "-b", b});
        expect_failure(q, {"bit depth", b});
    }
    // Raw input without -p/-b.
    expect_failure(a, {"pixel-format", "bitdepth"});
}

TEST_F(CliTest, SampleAboveBitDepthNamesTheFrame) {
    const GoldenCase &c = find_case("cosmospan_576x324_10b_crf35");
    ASSERT_EQ(c.bitdepth, 10u);
    std::string f0 = frame_bytes(c, c.ref_path(), 0, 1);
    std::string f1 = f0;
    const size_t at = 2 * (3 * size_t(c.width) + 5); // (x=5, y=3)
    f1[at] = char(1100 & 0xff);
    f1[at + 1] = char(1100 >> 8);
    spit(path("ref.yuv"), f0 + f1);
    std::string d = frame_bytes(c, c.dist_path(), 0, 1);
    spit(path("dist.yuv"), d + d);
    expect_failure(case_args(c, path("ref.yuv"), path("dist.yuv")),
                   {"reference", "frame 1", "1100", "10-bit"}, {"ref.yuv", "dist.yuv"});
    // The distorted side too, in 12-bit (4096 is one above the range).
    const GoldenCase &c12 = find_case("cosmospan_576x324_12b_x265crf35");
    std::string g = frame_bytes(c12, c12.dist_path(), 0, 1);
    g[0] = char(4096 & 0xff);
    g[1] = char(4096 >> 8);
    spit(path("dist12.yuv"), g);
    expect_failure(case_args(c12, "", path("dist12.yuv")),
                   {"distorted", "frame 0", "4096", "12-bit"},
                   {"ref.yuv", "dist.yuv", "dist12.yuv"});
}

TEST_F(CliTest, BrokenY4mHeaders) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    const std::string frame = frame_bytes(c, c.ref_path(), 0, 1);
    const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
        {"YUV4MPEG2 H64 C420jpeg\nFRAME\n" + frame, {"broken Y4M header", "W"}},
        {"YUV4MPEG2 W64 Hx C420jpeg\nFRAME\n" + frame, {"broken Y4M header", "height"}},
        {"YUV4MPEG2 W64 H64 C420jpeg" + std::string(5000, ' '),
         {"broken Y4M header", "end of line"}},
        {"YUV4MPEG2 W64 H64 C999\nFRAME\n" + frame, {"colour space", "C999"}},
        {"YUV4MPEG2 W64 H64 C420p9\nFRAME\n" + frame, {"bit depth", "9"}},
        {"YUV4MPEG2 W64 H64 C420jpeg Q7\nFRAME\n" + frame, {"broken Y4M header", "Q7"}},
        {"YUV4MPEG2 W64 H64 C420jpeg\nFRAMX\n" + frame, {"frame 0", "FRAME"}},
        {"YUV4MPEG2 W64 H64 C420jpeg\nFRAME\n" + frame + "FRAME\n" + frame.substr(0, 100),
         {"frame 1", "incomplete"}},
        {"YUV4MPEG2 W0 H64 C420jpeg\nFRAME\n" + frame, {"0x64", "> 0"}},
        {"YUV4MPEG2\n", {"broken Y4M header"}},
    };
    int i = 0;
    for (const auto &[content, needles] : bad) {
        const std::string name = "bad" + std::to_string(i++) + ".y4m";
        spit(path(name), content);
        SCOPED_TRACE(name + ": " + content.substr(0, 40));
        expect_failure(
            {"-r", path(name), "-d", c.dist_path(), "-w", "64", "-h", "64", "-p", "420", "-b", "8"},
            needles, {name});
        fs::remove(path(name));
    }
}

TEST_F(CliTest, Y4mHeaderMustAgreeWithGivenSizes) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    write_y4m(c, c.ref_path(), path("ref.y4m"));
    expect_failure({"-r", path("ref.y4m"), "-d", c.dist_path(), "-w", "64", "-h", "64", "-p", "420",
                    "-b", "10"},
                   {"Y4M header", "8-bit"}, {"ref.y4m"});
}

TEST_F(CliTest, MismatchedInputs) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    const GoldenCase &o = find_case("foreman_176x144_8b_crf45");
    write_y4m(o, o.ref_path(), path("other.y4m"));
    write_y4m(c, c.dist_path(), path("dist.y4m"));
    expect_failure({"-r", path("other.y4m"), "-d", path("dist.y4m")}, {"176x144", "64x64"},
                   {"other.y4m", "dist.y4m"});
}

TEST_F(CliTest, UnwritableOutput) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    auto a = case_args(c);
    a.insert(a.end(), {"-q", "-o", path("no/such/dir/out.json")});
    CliRun r = vif(a);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("cannot write output"), std::string::npos) << r.err;
    a = case_args(c);
    fs::create_directory(path("outdir"));
    a.insert(a.end(), {"-q", "-o", path("outdir")});
    r = vif(a);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("directory"), std::string::npos) << r.err;
    EXPECT_TRUE(leftovers({"outdir"}).empty());
    EXPECT_TRUE(fs::is_empty(path("outdir")));
}

TEST_F(CliTest, FailureMidRunLeavesNoOutput) {
    // Frame 0 scores, frame 1 is bad: the run fails and no file (complete-looking or temporary)
    // is left where the output was to go, and an older file there is untouched.
    const GoldenCase &c = find_case("cosmospan_576x324_10b_crf35");
    std::string f0 = frame_bytes(c, c.ref_path(), 0, 1);
    std::string f1 = f0;
    f1[1] = char(0x80); // sample 0 of frame 1 = 0x8000 + ...
    spit(path("ref.yuv"), f0 + f0 + f1);
    std::string d = frame_bytes(c, c.dist_path(), 0, 1);
    spit(path("dist.yuv"), d + d + d);
    spit(path("out.json"), "old");
    auto a = case_args(c, path("ref.yuv"), path("dist.yuv"));
    a.insert(a.end(), {"-q", "-o", path("out.json")});
    CliRun r = vif(a);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("frame 2"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("out.json")), "old");
    EXPECT_TRUE(leftovers({"ref.yuv", "dist.yuv", "out.json"}).empty());
}

TEST_F(CliTest, UnknownFeatureOptionAndBadValues) {
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    auto with = [&](std::vector<std::string> extra) {
        auto a = case_args(c);
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    expect_failure(with({"--feature-option", "vif_foo=1"}), {"feature-option", "vif_foo"});
    expect_failure(with({"--feature-option", "egl"}), {"feature-option", "key=value"});
    expect_failure(with({"--feature-option", "egl=abc"}), {"egl", "abc"});
    expect_failure(with({"--feature-option", "ks=0.5"}), {"vif_kernelscale", "float"});
    expect_failure(with({"--variant", "double"}), {"variant", "double"});
    expect_failure(with({"--backend", "tpu"}), {"backend", "tpu"});
    expect_failure(with({"--precision", "many"}), {"precision", "many"});
    expect_failure(with({"--frames", "0"}), {"--frames"});
    expect_failure(with({"--subsample", "0"}), {"--subsample"});
    expect_failure(with({"--skip-ref", "10"}), {"--skip-ref", "skips past the end"});
    expect_failure(with({"--json", "--csv"}), {"--json", "--csv"});
    expect_failure(with({"--no-such-option"}), {"no-such-option"});
}

TEST_F(CliTest, CudaWithoutGpuIsAClearError) {
    if (vif_cuda_available()) GTEST_SKIP() << "a GPU is present";
    const GoldenCase &c = find_case("rav1esmall_64x64_8b_crf35");
    auto a = case_args(c);
    a.insert(a.end(), {"--backend", "cuda"});
    expect_failure(a, {"cuda", "GPU"});
    a = case_args(c);
    a.insert(a.end(), {"--check-parity"});
    expect_failure(a, {"--check-parity", "GPU"});
}

TEST_F(CliTest, CheckParityOnGpu) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no GPU";
    for (const char *variant : {"integer", "float"}) {
        const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
        auto a = case_args(c);
        a.insert(a.end(), {"--check-parity", "--variant", variant, "-q"});
        CliRun r = vif(a);
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("parity: PASSED"), std::string::npos) << r.err;
    }
}

// --backend auto can start on the CPU while CUDA starts, then hand the frames over to the GPU
// (encoded input; raw input only where the estimate says it pays, and VIF_TEST_HAND_OVER=1
// here). The frames must come out in order and equal a CPU-only run, wherever the hand-over
// fell. One CPU thread (about 30 1080p frames/s) makes the CPU part a few frames long on any
// GPU machine.
TEST_F(CliTest, AutoHandOverToGpuKeepsOrderAndValues) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no GPU: the hand-over to CUDA cannot happen";
    const int w = 1920, h = 1080, n = 40;
    std::string ref, dis;
    uint32_t lcg = 12345;
    for (int f = 0; f < n; ++f)
        for (std::string *s : {&ref, &dis}) {
            std::string frame(size_t(w) * h * 3 / 2, char(128));
            for (int i = 0; i < w * h; ++i) {
                lcg = lcg * 1664525u + 1013904223u;
                const int x = i % w, y = i / w;
                const int v =
                    ((x * 7 + y * 3 + f * 5) & 255) / 2 + int(lcg >> 27) * (s == &dis ? 3 : 1);
                frame[size_t(i)] = char(std::min(v, 255));
            }
            *s += frame;
        }
    spit(path("r.yuv"), ref);
    spit(path("d.yuv"), dis);
    const std::vector<std::string> a = {
        "-r",  path("r.yuv"), "-d", path("d.yuv"), "-w", "1920",        "-h",  "1080", "-p",
        "420", "-b",          "8",  "--threads",   "1",  "--precision", "max", "-q"};
    auto run = [&](const char *backend, const std::string &out) {
        auto args = a;
        args.insert(args.end(), {"--backend", backend, "--verbose", "--details", "-o", path(out)});
        CliRun r = vif(args);
        EXPECT_EQ(r.code, 0) << r.err;
        return std::make_pair(json::parse(slurp(path(out))), r.err);
    };
    const auto [cpu, cpu_err] = run("cpu", "cpu.json");
    ::setenv("VIF_TEST_HAND_OVER", "1", 1);
    const auto [mixed, mixed_err] = run("auto", "auto.json");
    ::unsetenv("VIF_TEST_HAND_OVER");
    ASSERT_EQ(cpu["frames"].size(), size_t(n));
    ASSERT_EQ(mixed["frames"].size(), size_t(n));
    for (int f = 0; f < n; ++f) {
        EXPECT_EQ(mixed["frames"][f]["frameNum"], f);
        EXPECT_EQ(mixed["frames"][f]["metrics"], cpu["frames"][f]["metrics"]) << "frame " << f;
    }
    // Which backends scored what, for the log ("N frames on the cpu while CUDA started, M on cuda").
    std::printf("[hand-over] backend %s; %s\n",
                mixed["libvif"]["backend"].get<std::string>().c_str(),
                mixed_err.substr(0, mixed_err.find("vif: timing")).c_str());
}

TEST_F(CliTest, HelpAndVersion) {
    CliRun r = vif({"--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("--reference"), std::string::npos);
    EXPECT_NE(r.out.find("-h,--height"), std::string::npos);
    r = vif({"--version"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find(VIF_VERSION_MAJOR == 1 ? "vif 1." : "vif "), std::string::npos);
    r = vif({});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--reference"), std::string::npos);
}

// ---- libvmaf's own JSON (testdata/libvmaf-json: its CLI's output for every full-length case) ---

// Scores each case with the CLI, integer and float, and compares it with libvmaf's JSON: every
// frame the case holds (libvmaf printed 6 decimals, and so does the CLI: integer values must be
// the same text, float ones within 1e-4), and the pooled min, max, mean and harmonic mean when
// the case holds all the frames libvmaf scored. Returns how many cases had their pooling checked.
class LibvmafJson : public CliTest {
protected:
    int expect_libvmaf_json(const std::vector<GoldenCase> &cases);
};

int LibvmafJson::expect_libvmaf_json(const std::vector<GoldenCase> &cases) {
    int pooled_cases = 0;
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        const std::string lj = kData + "/libvmaf-json/" + c.name + ".json";
        EXPECT_TRUE(fs::exists(lj)) << "missing " << lj;
        if (!fs::exists(lj)) continue;
        const json lib = json::parse(slurp(lj));
        auto rows = vif::testing::load_expected(c.expected_path());
        EXPECT_EQ(rows.size(), c.frames);
        EXPECT_LE(size_t(c.frames), lib["frames"].size());
        const bool whole_clip = c.frames == lib["frames"].size();
        for (bool integer : {true, false}) {
            json ours = score_json(c, integer ? std::vector<std::string>{}
                                              : std::vector<std::string>{"--variant", "float"});
            if (ours.is_null()) continue;
            EXPECT_EQ(ours["frames"].size(), size_t(c.frames));
            const double tol = integer ? 0.0 : 1e-4 + 1e-6;
            for (size_t i = 0; i < ours["frames"].size() && i < lib["frames"].size(); ++i) {
                EXPECT_EQ(ours["frames"][i]["frameNum"], lib["frames"][i]["frameNum"]);
                const auto &m = ours["frames"][i]["metrics"];
                for (auto it = m.begin(); it != m.end(); ++it) {
                    if (!lib["frames"][i]["metrics"].contains(it.key())) {
                        ADD_FAILURE() << "libvmaf has no " << it.key();
                        continue;
                    }
                    EXPECT_NEAR(it.value().get<double>(),
                                lib["frames"][i]["metrics"][it.key()].get<double>(), tol)
                        << "frame " << i << " " << it.key();
                }
                EXPECT_EQ(m.size(), 4u);
            }
            if (!whole_clip) continue;
            EXPECT_EQ(ours["pooled_metrics"].size(), 4u);
            for (auto it = ours["pooled_metrics"].begin(); it != ours["pooled_metrics"].end();
                 ++it) {
                if (!lib["pooled_metrics"].contains(it.key())) {
                    ADD_FAILURE() << "libvmaf has no pooled " << it.key();
                    continue;
                }
                for (const char *p : {"min", "max", "mean", "harmonic_mean"})
                    EXPECT_NEAR(it.value()[p].get<double>(),
                                lib["pooled_metrics"][it.key()][p].get<double>(), tol)
                        << it.key() << " " << p;
            }
        }
        pooled_cases += whole_clip;
    }
    return pooled_cases;
}

// The repository's cases: their first frames, and pooling for the ones kept whole
// (rav1esmall_64x64_8b_crf35 at least).
TEST_F(LibvmafJson, RepoCases) {
    const auto cases = vif::testing::load_manifest(kData);
    ASSERT_FALSE(cases.empty()) << "no test data at " << kData;
    EXPECT_GE(expect_libvmaf_json(cases), 1) << "no case kept whole: pooling unchecked";
}

// The full data set, when present beside the checkout: every frame and the pooling of every case.
TEST_F(LibvmafJson, FullSet) {
    const auto cases = vif::testing::load_manifest(kShared);
    if (cases.empty())
        GTEST_SKIP() << "the full data set is not at " << kShared
                     << " (optional: longer clips and the 1080p pair; the repository's own cases"
                        " are checked by LibvmafJson.RepoCases)";
    EXPECT_EQ(expect_libvmaf_json(cases), int(cases.size()));
}

TEST_F(CliTest, SharedSetIntegerBitExact) {
    const auto cases = vif::testing::load_manifest(kShared);
    if (cases.empty())
        GTEST_SKIP() << "the full data set is not at " << kShared
                     << " (optional: longer clips and the 1080p pair)";
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        json j = score_json(c, {"--precision", "max", "--debug-metrics"});
        auto rows = vif::testing::load_expected(c.expected_path());
        expect_frames_match(j, rows, expected_keys(c.expected_path(), true, false), true, c.name);
    }
}

} // namespace
