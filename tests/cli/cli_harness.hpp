// Shared by the `vif` CLI tests: runs the built binary (VIF_CLI_UNDER_TEST in the environment
// points them at another build, e.g. an older one, to see a regression test fail there), with a
// time limit, capturing its output and peak memory; reads and writes test files; the fixture.
#ifndef VIF_TESTS_CLI_HARNESS_HPP
#define VIF_TESTS_CLI_HARNESS_HPP

#include "common/golden_data.hpp"

#include <vif/vif.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace vif_cli_test {

namespace fs = std::filesystem;
using vif::testing::GoldenCase;
using json = nlohmann::ordered_json;

inline const std::string kCli =
    std::getenv("VIF_CLI_UNDER_TEST") ? std::getenv("VIF_CLI_UNDER_TEST") : VIF_CLI_PATH;
inline const std::string kData = VIF_TESTDATA_DIR;
inline const std::string kShared = VIF_SHARED_TESTDATA_DIR;

/** Seconds a command may run before it is killed (SIGALRM: code 128 + 14): no test hangs. */
constexpr unsigned kTimeLimit = 120;

struct CliRun {
    int code = -1;
    std::string out, err;
    long max_rss_kb = 0; ///< the child's peak resident memory
};

inline std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void spit(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Runs argv[0] with argv, stdout and stderr captured through files in `dir`.
inline CliRun run_argv(const std::vector<std::string> &argv, const std::string &dir) {
    const std::string out = dir + "/.stdout", err = dir + "/.stderr";
    pid_t pid = fork();
    if (pid == 0) {
        int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fi = ::open("/dev/null", O_RDONLY);
        dup2(fo, 1);
        dup2(fe, 2);
        dup2(fi, 0);
        alarm(kTimeLimit); // survives exec: the command is killed if it hangs
        std::vector<char *> args;
        for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.max_rss_kb = ru.ru_maxrss;
    r.out = slurp(out);
    r.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return r;
}

inline std::string raw_args_str(const GoldenCase &c) {
    return "-w " + std::to_string(c.width) + " -h " + std::to_string(c.height) + " -p " + c.pix +
           " -b " + std::to_string(c.bitdepth);
}

inline std::vector<std::string> raw_args(const GoldenCase &c) {
    return {"-w", std::to_string(c.width),   "-h", std::to_string(c.height), "-p", c.pix,
            "-b", std::to_string(c.bitdepth)};
}

inline std::vector<GoldenCase> repo_cases() {
    return vif::testing::load_manifest(kData);
}

inline const GoldenCase &find_case(const std::string &name) {
    static const std::vector<GoldenCase> cases = repo_cases();
    for (const auto &c : cases)
        if (c.name == name) return c;
    throw std::runtime_error("no test case " + name);
}

// The expected CSV's columns for one variant and option set, in the CSV's order.
inline std::vector<std::string> expected_keys(const std::string &csv, bool integer, bool egl1) {
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> keys;
    for (const auto &k : vif::testing::split_csv_line(line)) {
        if (k == "frame") continue;
        const bool is_int = k.rfind("integer_", 0) == 0;
        const bool is_egl = k.size() > 6 && k.compare(k.size() - 6, 6, "_egl_1") == 0;
        if (is_int == integer && is_egl == egl1) keys.push_back(k);
    }
    return keys;
}

inline bool is_score_key(const std::string &k) {
    return k.find("_num") == std::string::npos && k.find("_den") == std::string::npos;
}

// Reads a raw case's frames (whole frames, all planes).
inline std::string frame_bytes(const GoldenCase &c, const std::string &path, uint32_t first,
                               uint32_t count) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(std::streamoff(c.frame_bytes() * first));
    std::string buf(c.frame_bytes() * count, '\0');
    in.read(buf.data(), std::streamsize(buf.size()));
    buf.resize(size_t(in.gcount()));
    return buf;
}

inline std::string y4m_colorspace(const GoldenCase &c) {
    std::string base = c.pix == "420" ? (c.bitdepth == 8 ? "420jpeg" : "420") : c.pix;
    return c.bitdepth == 8 ? base : base + "p" + std::to_string(c.bitdepth);
}

// Writes a Y4M file holding the raw file's frames, with FRAME headers (optionally with params).
inline void write_y4m(const GoldenCase &c, const std::string &raw, const std::string &dst,
                      bool frame_params = false) {
    std::string all = slurp(raw);
    std::string y4m = "YUV4MPEG2 W" + std::to_string(c.width) + " H" + std::to_string(c.height) +
                      " F25:1 Ip A1:1 C" + y4m_colorspace(c) + " XYSCSS=TEST\n";
    for (size_t off = 0; off + c.frame_bytes() <= all.size(); off += c.frame_bytes())
        y4m += (frame_params ? "FRAME Ip XTEST=1\n" : "FRAME\n") + all.substr(off, c.frame_bytes());
    spit(dst, y4m);
}

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/vif_cli_test.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string &name) const { return dir_ + "/" + name; }

    CliRun vif(std::vector<std::string> args) {
        args.insert(args.begin(), kCli);
        return run_argv(args, dir_);
    }
    CliRun shell(const std::string &cmd) { return run_argv({"/bin/sh", "-c", cmd}, dir_); }
    CliRun bash(const std::string &cmd) { return run_argv({"/bin/bash", "-c", cmd}, dir_); }

    // Scores a case and returns the parsed JSON (asserting success).
    json score_json(const GoldenCase &c, std::vector<std::string> extra,
                    const std::string &ref = "", const std::string &dist = "") {
        std::vector<std::string> a = {"-r", ref.empty() ? c.ref_path() : ref, "-d",
                                      dist.empty() ? c.dist_path() : dist};
        auto ra = raw_args(c);
        a.insert(a.end(), ra.begin(), ra.end());
        a.insert(a.end(), extra.begin(), extra.end());
        a.insert(a.end(), {"-o", path("out.json"), "--json", "-q"});
        CliRun r = vif(a);
        EXPECT_EQ(r.code, 0) << c.name << ": " << r.err;
        if (r.code != 0) return json();
        json j = json::parse(slurp(path("out.json")), nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << c.name << ": output is not JSON";
        return j;
    }

    // Files in the temp dir other than the ones a test made (outputs, temporary files).
    std::vector<std::string> leftovers(const std::vector<std::string> &made) const {
        std::vector<std::string> out;
        for (const auto &e : fs::directory_iterator(dir_)) {
            std::string n = e.path().filename().string();
            if (std::find(made.begin(), made.end(), n) == made.end()) out.push_back(n);
        }
        return out;
    }

    // A bad-input run: non-zero exit, a one-line message containing every `needles`, and no
    // output file (nor temporary file) left behind.
    void expect_failure(std::vector<std::string> args, const std::vector<std::string> &needles,
                        const std::vector<std::string> &made = {}) {
        args.insert(args.end(), {"-o", path("out.json"), "-q"});
        CliRun r = vif(args);
        EXPECT_NE(r.code, 0) << "should fail: " << r.err;
        EXPECT_LT(r.code, 128) << "crashed: " << r.err;
        for (const auto &n : needles)
            EXPECT_NE(r.err.find(n), std::string::npos)
                << "stderr should mention '" << n << "': " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err.rfind("vif: error: ", 0), 0u) << r.err;
        EXPECT_TRUE(leftovers(made).empty())
            << "left behind: " << (leftovers(made).empty() ? "" : leftovers(made)[0]);
    }

    std::string dir_;
};

// Compares every frame of a JSON output with the expected CSV's columns `keys`.
inline void expect_frames_match(const json &j,
                                const std::vector<std::map<std::string, double>> &rows,
                                const std::vector<std::string> &keys, bool integer,
                                const std::string &what,
                                const std::vector<size_t> &row_of_frame = {}) {
    ASSERT_TRUE(j.contains("frames")) << what;
    const auto &frames = j["frames"];
    const size_t n = row_of_frame.empty() ? rows.size() : row_of_frame.size();
    ASSERT_EQ(frames.size(), n) << what;
    for (size_t i = 0; i < n; ++i) {
        const auto &row = rows[row_of_frame.empty() ? i : row_of_frame[i]];
        const auto &m = frames[i]["metrics"];
        // Same keys, in the CSV's (libvmaf's) order.
        std::vector<std::string> got;
        for (auto it = m.begin(); it != m.end(); ++it) got.push_back(it.key());
        EXPECT_EQ(got, keys) << what << " frame " << i;
        for (const auto &k : keys) {
            ASSERT_TRUE(m.contains(k)) << what << " frame " << i << " has no " << k;
            double want = row.at(k), have = m[k].get<double>();
            if (integer)
                EXPECT_EQ(have, want) << what << " frame " << i << " " << k;
            else if (is_score_key(k))
                EXPECT_NEAR(have, want, 1e-4) << what << " frame " << i << " " << k;
            else
                EXPECT_NEAR(have, want, 1e-4 * std::max(1.0, std::fabs(want)))
                    << what << " frame " << i << " " << k;
        }
    }
}

inline std::vector<std::string> case_args(const GoldenCase &c, const std::string &ref = "",
                                          const std::string &dist = "") {
    std::vector<std::string> a = {"-r", ref.empty() ? c.ref_path() : ref, "-d",
                                  dist.empty() ? c.dist_path() : dist};
    auto ra = raw_args(c);
    a.insert(a.end(), ra.begin(), ra.end());
    return a;
}

} // namespace vif_cli_test

#endif
