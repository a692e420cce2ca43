// The many-pair commands end to end: `vif -r SRC -d R1 -d R2 -o DIR` (a ladder), `vif batch`
// (outputs equal single runs, a failing row reported without stopping the others, resume,
// shards from --shard and from array-job variables) and `vif merge` (three shards together equal
// one unsharded run). Expected values come from testdata (libvmaf) and from single `vif` runs;
// the upscaled ladder is checked against the ffmpeg CLI's scale filter (skipped without ffmpeg).
#include "cli/cli_harness.hpp"

namespace vif_cli_test {
namespace {

// The kodim23pan cases share their reference: three rungs of one ladder.
const char *const kRungs[] = {"kodim23pan_576x324_8b_crf35", "kodim23pan_576x324_8b_blur",
                              "kodim23pan_576x324_8b_identical"};

std::string stem(const std::string &path) {
    return fs::path(path).stem().string();
}

json load(const std::string &path) {
    json j = json::parse(slurp(path), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << path << " is not JSON";
    return j;
}

class BatchCli : public CliTest {
protected:
    // A manifest of the three kodim rungs, a foreman pair (another reference), and a row whose
    // distorted file does not exist (row 5).
    std::string manifest() {
        std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
        for (const char *n : kRungs) {
            const GoldenCase &c = find_case(n);
            m += c.ref_path() + "," + c.dist_path() + ",576,324,420,8\n";
        }
        const GoldenCase &f = find_case("foreman_352x288_8b_crf35");
        m += f.ref_path() + "," + f.dist_path() + ",352,288,420,8\n";
        m += f.ref_path() + "," + path("nowhere.yuv") + ",352,288,420,8\n";
        spit(path("m.csv"), m);
        return path("m.csv");
    }
    std::string summary(const std::string &dir, const std::string &name = "summary.csv") {
        return slurp(dir + "/" + name);
    }
};

TEST_F(BatchCli, LadderGivesLibvmafValuesForEveryRung) {
    const GoldenCase &c0 = find_case(kRungs[0]);
    std::vector<std::string> a = {"-r", c0.ref_path()};
    for (const char *n : kRungs) a.insert(a.end(), {"-d", find_case(n).dist_path()});
    auto ra = raw_args(c0);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"-o", path("out"), "--precision", "max", "-q"});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char *n : kRungs) {
        const GoldenCase &c = find_case(n);
        const json j = load(path("out/" + stem(c.dist_path()) + ".json"));
        std::vector<std::string> keys;
        for (const auto &k : expected_keys(c.expected_path(), true, false))
            if (is_score_key(k) && k != "integer_vif") keys.push_back(k); // the per-scale scores
        expect_frames_match(j, vif::testing::load_expected(c.expected_path()), keys, true, n);
    }
    const std::string s = summary(path("out"));
    EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 4) << s;
    EXPECT_EQ(s.find("failed"), std::string::npos) << s;
}

TEST_F(BatchCli, BatchOutputsEqualSingleRunsAndFailuresAreReported) {
    const std::string m = manifest();
    CliRun r = vif({"batch", m, "--out-dir", path("out"), "--precision", "max", "-q"});
    EXPECT_EQ(r.code, 1) << "a failed row must make the exit code non-zero: " << r.err;
    EXPECT_NE(r.err.find("nowhere.yuv"), std::string::npos) << r.err;
    const std::string s = summary(path("out"));
    std::vector<std::string> lines;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    ASSERT_EQ(lines.size(), 6u) << s;
    for (int i = 1; i <= 4; ++i)
        EXPECT_NE(lines[size_t(i)].find(",ok,"), std::string::npos) << lines[size_t(i)];
    EXPECT_EQ(lines[5].rfind("5,", 0), 0u);
    EXPECT_NE(lines[5].find(",failed,"), std::string::npos);
    EXPECT_NE(lines[5].find("nowhere.yuv"), std::string::npos);

    // Each row's output equals a single `vif` run of that pair, every bit.
    std::vector<std::string> names(kRungs, kRungs + 3);
    names.push_back("foreman_352x288_8b_crf35");
    for (const std::string &n : names) {
        const GoldenCase &c = find_case(n);
        std::vector<std::string> a = case_args(c);
        a.insert(a.end(), {"--precision", "max", "-o", path("single.json"), "-q"});
        CliRun one = vif(a);
        ASSERT_EQ(one.code, 0) << one.err;
        const json single = load(path("single.json"));
        const json batch = load(path("out/" + stem(c.dist_path()) + ".json"));
        EXPECT_EQ(batch["frames"], single["frames"]) << n;
        EXPECT_EQ(batch["pooled_metrics"], single["pooled_metrics"]) << n;
    }

    // Resume: the outputs the progress log vouches for are left alone, the failed row is tried
    // again.
    const auto before =
        fs::last_write_time(path("out/" + stem(find_case(kRungs[0]).dist_path()) + ".json"));
    CliRun again = vif({"batch", m, "--out-dir", path("out"), "--precision", "max", "-q"});
    EXPECT_EQ(again.code, 1);
    EXPECT_EQ(fs::last_write_time(path("out/" + stem(find_case(kRungs[0]).dist_path()) + ".json")),
              before);
    // The resumed summary is the first run's, byte for byte; the reused rows are named.
    EXPECT_EQ(summary(path("out")), s);
    EXPECT_NE(again.err.find("reused rows (inputs, options and output unchanged since they were "
                             "scored): 1, 2, 3, 4\n"),
              std::string::npos)
        << again.err;
}

TEST_F(BatchCli, ThreeShardsTogetherEqualOneUnshardedRun) {
    const std::string m = manifest();
    CliRun whole = vif({"batch", m, "--out-dir", path("whole"), "-q"});
    EXPECT_EQ(whole.code, 1) << whole.err; // row 5 fails in every arrangement
    // Shard 0 from --shard, 1 from a Kubernetes index, 2 from a Slurm array task (IDs 1..3).
    CliRun s0 = vif({"batch", m, "--out-dir", path("s0"), "--shard", "0/3", "-q"});
    CliRun s1 = shell("JOB_COMPLETION_INDEX=1 VIF_SHARD_COUNT=3 " + kCli + " batch " + m +
                      " --out-dir " + path("s1") + " -q");
    CliRun s2 = shell("SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 " +
                      kCli + " batch " + m + " --out-dir " + path("s2") + " -q");
    for (const CliRun *r : {&s0, &s1, &s2}) EXPECT_LE(r->code, 1) << r->err;
    EXPECT_TRUE(fs::exists(path("s1/summary.shard-1-of-3.csv")));
    EXPECT_TRUE(fs::exists(path("s2/summary.shard-2-of-3.csv")));
    CliRun merged = vif({"merge", path("s0"), path("s1"), path("s2"), "-o", path("merged.csv")});
    ASSERT_EQ(merged.code, 0) << merged.err;
    EXPECT_EQ(slurp(path("merged.csv")), summary(path("whole")));
    // Every output file exactly once over the shards, equal to the unsharded run's.
    for (const auto &e : fs::directory_iterator(path("whole"))) {
        const std::string n = e.path().filename().string();
        if (n == "summary.csv" || e.path().extension() == ".progress") continue;
        int found = 0;
        for (const char *d : {"s0", "s1", "s2"})
            if (fs::exists(path(std::string(d) + "/" + n))) {
                ++found;
                json a = load(e.path().string()), b = load(path(std::string(d) + "/" + n));
                EXPECT_EQ(a["frames"], b["frames"]) << n;
            }
        EXPECT_EQ(found, 1) << n;
    }
    // A missing shard is an error of merge; a shard twice too.
    CliRun partial = vif({"merge", path("s0"), path("s2"), "-o", path("p.csv")});
    EXPECT_EQ(partial.code, 1);
    EXPECT_NE(partial.err.find("shards missing: 1"), std::string::npos) << partial.err;
    EXPECT_FALSE(fs::exists(path("p.csv")));
    CliRun twice =
        vif({"merge", path("s0"), path("s0"), path("s1"), path("s2"), "-o", path("t.csv")});
    EXPECT_EQ(twice.code, 1);
    EXPECT_NE(twice.err.find("in both"), std::string::npos) << twice.err;
}

// A rung shorter than the reference: its common frames are scored, with a warning and a note in
// the summary (as `vif` warns for a pair); the values are libvmaf's for those frames.
TEST_F(BatchCli, ShorterRungScoresTheCommonFramesWithANote) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");  // 3 frames
    spit(path("short.yuv"), frame_bytes(c, c.dist_path(), 0, 2)); // its first 2 frames
    std::vector<std::string> a = {"-r", c.ref_path(), "-d", path("short.yuv"), "-d", c.dist_path()};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"-o", path("out"), "--precision", "max", "-q"});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("fewer than the reference"), std::string::npos) << r.err;
    const std::string s = slurp(path("out/summary.csv"));
    EXPECT_NE(s.find("short.json,ok,2,176,144,"), std::string::npos) << s;
    EXPECT_NE(s.find("fewer than the reference"), std::string::npos) << s;
    EXPECT_NE(s.find("crf45.json,ok,3,176,144,"), std::string::npos) << s;
    std::vector<std::string> keys;
    for (const auto &k : expected_keys(c.expected_path(), true, false))
        if (is_score_key(k) && k != "integer_vif") keys.push_back(k);
    const auto rows = vif::testing::load_expected(c.expected_path());
    expect_frames_match(load(path("out/" + stem(c.dist_path()) + ".json")), rows, keys, true,
                        c.name);
    expect_frames_match(load(path("out/short.json")), rows, keys, true, "short", {0, 1});
}

// A reference shorter than its rungs: the common frames are scored, each rung noted with the
// count (the words every decoding path writes, tools/vif/commands/ladder_run.cpp's short_note);
// the values are libvmaf's for those frames.
TEST_F(BatchCli, ShorterReferenceScoresTheCommonFramesWithANote) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");     // 3 frames
    spit(path("short_ref.yuv"), frame_bytes(c, c.ref_path(), 0, 2)); // its first 2 frames
    std::vector<std::string> a = {"-r", path("short_ref.yuv"), "-d", c.dist_path(),
                                  "-d", c.ref_path()};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"-o", path("out"), "--precision", "max", "-q"});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string note =
        "the distorted has more frames than the reference (2); scored the 2 common ones";
    EXPECT_NE(r.err.find(note), std::string::npos) << r.err;
    const std::string s = slurp(path("out/summary.csv"));
    EXPECT_NE(s.find("crf45.json,ok,2,176,144,"), std::string::npos) << s;
    size_t notes = 0;
    for (size_t at = s.find(note); at != std::string::npos; at = s.find(note, at + 1)) ++notes;
    EXPECT_EQ(notes, 2u) << s; // both rungs
    std::vector<std::string> keys;
    for (const auto &k : expected_keys(c.expected_path(), true, false))
        if (is_score_key(k) && k != "integer_vif") keys.push_back(k);
    const auto rows = vif::testing::load_expected(c.expected_path());
    expect_frames_match(load(path("out/" + stem(c.dist_path()) + ".json")), rows, keys, true,
                        c.name, {0, 1});
}

// Several scoring contexts at once (--workers) and a JSON-lines manifest give the same summary
// as one context reading the CSV.
TEST_F(BatchCli, WorkersAndJsonLinesGiveTheSameSummary) {
    const std::string m = manifest();
    CliRun one = vif({"batch", m, "--out-dir", path("one"), "-q"});
    EXPECT_EQ(one.code, 1) << one.err;
    std::string jl;
    std::istringstream in(slurp(m));
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        jl += "{\"reference\": \"" + f[0] + "\", \"distorted\": \"" + f[1] +
              "\", \"width\": " + f[2] + ", \"height\": " + f[3] + ", \"pixel_format\": \"" + f[4] +
              "\", \"bitdepth\": " + f[5] + "}\n";
    }
    spit(path("m.jsonl"), jl);
    CliRun two = vif({"batch", path("m.jsonl"), "--out-dir", path("two"), "--workers", "2", "-q"});
    EXPECT_EQ(two.code, 1) << two.err;
    EXPECT_EQ(summary(path("two")), summary(path("one")));
    // Raw inputs read with pread instead of mapped (--no-mmap): the same summary.
    CliRun read = vif({"batch", m, "--out-dir", path("read"), "--no-mmap", "--workers", "2", "-q"});
    EXPECT_EQ(read.code, 1) << read.err;
    EXPECT_EQ(summary(path("read")), summary(path("one")));
}

TEST_F(BatchCli, BadShardsAndManifestsAreUsageErrors) {
    const std::string m = manifest();
    CliRun r = vif({"batch", m, "--out-dir", path("o"), "--shard", "3/3", "-q"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("below the count"), std::string::npos) << r.err;
    r = shell("JOB_COMPLETION_INDEX=1 " + kCli + " batch " + m + " --out-dir " + path("o") + " -q");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("VIF_SHARD_COUNT"), std::string::npos) << r.err;
    spit(path("bad.csv"), "ref,dist\na,b\n");
    r = vif({"batch", path("bad.csv"), "--out-dir", path("o"), "-q"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("reference,distorted"), std::string::npos) << r.err;
}

// Rungs of another size: the ladder's in-process upscale equals scoring the ffmpeg CLI's
// `scale=W:H:flags=bicubic` output, bit for bit.
TEST_F(BatchCli, UpscaledRungsEqualTheFfmpegWorkflow) {
#if !defined(VIF_CLI_HAS_FFMPEG)
    GTEST_SKIP() << "this build of vif has no FFmpeg input (the rungs are MKV)";
#endif
    if (shell("ffmpeg -version").code != 0) GTEST_SKIP() << "ffmpeg CLI not on PATH";
    const std::string F = "ffmpeg -hide_banner -loglevel error -nostdin -y ";
    ASSERT_EQ(shell(F +
                    "-f lavfi -i testsrc2=s=480x270:r=25:d=1,noise=alls=6:allf=t:all_seed=3 "
                    "-frames:v 6 -pix_fmt yuv420p " +
                    path("src.y4m"))
                  .code,
              0);
    std::vector<std::string> a = {"-r", path("src.y4m")};
    for (const char *s : {"240x136", "320x180"}) {
        std::string sz = s;
        sz[3] = ':';
        ASSERT_EQ(shell(F + "-i " + path("src.y4m") + " -vf scale=" + sz +
                        ":flags=bicubic -c:v "
                        "libx264 -preset veryfast -crf 30 -threads 1 " +
                        path(std::string("r") + s + ".mkv"))
                      .code,
                  0);
        ASSERT_EQ(shell(F + "-i " + path(std::string("r") + s + ".mkv") +
                        " -vf scale=480:270:flags=bicubic "
                        "-f rawvideo -pix_fmt yuv420p " +
                        path(std::string("up") + s + ".yuv"))
                      .code,
                  0);
        a.insert(a.end(), {"-d", path(std::string("r") + s + ".mkv")});
    }
    a.insert(a.end(), {"-o", path("ladder"), "--precision", "max", "-q"});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char *s : {"240x136", "320x180"}) {
        CliRun one = vif({"-r", path("src.y4m"), "-d", path(std::string("up") + s + ".yuv"), "-w",
                          "480", "-h", "270", "-p", "420", "-b", "8", "--precision", "max", "-o",
                          path("one.json"), "-q"});
        ASSERT_EQ(one.code, 0) << one.err;
        const json single = load(path("one.json"));
        const json ladder = load(path(std::string("ladder/r") + s + ".json"));
        EXPECT_EQ(ladder["frames"], single["frames"]) << s;
        EXPECT_EQ(ladder["pooled_metrics"], single["pooled_metrics"]) << s;
        EXPECT_LT(single["pooled_metrics"]["integer_vif_scale0"]["mean"].get<double>(), 0.9);
    }
    EXPECT_NE(summary(path("ladder")).find(",480,270,240,136,"), std::string::npos);
}

} // namespace
} // namespace vif_cli_test
