// `vif report` (docs/cli.md, "vif report"): the page of a pair has its chart, the pooled table
// of the result file, the worst frames in the order the result file's own scores give and their
// three pictures (decodable PNGs); a ladder's page has every rung on one chart and, with
// encodes in containers, the score against the bitrate (the bitrates checked against ffprobe);
// nothing on the page is fetched; files of different clips and bad requests fail with a
// message and write nothing. Chromium renders the page in tests/cli/report_browser_test.sh.
#include "cli/cli_harness.hpp"

#if VIF_CLI_HAS_PNG
#include <png.h>
#endif

namespace vif_cli_test {
namespace {

size_t count(const std::string &hay, const std::string &needle) {
    size_t n = 0;
    for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
    return n;
}

// The data URIs of the page's <img> elements, decoded from base64.
std::vector<std::string> embedded_pngs(const std::string &html) {
    std::vector<std::string> out;
    const std::string tag = "src=\"data:image/png;base64,";
    for (size_t at = html.find(tag); at != std::string::npos; at = html.find(tag, at + 1)) {
        const size_t b = at + tag.size(), e = html.find('"', b);
        std::string bytes;
        uint32_t acc = 0;
        int bits = 0;
        for (size_t i = b; i < e; ++i) {
            const char c = html[i];
            int v = c >= 'A' && c <= 'Z'   ? c - 'A'
                    : c >= 'a' && c <= 'z' ? c - 'a' + 26
                    : c >= '0' && c <= '9' ? c - '0' + 52
                    : c == '+'             ? 62
                    : c == '/'             ? 63
                                           : -1;
            if (v < 0) continue; // padding
            acc = acc << 6 | uint32_t(v);
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                bytes += char((acc >> bits) & 0xff);
            }
        }
        out.push_back(bytes);
    }
    return out;
}

bool have_ffmpeg_tools() {
    static const bool yes =
        std::system("ffmpeg -version > /dev/null 2>&1 && ffprobe -version > /dev/null 2>&1") == 0;
    return yes;
}

class ReportCli : public CliTest {
protected:
    // src01 (3 frames) scored with the combined score in the file (--debug-metrics).
    std::string src01_result(const std::string &name) {
        const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
        std::vector<std::string> a = {"-r", c.ref_path(),      "-d", c.dist_path(), "--frames",
                                      "3",  "--debug-metrics", "-q", "-o",          path(name)};
        for (const auto &s : raw_args(c)) a.push_back(s);
        const CliRun r = vif(a);
        EXPECT_EQ(r.code, 0) << r.err;
        return path(name);
    }
};

TEST_F(ReportCli, APairsPageHasItsChartTableAndWorstFramesWithPictures) {
    const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
    const std::string result = src01_result("pair.json");
    std::vector<std::string> a = {"report",  result, "-r", c.ref_path(),       "-d", c.dist_path(),
                                  "--worst", "2",    "-o", path("report.html")};
    for (const auto &s : raw_args(c)) a.push_back(s);
    const CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string html = slurp(path("report.html"));
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"),
              std::string::npos);
    EXPECT_EQ(count(html, "<svg class=\"chart\""), 1u) << "one pair: one chart";
    EXPECT_EQ(count(html, "<polyline class=\"series\""), 5u) << "4 scales and the combined";
    EXPECT_EQ(count(html, "src=\"http"), 0u);
    EXPECT_EQ(count(html, "href="), 0u);
    EXPECT_EQ(count(html, "@media print"), 1u);
    // The pooled table: the result file's own numbers.
    const json j = json::parse(slurp(result));
    char mean0[64];
    std::snprintf(mean0, sizeof mean0, "<td>integer_vif_scale0</td><td>%.6f</td>",
                  j["pooled_metrics"]["integer_vif_scale0"]["mean"].get<double>());
    EXPECT_NE(html.find(mean0), std::string::npos) << mean0;
    // The two worst frames by the file's combined score, lowest first.
    std::vector<std::pair<double, uint64_t>> by_score;
    for (const auto &f : j["frames"])
        by_score.push_back({f["metrics"]["integer_vif"].get<double>(), f["frameNum"]});
    std::sort(by_score.begin(), by_score.end());
    const size_t first = html.find("<h3>Frame " + std::to_string(by_score[0].second) + "</h3>");
    const size_t second = html.find("<h3>Frame " + std::to_string(by_score[1].second) + "</h3>");
    ASSERT_NE(first, std::string::npos);
    ASSERT_NE(second, std::string::npos);
    EXPECT_LT(first, second);
    EXPECT_EQ(html.find("<h3>Frame " + std::to_string(by_score[2].second) + "</h3>"),
              std::string::npos)
        << "--worst 2";
    // Three pictures a frame, each a PNG of the frame's size (160 wide: under the 320 cap).
    const auto pngs = embedded_pngs(html);
#if !VIF_CLI_HAS_PNG
    // A vif without libpng: no pictures, and the page says why.
    EXPECT_TRUE(pngs.empty());
    EXPECT_NE(html.find("built without libpng"), std::string::npos);
#else
    ASSERT_EQ(pngs.size(), 6u);
    for (const std::string &b : pngs) {
        png_image img{};
        img.version = PNG_IMAGE_VERSION;
        ASSERT_TRUE(png_image_begin_read_from_memory(&img, b.data(), b.size())) << img.message;
        EXPECT_EQ(img.width, 160u);
        EXPECT_EQ(img.height, 90u);
        png_image_free(&img);
    }
#endif
    EXPECT_TRUE(leftovers({"pair.json", "report.html"}).empty()) << leftovers({})[0];
}

TEST_F(ReportCli, ALaddersPageHasEveryRungAndTheScoreAgainstBitrate) {
    if (!have_ffmpeg_tools()) GTEST_SKIP() << "no ffmpeg/ffprobe to make the encodes";
    const GoldenCase &c = find_case("kodim23pan_576x324_8b_crf35");
    // Two encodes of the reference at two qualities (MPEG-2, built into every FFmpeg).
    for (const char *q : {"2", "20"}) {
        const CliRun e = shell("ffmpeg -loglevel error -f rawvideo -pix_fmt yuv420p -s 576x324 "
                               "-r 25 -i '" +
                               c.ref_path() + "' -c:v mpeg2video -q:v " + q + " -y '" +
                               path(std::string("q") + q + ".mkv") + "'");
        ASSERT_EQ(e.code, 0) << e.err;
    }
    std::vector<std::string> a = {"-r", c.ref_path(),   "-d", path("q2.mkv"), "-d", path("q20.mkv"),
                                  "-o", path("ladder"), "-q"};
    for (const auto &s : raw_args(c)) a.push_back(s);
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<std::string> b = {"report", path("ladder"), "-o", path("ladder.html")};
    for (const auto &s : raw_args(c)) b.push_back(s);
    r = vif(b);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string html = slurp(path("ladder.html"));
    // Every rung on one chart, the bitrate chart, and one chart a rung.
    EXPECT_EQ(count(html, "<svg class=\"chart\""), 4u);
    EXPECT_NE(html.find("every rung"), std::string::npos);
    EXPECT_NE(html.find("against bitrate"), std::string::npos);
    // The bitrates in the table are the containers' (ffprobe's), in kbit/s.
    for (const char *q : {"q2", "q20"}) {
        const CliRun p = shell(std::string("ffprobe -v error -select_streams v:0 -show_entries "
                                           "stream=bit_rate:format=bit_rate -of default=nw=1 '") +
                               path(std::string(q) + ".mkv") + "'");
        ASSERT_EQ(p.code, 0) << p.err;
        double bits = 0;
        std::smatch m;
        std::regex re(R"(bit_rate=(\d+))");
        for (auto it = std::sregex_iterator(p.out.begin(), p.out.end(), re);
             it != std::sregex_iterator(); ++it)
            if (bits == 0) bits = std::stod((*it)[1]);
        ASSERT_GT(bits, 0) << p.out;
        char cell[96];
        std::snprintf(cell, sizeof cell, "<tr><td>%s</td><td>%.0f</td>", q, bits / 1000.0);
        EXPECT_NE(html.find(cell), std::string::npos) << cell;
    }
    // The summary names the inputs: the pictures of each rung's worst frames are there.
    const size_t frames = json::parse(slurp(path("ladder/q2.json")))["frames"].size();
    ASSERT_GE(frames, 1u);
#if VIF_CLI_HAS_PNG
    EXPECT_EQ(embedded_pngs(html).size(), 2 * std::min<size_t>(4, frames) * 3);
#else
    (void)frames;
    EXPECT_TRUE(embedded_pngs(html).empty()) << "a vif without libpng draws no pictures";
#endif
}

TEST_F(ReportCli, FilesOfDifferentClipsAndBadRequestsWriteNothing) {
    const std::string three = src01_result("three.json");
    // The same pair, one frame fewer: another clip.
    {
        const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
        std::vector<std::string> a = {"-r", c.ref_path(), "-d", c.dist_path(),   "--frames",
                                      "2",  "-q",         "-o", path("two.json")};
        for (const auto &s : raw_args(c)) a.push_back(s);
        ASSERT_EQ(vif(a).code, 0);
    }
    const std::vector<std::pair<std::vector<std::string>, std::pair<int, std::string>>> cases = {
        {{three, path("two.json")}, {1, "are not of one clip: 3 frames against 2"}},
        {{three, path("nowhere.json")}, {1, "nowhere.json: cannot be read"}},
        {{three, path("three.json"), "-d", "x.yuv"}, {2, "-d given 1 times for 2 results"}},
        {{path("notjson.json")}, {1, "not a vif JSON result file"}},
        {{dir_}, {1, "a folder without a summary.csv"}},
    };
    spit(path("notjson.json"), "frames: none");
    for (const auto &[args, want] : cases) {
        std::vector<std::string> a = {"report"};
        a.insert(a.end(), args.begin(), args.end());
        a.insert(a.end(), {"-o", path("r.html")});
        const CliRun r = vif(a);
        EXPECT_EQ(r.code, want.first) << want.second << "\n" << r.err;
        EXPECT_NE(r.err.find(want.second), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("r.html")));
    }
    // Writing over an input is refused.
    const CliRun r = vif({"report", three, "-o", three});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(slurp(three).find("\"frames\""), std::string::npos) << "the result is intact";
    EXPECT_TRUE(leftovers({"three.json", "two.json", "notjson.json"}).empty());
}

} // namespace
} // namespace vif_cli_test
