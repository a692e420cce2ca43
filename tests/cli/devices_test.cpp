// `vif batch` over several devices (issue 25), on CPU stand-in devices (VIF_TEST_CPU_DEVICES):
// the outputs and the summary do not depend on the devices or their number; a device that
// fails mid-batch (VIF_TEST_FAIL_DEVICE) has its rows scored by the others, and stderr says
// which; every device failing is an error with no summary; a missing device is named. Expected
// bytes come from a plain CPU run of the same build (one context, no devices).
#include "cli/cli_harness.hpp"

#include <random>

namespace vif_cli_test {
namespace {

class DevicesCli : public CliTest {
protected:
    // Nine pairs in six reference groups, and one row that fails on its own input (row 10).
    std::string manifest() {
        std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
        for (const char *n : {"kodim23pan_576x324_8b_crf35", "kodim23pan_576x324_8b_blur",
                              "kodim23pan_576x324_8b_identical", "foreman_352x288_8b_crf35",
                              "foreman_352x288_8b_noise", "foreman_176x144_8b_crf45",
                              "bsds100007pan_481x271_8b_crf35", "checker_352x288_8b_shift1",
                              "flat128_vs_flat100_576x324_8b"}) {
            const GoldenCase &c = find_case(n);
            m += c.ref_path() + "," + c.dist_path() + "," + std::to_string(c.width) + "," +
                 std::to_string(c.height) + "," + c.pix + ",8\n";
        }
        const GoldenCase &f = find_case("foreman_352x288_8b_crf35");
        m += f.ref_path() + "," + path("nowhere.yuv") + ",352,288,420,8\n";
        spit(path("m.csv"), m);
        return path("m.csv");
    }
    CliRun batch(const std::string &out, const std::string &env,
                 std::vector<std::string> extra = {}) {
        std::string cmd = env + " " + kCli + " batch '" + path("m.csv") + "' --out-dir '" +
                          path(out) + "' --precision max";
        for (const auto &e : extra) cmd += " '" + e + "'";
        return shell(cmd);
    }
    // Every output file of `dir`, its "fps" line (a timing) left out.
    std::map<std::string, std::string> outputs(const std::string &dir) {
        std::map<std::string, std::string> out;
        for (const auto &e : fs::directory_iterator(path(dir))) {
            const std::string n = e.path().filename().string();
            if (n.find(".progress") != std::string::npos) continue;
            std::string text = slurp(e.path().string()), kept;
            std::istringstream in(text);
            for (std::string line; std::getline(in, line);)
                if (line.find("\"fps\"") == std::string::npos) kept += line + "\n";
            out[n] = kept;
        }
        return out;
    }
};

TEST_F(DevicesCli, OutputsDoNotDependOnTheDevices) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err; // row 10 fails
    const auto expected = outputs("plain");
    ASSERT_EQ(expected.size(), 10u); // nine outputs and the summary
    struct Way {
        const char *env, *devices, *workers;
    } ways[] = {{"VIF_TEST_CPU_DEVICES=1", "0", "1"},
                {"VIF_TEST_CPU_DEVICES=1", "0,0", "2"},
                {"VIF_TEST_CPU_DEVICES=3", "all", "3"},
                {"VIF_TEST_CPU_DEVICES=3", "2,0,1", "6"},
                {"VIF_TEST_CPU_DEVICES=4", "all", "4"}};
    int k = 0;
    for (const Way &w : ways) {
        const std::string out = "way" + std::to_string(++k);
        CliRun r = batch(out, w.env, {"--devices", w.devices, "--workers", w.workers});
        EXPECT_EQ(r.code, 1) << w.devices << ": " << r.err;
        EXPECT_EQ(outputs(out), expected) << w.env << " --devices " << w.devices;
    }
}

// The host's share beside NVDEC (batch/devices.hpp), its scheduling on a CPU stand-in device
// (VIF_TEST_NVDEC_ROWS=1: the estimate counts the rows as NVDEC's): workers more, which
// --verbose names, and the same outputs; where the rows are not NVDEC's (VIF_TEST_NVDEC_ROWS=0:
// the estimate as it is, raw rows) the share stays idle, the outputs the same again.
TEST_F(DevicesCli, TheHostsShareGivesTheSameOutputs) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err; // row 10 fails
    const auto expected = outputs("plain");
    const std::string env = "VIF_TEST_CPU_DEVICES=1 VIF_BATCH_HOST_WORKERS=2 ";
    CliRun r = batch("share", env + "VIF_TEST_NVDEC_ROWS=1", {"--devices", "0", "--verbose", "-q"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(outputs("share"), expected);
    EXPECT_NE(r.err.find("the host's share beside NVDEC: 2 workers more (of 3), decoding on the "
                         "cores the parts NVDEC would have, taking a part where it ends no "
                         "later than NVDEC would end the rest (its rate "),
              std::string::npos)
        << r.err;
    CliRun idle =
        batch("idle", env + "VIF_TEST_NVDEC_ROWS=0", {"--devices", "0", "--verbose", "-q"});
    EXPECT_EQ(idle.code, 1) << idle.err;
    EXPECT_EQ(outputs("idle"), expected);
    EXPECT_NE(idle.err.find("idle: the rows do not decode on NVDEC"), std::string::npos)
        << idle.err;
    // Without the hook, stand-ins have no share.
    CliRun none = batch("none", env, {"--devices", "0", "--verbose", "-q"});
    EXPECT_EQ(outputs("none"), expected);
    EXPECT_EQ(none.err.find("the host's share"), std::string::npos) << none.err;
    // Two devices get it by default too (batch/host_share.hpp; stand-ins have a worker each, so
    // the parts leave some whatever the cores), the same outputs.
    CliRun two = batch("two", "VIF_TEST_CPU_DEVICES=2 VIF_TEST_NVDEC_ROWS=1",
                       {"--devices", "0,1", "--verbose", "-q"});
    EXPECT_EQ(two.code, 1) << two.err;
    EXPECT_EQ(outputs("two"), expected);
    EXPECT_NE(two.err.find("the host's share beside NVDEC: "), std::string::npos) << two.err;
    // None on four, and --verbose says so.
    CliRun four = batch("four", "VIF_TEST_CPU_DEVICES=4 VIF_TEST_NVDEC_ROWS=1",
                        {"--devices", "0,1,2,3", "--verbose", "-q"});
    EXPECT_EQ(four.code, 1) << four.err;
    EXPECT_EQ(outputs("four"), expected);
    EXPECT_NE(four.err.find("the host's share beside NVDEC: none on 4 GPUs (their NVDEC "
                            "sessions, made one at a time for the host, bind"),
              std::string::npos)
        << four.err;
}

// A ladder (one reference, many rungs) is split over the devices and gives the same files.
TEST_F(DevicesCli, ALadderOverDevicesGivesTheSameFiles) {
    const GoldenCase &a = find_case("kodim23pan_576x324_8b_crf35");
    const GoldenCase &b = find_case("kodim23pan_576x324_8b_blur");
    const GoldenCase &c = find_case("kodim23pan_576x324_8b_identical");
    const std::string args = " -r '" + a.ref_path() + "' -d '" + a.dist_path() + "' -d '" +
                             b.dist_path() + "' -d '" + c.dist_path() +
                             "' -w 576 -h 324 -p 420 -b 8 --precision max ";
    CliRun plain = shell(kCli + args + "--backend cpu -o " + path("plain"));
    ASSERT_EQ(plain.code, 0) << plain.err;
    CliRun spread = shell("VIF_TEST_CPU_DEVICES=3 " + kCli + args + "-o " + path("spread"));
    ASSERT_EQ(spread.code, 0) << spread.err;
    EXPECT_NE(spread.err.find("rows per device: stand-in device 0"), std::string::npos)
        << spread.err;
    EXPECT_EQ(outputs("spread"), outputs("plain"));
}

// Device 1 fails after its first row: its unfinished rows are scored by device 0, stderr names
// them, and the outputs and summary are those of a run without a failure.
TEST_F(DevicesCli, AFailedDeviceHasItsRowsScoredByTheOthers) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("failed", "VIF_TEST_CPU_DEVICES=2 VIF_TEST_FAIL_DEVICE=1:1",
                     {"--devices", "0,1", "--workers", "2"});
    EXPECT_EQ(r.code, 1) << r.err; // row 10, as without the failure
    EXPECT_EQ(outputs("failed"), outputs("plain"));
    // Device 1 pulls parts (its thread starts first) until one with frames fails it.
    EXPECT_NE(r.err.find("stand-in device 1 failed after"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rows given to the other devices: rows "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("simulated failure (VIF_TEST_FAIL_DEVICE)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stand-in device 1: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" rows (failed)"), std::string::npos) << r.err;
}

// The only device fails after two rows: an error, no summary; the rows it scored are kept for
// a resumed run, which then gives the plain run's files.
TEST_F(DevicesCli, EveryDeviceFailingIsAnErrorWithNoSummary) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("out", "VIF_TEST_CPU_DEVICES=1 VIF_TEST_FAIL_DEVICE=0:2", {"--devices", "0"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("vif: error: every device failed (stand-in device 0: simulated "
                         "failure (VIF_TEST_FAIL_DEVICE))"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("rows not scored; no summary written"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("out/summary.csv")));
    CliRun resumed = batch("out", "VIF_TEST_CPU_DEVICES=1", {"--devices", "0"});
    EXPECT_EQ(resumed.code, 1) << resumed.err;
    EXPECT_NE(resumed.err.find("vif: reused rows"), std::string::npos) << resumed.err;
    EXPECT_EQ(outputs("out"), outputs("plain"));
}

// Many workers at once on a large group stay within a low open-file limit (smaller parts).
TEST_F(DevicesCli, ManyWorkersStayWithinTheOpenFileLimit) {
    const GoldenCase &c = find_case("foreman_176x144_8b_crf45");
    std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
    for (int i = 0; i < 300; ++i) m += c.ref_path() + "," + c.dist_path() + ",176,144,420,8\n";
    spit(path("many.csv"), m);
    CliRun r = bash("ulimit -n 256 && VIF_TEST_CPU_DEVICES=4 " + kCli + " batch " +
                    path("many.csv") + " --out-dir " + path("out") + " -q --workers 8");
    ASSERT_EQ(r.code, 0) << r.err.substr(0, 2000);
    const std::string s = slurp(path("out/summary.csv"));
    EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 301);
    EXPECT_EQ(s.find("failed"), std::string::npos);
}

// A worker keeps its scoring context from one group to the next: three groups of one size on
// one worker make one context, and the files are those of a plain run; --timings says so, and
// where each device's time went.
TEST_F(DevicesCli, AWorkerKeepsItsContextAcrossGroups) {
    const GoldenCase &c = find_case("foreman_352x288_8b_crf35");
    std::string m = "reference,distorted,width,height,pixel_format,bitdepth\n";
    for (int i = 0; i < 3; ++i) {
        const std::string ref = path("ref" + std::to_string(i) + ".yuv");
        fs::copy_file(c.ref_path(), ref);
        m += ref + "," + c.dist_path() + ",352,288,420,8\n";
    }
    spit(path("m.csv"), m);
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 0) << plain.err;
    CliRun r =
        batch("kept", "VIF_TEST_CPU_DEVICES=2", {"--devices", "0", "--workers", "1", "--timings"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(outputs("kept"), outputs("plain"));
    EXPECT_NE(r.err.find("vif: timings: "), std::string::npos) << r.err;
    // The second and third groups' inputs were opened while the one before was scored.
    EXPECT_NE(r.err.find("timings: stand-in device 0: 3 rows in 3 groups (0 decoded by NVDEC, 2 "
                         "opened ahead)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("contexts 1 made"), std::string::npos) << r.err;
    // And what came before and after the run (no device count costs anything here).
    EXPECT_NE(r.err.find("vif: timings: before the run: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("vif: timings: after the run: the summary and the progress log written "
                         "in "),
              std::string::npos)
        << r.err;
    // Without opening ahead (VIF_BATCH_OPEN_AHEAD=0): none, the same files.
    CliRun in_turn = batch("in_turn", "VIF_TEST_CPU_DEVICES=2 VIF_BATCH_OPEN_AHEAD=0",
                           {"--devices", "0", "--workers", "1", "--timings"});
    ASSERT_EQ(in_turn.code, 0) << in_turn.err;
    EXPECT_EQ(outputs("in_turn"), outputs("plain"));
    EXPECT_NE(in_turn.err.find("3 rows in 3 groups (0 decoded by NVDEC, 0 opened ahead)"),
              std::string::npos)
        << in_turn.err;
    // Without --timings, no such lines.
    CliRun quiet = batch("quiet", "VIF_TEST_CPU_DEVICES=2", {"--devices", "0"});
    ASSERT_EQ(quiet.code, 0) << quiet.err;
    EXPECT_EQ(quiet.err.find("timings"), std::string::npos) << quiet.err;
    // Two devices: a line each.
    CliRun two = batch("two", "VIF_TEST_CPU_DEVICES=2", {"--workers", "2", "--timings"});
    ASSERT_EQ(two.code, 0) << two.err;
    EXPECT_EQ(outputs("two"), outputs("plain"));
    EXPECT_NE(two.err.find("timings: stand-in device 1: "), std::string::npos) << two.err;
}

// Devices whose start-up comes late (VIF_TEST_STANDIN_STARTUP: stand-ins 1 and 2 take 1.5 s
// to start) take rows only once started; the files are the same, and --timings names each
// start-up. The work is said to be long (VIF_TEST_BATCH_WORK_S), so that every device is
// started; the rows are all scored before the late ones are ready.
TEST_F(DevicesCli, LateStartUpsGiveTheSameFiles) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("late",
                     "VIF_TEST_CPU_DEVICES=3 VIF_TEST_STANDIN_STARTUP=1:1500,2:1500 "
                     "VIF_TEST_BATCH_WORK_S=100",
                     {"--workers", "6", "--timings"});
    EXPECT_EQ(r.code, 1) << r.err; // row 10, as without the delays
    EXPECT_EQ(outputs("late"), outputs("plain"));
    EXPECT_NE(r.err.find("device start-ups: stand-in device 0 "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stand-in device 1 still starting"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("timings: stand-in device 2: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("vif: devices: 2 of 2 more devices started"), std::string::npos) << r.err;
}

// A catalogue shorter than a device's start-up is scored on the first device alone: the
// others are not started (the estimate from the rows' sizes: a few milliseconds of work here,
// against 0.1 s of start-up and the contexts'), --timings and the rows per device say so, and
// the files are the same.
TEST_F(DevicesCli, ShortWorkLeavesTheOtherDevicesOut) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("short", "VIF_TEST_CPU_DEVICES=3 VIF_TEST_STANDIN_STARTUP=0:100,1:100,2:100",
                     {"--workers", "6", "--timings"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(outputs("short"), outputs("plain"));
    EXPECT_NE(r.err.find("vif: devices: 0 of 2 more devices started"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the catalogue: about 0.0"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stand-in device 1 not started, stand-in device 2 not started"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("rows per device: stand-in device 0: 10 rows, stand-in device 1: 0 "
                         "rows (not started), stand-in device 2: 0 rows (not started)"),
              std::string::npos)
        << r.err;
}

// The workers of the devices the plan leaves out score on the one running (--workers: all of
// them; by default as many as one device gets), and say so; the files are the same.
TEST_F(DevicesCli, WorkersOfDevicesLeftOutScoreOnTheRunningOne) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("lent", "VIF_TEST_CPU_DEVICES=3 VIF_TEST_STANDIN_STARTUP=0:100",
                     {"--workers", "6", "--verbose"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(outputs("lent"), outputs("plain"));
    EXPECT_NE(r.err.find("vif: devices: 0 of 2 more devices started: too little work"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("vif: devices: workers: 6 of 6 score on the 1 device running (4 lent "
                         "by the devices left out; every worker --workers gives)"),
              std::string::npos)
        << r.err;
    CliRun d = batch("lent-default", "VIF_TEST_CPU_DEVICES=3 VIF_TEST_STANDIN_STARTUP=0:100",
                     {"--timings"});
    EXPECT_EQ(d.code, 1) << d.err;
    EXPECT_EQ(outputs("lent-default"), outputs("plain"));
    EXPECT_NE(d.err.find("vif: devices: workers: 1 of 3 score on the 1 device running (0 lent "
                         "by the devices left out; as many as that many GPUs get by default)"),
              std::string::npos)
        << d.err;
}

// A device left out by the plan is started when the one running fails: it takes the rows, and
// the files are the plain run's.
TEST_F(DevicesCli, ALeftOutDeviceTakesTheRowsOfOneThatFails) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("takeover",
                     "VIF_TEST_CPU_DEVICES=2 VIF_TEST_STANDIN_STARTUP=0:50 "
                     "VIF_TEST_FAIL_DEVICE=0:1",
                     {"--workers", "2", "--timings"});
    EXPECT_EQ(r.code, 1) << r.err; // row 10, as without the failure
    EXPECT_EQ(outputs("takeover"), outputs("plain"));
    EXPECT_NE(r.err.find("vif: devices: 0 of 1 more device started"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stand-in device 0 failed after"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rows given to the other devices: rows "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" rows (failed), stand-in device 1: "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("stand-in device 1: 0 rows"), std::string::npos) << r.err;
}

// --hwdec cuda (NVDEC whatever a row's length) is accepted; rows NVDEC cannot take (here: no
// GPU, raw input) are decoded on the host: the plain run's files.
TEST_F(DevicesCli, HwdecCudaFallsBackToTheHostWhereNvdecCannot) {
    manifest();
    CliRun plain = batch("plain", "", {"--backend", "cpu"});
    ASSERT_EQ(plain.code, 1) << plain.err;
    CliRun r = batch("cuda", "VIF_TEST_CPU_DEVICES=2", {"--hwdec", "cuda"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(outputs("cuda"), outputs("plain"));
}

TEST_F(DevicesCli, MissingDevicesAndBadHooksAreUsageErrors) {
    manifest();
    CliRun missing = batch("a", "VIF_TEST_CPU_DEVICES=2", {"--devices", "0,5"});
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("--devices 0,5: there is no device 5 (2 stand-in devices were "
                               "found: 0 to 1)"),
              std::string::npos)
        << missing.err;
    // A real CUDA device number no machine has (here: none, or a few GPUs).
    CliRun cuda = batch("b", "", {"--devices", "4096", "--backend", "cuda"});
    EXPECT_EQ(cuda.code, 2);
    EXPECT_NE(cuda.err.find("there is no device 4096 ("), std::string::npos) << cuda.err;
    CliRun cpu = batch("c", "", {"--devices", "0", "--backend", "cpu"});
    EXPECT_EQ(cpu.code, 2);
    EXPECT_NE(cpu.err.find("--devices needs --backend cuda or auto"), std::string::npos);
    CliRun hwdec = batch("e", "", {"--hwdec", "nvdec"});
    EXPECT_EQ(hwdec.code, 2) << hwdec.err;
    CliRun threads = batch("f", "", {"--decoder-threads", "-2"});
    EXPECT_EQ(threads.code, 2) << threads.err;
    CliRun decoders = batch("g", "", {"--nvdec-decoders", "17"});
    EXPECT_EQ(decoders.code, 2) << decoders.err;
    CliRun hook = batch("d", "VIF_TEST_FAIL_DEVICE=x", {});
    EXPECT_EQ(hook.code, 2);
    EXPECT_NE(hook.err.find("VIF_TEST_FAIL_DEVICE='x'"), std::string::npos) << hook.err;
    for (const char *d : {"a", "b", "c", "d", "e", "f", "g"})
        EXPECT_FALSE(fs::exists(path(d))) << d;
}

// Rows that are all one pair (links to one raw noise pair) score alike, whatever device, worker,
// part taken ahead or read path scored them: every row's file equals the pair scored alone on
// the CPU. (GPU round 1 of session 6 once gave one row of such a catalogue, on two GPUs, a
// different file: rows recorded, taken ahead and read at once must not mix their frames.)
TEST_F(DevicesCli, IdenticalRowsScoreAlikeOnEveryWay) {
    const int w = 160, h = 96, frames = 10, rows = 16;
    std::mt19937 rng(2026);
    for (const char *n : {"ref.yuv", "dist.yuv"}) {
        std::string bytes(size_t(w) * h * 3 / 2 * frames, '\0');
        for (char &c : bytes) c = char(rng() & 0xff);
        spit(path(n), bytes);
    }
    const std::string head = "reference,distorted,width,height,pixel_format,bitdepth\n";
    std::string m = head;
    for (int i = 1; i <= rows; ++i) {
        const std::string r = "ref" + std::to_string(i) + ".yuv",
                          d = "dist" + std::to_string(i) + ".yuv";
        fs::create_symlink("ref.yuv", path(r));
        fs::create_symlink("dist.yuv", path(d));
        m += path(r) + "," + path(d) + "," + std::to_string(w) + "," + std::to_string(h) +
             ",420,8\n";
    }
    spit(path("rows.csv"), m);
    spit(path("one.csv"),
         head + m.substr(head.size(), m.find('\n', head.size()) + 1 - head.size()));
    CliRun one = shell(kCli + " batch '" + path("one.csv") + "' --out-dir '" + path("one") +
                       "' --precision max --backend cpu");
    ASSERT_EQ(one.code, 0) << one.err;
    const std::string expected = outputs("one").at("dist1.json");
    ASSERT_NE(expected.find("\"frameNum\": 9"), std::string::npos) << expected;
    // A summary line's columns from status to error (not the row, its paths and the manifest).
    auto scores = [](const std::string &line) {
        size_t at = 0;
        for (int comma = 0; comma < 4 && at != std::string::npos; ++comma)
            at = line.find(',', at + 1);
        return at == std::string::npos ? line : line.substr(at, line.rfind(',') - at);
    };
    const std::string one_summary = slurp(path("one/summary.csv"));
    const std::string want = scores(one_summary.substr(one_summary.find('\n') + 1));
    ASSERT_EQ(want.rfind(",ok,10,160,96,", 0), 0u) << want;
    const std::string devs = "VIF_TEST_CPU_DEVICES=2 ";
    const struct {
        std::string env, args;
    } ways[] = {{devs, ""},
                {devs + "VIF_BATCH_OPEN_AHEAD=0 ", ""},
                {devs, " --no-mmap"},
                {devs + "VIF_PREFETCH_DROP_BYTES=1 ", ""},
                {devs + "VIF_TEST_STANDIN_STARTUP=1:200 ", ""}};
    int k = 0;
    for (const auto &way : ways) {
        const std::string out = "way" + std::to_string(++k);
        CliRun r =
            shell(way.env + kCli + " batch '" + path("rows.csv") + "' --out-dir '" + path(out) +
                  "' --precision max --devices 0,1 --workers 4 --threads 2" + way.args);
        ASSERT_EQ(r.code, 0) << way.env << way.args << ": " << r.err;
        const auto got = outputs(out);
        EXPECT_EQ(got.size(), size_t(rows) + 1) << way.env << way.args;
        for (int i = 1; i <= rows; ++i) {
            const std::string f = "dist" + std::to_string(i) + ".json";
            EXPECT_EQ(got.count(f) ? got.at(f) : "", expected) << way.env << way.args << ": " << f;
        }
        std::istringstream summary(slurp(path(out + "/summary.csv")));
        std::string line;
        std::getline(summary, line); // the header
        int lines = 0;
        for (; std::getline(summary, line); ++lines)
            EXPECT_EQ(scores(line), want) << way.env << way.args << ": " << line;
        EXPECT_EQ(lines, rows) << way.env << way.args;
    }
}

} // namespace
} // namespace vif_cli_test
