// Helpers for tests/ffmpeg: golden cases, AVFrames built from raw testdata in any pixel format,
// scoring through libvif, lossless encodes made with the ffmpeg CLI in a temporary folder.
#pragma once

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
}

#include "frame_builder.hpp"
#include "vif/vif.h"
#include "vif/vif_ffmpeg.h"

namespace vif::fftest {

// A context for frames of this size and depth on the CPU backend (integer variant).
struct Ctx {
    VifContext* ctx = nullptr;
    Ctx(uint32_t w, uint32_t h, uint32_t depth, VifVariant variant = VIF_VARIANT_INTEGER,
        uint32_t queue_depth = 0) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = w;
        cfg.max_height = h;
        cfg.bitdepth = depth;
        cfg.variant = variant;
        cfg.backend = VIF_BACKEND_CPU;
        cfg.threads = 2;
        cfg.queue_depth = queue_depth;
        if (vif_create(&ctx, &cfg) != VIF_OK) ADD_FAILURE() << "vif_create: " << vif_last_error();
    }
    ~Ctx() { vif_destroy(ctx); }
    Ctx(const Ctx&) = delete;
    Ctx& operator=(const Ctx&) = delete;
    operator VifContext*() const { return ctx; }

    // vif_ffmpeg_submit / vif_submit; on VIF_AGAIN (queue_depth frames' scores wait to be
    // received) takes the oldest scores into *out and tries again.
    VifStatus submit(const AVFrame* r, const AVFrame* d, uint64_t* index,
                     std::vector<VifScores>* out) {
        VifStatus st;
        VifScores s;
        while ((st = vif_ffmpeg_submit(ctx, r, d, index)) == VIF_AGAIN &&
               vif_receive(ctx, &s, 1) == VIF_OK)
            out->push_back(s);
        return st;
    }
    VifStatus submit(const VifPicture* r, const VifPicture* d, uint64_t* index,
                     std::vector<VifScores>* out) {
        VifStatus st;
        VifScores s;
        while ((st = vif_submit(ctx, r, d, index)) == VIF_AGAIN &&
               vif_receive(ctx, &s, 1) == VIF_OK)
            out->push_back(s);
        return st;
    }

    // Polls for ready scores (block = false), or drains (block = true).
    void collect(std::vector<VifScores>* out, bool block) {
        VifScores s;
        while (vif_receive(ctx, &s, block ? 1 : 0) == VIF_OK) out->push_back(s);
    }
};

// Checks scores against expected rows (integer VIF: every value equal) and that frame indices
// run 0, 1, 2, ... Returns the number of frames compared.
inline void expect_golden(const GoldenCase& c, const std::vector<VifScores>& got,
                          const std::string& what) {
    const auto rows = vif::testing::load_expected(c.expected_path());
    ASSERT_GE(rows.size(), size_t(c.frames)) << c.expected_path();
    ASSERT_EQ(got.size(), size_t(c.frames)) << what << ": frames scored";
    for (size_t i = 0; i < got.size(); ++i) {
        const auto& r = rows[i];
        const VifScores& s = got[i];
        EXPECT_EQ(s.frame_index, i) << what;
        for (int k = 0; k < 4; ++k) {
            const std::string n = std::to_string(k);
            EXPECT_EQ(s.scale[k], r.at("integer_vif_scale" + n))
                << what << " frame " << i << " scale " << k;
            EXPECT_EQ(s.num[k], r.at("integer_vif_num_scale" + n))
                << what << " frame " << i << " num " << k;
            EXPECT_EQ(s.den[k], r.at("integer_vif_den_scale" + n))
                << what << " frame " << i << " den " << k;
        }
        EXPECT_EQ(s.combined, r.at("integer_vif")) << what << " frame " << i;
    }
}

// ---- Temporary folder and the ffmpeg CLI ---------------------------------------------------
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

struct CommandResult {
    int status = -1;
    std::string output; // stdout and stderr together
};

inline CommandResult run_command(const std::string& cmd) {
    CommandResult r;
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline std::string ffmpeg_binary() {
    const char* env = std::getenv("VIF_TEST_FFMPEG");
    std::string bin = env && *env ? env : VIF_FFMPEG_EXECUTABLE;
    if (bin.empty()) return "";
    if (run_command(shell_quote(bin) + " -hide_banner -version").status != 0) return "";
    return bin;
}

// A folder under $TMPDIR removed (with its files) when the process ends.
inline const std::string& temp_dir() {
    static std::string dir = [] {
        const char* t = std::getenv("TMPDIR");
        std::string tmpl = std::string(t && *t ? t : "/tmp") + "/vif_ffmpeg_test_XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (!::mkdtemp(buf.data())) return std::string();
        std::string d = buf.data();
        static struct Cleanup {
            std::string dir;
            ~Cleanup() {
                if (!dir.empty() && !std::getenv("VIF_TEST_KEEP_TMP"))
                    run_command("rm -rf " + shell_quote(dir));
            }
        } cleanup;
        cleanup.dir = d;
        return d;
    }();
    return dir;
}

#define VIF_REQUIRE_FFMPEG(bin)                                                                    \
    const std::string bin = ::vif::fftest::ffmpeg_binary();                                        \
    if (bin.empty()) GTEST_SKIP() << "the ffmpeg binary is not available (set VIF_TEST_FFMPEG)"

#define VIF_REQUIRE_CASE(var, name)                                                                \
    const ::vif::fftest::GoldenCase* var = ::vif::fftest::find_case(name);                         \
    if (!var)                                                                                      \
    GTEST_SKIP() << "test case " << name << " not in testdata (looked in '"                        \
                 << ::vif::fftest::data_dir() << "')"

} // namespace vif::fftest
