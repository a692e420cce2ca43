// Issue 13: inputs and outputs that never lie. Each test here failed on the CLI before the fix
// (VIF_CLI_UNDER_TEST=<older vif> runs them against another build): pipes and FIFOs read from
// their first byte, -o onto devices, FIFOs, symlinks, read-only files and inputs, closed stdin,
// headers that lie about the frame size, cut encoded input, file names that are not UTF-8,
// silent no-ops and failed writes, Y4M corner cases, and libvmaf's exact text. Expected values
// come from testdata (libvmaf's CSVs and its own JSON), never from the code under test.
#include "cli_harness.hpp"

#include <sys/stat.h>

using namespace vif_cli_test;

namespace {

const char *const kCase = "rav1esmall_64x64_8b_crf35"; // 64x64 4:2:0 8-bit, 5 frames

std::string q(const std::string &s) {
    return "'" + s + "'";
}

bool have_ffmpeg_cli() {
    static const bool yes = std::system("ffmpeg -version > /dev/null 2>&1") == 0;
    return yes;
}

bool cli_has_ffmpeg() {
    static const bool yes = [] {
        char tmpl[] = "/tmp/vif_cli_help.XXXXXX";
        if (!mkdtemp(tmpl)) return false;
        CliRun r = run_argv({kCli, "--help"}, tmpl);
        fs::remove_all(tmpl);
        return r.out.find("FFmpeg") != std::string::npos;
    }();
    return yes;
}

mode_t mode_of(const std::string &p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

// The four integer scale scores of the case, bit-exact.
void expect_case_scores(const json &j, const std::string &what) {
    const GoldenCase &c = find_case(kCase);
    auto rows = vif::testing::load_expected(c.expected_path());
    auto keys = expected_keys(c.expected_path(), true, false);
    keys.resize(4);
    expect_frames_match(j, rows, keys, true, what);
}

class IoTest : public CliTest {
protected:
    const GoldenCase &c = find_case(kCase);
    std::string args() const { return raw_args_str(c); }
    // Runs a bash command line (`vif` stands for the binary) that writes o.json; returns it.
    json run_json(const std::string &cmd, const std::string &what) {
        std::string line = cmd;
        for (size_t at; (at = line.find("VIF ")) != std::string::npos;)
            line.replace(at, 4, "timeout 60 " + q(kCli) + " ");
        CliRun r = bash(line + " --precision max -q -o " + q(path("o.json")));
        EXPECT_EQ(r.code, 0) << what << ": " << r.err;
        if (r.code != 0) return json();
        json j = json::parse(slurp(path("o.json")), nullptr, false);
        fs::remove(path("o.json"));
        return j;
    }
};

// ---- 1. Every input read exactly once, from its first byte --------------------------------

TEST_F(IoTest, PipesFifosAndProcessSubstitutionReadFromTheStart) {
    const std::string R = q(c.ref_path()), D = q(c.dist_path()), A = args();
    expect_case_scores(run_json("cat " + D + " | VIF -r " + R + " -d /dev/stdin " + A, "x"),
                       "raw through /dev/stdin");
    expect_case_scores(run_json("VIF -r " + R + " -d <(cat " + D + ") " + A, "x"),
                       "raw through <(...)");
    ASSERT_EQ(mkfifo(path("in.fifo").c_str(), 0600), 0);
    expect_case_scores(run_json("(timeout 60 cat " + D + " > " + q(path("in.fifo")) +
                                    " &); VIF -r " + R + " -d " + q(path("in.fifo")) + " " + A,
                                "x"),
                       "raw through a named FIFO");
    write_y4m(c, c.ref_path(), path("r.y4m"));
    write_y4m(c, c.dist_path(), path("d.y4m"));
    expect_case_scores(
        run_json("cat " + q(path("d.y4m")) + " | VIF -r " + q(path("r.y4m")) + " -d -", "x"),
        "Y4M on stdin without -w/-h");
    expect_case_scores(
        run_json("VIF -r <(cat " + q(path("r.y4m")) + ") -d <(cat " + q(path("d.y4m")) + ")", "x"),
        "Y4M through <(...)");
    if (!have_ffmpeg_cli() || !cli_has_ffmpeg()) {
        std::printf("[skipped the FFmpeg part: no ffmpeg CLI or a vif without FFmpeg]\n");
        return;
    }
    CliRun r = bash("ffmpeg -nostdin -loglevel error -y -f rawvideo -pix_fmt yuv420p -s 64x64 "
                    "-i " +
                    D + " -c:v ffv1 " + q(path("d.mkv")));
    ASSERT_EQ(r.code, 0) << r.err;
    expect_case_scores(
        run_json("VIF -r " + q(path("r.y4m")) + " -d <(cat " + q(path("d.mkv")) + ")", "x"),
        "MKV through <(...)");
    expect_case_scores(
        run_json("cat " + q(path("d.mkv")) + " | VIF -r " + q(path("r.y4m")) + " -d -", "x"),
        "MKV on stdin");
    expect_case_scores(
        run_json("cat " + q(path("d.mkv")) + " | VIF -r " + R + " -d /dev/stdin " + A, "x"),
        "MKV on /dev/stdin with -w/-h");
}

// ---- 2. -o: replace regular files only, write through the rest ------------------------------

TEST_F(IoTest, OutputOntoDevNullLeavesItACharacterDevice) {
    if (!S_ISCHR(mode_of("/dev/null"))) GTEST_SKIP() << "/dev/null is not a character device";
    auto a = case_args(c);
    a.insert(a.end(), {"-q", "-o", "/dev/null"});
    CliRun r = vif(a);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(S_ISCHR(mode_of("/dev/null"))) << "/dev/null was replaced";
    EXPECT_TRUE(S_ISCHR(mode_of("/dev/null")));
}

TEST_F(IoTest, OutputWritesThroughFifosAndSymlinks) {
    // A FIFO: written through to its reader, still a FIFO afterwards.
    ASSERT_EQ(mkfifo(path("out.fifo").c_str(), 0600), 0);
    CliRun r = bash("timeout 60 cat " + q(path("out.fifo")) + " > " + q(path("got.json")) +
                    " & timeout 60 " + q(kCli) + " -r " + q(c.ref_path()) + " -d " +
                    q(c.dist_path()) + " " + args() + " --precision max -q -o " +
                    q(path("out.fifo")) + "; rc=$?; wait; exit $rc");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(S_ISFIFO(mode_of(path("out.fifo")))) << "the FIFO was replaced";
    expect_case_scores(json::parse(slurp(path("got.json")), nullptr, false), "through a FIFO");

    // Process substitution, >(...): /dev/fd/N, written through.
    r = bash("timeout 60 " + q(kCli) + " -r " + q(c.ref_path()) + " -d " + q(c.dist_path()) + " " +
             args() + " --precision max -q -o >(cat > " + q(path("got2.json")) +
             "); rc=$?; wait $!; exit $rc");
    EXPECT_EQ(r.code, 0) << r.err;
    expect_case_scores(json::parse(slurp(path("got2.json")), nullptr, false), "through >(...)");

    // A symlink: the file it points to is replaced (keeping its mode), the link stays.
    spit(path("target.json"), "old");
    ASSERT_EQ(::chmod(path("target.json").c_str(), 0640), 0);
    ASSERT_EQ(::symlink("target.json", path("link.json").c_str()), 0);
    auto a = case_args(c);
    a.insert(a.end(), {"--precision", "max", "-q", "-o", path("link.json")});
    r = vif(a);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(S_ISLNK(mode_of(path("link.json")))) << "the symlink was replaced";
    EXPECT_EQ(fs::read_symlink(path("link.json")).string(), "target.json");
    EXPECT_TRUE(S_ISREG(mode_of(path("target.json"))));
    EXPECT_EQ(mode_of(path("target.json")) & 07777, 0640u);
    expect_case_scores(json::parse(slurp(path("target.json")), nullptr, false), "through a link");

    // A link to a file that does not exist yet: the file is made there.
    ASSERT_EQ(::symlink("new.json", path("link2.json").c_str()), 0);
    a = case_args(c);
    a.insert(a.end(), {"--precision", "max", "-q", "-o", path("link2.json")});
    r = vif(a);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(S_ISLNK(mode_of(path("link2.json"))));
    expect_case_scores(json::parse(slurp(path("new.json")), nullptr, false), "a new link target");
    EXPECT_TRUE(leftovers({"out.fifo", "got.json", "got2.json", "target.json", "link.json",
                           "link2.json", "new.json"})
                    .empty());
}

TEST_F(IoTest, OutputRefusesReadOnlyFilesAndInputs) {
    // Read-only: refused (also as root, who could write it), left as it was.
    spit(path("ro.json"), "keep");
    ASSERT_EQ(::chmod(path("ro.json").c_str(), 0444), 0);
    auto a = case_args(c);
    a.insert(a.end(), {"-q", "-o", path("ro.json")});
    CliRun r = vif(a);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("ro.json")), "keep");
    EXPECT_EQ(mode_of(path("ro.json")) & 07777, 0444u);

    // One of the inputs, by name or through a link: refused, the input untouched.
    fs::copy_file(c.dist_path(), path("dist.yuv"));
    const std::string before = slurp(path("dist.yuv"));
    ASSERT_EQ(::symlink("dist.yuv", path("dist-link.json").c_str()), 0);
    for (const std::string &out : {path("dist.yuv"), path("dist-link.json")}) {
        a = case_args(c, "", path("dist.yuv"));
        a.insert(a.end(), {"-q", "-o", out});
        r = vif(a);
        EXPECT_NE(r.code, 0) << out;
        EXPECT_NE(r.err.find("input"), std::string::npos) << r.err;
        EXPECT_EQ(slurp(path("dist.yuv")), before) << "the input was overwritten via " << out;
    }
    EXPECT_TRUE(leftovers({"ro.json", "dist.yuv", "dist-link.json"}).empty());
}

// ---- 8. Format flags without -o, -q alone, -o "", failed writes --------------------------------

TEST_F(IoTest, FormatFlagsWithoutOutputWriteToStdout) {
    auto run = [&](std::vector<std::string> extra) {
        auto a = case_args(c);
        a.insert(a.end(), extra.begin(), extra.end());
        return vif(a);
    };
    CliRun r = run({"--json", "--precision", "max"});
    EXPECT_EQ(r.code, 0) << r.err;
    expect_case_scores(json::parse(r.out, nullptr, false), "--json on stdout");
    r = run({"--csv"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("Frame,integer_vif_scale0,", 0), 0u) << r.out;
    r = run({"--xml", "-q"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("<VMAF version=", 0), 0u) << r.out;
    for (const char *out : {"-", "/dev/stdout"}) {
        r = run({"-o", out, "--precision", "max"});
        EXPECT_EQ(r.code, 0) << r.err;
        expect_case_scores(json::parse(r.out, nullptr, false), std::string("-o ") + out);
    }
    // Nothing would be written: usage errors.
    r = run({"-q"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("-q"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
    r = run({"-o", ""});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
}

TEST_F(IoTest, FailedWritesAreErrors) {
    if (!S_ISCHR(mode_of("/dev/full"))) GTEST_SKIP() << "no /dev/full";
    auto a = case_args(c);
    a.insert(a.end(), {"-q", "-o", "/dev/full"});
    CliRun r = vif(a);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("No space left"), std::string::npos) << r.err;
    const std::string cmd =
        q(kCli) + " -r " + q(c.ref_path()) + " -d " + q(c.dist_path()) + " " + args();
    for (const char *how : {"", " --json", " --csv", " -o -"}) {
        r = shell(cmd + how + " > /dev/full");
        EXPECT_NE(r.code, 0) << "a full stdout, with '" << how << "'";
        EXPECT_NE(r.err.find("vif: error:"), std::string::npos) << r.err;
    }
    // A closed stdout: an error, not output written into whatever file took fd 1.
    r = shell(cmd + " --json >&-");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("standard output is closed"), std::string::npos) << r.err;
}

// ---- 3. Closed standard input -----------------------------------------------------------------

TEST_F(IoTest, ClosedStdinIsAnErrorNotTheOtherInput) {
    for (const char *name : {"-", "/dev/stdin"}) {
        CliRun r = shell(q(kCli) + " -r " + q(c.ref_path()) + " -d " + name + " " + args() +
                         " -q -o " + q(path("o.json")) + " <&-");
        EXPECT_NE(r.code, 0) << name << ": scored " << slurp(path("o.json"));
        EXPECT_NE(r.err.find("standard input is closed"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("o.json")));
    }
}

// ---- 4. Headers that lie about the frame size ---------------------------------------------------

TEST_F(IoTest, HugeY4mHeaderOnATinyInputFailsFastWithBoundedMemory) {
    std::string y4m = "YUV4MPEG2 W32768 H32768 F25:1 Ip A1:1 C420jpeg\nFRAME\n";
    y4m.resize(180, '\x80');
    spit(path("liar.y4m"), y4m);
    spit(path("liar2.y4m"), y4m);
    // A 32768x32768 frame alone is 1 GiB (and the old code took 2 GiB per worker): half of one is
    // the bound, which leaves room for AddressSanitizer's own memory (about 300 MB measured).
    constexpr long kBoundKb = 512 * 1024;
    // Regular files: refused when opened, from the file size.
    CliRun r = vif({"-r", path("liar.y4m"), "-d", path("liar2.y4m"), "--threads", "1", "-q", "-o",
                    path("o.json")});
    EXPECT_NE(r.code, 0);
    EXPECT_LT(r.code, 128) << r.err;
    EXPECT_NE(r.err.find("32768x32768"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("frame 0"), std::string::npos) << r.err;
    EXPECT_LT(r.max_rss_kb, kBoundKb);
    // Pipes: the size is unknown until the data ends; still no frame-sized allocation used.
    r = bash("timeout 60 " + q(kCli) + " -r <(cat " + q(path("liar.y4m")) + ") -d <(cat " +
             q(path("liar2.y4m")) + ") --threads 1 -q -o " + q(path("o.json")));
    EXPECT_NE(r.code, 0);
    EXPECT_LT(r.code, 124) << r.err;
    EXPECT_NE(r.err.find("frame 0 is incomplete"), std::string::npos) << r.err;
    EXPECT_LT(r.max_rss_kb, kBoundKb);
    EXPECT_FALSE(fs::exists(path("o.json")));
}

// ---- 5. Cut encoded input -----------------------------------------------------------------------

TEST_F(IoTest, CutInputIsAnErrorNamingTheFrame) {
    auto expect_cut = [&](const std::string &cmd, const std::string &what) {
        CliRun r = bash(cmd + " -q -o " + q(path("o.json")));
        EXPECT_NE(r.code, 0) << what << ": exit 0 with a cut input";
        EXPECT_LT(r.code, 124) << what << ": " << r.err;
        EXPECT_NE(r.err.find("frame "), std::string::npos) << what << ": " << r.err;
        // One line: ours, with nothing of FFmpeg's own log before it.
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
        EXPECT_EQ(r.err.rfind("vif: error: ", 0), 0u) << what << ": " << r.err;
        EXPECT_FALSE(fs::exists(path("o.json"))) << what << ": a complete-looking output";
    };
    // Y4M cut inside frame 1, on stdin without -w/-h.
    write_y4m(c, c.ref_path(), path("r.y4m"));
    write_y4m(c, c.dist_path(), path("d.y4m"));
    const size_t header = slurp(path("d.y4m")).find('\n') + 1;
    const size_t cut = header + (c.frame_bytes() + 6) + 6 + c.frame_bytes() / 2;
    expect_cut("head -c " + std::to_string(cut) + " " + q(path("d.y4m")) + " | timeout 60 " +
                   q(kCli) + " -r " + q(path("r.y4m")) + " -d -",
               "a Y4M cut short on stdin");
    if (!have_ffmpeg_cli() || !cli_has_ffmpeg()) {
        std::printf("[skipped the MKV/MP4 part: no ffmpeg CLI or a vif without FFmpeg]\n");
        return;
    }
    struct Clip {
        const char *name, *codec;
    };
    for (const Clip &clip :
         {Clip{"d.mkv", "-c:v ffv1"}, Clip{"d.mp4", "-c:v mpeg4 -q:v 2 -movflags +faststart"}}) {
        CliRun r = bash("ffmpeg -nostdin -loglevel error -y -f rawvideo -pix_fmt yuv420p -s "
                        "64x64 -i " +
                        q(c.dist_path()) + " " + clip.codec + " " + q(path(clip.name)));
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string whole = slurp(path(clip.name));
        spit(path(std::string("cut-") + clip.name), whole.substr(0, whole.size() * 2 / 3));
        expect_cut("timeout 60 " + q(kCli) + " -r " + q(path("r.y4m")) + " -d " +
                       q(path(std::string("cut-") + clip.name)),
                   std::string("a cut ") + clip.name);
    }
}

// ---- 6. File names that are not UTF-8, or hold control characters ------------------------------

bool valid_utf8_no_controls(const std::string &s, std::string *why) {
    for (size_t i = 0; i < s.size();) {
        const unsigned char b = (unsigned char)s[i];
        size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size()) {
            *why = "invalid UTF-8 at byte " + std::to_string(i);
            return false;
        }
        for (size_t k = 1; k < n; ++k)
            if (((unsigned char)s[i + k] >> 6) != 2) {
                *why = "invalid UTF-8 at byte " + std::to_string(i);
                return false;
            }
        if (b < 0x20 && b != '\n') {
            *why = "a raw control character at byte " + std::to_string(i);
            return false;
        }
        i += n;
    }
    return true;
}

TEST_F(IoTest, FileNamesThatAreNotUtf8StayReadable) {
    const std::string odd = path(std::string("ref \xff\xfe \x01\x1b[31m\t\n<&>\"'.yuv"));
    fs::copy_file(c.ref_path(), odd);
    for (const char *fmt : {"--json", "--xml"}) {
        const std::string out = path(std::string("o") + (fmt[2] == 'j' ? ".json" : ".xml"));
        auto a = case_args(c, odd);
        a.insert(a.end(), {fmt, "--details", "-q", "-o", out});
        CliRun r = vif(a);
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string text = slurp(out);
        std::string why;
        EXPECT_TRUE(valid_utf8_no_controls(text, &why)) << fmt << ": " << why;
        if (fmt[2] == 'j') {
            json j = json::parse(text, nullptr, false);
            ASSERT_FALSE(j.is_discarded()) << "not JSON: " << text;
            const std::string name = j["libvif"]["reference"].get<std::string>();
            EXPECT_NE(name.find("\xef\xbf\xbd\xef\xbf\xbd \x01\x1b[31m\t\n<&>\"'"),
                      std::string::npos)
                << name;
        } else if (std::system("python3 -c pass > /dev/null 2>&1") == 0) {
            CliRun p = run_argv({"/usr/bin/env", "python3", "-c",
                                 "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); "
                                 "print(d.getElementsByTagName('libvif')[0].getAttribute("
                                 "'reference').encode('unicode_escape').decode())",
                                 out},
                                dir_);
            EXPECT_EQ(p.code, 0) << "not well-formed XML: " << p.err;
            EXPECT_NE(p.out.find("\\ufffd\\ufffd \\ufffd\\ufffd[31m\\t\\n<&>\"'"),
                      std::string::npos)
                << p.out;
        }
    }
}

// ---- Smaller ones: Y4M corner cases -----------------------------------------------------------

TEST_F(IoTest, Y4mHeaderCornerCases) {
    const std::string frames = [&] {
        write_y4m(c, c.dist_path(), path("plain.y4m"));
        std::string all = slurp(path("plain.y4m"));
        return all.substr(all.find('\n') + 1);
    }();
    const std::string hdr = "YUV4MPEG2 W64 H64 F25:1 Ip A1:1 C420jpeg";
    write_y4m(c, c.ref_path(), path("r.y4m"));
    auto score = [&](const std::string &y4m, const std::string &what) {
        spit(path("d.y4m"), y4m);
        CliRun r = vif({"-r", path("r.y4m"), "-d", path("d.y4m"), "--precision", "max", "-q", "-o",
                        path("o.json")});
        EXPECT_EQ(r.code, 0) << what << ": " << r.err;
        if (r.code == 0) expect_case_scores(json::parse(slurp(path("o.json"))), what);
    };
    auto refused = [&](const std::string &y4m, const std::string &needle) {
        spit(path("d.y4m"), y4m);
        CliRun r = vif({"-r", path("r.y4m"), "-d", path("d.y4m"), "-q", "-o", path("o.json")});
        EXPECT_NE(r.code, 0) << needle;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    };
    // Valid: a header over 4 KiB, FRAME lines over 256 bytes, a newline after the last frame.
    score(hdr + " X" + std::string(5000, 'a') + "\n" + frames, "a 5 KB header");
    std::string long_frames;
    for (size_t off = 0; off < frames.size(); off += 6 + c.frame_bytes())
        long_frames +=
            "FRAME X" + std::string(300, 'b') + "\n" + frames.substr(off + 6, c.frame_bytes());
    score(hdr + "\n" + long_frames, "307-byte FRAME lines");
    score(hdr + "\n" + frames + "\n", "a trailing newline");
    // Named: CR LF line ends, a NUL in the header.
    refused(hdr + "\r\n" + frames, "CR LF");
    refused("YUV4MPEG2 W64 H64 X" + std::string(1, '\0') + " C420jpeg\n" + frames, "NUL");
}

// ---- 2 (numbers). libvmaf's exact text ------------------------------------------------------------

// libvmaf's rule, written out here on its own: %.6f, or %.16f when the fractional part of a
// non-negative value needs more than six multiplications by ten to reach 1.
std::string libvmaf_number(double v) {
    int steps = 0;
    if (v >= 0 && std::isfinite(v))
        for (double f = v - std::trunc(v); f < 1.0 && f != 0; f *= 10) ++steps;
    char buf[64];
    std::snprintf(buf, sizeof buf, steps > 6 ? "%.16f" : "%.6f", v);
    return buf;
}

TEST_F(IoTest, JsonIsLibvmafsOwnFileByteForByte) {
    // libvmaf's `vmaf --feature vif --feature float_vif --json` (testdata/libvmaf-json) on
    // every case testdata holds whole, and on every case of the shared set when it is there.
    struct Job {
        std::string json;
        GoldenCase c;
    };
    std::vector<Job> jobs;
    for (const auto &rc : repo_cases()) {
        const std::string lj = kData + "/libvmaf-json/" + rc.name + ".json";
        if (!fs::exists(lj)) continue;
        if (json::parse(slurp(lj))["frames"].size() == rc.frames) jobs.push_back({lj, rc});
    }
    EXPECT_FALSE(jobs.empty()) << "no whole case in testdata";
    for (const auto &sc : vif::testing::load_manifest(kShared)) {
        const std::string lj = kShared + "/libvmaf-json/" + sc.name + ".json";
        if (fs::exists(lj)) jobs.push_back({lj, sc});
    }
    auto without_version_and_fps = [](const std::string &text) {
        std::string out;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);)
            if (line.rfind("  \"version\": ", 0) != 0 && line.rfind("  \"fps\": ", 0) != 0)
                out += line + "\n";
        return out;
    };
    for (const Job &job : jobs) {
        auto a = case_args(job.c);
        a.insert(a.end(), {"--feature", "vif", "--feature", "float_vif", "--json", "-q", "-o",
                           path("o.json")});
        CliRun r = vif(a);
        ASSERT_EQ(r.code, 0) << job.json << ": " << r.err;
        EXPECT_EQ(without_version_and_fps(slurp(path("o.json"))),
                  without_version_and_fps(slurp(job.json)))
            << job.json;
    }
}

TEST_F(IoTest, CsvAndXmlAreLibvmafsLayoutWithItsNumbers) {
    // Built here from libvmaf's values (the expected CSV) and layout (libvmaf/src/output.c).
    const auto rows = vif::testing::load_expected(c.expected_path());
    const std::vector<std::string> keys = {"integer_vif_scale0", "integer_vif_scale1",
                                           "integer_vif_scale2", "integer_vif_scale3"};
    std::string csv = "Frame,";
    for (const auto &k : keys) csv += k + ",";
    csv += "\n";
    std::string frames_xml;
    for (size_t i = 0; i < rows.size(); ++i) {
        csv += std::to_string(i) + ",";
        frames_xml += "    <frame frameNum=\"" + std::to_string(i) + "\" ";
        for (const auto &k : keys) {
            csv += libvmaf_number(rows[i].at(k)) + ",";
            frames_xml += k + "=\"" + libvmaf_number(rows[i].at(k)) + "\" ";
        }
        csv += "\n";
        frames_xml += "/>\n";
    }
    std::string pooled_xml;
    for (const auto &k : keys) {
        double mn = INFINITY, mx = -INFINITY, sum = 0, inv = 0;
        for (const auto &row : rows) {
            const double v = row.at(k);
            mn = std::min(mn, v);
            mx = std::max(mx, v);
            sum += v;
            inv += 1.0 / (v + 1.0);
        }
        const double n = double(rows.size());
        pooled_xml += "    <metric name=\"" + k + "\" min=\"" + libvmaf_number(mn) + "\" max=\"" +
                      libvmaf_number(mx) + "\" mean=\"" + libvmaf_number(sum / n) +
                      "\" harmonic_mean=\"" + libvmaf_number(n / inv - 1.0) + "\" />\n";
    }
    auto a = case_args(c);
    a.insert(a.end(), {"--csv", "-q", "-o", path("o.csv")});
    CliRun r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(path("o.csv")), csv);
    a = case_args(c);
    a.insert(a.end(), {"--xml", "-q", "-o", path("o.xml")});
    r = vif(a);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string xml = slurp(path("o.xml"));
    const std::regex head("<VMAF version=\"[^\"]*\">\n  <params qualityWidth=\"64\" "
                          "qualityHeight=\"64\" />\n  <fyi fps=\"[0-9.]+\" />\n");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(xml, m, head) && m.position(0) == 0) << xml;
    EXPECT_EQ(xml.substr(size_t(m.length(0))),
              "  <frames>\n" + frames_xml + "  </frames>\n  <pooled_metrics>\n" + pooled_xml +
                  "  </pooled_metrics>\n  <aggregate_metrics />\n</VMAF>\n");
}

TEST_F(IoTest, TinyScoresPrintedWithSixteenDecimals) {
    // A random reference against a flat frame with a few samples off by one: per-scale scores
    // far below 1e-6, which %.6f would print as 0.000000 or 0.000001.
    const int w = 64, h = 64;
    std::string ref, dist;
    uint32_t lcg = 7;
    for (int f = 0; f < 2; ++f) {
        std::string rf(size_t(w) * h * 3 / 2, char(128)), df = rf;
        for (int i = 0; i < w * h; ++i) {
            lcg = lcg * 1664525u + 1013904223u;
            rf[size_t(i)] = char(lcg >> 24);
            if (i % 611 == f) df[size_t(i)] = char(129);
        }
        ref += rf;
        dist += df;
    }
    spit(path("r.yuv"), ref);
    spit(path("d.yuv"), dist);
    const std::vector<std::string> base = {"-r", path("r.yuv"), "-d", path("d.yuv"), "-w",
                                           "64", "-h",          "64", "-p",          "420",
                                           "-b", "8",           "-q"};
    auto a = base;
    a.insert(a.end(), {"--precision", "max", "-o", path("max.json")});
    ASSERT_EQ(vif(a).code, 0);
    a = base;
    a.insert(a.end(), {"-o", path("o.json")});
    ASSERT_EQ(vif(a).code, 0);
    const json exact = json::parse(slurp(path("max.json")));
    const std::string text = slurp(path("o.json"));
    int tiny = 0;
    for (const auto &f : exact["frames"])
        for (auto it = f["metrics"].begin(); it != f["metrics"].end(); ++it) {
            const double v = it.value().get<double>();
            if (v != 0 && v < 1e-6) ++tiny;
            const std::string want = "\"" + it.key() + "\": " + libvmaf_number(v);
            EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
        }
    EXPECT_GT(tiny, 0) << "the frames made no tiny score: the test tests nothing";
}

// ---- 3 (options). libvmaf's spellings on the command line -----------------------------------------

TEST_F(IoTest, LibvmafSpellingsScoreTheSame) {
    const auto rows = vif::testing::load_expected(c.expected_path());
    CliRun r = vif({"--reference",
                    c.ref_path(),
                    "--distorted",
                    c.dist_path(),
                    "--width",
                    "64",
                    "--height",
                    "64",
                    "--pixel_format",
                    "420",
                    "--bitdepth",
                    "8",
                    "--feature",
                    "vif=vif_enhn_gain_limit=1.0",
                    "-n",
                    "--threads",
                    "2",
                    "--frame_cnt",
                    "2",
                    "--frame_skip_ref",
                    "0",
                    "--frame_skip_dist",
                    "0",
                    "--subsample",
                    "1",
                    "--json",
                    "--precision",
                    "max",
                    "-q",
                    "-o",
                    path("o.json")});
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(slurp(path("o.json")));
    ASSERT_EQ(j["frames"].size(), 2u);
    for (size_t i = 0; i < 2; ++i)
        for (int s = 0; s < 4; ++s) {
            const std::string k = "integer_vif_scale" + std::to_string(s) + "_egl_1";
            EXPECT_EQ(j["frames"][i]["metrics"][k].get<double>(), rows[i].at(k)) << k;
        }
    r = vif({"-v"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out.rfind("vif ", 0), 0u) << r.out;
}

} // namespace
