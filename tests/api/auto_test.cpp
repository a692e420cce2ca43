// The `auto` backend through the public API (docs/design.md, "auto in the library"): the CPU at
// once, the GPU once it has started. Without a GPU the tests use the library's stand-in
// (VIF_TEST_AUTO=standin: a second CPU backend that becomes ready after a delay, or at a given
// frame, or fails to start); with one (the GPU machine's ctest) AutoCuda runs the real thing.
// Expected values: the --backend cpu context on the same frames, bit for bit, and libvmaf's
// golden values for the integer variant.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/golden_data.hpp"
#include "vif/vif.h"

namespace {

using vif::testing::GoldenCase;

// Sets VIF_TEST_AUTO for the scope (read by vif_create), and VIF_AUTO=handover: the hand-over
// whatever the build's default.
class AutoEnv {
public:
    explicit AutoEnv(const std::string& value) {
        setenv("VIF_TEST_AUTO", value.c_str(), 1);
        setenv("VIF_AUTO", "handover", 1);
    }
    ~AutoEnv() {
        unsetenv("VIF_TEST_AUTO");
        unsetenv("VIF_AUTO");
    }
};

GoldenCase find_case(const std::string& name) {
    for (const GoldenCase& c : vif::testing::load_manifest(VIF_TESTDATA_DIR))
        if (c.name == name) return c;
    ADD_FAILURE() << "case " << name << " missing from testdata";
    return {};
}

// A stream of `count` pairs cycling through a golden case's frames.
struct Stream {
    GoldenCase c;
    std::vector<std::vector<uint8_t>> ref, dist; // one per case frame
    uint32_t count = 0;
    VifPicture picture(const std::vector<uint8_t>& luma) const {
        return VifPicture{luma.data(), ptrdiff_t(c.width * c.bytes_per_sample()),
                          c.width,     c.height,
                          c.bitdepth,  0};
    }
};

Stream load_stream(const std::string& name, uint32_t count) {
    Stream s;
    s.c = find_case(name);
    s.count = count;
    for (uint32_t f = 0; f < s.c.frames; ++f) {
        s.ref.push_back(vif::testing::read_luma(s.c, s.c.ref_path(), f));
        s.dist.push_back(vif::testing::read_luma(s.c, s.c.dist_path(), f));
    }
    return s;
}

struct ScoredRun {
    std::vector<VifScores> scores;
    std::vector<std::vector<int32_t>> maps_int; // scale 0's nl and dn terms a frame, when mapped
    std::vector<std::vector<float>> maps_float; // scale 0's num and den terms
    std::string backend;
};

// Scores the stream on a context of `backend`; drains everything every `drain_every` frames
// (0: only when the queue is full, and at the end).
ScoredRun score(const Stream& s, VifBackend backend, VifVariant variant, bool maps,
                uint32_t drain_every = 0) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = s.c.width;
    cfg.max_height = s.c.height;
    cfg.bitdepth = s.c.bitdepth;
    cfg.variant = variant;
    cfg.backend = backend;
    cfg.threads = 2;
    cfg.maps = maps ? 1 : 0;
    ScoredRun run;
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    if (!ctx) return run;
    auto take = [&]() {
        VifScores sc;
        VifMaps m;
        const VifStatus st = maps ? vif_receive_maps(ctx, &sc, &m, 1) : vif_receive(ctx, &sc, 1);
        EXPECT_EQ(st, VIF_OK) << vif_last_error();
        if (st != VIF_OK) return false;
        run.scores.push_back(sc);
        if (maps) {
            const size_t n = size_t(m.scale[0].width) * m.scale[0].height;
            if (m.scale[0].nl) {
                std::vector<int32_t> v(m.scale[0].nl, m.scale[0].nl + n);
                v.insert(v.end(), m.scale[0].dn, m.scale[0].dn + n);
                run.maps_int.push_back(std::move(v));
            } else {
                std::vector<float> v(m.scale[0].num, m.scale[0].num + n);
                v.insert(v.end(), m.scale[0].den, m.scale[0].den + n);
                run.maps_float.push_back(std::move(v));
            }
        }
        return true;
    };
    for (uint32_t i = 0; i < s.count; ++i) {
        const uint32_t f = i % s.c.frames;
        const VifPicture r = s.picture(s.ref[f]), d = s.picture(s.dist[f]);
        VifStatus st;
        while ((st = vif_submit(ctx, &r, &d, nullptr)) == VIF_AGAIN)
            if (!take()) break;
        EXPECT_EQ(st, VIF_OK) << vif_last_error();
        if (drain_every && (i + 1) % drain_every == 0)
            while (vif_pending(ctx))
                if (!take()) break;
    }
    while (vif_pending(ctx))
        if (!take()) break;
    run.backend = vif_backend_name(ctx);
    vif_destroy(ctx);
    return run;
}

void expect_same(const ScoredRun& got, const ScoredRun& want) {
    ASSERT_EQ(got.scores.size(), want.scores.size());
    for (size_t i = 0; i < got.scores.size(); ++i) {
        EXPECT_EQ(got.scores[i].frame_index, i);
        EXPECT_EQ(std::memcmp(&got.scores[i], &want.scores[i], sizeof(VifScores)), 0)
            << "frame " << i << " (" << got.backend << ")";
    }
    EXPECT_EQ(got.maps_int == want.maps_int, true) << "integer maps differ";
    EXPECT_EQ(got.maps_float == want.maps_float, true) << "float maps differ";
}

// libvmaf's values for the integer variant (the CPU run is checked against them too, so the
// comparison above is not only with the code under test).
void expect_golden(const Stream& s, const ScoredRun& run) {
    const auto expected = vif::testing::load_expected(s.c.expected_path());
    ASSERT_EQ(expected.size(), size_t(s.c.frames));
    ASSERT_EQ(run.scores.size(), size_t(s.count));
    for (size_t i = 0; i < run.scores.size(); ++i)
        for (int k = 0; k < 4; ++k)
            EXPECT_EQ(run.scores[i].scale[k],
                      expected[i % s.c.frames].at("integer_vif_scale" + std::to_string(k)))
                << "frame " << i << " scale " << k;
}

struct Case {
    const char* name;
    VifVariant variant;
    bool maps;
};

class AutoStandin : public ::testing::TestWithParam<Case> {};

// The hand-over before every few frames (0: the stand-in takes them all; past the end: it never
// does), the caller draining at various points: always the CPU run, bit for bit, maps too.
TEST_P(AutoStandin, HandOverAnywhereGivesTheCpuRunBitForBit) {
    const Case p = GetParam();
    const Stream s = load_stream(p.name, 13);
    const ScoredRun want = score(s, VIF_BACKEND_CPU, p.variant, p.maps);
    if (p.variant == VIF_VARIANT_INTEGER) expect_golden(s, want);
    for (uint32_t at : {0u, 1u, 4u, 7u, 13u}) {
        for (uint32_t every : {0u, 1u, 3u}) {
            SCOPED_TRACE("hand-over before frame " + std::to_string(at) + ", drain every " +
                         std::to_string(every));
            AutoEnv env("standin,ms=0,frame=" + std::to_string(at));
            const ScoredRun got = score(s, VIF_BACKEND_AUTO, p.variant, p.maps, every);
            expect_same(got, want);
            EXPECT_EQ(got.backend, at == 0 ? "standin" : at >= s.count ? "cpu" : "cpu+standin");
        }
    }
}

// The stand-in ready whenever its delay says (no frame fixed): the same values.
TEST_P(AutoStandin, HandOverByTimeGivesTheCpuRunBitForBit) {
    const Case p = GetParam();
    const Stream s = load_stream(p.name, 40);
    const ScoredRun want = score(s, VIF_BACKEND_CPU, p.variant, p.maps);
    for (const char* ms : {"ms=0", "ms=3", "ms=20"}) {
        SCOPED_TRACE(ms);
        AutoEnv env(std::string("standin,") + ms);
        const ScoredRun got = score(s, VIF_BACKEND_AUTO, p.variant, p.maps);
        expect_same(got, want);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AutoStandin,
    ::testing::Values(Case{"foreman_176x144_8b_crf45", VIF_VARIANT_INTEGER, false},
                      Case{"foreman_176x144_8b_crf45", VIF_VARIANT_FLOAT, false},
                      Case{"foreman_176x144_8b_crf45", VIF_VARIANT_INTEGER, true},
                      Case{"foreman_176x144_8b_crf45", VIF_VARIANT_FLOAT, true},
                      Case{"cosmospan_576x324_10b_crf35", VIF_VARIANT_INTEGER, false}),
    [](const auto& info) {
        std::string n = info.param.variant == VIF_VARIANT_INTEGER ? "integer" : "float";
        if (info.param.maps) n += "_maps";
        return n + "_" + std::to_string(info.index);
    });

// A start-up that fails (a driver error) or finds no device: the context stays on the CPU and
// scores everything; the run does not fail.
TEST(AutoStart, FailedStartUpStaysOnTheCpu) {
    const Stream s = load_stream("foreman_176x144_8b_crf45", 9);
    const ScoredRun want = score(s, VIF_BACKEND_CPU, VIF_VARIANT_INTEGER, false);
    for (const char* how : {"standin,ms=0,fail", "standin,ms=0,nodevice", "standin,fail,frame=3"}) {
        SCOPED_TRACE(how);
        AutoEnv env(how);
        const ScoredRun got = score(s, VIF_BACKEND_AUTO, VIF_VARIANT_INTEGER, false);
        expect_same(got, want);
        EXPECT_EQ(got.backend, "cpu");
    }
}

// Destroyed while the stand-in is still starting (a minute): vif_destroy stops the start-up and
// returns (a hang here is the failure; ctest's timeout catches it).
TEST(AutoStart, DestroyWhileStartingReturns) {
    const Stream s = load_stream("foreman_176x144_8b_crf45", 3);
    AutoEnv env("standin,ms=60000");
    const ScoredRun got = score(s, VIF_BACKEND_AUTO, VIF_VARIANT_INTEGER, false);
    EXPECT_EQ(got.scores.size(), 3u);
    EXPECT_EQ(got.backend, "cpu");
    // And destroyed before any frame.
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = cfg.max_height = 64;
    VifContext* ctx = nullptr;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    vif_destroy(ctx);
}

// A process that exits with an `auto` context alive while the start-up runs (an interpreter at
// exit, a program leaving on an error): it exits cleanly, with status 0. The child is a fresh
// process (threadsafe death tests re-run the binary), so the start-up is its first.
void exit_with_live_context(const char* env) {
    if (env) setenv("VIF_TEST_AUTO", env, 1);
    setenv("VIF_AUTO", "handover", 1);
    const Stream s = load_stream("foreman_176x144_8b_crf45", 3);
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = s.c.width;
    cfg.max_height = s.c.height;
    VifContext* ctx = nullptr;
    if (vif_create(&ctx, &cfg) != VIF_OK) std::_Exit(3);
    const VifPicture r = s.picture(s.ref[0]), d = s.picture(s.dist[0]);
    VifScores sc;
    if (vif_score(ctx, &r, &d, &sc) != VIF_OK) std::_Exit(4);
    std::exit(0); // ctx never destroyed
}

TEST(AutoStartDeathTest, ExitWithALiveContextWhileStarting) {
    ::testing::FLAGS_gtest_death_test_style = "threadsafe";
    EXPECT_EXIT(exit_with_live_context("standin,ms=300"), ::testing::ExitedWithCode(0), "");
    EXPECT_EXIT(exit_with_live_context("standin,ms=0"), ::testing::ExitedWithCode(0), "");
    // The real start-up in CUDA builds (CUDA's driver and runtime at exit; on a machine without
    // a GPU it finds none), the plain CPU backend in others.
    EXPECT_EXIT(exit_with_live_context(nullptr), ::testing::ExitedWithCode(0), "");
}

// The GPU machine: a hand-over to the real CUDA backend at a given frame gives the CPU run bit
// for bit, both variants, maps too (skipped without a GPU).
TEST(AutoCuda, HandOverGivesTheCpuRunBitForBit) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no CUDA backend or no GPU";
    for (const Case& p : {Case{"foreman_176x144_8b_crf45", VIF_VARIANT_INTEGER, false},
                          Case{"foreman_176x144_8b_crf45", VIF_VARIANT_FLOAT, false},
                          Case{"foreman_176x144_8b_crf45", VIF_VARIANT_INTEGER, true},
                          Case{"foreman_176x144_8b_crf45", VIF_VARIANT_FLOAT, true},
                          Case{"cosmospan_576x324_10b_crf35", VIF_VARIANT_INTEGER, false}}) {
        SCOPED_TRACE(std::string(p.name) +
                     (p.variant == VIF_VARIANT_INTEGER ? " integer" : " float") +
                     (p.maps ? " maps" : ""));
        const Stream s = load_stream(p.name, 24);
        const ScoredRun want = score(s, VIF_BACKEND_CPU, p.variant, p.maps);
        if (p.variant == VIF_VARIANT_INTEGER) expect_golden(s, want);
        for (uint32_t at : {0u, 5u}) {
            AutoEnv env("frame=" + std::to_string(at));
            const ScoredRun got = score(s, VIF_BACKEND_AUTO, p.variant, p.maps, at ? 0 : 4);
            expect_same(got, want);
            EXPECT_EQ(got.backend, at == 0 ? "cuda" : "cpu+cuda");
        }
        // And by time, as an application sees it.
        setenv("VIF_AUTO", "handover", 1);
        const ScoredRun got = score(s, VIF_BACKEND_AUTO, p.variant, p.maps);
        unsetenv("VIF_AUTO");
        expect_same(got, want);
    }
}

// The GPU machine: `auto` is the hand-over unless VIF_AUTO=wait says otherwise (a hand-over held
// to frame 5 shows as "cpu+cuda"; waiting for the GPU scores every frame there, "cuda").
TEST(AutoCuda, TheHandOverIsTheDefault) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no CUDA backend or no GPU";
    const Stream s = load_stream("foreman_176x144_8b_crf45", 12);
    const ScoredRun want = score(s, VIF_BACKEND_CPU, VIF_VARIANT_INTEGER, false);
    unsetenv("VIF_AUTO");
    setenv("VIF_TEST_AUTO", "frame=5", 1);
    const ScoredRun by_default = score(s, VIF_BACKEND_AUTO, VIF_VARIANT_INTEGER, false);
    setenv("VIF_AUTO", "wait", 1);
    const ScoredRun waited = score(s, VIF_BACKEND_AUTO, VIF_VARIANT_INTEGER, false);
    unsetenv("VIF_AUTO");
    unsetenv("VIF_TEST_AUTO");
    expect_same(by_default, want);
    expect_same(waited, want);
    EXPECT_EQ(by_default.backend, "cpu+cuda");
    EXPECT_EQ(waited.backend, "cuda");
}

} // namespace
