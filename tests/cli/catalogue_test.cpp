// A catalogue never loses, reuses or overwrites a score (issue 19): `vif batch` killed at any
// moment and run again gives the uninterrupted run's summary, byte for byte; a row is reused only
// when its inputs, options and output are what they were; no many-pair command writes over a
// file it reads. Expected bytes come from uninterrupted runs of the same build on fresh folders.
#include "cli/cli_harness.hpp"

#include <csignal>

namespace vif_cli_test {
namespace {

const char *const kRungs[] = {"kodim23pan_576x324_8b_crf35", "kodim23pan_576x324_8b_blur",
                              "kodim23pan_576x324_8b_identical"};

class CatalogueCli : public CliTest {
protected:
    // Four pairs that score (three sharing a reference) and one that fails (row 5).
    std::string manifest(const std::string &name = "m.csv") {
        std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
        for (const char *n : kRungs) {
            const GoldenCase &c = find_case(n);
            m += c.ref_path() + "," + c.dist_path() + ",576,324,420,8\n";
        }
        const GoldenCase &f = find_case("foreman_352x288_8b_crf35");
        m += f.ref_path() + "," + f.dist_path() + ",352,288,420,8\n";
        m += f.ref_path() + "," + path("nowhere.yuv") + ",352,288,420,8\n";
        spit(path(name), m);
        return path(name);
    }
    CliRun batch(const std::string &m, const std::string &out, std::vector<std::string> extra = {},
                 const std::string &env = "") {
        std::string cmd = env + " " + kCli + " batch '" + m + "' --out-dir '" + out + "' -q";
        for (const auto &e : extra) cmd += " '" + e + "'";
        return shell(cmd);
    }
    // Rows named in the "reused rows" line of stderr.
    static std::string reused_line(const std::string &err) {
        const size_t at = err.find("vif: reused rows");
        if (at == std::string::npos) return "";
        return err.substr(err.find(": ", at + 16) + 2,
                          err.find('\n', at) - err.find(": ", at + 16) - 2);
    }
};

// Killed (SIGKILL) at every step: after a row's output is written and before it is recorded,
// and after it is recorded; then resumed. The summary equals the uninterrupted run's bytes, the
// outputs hold the same frames, and the rows recorded before the kill are the ones reused.
TEST_F(CatalogueCli, ResumeAfterAKillAtAnyStepGivesTheUninterruptedSummary) {
    const std::string m = manifest();
    CliRun whole = batch(m, path("whole"), {"--precision", "max"});
    ASSERT_EQ(whole.code, 1) << whole.err; // row 5 fails
    const std::string expected = slurp(path("whole/summary.csv"));
    ASSERT_EQ(std::count(expected.begin(), expected.end(), '\n'), 6) << expected;
    for (int step = 1; step <= 8; ++step) {
        const std::string out = path("run" + std::to_string(step));
        // One worker: the steps come in the order above (several workers, as a GPU machine
        // gets by default, record their rows at the same time and interleave the steps).
        CliRun killed = batch(m, out, {"--precision", "max", "--workers", "1"},
                              "VIF_TEST_KILL_AFTER=" + std::to_string(step));
        ASSERT_EQ(killed.code, 128 + SIGKILL) << "step " << step << ": " << killed.err;
        EXPECT_FALSE(fs::exists(out + "/summary.csv")) << "step " << step;
        CliRun resumed = batch(m, out, {"--precision", "max"});
        EXPECT_EQ(resumed.code, 1) << "step " << step << ": " << resumed.err;
        EXPECT_EQ(slurp(out + "/summary.csv"), expected) << "step " << step;
        // Rows recorded before the kill (one per two steps) are reused, no other.
        const std::string reused = reused_line(resumed.err);
        const int n_reused =
            reused.empty() ? 0 : int(std::count(reused.begin(), reused.end(), ',')) + 1;
        EXPECT_EQ(n_reused, step / 2) << "step " << step << ": " << resumed.err;
        for (const auto &e : fs::directory_iterator(path("whole"))) {
            const std::string n = e.path().filename().string();
            if (e.path().extension() != ".json") continue;
            const json a = json::parse(slurp(e.path().string()));
            const json b = json::parse(slurp(out + "/" + n), nullptr, false);
            ASSERT_FALSE(b.is_discarded()) << "step " << step << ": " << n;
            EXPECT_EQ(a["frames"], b["frames"]) << "step " << step << ": " << n;
        }
    }
}

// A real kill -9 while the catalogue runs (wherever it happens to be), then a resume.
TEST_F(CatalogueCli, ResumeAfterARealKillGivesTheUninterruptedSummary) {
    const GoldenCase &c = find_case("foreman_352x288_8b_crf35");
    std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
    for (int i = 0; i < 40; ++i) m += c.ref_path() + "," + c.dist_path() + ",352,288,420,8\n";
    spit(path("many.csv"), m);
    CliRun whole = batch(path("many.csv"), path("whole"));
    ASSERT_EQ(whole.code, 0) << whole.err;
    // Killed once the progress log holds a few rows (or at the end, if it is faster than that).
    CliRun killed = bash(kCli + " batch " + path("many.csv") + " --out-dir " + path("out") +
                         " -q & pid=$!; for i in $(seq 2000); do "
                         "[ \"$(wc -l < " +
                         path("out/summary.csv.progress") +
                         " 2>/dev/null || echo 0)\" -ge 3 ] && break; sleep 0.005; done; "
                         "kill -9 $pid; wait $pid; echo \"status $?\"");
    EXPECT_NE(killed.out.find("status"), std::string::npos) << killed.out << killed.err;
    CliRun resumed = batch(path("many.csv"), path("out"));
    EXPECT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_EQ(slurp(path("out/summary.csv")), slurp(path("whole/summary.csv")));
}

// A row is reused only with the same inputs (path, size, time, first bytes), the same options
// and its output as written; each change below is scored again and gives a fresh run's summary.
TEST_F(CatalogueCli, StaleOutputsAreScoredAgain) {
    const GoldenCase &a = find_case("foreman_352x288_8b_crf35");
    const GoldenCase &b = find_case("foreman_352x288_8b_noise");
    fs::create_directories(path("one"));
    fs::create_directories(path("two"));
    fs::copy_file(a.dist_path(), path("one/clip.yuv"));
    fs::copy_file(b.dist_path(), path("two/clip.yuv"));
    auto write_manifest = [&](const std::string &dist) {
        spit(path("m.csv"), "reference,distorted,width,height,pixel_format,bitdepth\n" +
                                a.ref_path() + "," + dist + ",352,288,420,8\n");
    };
    // The summary a fresh run gives for the manifest as it is now (in a folder of its own).
    int fresh_runs = 0;
    auto fresh = [&](std::vector<std::string> extra = {}) {
        const std::string out = path("fresh" + std::to_string(++fresh_runs));
        CliRun r = batch(path("m.csv"), out, extra);
        EXPECT_EQ(r.code, 0) << r.err;
        return slurp(out + "/summary.csv");
    };
    write_manifest(path("one/clip.yuv"));
    ASSERT_EQ(batch(path("m.csv"), path("out")).code, 0);
    const std::string first = slurp(path("out/summary.csv"));

    // Unchanged: reused, and said so.
    CliRun same = batch(path("m.csv"), path("out"));
    EXPECT_EQ(same.code, 0) << same.err;
    EXPECT_EQ(reused_line(same.err), "1") << same.err;
    EXPECT_EQ(slurp(path("out/summary.csv")), first);

    // Another file with the same name.
    write_manifest(path("two/clip.yuv"));
    CliRun other = batch(path("m.csv"), path("out"));
    EXPECT_EQ(other.code, 0) << other.err;
    EXPECT_EQ(reused_line(other.err), "") << other.err;
    EXPECT_EQ(slurp(path("out/summary.csv")), fresh());
    EXPECT_NE(slurp(path("out/summary.csv")), first);

    // The distorted file re-encoded in place (the same size; its time set back as it was).
    write_manifest(path("one/clip.yuv"));
    ASSERT_EQ(batch(path("m.csv"), path("out")).code, 0);
    const auto when = fs::last_write_time(path("one/clip.yuv"));
    spit(path("one/clip.yuv"), slurp(b.dist_path()));
    fs::last_write_time(path("one/clip.yuv"), when);
    CliRun inplace = batch(path("m.csv"), path("out"));
    EXPECT_EQ(reused_line(inplace.err), "") << inplace.err;
    EXPECT_EQ(slurp(path("out/summary.csv")), fresh());
    EXPECT_NE(slurp(path("out/summary.csv")), first);

    // Other options: the float variant, then another precision, then CSV outputs.
    for (std::vector<std::string> opts :
         {std::vector<std::string>{"--variant", "float"}, {"--precision", "3"}, {"--csv"}}) {
        ASSERT_EQ(batch(path("m.csv"), path("out")).code, 0); // the default options first
        CliRun r = batch(path("m.csv"), path("out"), opts);
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(reused_line(r.err), "") << opts[0] << ": " << r.err;
        EXPECT_EQ(slurp(path("out/summary.csv")), fresh(opts)) << opts[0];
    }

    // The output file changed since it was written.
    ASSERT_EQ(batch(path("m.csv"), path("out")).code, 0);
    spit(path("out/clip.json"), "{}\n");
    CliRun edited = batch(path("m.csv"), path("out"));
    EXPECT_EQ(reused_line(edited.err), "") << edited.err;
    EXPECT_NE(slurp(path("out/clip.json")), "{}\n");
}

// No command writes over a file it reads: each is refused before anything is scored, and the
// input is left as it was.
TEST_F(CatalogueCli, OutputsOverInputsAreRefused) {
    const GoldenCase &c = find_case("foreman_352x288_8b_crf35");
    fs::create_directories(path("out"));
    // The manifest is the summary it would write.
    const std::string m = slurp(manifest());
    spit(path("out/summary.csv"), m);
    CliRun r = batch(path("out/summary.csv"), path("out"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("out/summary.csv")), m);
    EXPECT_FALSE(fs::exists(path("out/crf35.json")));

    // A reference named like a row's output in the out-dir (a Y4M whatever its name), and a hard
    // link to a distorted input under an output's name.
    write_y4m(c, c.ref_path(), path("out/clip.json"));
    const std::string ref = slurp(path("out/clip.json"));
    spit(path("m2.csv"),
         "reference,distorted\n" + path("out/clip.json") + "," + path("clip.y4m") + "\n");
    write_y4m(c, c.dist_path(), path("clip.y4m"));
    r = batch(path("m2.csv"), path("out"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("out/clip.json"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("out/clip.json")), ref);
    fs::create_directories(path("out2"));
    fs::create_hard_link(path("clip.y4m"), path("out2/other.json"));
    spit(path("m3.csv"), "reference,distorted\n" + path("ref.y4m") + "," + path("other.y4m") +
                             "\n" + path("ref.y4m") + "," + path("clip.y4m") + "\n");
    write_y4m(c, c.ref_path(), path("ref.y4m"));
    fs::copy_file(path("clip.y4m"), path("other.y4m"));
    const std::string dist = slurp(path("clip.y4m"));
    r = batch(path("m3.csv"), path("out2"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("clip.y4m")), dist);

    // A ladder whose source is inside its -o folder under a rung's output name.
    r = vif({"-r", path("out/clip.json"), "-d", path("clip.y4m"), "-d", path("other.y4m"), "-o",
             path("out"), "-q"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("out/clip.json")), ref);

    // merge pointed at one of its own inputs.
    fs::create_directories(path("s"));
    ASSERT_LE(batch(path("m3.csv"), path("s")).code, 1);
    const std::string summary = slurp(path("s/summary.csv"));
    r = vif({"merge", path("s"), "-o", path("s/summary.csv")});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("s/summary.csv")), summary);
}

} // namespace
} // namespace vif_cli_test

namespace vif_cli_test {
namespace {

// More rows of one reference than one vif_submit_multi call takes (64): scored in parts, each
// row equal to the first (the same pair), with a bounded number of open files: 300 rows under a
// limit of 256 descriptors.
TEST_F(CatalogueCli, LargeGroupsAreSplitWithBoundedFiles) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
    for (int i = 0; i < 300; ++i) m += c.ref_path() + "," + c.dist_path() + ",176,144,420,8\n";
    spit(path("many.csv"), m);
    CliRun r = bash("ulimit -n 256 && " + kCli + " batch " + path("many.csv") + " --out-dir " +
                    path("out") + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream in(slurp(path("out/summary.csv")));
    std::string line, first_scores;
    std::getline(in, line); // header
    int rows = 0;
    while (std::getline(in, line)) {
        ++rows;
        ASSERT_NE(line.find(",ok,3,176,144,176,144,"), std::string::npos) << line;
        const std::string scores = line.substr(line.find(",ok,"));
        if (first_scores.empty()) first_scores = scores;
        EXPECT_EQ(scores, first_scores) << line;
    }
    EXPECT_EQ(rows, 300);

    // A ladder of 65 rungs: every one scored.
    std::vector<std::string> a = {"-r", c.ref_path()};
    for (int i = 0; i < 65; ++i) a.insert(a.end(), {"-d", c.dist_path()});
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"-o", path("ladder"), "-q"});
    r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string s = slurp(path("ladder/summary.csv"));
    EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 66) << s;
    EXPECT_EQ(s.find("failed"), std::string::npos) << s;
}

// --workers beyond any use is a usage error; more workers than groups is fine.
TEST_F(CatalogueCli, WorkersAreBounded) {
    const std::string m = manifest();
    CliRun r = batch(m, path("o"), {"--workers", "100000"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--workers"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("o")));
    r = batch(m, path("o"), {"--workers", "200"});
    EXPECT_EQ(r.code, 1) << r.err; // row 5
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
    CliRun one = batch(m, path("one"));
    EXPECT_EQ(slurp(path("o/summary.csv")), slurp(path("one/summary.csv")));
}

} // namespace
} // namespace vif_cli_test

namespace vif_cli_test {
namespace {

// vif merge: shards of two manifests refused; standard output closed refused (not an exit 0
// with nothing written).
TEST_F(CatalogueCli, MergeRefusesMixedManifestsAndAClosedStdout) {
    const std::string m1 = manifest("m1.csv");
    std::string other = slurp(m1);
    other.erase(other.rfind('\n', other.size() - 2) + 1); // without its last row
    spit(path("m2.csv"), other);
    EXPECT_LE(batch(m1, path("a"), {"--shard", "0/2"}).code, 1);
    EXPECT_LE(batch(path("m2.csv"), path("b"), {"--shard", "1/2"}).code, 1);
    CliRun r = vif({"merge", path("a"), path("b"), "-o", path("merged.csv")});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("different manifests"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("merged.csv")));
    r = shell(kCli + " merge " + path("a") + " --allow-missing >&-");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("standard output is closed"), std::string::npos) << r.err;
}

} // namespace
} // namespace vif_cli_test

namespace vif_cli_test {
namespace {

std::vector<std::string> temporaries(const std::string &dir) {
    std::vector<std::string> out;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".tmp.") != std::string::npos)
            out.push_back(e.path().string());
    return out;
}

// SIGHUP and SIGQUIT (as SIGINT and SIGTERM) leave no temporary file: batch (raised while an
// output is half-way: written, not yet renamed) and the pair command (while it waits for input).
TEST_F(CatalogueCli, HangUpAndQuitLeaveNoTemporaryFiles) {
    const std::string m = manifest();
    for (int sig : {SIGHUP, SIGQUIT, SIGINT, SIGTERM}) {
        const std::string out = path("out" + std::to_string(sig));
        CliRun r = batch(m, out, {}, "VIF_TEST_RAISE_IN_WRITE=" + std::to_string(sig));
        EXPECT_EQ(r.code, 128 + sig) << r.err;
        // (With the batch's stderr: whether the handler ran, "vif: interrupted", says which way
        // a file was left.)
        EXPECT_TRUE(temporaries(out).empty())
            << sig << ": " << temporaries(out)[0] << "\nstderr: " << r.err;
    }
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    for (int sig : {SIGHUP, SIGQUIT}) {
        // The signal is sent once the command catches it (its SigCgt mask): a background job
        // of a non-interactive shell starts with SIGQUIT ignored, so one sent before the
        // handler is set would be lost (seen under a loaded ctest: the input then ended).
        const std::string mask = std::to_string(1u << (sig - 1));
        CliRun r = bash("(sleep 1.5) | " + kCli + " -r " + c.ref_path() + " -d - " +
                        raw_args_str(c) + " -o " + path("pair.json") +
                        " -q & pid=$!; for i in $(seq 500); do "
                        "m=$(awk '/^SigCgt/{print $2}' /proc/$pid/status 2>/dev/null) && "
                        "[ -n \"$m\" ] || break; (( 16#$m & " +
                        mask + " )) && break; sleep 0.01; done; kill -" + std::to_string(sig) +
                        " $pid; wait $pid");
        EXPECT_EQ(r.code, 128 + sig) << r.err;
        EXPECT_TRUE(temporaries(dir_).empty()) << sig << ": " << temporaries(dir_)[0];
        EXPECT_FALSE(fs::exists(path("pair.json")));
    }
}

} // namespace
} // namespace vif_cli_test

namespace vif_cli_test {
namespace {

// The pair command killed with SIGKILL (no handler runs) while it waits for its input: no
// output and no temporary file (the output has no name until it is complete); an older file at
// the target stays as it was.
TEST_F(CatalogueCli, KilledPairLeavesNoFile) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    fs::create_directories(path("k"));
    spit(path("k/old.json"), "{\"old\": 1}\n");
    for (const std::string name : {"new.json", "old.json"}) {
        // Killed once its output is open in k/ (an unnamed file among its descriptors).
        CliRun r = bash("(sleep 2) | " + kCli + " -r " + c.ref_path() + " -d - " + raw_args_str(c) +
                        " -o " + path("k/" + name) +
                        " -q & pid=$!; for i in $(seq 500); do ls -l /proc/$pid/fd 2>/dev/null | "
                        "grep -q '" +
                        path("k") + "/#' && break; sleep 0.01; done; kill -9 $pid; wait $pid");
        EXPECT_EQ(r.code, 128 + SIGKILL) << r.err;
    }
    EXPECT_TRUE(temporaries(path("k")).empty()) << temporaries(path("k"))[0];
    EXPECT_FALSE(fs::exists(path("k/new.json")));
    EXPECT_EQ(slurp(path("k/old.json")), "{\"old\": 1}\n");
}

// The pair command's -o folder moved while it scores: a clear failure, and no temporary file
// left in the folder where it went.
TEST_F(CatalogueCli, OutputFolderMovedDuringTheRunKeepsNoTemporaryFile) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    fs::create_directories(path("o"));
    // The folder is moved once the command holds its output open there (its unnamed file among
    // its descriptors), not after a fixed time that a loaded machine may outlast.
    CliRun r = bash("(sleep 2; cat " + c.dist_path() + ") | " + kCli + " -r " + c.ref_path() +
                    " -d - " + raw_args_str(c) + " -o " + path("o/pair.json") +
                    " -q & pid=$!; for i in $(seq 500); do ls -l /proc/$pid/fd 2>/dev/null | "
                    "grep -q '" +
                    path("o") + "/' && break; sleep 0.01; done; mv " + path("o") + " " +
                    path("moved") + "; wait $pid");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("moved or removed"), std::string::npos) << r.err;
    EXPECT_TRUE(temporaries(path("moved")).empty()) << temporaries(path("moved"))[0];
    EXPECT_FALSE(fs::exists(path("moved/pair.json")));
}

// A full disk (here: a file size limit, writes failing with EFBIG): every failed row is named
// even though the summary cannot be written either, and no temporary file is left.
TEST_F(CatalogueCli, AFullDiskNamesTheFailedRows) {
    const std::string m = manifest();
    CliRun r = bash("trap '' XFSZ; ulimit -f 1; " + kCli + " batch " + m + " --out-dir " +
                    path("out") + " --precision max -q");
    EXPECT_EQ(r.code, 1) << r.err;
    for (const char *row : {"row 1 ", "row 2 ", "row 3 ", "row 4 ", "row 5 "})
        EXPECT_NE(r.err.find(row), std::string::npos) << row << r.err;
    EXPECT_NE(r.err.find("the summary was not written"), std::string::npos) << r.err;
    EXPECT_TRUE(temporaries(path("out")).empty()) << temporaries(path("out"))[0];
}

// Standard input twice in a ladder is a usage error; --threads above the cores is clamped with
// a note (same scores).
TEST_F(CatalogueCli, StdinTwiceAndTooManyThreads) {
    const GoldenCase &c = find_case(kRungs[0]);
    std::vector<std::string> a = {"-r", c.ref_path(), "-d", "-", "-d", "-"};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    a.insert(a.end(), {"-o", path("l"), "-q"});
    CliRun r = vif(a);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("standard input"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("l")));
    const std::string m = manifest();
    CliRun many = batch(m, path("many"), {"--threads", "100000"});
    EXPECT_EQ(many.code, 1) << many.err;
    EXPECT_NE(many.err.find("vif: note: --threads 100000 is more than the"), std::string::npos)
        << many.err;
    ASSERT_EQ(batch(m, path("one")).code, 1);
    EXPECT_EQ(slurp(path("many/summary.csv")), slurp(path("one/summary.csv")));
}

} // namespace
} // namespace vif_cli_test

namespace vif_cli_test {
namespace {

// Two runs writing one folder at once would interleave their progress: the second is refused
// while the first holds the progress log's lock.
TEST_F(CatalogueCli, ASecondRunOnTheSameFolderIsRefused) {
    if (shell("command -v flock").code != 0) GTEST_SKIP() << "flock (util-linux) not on PATH";
    const std::string m = manifest();
    fs::create_directories(path("out"));
    CliRun r = shell("flock " + path("out/summary.csv.progress") + " " + kCli + " batch " + m +
                     " --out-dir " + path("out") + " -q");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("another vif run is writing this folder"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("out/summary.csv")));
}

} // namespace
} // namespace vif_cli_test
