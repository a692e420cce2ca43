// vif_submit_multi: one reference against several distorted pictures (a ladder's rungs). On every
// backend the scores must equal libvmaf's values of each pair (testdata/expected) and those of
// separate vif_submit calls bit for bit, come out in order with consecutive indices, and a
// refused call must queue nothing. The CUDA instances skip without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/golden_data.hpp"
#include "vif/vif.h"

namespace {

using vif::testing::GoldenCase;

GoldenCase find_case(const std::string& name) {
    for (const GoldenCase& c : vif::testing::load_manifest(VIF_TESTDATA_DIR))
        if (c.name == name) return c;
    ADD_FAILURE() << "case " << name << " missing from testdata";
    return {};
}

class Multi : public ::testing::TestWithParam<VifBackend> {
protected:
    void SetUp() override {
        if (GetParam() == VIF_BACKEND_CUDA && !vif_cuda_available())
            GTEST_SKIP() << "no CUDA device (or no CUDA backend in this build): nothing compared";
    }
    VifContext* make(uint32_t w, uint32_t h, uint32_t bpc = 8, VifVariant v = VIF_VARIANT_INTEGER,
                     uint32_t threads = 0, uint32_t depth = 0) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = w;
        cfg.max_height = h;
        cfg.bitdepth = bpc;
        cfg.variant = v;
        cfg.backend = GetParam();
        cfg.threads = threads;
        cfg.queue_depth = depth;
        VifContext* ctx = nullptr;
        EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
        return ctx;
    }
};

// The three kodim23pan cases share one reference: crf35, blur and identical rungs.
const char* const kRungs[] = {"kodim23pan_576x324_8b_crf35", "kodim23pan_576x324_8b_blur",
                              "kodim23pan_576x324_8b_identical"};

TEST_P(Multi, LadderGivesLibvmafValuesOfEveryPair) {
    std::vector<GoldenCase> cases;
    for (const char* n : kRungs) cases.push_back(find_case(n));
    const GoldenCase& c = cases[0];
    for (const GoldenCase& k : cases) ASSERT_EQ(k.ref_file, c.ref_file) << "testdata changed";
    VifContext* ctx = make(c.width, c.height);
    ASSERT_NE(ctx, nullptr);
    const auto ref = vif::testing::read_luma(c, c.ref_path(), 0);
    ASSERT_FALSE(ref.empty());
    std::vector<std::vector<uint8_t>> planes;
    std::vector<VifPicture> pics;
    for (const GoldenCase& k : cases)
        planes.push_back(vif::testing::read_luma(k, k.dist_path(), 0));
    for (const auto& p : planes) pics.push_back({p.data(), c.width, c.width, c.height, 8, 0});
    std::vector<const VifPicture*> dists;
    for (const auto& p : pics) dists.push_back(&p);
    VifPicture r{ref.data(), c.width, c.width, c.height, 8, 0};

    // Twice: the second call must not reuse stale reference work of the first.
    for (int round = 0; round < 2; ++round) {
        uint64_t first = 99;
        ASSERT_EQ(vif_submit_multi(ctx, &r, dists.data(), dists.size(), &first), VIF_OK)
            << vif_last_error();
        EXPECT_EQ(first, round * dists.size());
        EXPECT_EQ(vif_pending(ctx), dists.size());
        for (size_t k = 0; k < cases.size(); ++k) {
            VifScores s{};
            ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
            EXPECT_EQ(s.frame_index, first + k);
            const auto expected = vif::testing::load_expected(cases[k].expected_path());
            ASSERT_FALSE(expected.empty());
            for (int sc = 0; sc < 4; ++sc)
                EXPECT_EQ(s.scale[sc], expected[0].at("integer_vif_scale" + std::to_string(sc)))
                    << cases[k].name << " scale " << sc;
            EXPECT_EQ(s.combined, expected[0].at("integer_vif")) << cases[k].name;
        }
    }
    VifScores none;
    EXPECT_EQ(vif_receive(ctx, &none, 0), VIF_AGAIN);
    vif_destroy(ctx);
}

// Deterministic noise-like planes of any bit depth (values below 2^bpc).
std::vector<uint16_t> pattern(int w, int h, int bpc, uint32_t seed) {
    std::vector<uint16_t> v(static_cast<size_t>(w) * h);
    uint32_t x = seed * 2654435761u + 1;
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            x = x * 1664525u + 1013904223u;
            const uint32_t smooth = ((i * 7 + j * 3) % 97) * 2;
            v[static_cast<size_t>(i) * w + j] =
                static_cast<uint16_t>(((x >> 24) + smooth * (seed % 3)) & ((1u << bpc) - 1));
        }
    return v;
}

struct Layout {
    std::vector<uint8_t> bytes;
    VifPicture pic;
};

Layout layout(const std::vector<uint16_t>& v, int w, int h, int bpc) {
    Layout out;
    const size_t bps = bpc == 8 ? 1 : 2;
    out.bytes.resize(v.size() * bps);
    for (size_t i = 0; i < v.size(); ++i) {
        if (bpc == 8)
            out.bytes[i] = static_cast<uint8_t>(v[i]);
        else
            std::memcpy(&out.bytes[2 * i], &v[i], 2);
    }
    out.pic = VifPicture{out.bytes.data(),           static_cast<ptrdiff_t>(w * bps),
                         static_cast<uint32_t>(w),   static_cast<uint32_t>(h),
                         static_cast<uint32_t>(bpc), 0};
    return out;
}

// Every field equal, bit for bit, to separate vif_submit calls; mixed with ordinary submissions.
TEST_P(Multi, EqualsSeparatePairsAcrossDepthsAndVariants) {
    struct Shape {
        int w, h, bpc;
        VifVariant v;
    };
    for (const Shape sh :
         {Shape{67, 45, 8, VIF_VARIANT_INTEGER}, Shape{128, 72, 10, VIF_VARIANT_INTEGER},
          Shape{96, 64, 12, VIF_VARIANT_INTEGER}, Shape{80, 80, 16, VIF_VARIANT_INTEGER},
          Shape{100, 60, 8, VIF_VARIANT_FLOAT}}) {
        SCOPED_TRACE(std::to_string(sh.w) + "x" + std::to_string(sh.h) + " " +
                     std::to_string(sh.bpc) + "-bit variant " + std::to_string(sh.v));
        const int K = 5;
        const Layout ref = layout(pattern(sh.w, sh.h, sh.bpc, 1), sh.w, sh.h, sh.bpc);
        std::vector<Layout> d;
        for (int k = 0; k < K; ++k)
            d.push_back(layout(pattern(sh.w, sh.h, sh.bpc, 10 + k), sh.w, sh.h, sh.bpc));
        std::vector<const VifPicture*> dists;
        for (const Layout& l : d) dists.push_back(&l.pic);

        VifContext* one = make(sh.w, sh.h, sh.bpc, sh.v, 2, 16);
        VifContext* many = make(sh.w, sh.h, sh.bpc, sh.v, 2, 16);
        ASSERT_TRUE(one && many);
        std::vector<VifScores> a(K + 1), b(K + 1);
        for (int k = 0; k < K; ++k) ASSERT_EQ(vif_submit(one, &ref.pic, dists[k], nullptr), VIF_OK);
        ASSERT_EQ(vif_submit(one, &d[0].pic, &ref.pic, nullptr), VIF_OK);
        for (auto& s : a) ASSERT_EQ(vif_receive(one, &s, 1), VIF_OK);
        ASSERT_EQ(vif_submit_multi(many, &ref.pic, dists.data(), K, nullptr), VIF_OK)
            << vif_last_error();
        uint64_t idx = 0;
        ASSERT_EQ(vif_submit(many, &d[0].pic, &ref.pic, &idx), VIF_OK); // an ordinary pair after
        EXPECT_EQ(idx, static_cast<uint64_t>(K));
        for (auto& s : b) ASSERT_EQ(vif_receive(many, &s, 1), VIF_OK);
        for (int k = 0; k <= K; ++k) {
            EXPECT_EQ(a[k].frame_index, b[k].frame_index);
            for (int sc = 0; sc < 4; ++sc) {
                EXPECT_EQ(a[k].num[sc], b[k].num[sc]) << "pair " << k << " scale " << sc;
                EXPECT_EQ(a[k].den[sc], b[k].den[sc]) << "pair " << k << " scale " << sc;
            }
            EXPECT_EQ(a[k].combined, b[k].combined) << "pair " << k;
            EXPECT_GT(a[k].den_sum, 0.0); // something was computed
        }
        vif_destroy(one);
        vif_destroy(many);
    }
}

TEST_P(Multi, RefusedCallsQueueNothing) {
    // CUDA queues each pair as a frame: room for the largest call.
    const bool cuda = GetParam() == VIF_BACKEND_CUDA;
    VifContext* ctx = make(64, 64, 8, VIF_VARIANT_INTEGER, 1, cuda ? VIF_MAX_DISTORTED : 1);
    ASSERT_NE(ctx, nullptr);
    std::vector<uint8_t> a(64 * 64, 100), small(32 * 32, 7);
    VifPicture p{a.data(), 64, 64, 64, 8, 0}, q{small.data(), 32, 32, 32, 8, 0};
    const VifPicture* two[] = {&p, &q};
    const VifPicture* with_null[] = {&p, nullptr};
    auto refused = [&](VifStatus st, const char* part) {
        EXPECT_NE(std::string(vif_last_error()).find(part), std::string::npos) << vif_last_error();
        EXPECT_EQ(vif_pending(ctx), 0u) << part;
        return st;
    };
    EXPECT_EQ(refused(vif_submit_multi(ctx, &p, two, 2, nullptr), "distorted[1]"),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused(vif_submit_multi(ctx, &p, with_null, 2, nullptr), "NULL"),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused(vif_submit_multi(ctx, &p, two, 0, nullptr), "count"),
              VIF_ERROR_INVALID_ARGUMENT);
    std::vector<const VifPicture*> many(VIF_MAX_DISTORTED + 1, &p);
    EXPECT_EQ(refused(vif_submit_multi(ctx, &p, many.data(), many.size(), nullptr), "count"),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused(vif_submit_multi(ctx, &p, nullptr, 1, nullptr), "dists"),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_submit_multi(nullptr, &p, two, 1, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused(vif_submit_multi(ctx, nullptr, two, 1, nullptr), "reference"),
              VIF_ERROR_INVALID_ARGUMENT);

    // Still usable, indices start at 0; the largest call is accepted.
    std::vector<const VifPicture*> max(VIF_MAX_DISTORTED, &p);
    uint64_t first = 7;
    ASSERT_EQ(vif_submit_multi(ctx, &p, max.data(), max.size(), &first), VIF_OK)
        << vif_last_error();
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(vif_pending(ctx), static_cast<size_t>(VIF_MAX_DISTORTED));
    for (size_t k = 0; k < max.size(); ++k) {
        VifScores s;
        ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
        EXPECT_EQ(s.frame_index, k);
        EXPECT_EQ(s.combined, 1.0); // identical flat pictures
    }
    vif_destroy(ctx);
}

// The queue rule of vif.h: CPU, one place per call; CUDA, one place per pair.
TEST_P(Multi, FullQueueSaysAgainAndQueuesNothing) {
    const bool cuda = GetParam() == VIF_BACKEND_CUDA;
    VifContext* ctx = make(64, 64, 8, VIF_VARIANT_INTEGER, 1, cuda ? 3 : 1);
    ASSERT_NE(ctx, nullptr);
    std::vector<uint8_t> a(64 * 64, 100);
    VifPicture p{a.data(), 64, 64, 64, 8, 0};
    const VifPicture* four[] = {&p, &p, &p, &p};
    if (cuda) {
        EXPECT_EQ(vif_submit_multi(ctx, &p, four, 4, nullptr), VIF_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(vif_last_error()).find("queue_depth"), std::string::npos)
            << vif_last_error();
    }
    const VifPicture* const* three = four;
    ASSERT_EQ(vif_submit_multi(ctx, &p, three, 3, nullptr), VIF_OK);
    uint64_t idx = 42;
    EXPECT_EQ(vif_submit_multi(ctx, &p, three, 3, &idx), VIF_AGAIN);
    EXPECT_EQ(idx, 42u);
    EXPECT_EQ(vif_pending(ctx), 3u);
    VifScores s;
    ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    // CPU: two of the three still wait, the slot is not free yet. CUDA: one place is free.
    EXPECT_EQ(vif_submit_multi(ctx, &p, three, 2, nullptr), VIF_AGAIN);
    EXPECT_EQ(vif_pending(ctx), 2u);
    ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    EXPECT_EQ(s.frame_index, 2u);
    ASSERT_EQ(vif_submit_multi(ctx, &p, three, 2, &idx), VIF_OK);
    EXPECT_EQ(idx, 3u);
    EXPECT_EQ(vif_pending(ctx), 2u);
    vif_destroy(ctx); // with pairs pending
}

INSTANTIATE_TEST_SUITE_P(Backends, Multi, ::testing::Values(VIF_BACKEND_CPU, VIF_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<VifBackend>& i) {
                             return std::string(i.param == VIF_BACKEND_CPU ? "cpu" : "cuda");
                         });

} // namespace
