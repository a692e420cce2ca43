// The public API's contracts: argument checks with status codes and messages, queue behaviour,
// determinism across thread counts, picture layouts, output names and pooling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/golden_data.hpp"
#include "vif/vif.h"
#include "vif/vif.hpp"

namespace {

using vif::testing::GoldenCase;

VifConfig config(uint32_t w, uint32_t h, uint32_t bpc = 8, VifVariant v = VIF_VARIANT_INTEGER) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.bitdepth = bpc;
    cfg.variant = v;
    cfg.backend = VIF_BACKEND_CPU;
    return cfg;
}

GoldenCase find_case(const std::string& name) {
    for (const GoldenCase& c : vif::testing::load_manifest(VIF_TESTDATA_DIR))
        if (c.name == name) return c;
    ADD_FAILURE() << "case " << name << " missing from testdata";
    return {};
}

TEST(Api, VersionAndStatusStrings) {
    // One definition (CMake's project version), seen the same through the header and the library.
    EXPECT_STREQ(vif_version(), VIF_VERSION_STRING);
    const std::string parts = std::to_string(VIF_VERSION_MAJOR) + "." +
                              std::to_string(VIF_VERSION_MINOR) + "." +
                              std::to_string(VIF_VERSION_PATCH);
    EXPECT_EQ(parts, vif_version());
    EXPECT_STREQ(vif_status_string(VIF_OK), "ok");
    EXPECT_STRNE(vif_status_string(VIF_ERROR_INVALID_ARGUMENT), "");
    EXPECT_STREQ(vif_status_string(static_cast<VifStatus>(1234)), "unknown status");
}

TEST(Api, DefaultConfig) {
    VifConfig cfg;
    std::memset(&cfg, 0xff, sizeof cfg);
    vif_default_config(&cfg);
    EXPECT_EQ(cfg.bitdepth, 8u);
    EXPECT_EQ(cfg.variant, VIF_VARIANT_INTEGER);
    EXPECT_EQ(cfg.backend, VIF_BACKEND_AUTO);
    EXPECT_EQ(cfg.enhn_gain_limit, 100.0);
    EXPECT_EQ(cfg.kernelscale, 1.0);
    for (uint32_t r : cfg.reserved) EXPECT_EQ(r, 0u);
}

struct BadConfig {
    const char* what;
    void (*mutate)(VifConfig&);
    const char* message_part;
};

TEST(Api, CreateRejectsBadConfigs) {
    const BadConfig cases[] = {
        {"bit depth 9", [](VifConfig& c) { c.bitdepth = 9; }, "bit depth"},
        {"gain limit below 1", [](VifConfig& c) { c.enhn_gain_limit = 0.5; }, "gain_limit"},
        {"gain limit above 100", [](VifConfig& c) { c.enhn_gain_limit = 101; }, "gain_limit"},
        {"gain limit NaN", [](VifConfig& c) { c.enhn_gain_limit = NAN; }, "gain_limit"},
        {"kernel scale on integer", [](VifConfig& c) { c.kernelscale = 2.0; }, "kernelscale"},
        {"unlisted kernel scale",
         [](VifConfig& c) {
             c.variant = VIF_VARIANT_FLOAT;
             c.kernelscale = 1.3;
         },
         "kernelscale"},
        {"width below 16", [](VifConfig& c) { c.max_width = 15; }, "minimum"},
        {"height zero", [](VifConfig& c) { c.max_height = 0; }, "minimum"},
        {"absurd width", [](VifConfig& c) { c.max_width = 40000; }, "limit"},
        {"unknown variant",
         [](VifConfig& c) {
             const int v = 7;
             std::memcpy(&c.variant, &v, sizeof v);
         },
         "variant"},
        {"unknown backend",
         [](VifConfig& c) {
             const int v = 9;
             std::memcpy(&c.backend, &v, sizeof v);
         },
         "backend"},
    };
    for (const BadConfig& bc : cases) {
        VifConfig cfg = config(64, 64);
        bc.mutate(cfg);
        VifContext* ctx = reinterpret_cast<VifContext*>(0x1);
        EXPECT_EQ(vif_create(&ctx, &cfg), VIF_ERROR_INVALID_ARGUMENT) << bc.what;
        EXPECT_EQ(ctx, nullptr) << bc.what;
        EXPECT_NE(std::string(vif_last_error()).find(bc.message_part), std::string::npos)
            << bc.what << ": " << vif_last_error();
    }
    VifConfig cfg = config(64, 64);
    EXPECT_EQ(vif_create(nullptr, &cfg), VIF_ERROR_INVALID_ARGUMENT);
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, nullptr), VIF_ERROR_INVALID_ARGUMENT);
}

TEST(Api, LargerKernelScalesNeedLargerFrames) {
    // ks = 3: widths 51/27/15/9 (docs/algorithm.md §5.3); scale 3 needs more than 4 samples: 40.
    VifConfig cfg = config(39, 64, 8, VIF_VARIANT_FLOAT);
    cfg.kernelscale = 3.0;
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_ERROR_INVALID_ARGUMENT);
    cfg.max_width = 40;
    cfg.max_height = 40;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    vif_destroy(ctx);
}

TEST(Api, CudaBackendWithoutGpuFailsClearly) {
    if (vif_cuda_available()) GTEST_SKIP() << "a GPU is present; covered by tests/parity";
    VifConfig cfg = config(64, 64);
    cfg.backend = VIF_BACKEND_CUDA;
    VifContext* ctx = nullptr;
    const VifStatus st = vif_create(&ctx, &cfg);
    EXPECT_TRUE(st == VIF_ERROR_NO_DEVICE || st == VIF_ERROR_UNSUPPORTED) << vif_status_string(st);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_STRNE(vif_last_error(), "");
    cfg.backend = VIF_BACKEND_AUTO; // auto falls back to the CPU
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    EXPECT_STREQ(vif_backend_name(ctx), "cpu");
    vif_destroy(ctx);
}

// vif_cuda_prepare: OK (and repeatable, also from another thread) with a GPU; without one, or
// for a device that does not exist, VIF_ERROR_NO_DEVICE with the reason.
TEST(Api, CudaPrepareReportsWhetherAGpuIsThere) {
    EXPECT_EQ(vif_cuda_prepare(4096), VIF_ERROR_NO_DEVICE);
    EXPECT_STRNE(vif_last_error(), "");
    if (!vif_cuda_available()) {
        EXPECT_EQ(vif_cuda_prepare(0), VIF_ERROR_NO_DEVICE);
        EXPECT_STRNE(vif_last_error(), "");
        return;
    }
    VifStatus other = VIF_ERROR_INTERNAL;
    std::thread t([&] { other = vif_cuda_prepare(0); });
    EXPECT_EQ(vif_cuda_prepare(0), VIF_OK) << vif_last_error();
    t.join();
    EXPECT_EQ(other, VIF_OK);
    EXPECT_EQ(vif_cuda_prepare(0), VIF_OK);
}

// vif_cuda_device_count: every device it counts can be named, the one after the last cannot;
// no GPU (or no CUDA build): 0.
TEST(Api, CudaDeviceCountBoundsTheDeviceNumbers) {
    const int n = vif_cuda_device_count();
    ASSERT_GE(n, 0);
    if (!vif_cuda_available()) {
        EXPECT_EQ(vif_cuda_prepare(n), VIF_ERROR_NO_DEVICE);
        return;
    }
    ASSERT_GE(n, 1);
    EXPECT_EQ(vif_cuda_prepare(n - 1), VIF_OK) << vif_last_error();
    EXPECT_EQ(vif_cuda_prepare(n), VIF_ERROR_NO_DEVICE);
}

TEST(Api, SubmitRejectsBadPicturesAndStaysUsable) {
    VifConfig cfg = config(64, 64);
    VifContext* ctx = nullptr;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    std::vector<uint8_t> a(64 * 64, 100), b(64 * 64, 90);
    VifPicture ra{a.data(), 64, 64, 64, 8, 0}, db{b.data(), 64, 64, 64, 8, 0};
    auto expect_bad = [&](VifPicture r, VifPicture d, const char* part) {
        EXPECT_EQ(vif_submit(ctx, &r, &d, nullptr), VIF_ERROR_INVALID_ARGUMENT) << part;
        EXPECT_NE(std::string(vif_last_error()).find(part), std::string::npos) << vif_last_error();
    };
    VifPicture p = ra;
    p.width = 65;
    expect_bad(p, db, "exceeds");
    p = db;
    p.height = 32;
    expect_bad(ra, p, "32");
    p = ra;
    p.bitdepth = 10;
    expect_bad(p, db, "10-bit");
    p = ra;
    p.stride = 63;
    expect_bad(p, db, "stride");
    p = ra;
    p.data = nullptr;
    expect_bad(p, db, "no data");
    p = ra;
    p.flags = 0x80;
    expect_bad(p, db, "flags");
    p = ra;
    p.flags = VIF_PICTURE_MSB_ALIGNED;
    expect_bad(p, db, "MSB");
    p = ra;
    p.width = 8;
    p.height = 8;
    expect_bad(p, p, "minimum");
    EXPECT_EQ(vif_submit(ctx, nullptr, &db, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_submit(nullptr, &ra, &db, nullptr), VIF_ERROR_INVALID_ARGUMENT);

    // Still usable: a flat pair scores, and frame indices start at 0 (errors consumed none).
    VifScores s;
    ASSERT_EQ(vif_score(ctx, &ra, &db, &s), VIF_OK) << vif_last_error();
    EXPECT_EQ(s.frame_index, 0u);
    VifScores none;
    EXPECT_EQ(vif_receive(ctx, &none, 1), VIF_AGAIN);
    EXPECT_EQ(vif_receive(ctx, &none, 0), VIF_AGAIN);
    EXPECT_EQ(vif_receive(ctx, nullptr, 0), VIF_ERROR_INVALID_ARGUMENT);
    vif_destroy(ctx);
    vif_destroy(nullptr);
}

TEST(Api, FullQueueSaysAgainInsteadOfBlocking) {
    VifConfig cfg = config(64, 64);
    cfg.threads = 1;
    cfg.queue_depth = 2;
    VifContext* ctx = nullptr;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    std::vector<uint8_t> a(64 * 64, 100);
    VifPicture p{a.data(), 64, 64, 64, 8, 0};
    ASSERT_EQ(vif_submit(ctx, &p, &p, nullptr), VIF_OK);
    ASSERT_EQ(vif_submit(ctx, &p, &p, nullptr), VIF_OK);
    uint64_t idx = 99;
    EXPECT_EQ(vif_submit(ctx, &p, &p, &idx), VIF_AGAIN);
    EXPECT_EQ(idx, 99u);
    EXPECT_EQ(vif_pending(ctx), 2u);
    VifScores s;
    EXPECT_EQ(vif_score(ctx, &p, &p, &s), VIF_ERROR_INVALID_STATE);
    ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    EXPECT_EQ(s.frame_index, 0u);
    ASSERT_EQ(vif_submit(ctx, &p, &p, &idx), VIF_OK);
    EXPECT_EQ(idx, 2u);
    vif_destroy(ctx); // with frames still pending: must not hang or leak
}

// Scores of a case's first frame through a given picture layout.
VifScores score_case(const GoldenCase& c, uint32_t threads, int stride_pad, bool msb) {
    VifConfig cfg = config(c.width, c.height, c.bitdepth);
    cfg.threads = threads;
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    auto layout = [&](const std::vector<uint8_t>& luma) {
        const size_t row = c.width * c.bytes_per_sample();
        std::vector<uint8_t> out((row + stride_pad) * c.height, 0xAB);
        for (uint32_t i = 0; i < c.height; ++i) {
            std::memcpy(out.data() + i * (row + stride_pad), luma.data() + i * row, row);
            if (msb)
                for (uint32_t j = 0; j < c.width; ++j) {
                    uint16_t v;
                    std::memcpy(&v, out.data() + i * (row + stride_pad) + 2 * j, 2);
                    v = static_cast<uint16_t>(v << (16 - c.bitdepth));
                    std::memcpy(out.data() + i * (row + stride_pad) + 2 * j, &v, 2);
                }
        }
        return out;
    };
    const auto ref = layout(vif::testing::read_luma(c, c.ref_path(), 0));
    const auto dis = layout(vif::testing::read_luma(c, c.dist_path(), 0));
    const ptrdiff_t stride = static_cast<ptrdiff_t>(c.width * c.bytes_per_sample() + stride_pad);
    const uint32_t flags = msb ? VIF_PICTURE_MSB_ALIGNED : 0;
    VifPicture r{ref.data(), stride, c.width, c.height, c.bitdepth, flags};
    VifPicture d{dis.data(), stride, c.width, c.height, c.bitdepth, flags};
    VifScores s{};
    EXPECT_EQ(vif_score(ctx, &r, &d, &s), VIF_OK) << vif_last_error();
    vif_destroy(ctx);
    return s;
}

TEST(Api, PaddedStrideAndMsbAlignedWordsGiveLibvmafValues) {
    const GoldenCase c = find_case("cosmospan_576x324_10b_crf35");
    const auto expected = vif::testing::load_expected(c.expected_path());
    ASSERT_FALSE(expected.empty());
    for (bool msb : {false, true})
        for (int pad : {0, 6, 128}) {
            const VifScores s = score_case(c, 1, pad, msb);
            for (int k = 0; k < 4; ++k)
                EXPECT_EQ(s.scale[k], expected[0].at("integer_vif_scale" + std::to_string(k)))
                    << "pad " << pad << " msb " << msb << " scale " << k;
        }
}

TEST(Api, ScoresDoNotDependOnThreadCount) {
    const GoldenCase c = find_case("kodim23pan_576x324_8b_crf35");
    const auto expected = vif::testing::load_expected(c.expected_path());
    for (uint32_t threads : {1u, 2u, 3u, 8u}) {
        const VifScores s = score_case(c, threads, 0, false);
        for (int k = 0; k < 4; ++k)
            EXPECT_EQ(s.scale[k], expected[0].at("integer_vif_scale" + std::to_string(k)))
                << threads << " threads";
    }
}

TEST(Api, MetricNamesFollowLibvmaf) {
    // Column names of testdata/expected are libvmaf's keys.
    const GoldenCase c = find_case("foreman_352x288_8b_crf35");
    const auto expected = vif::testing::load_expected(c.expected_path());
    VifConfig cfg = config(64, 64);
    for (double egl : {100.0, 1.0})
        for (VifVariant v : {VIF_VARIANT_INTEGER, VIF_VARIANT_FLOAT}) {
            cfg.variant = v;
            cfg.enhn_gain_limit = egl;
            for (int m = 0; m < VIF_METRIC_COUNT; ++m) {
                char name[64];
                ASSERT_EQ(vif_metric_name(&cfg, static_cast<VifMetric>(m), name, sizeof name),
                          VIF_OK);
                EXPECT_EQ(expected[0].count(name), 1u) << name << " is not a libvmaf column";
            }
        }
    // The examples of docs/algorithm.md §8.3.
    cfg.variant = VIF_VARIANT_FLOAT;
    cfg.enhn_gain_limit = 100.0;
    cfg.kernelscale = 0.5;
    EXPECT_EQ(vif::metric_name(cfg, VIF_METRIC_SCALE1), "vif_scale1_ks_0.5");
    cfg.enhn_gain_limit = 1.0;
    cfg.kernelscale = 2.0;
    EXPECT_EQ(vif::metric_name(cfg, VIF_METRIC_SCALE0), "vif_scale0_egl_1_ks_2");
    cfg.variant = VIF_VARIANT_INTEGER;
    cfg.kernelscale = 1.0;
    EXPECT_EQ(vif::metric_name(cfg, VIF_METRIC_NUM_SCALE2), "integer_vif_num_scale2_egl_1");
    char tiny[8];
    EXPECT_EQ(vif_metric_name(&cfg, VIF_METRIC_SCALE0, tiny, sizeof tiny),
              VIF_ERROR_INVALID_ARGUMENT);
}

TEST(Api, MetricValuesMapToScores) {
    VifScores s{};
    for (int k = 0; k < 4; ++k) {
        s.scale[k] = 0.1 * (k + 1);
        s.num[k] = 10.0 * (k + 1);
        s.den[k] = 100.0 * (k + 1);
    }
    s.combined = 0.5;
    s.num_sum = 7;
    s.den_sum = 8;
    EXPECT_EQ(vif_metric_value(&s, VIF_METRIC_SCALE2), 0.1 * 3);
    EXPECT_EQ(vif_metric_value(&s, VIF_METRIC_COMBINED), 0.5);
    EXPECT_EQ(vif_metric_value(&s, VIF_METRIC_NUM), 7.0);
    EXPECT_EQ(vif_metric_value(&s, VIF_METRIC_DEN), 8.0);
    EXPECT_EQ(vif_metric_value(&s, VIF_METRIC_NUM_SCALE1), 20.0);
    EXPECT_EQ(vif_metric_value(&s, VIF_METRIC_DEN_SCALE3), 400.0);
}

TEST(Api, Pooling) {
    const double v[] = {4.0, 1.0, 3.0, 2.0, 5.0};
    double r = 0;
    ASSERT_EQ(vif_pool(v, 5, VIF_POOL_MEAN, 0, &r), VIF_OK);
    EXPECT_DOUBLE_EQ(r, 3.0);
    ASSERT_EQ(vif_pool(v, 5, VIF_POOL_MIN, 0, &r), VIF_OK);
    EXPECT_EQ(r, 1.0);
    ASSERT_EQ(vif_pool(v, 5, VIF_POOL_MAX, 0, &r), VIF_OK);
    EXPECT_EQ(r, 5.0);
    ASSERT_EQ(vif_pool(v, 5, VIF_POOL_PERCENTILE, 50, &r), VIF_OK);
    EXPECT_DOUBLE_EQ(r, 3.0);
    ASSERT_EQ(vif_pool(v, 5, VIF_POOL_PERCENTILE, 10, &r), VIF_OK);
    EXPECT_DOUBLE_EQ(r, 1.4); // 0.1 * 4 = 0.4 of the way from 1 to 2
    // libvmaf's harmonic mean: n / sum(1 / (x + 1)) - 1. For {0, 1}: 2 / 1.5 - 1 = 1/3.
    const double h[] = {0.0, 1.0};
    ASSERT_EQ(vif_pool(h, 2, VIF_POOL_HARMONIC_MEAN, 0, &r), VIF_OK);
    EXPECT_DOUBLE_EQ(r, 1.0 / 3.0);
    EXPECT_EQ(vif_pool(v, 0, VIF_POOL_MEAN, 0, &r), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_pool(v, 5, VIF_POOL_PERCENTILE, 101, &r), VIF_ERROR_INVALID_ARGUMENT);
}

TEST(Api, CppWrapperThrowsWithStatus) {
    vif::Config cfg;
    cfg.max_width = 8;
    cfg.max_height = 8;
    try {
        vif::Context ctx(cfg);
        FAIL() << "expected vif::Error";
    } catch (const vif::Error& e) {
        EXPECT_EQ(e.status(), VIF_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("minimum"), std::string::npos);
    }
}

// ---- Issue 13, item 7: what a C caller can put in the structs and arguments ----------------

// An int stored where the header has an enum: C callers can do this, so the library must read
// it without an enum-typed load (UBSan flags those) and refuse it.
template <typename Enum>
Enum raw_enum(int v) {
    Enum e;
    std::memcpy(&e, &v, sizeof v);
    return e;
}

TEST(ApiInputs, MetricNameRefusesUnknownEnumsAndOptionsNoCreateWouldTake) {
    char name[64] = "untouched";
    VifConfig cfg = config(64, 64);
    EXPECT_EQ(vif_metric_name(&cfg, raw_enum<VifMetric>(99), name, sizeof name),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("metric 99"), std::string::npos)
        << vif_last_error();
    EXPECT_EQ(vif_metric_name(&cfg, raw_enum<VifMetric>(-1), name, sizeof name),
              VIF_ERROR_INVALID_ARGUMENT);
    cfg.variant = raw_enum<VifVariant>(5);
    EXPECT_EQ(vif_metric_name(&cfg, VIF_METRIC_SCALE0, name, sizeof name),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("variant 5"), std::string::npos)
        << vif_last_error();
    for (double egl : {static_cast<double>(NAN), static_cast<double>(INFINITY), -1.0, 0.5, 100.5}) {
        cfg = config(64, 64);
        cfg.enhn_gain_limit = egl;
        EXPECT_EQ(vif_metric_name(&cfg, VIF_METRIC_SCALE0, name, sizeof name),
                  VIF_ERROR_INVALID_ARGUMENT)
            << "gain limit " << egl << " gave " << name;
    }
    for (double ks : {static_cast<double>(NAN), 1.3, -2.0}) {
        cfg = config(64, 64, 8, VIF_VARIANT_FLOAT);
        cfg.kernelscale = ks;
        EXPECT_EQ(vif_metric_name(&cfg, VIF_METRIC_SCALE0, name, sizeof name),
                  VIF_ERROR_INVALID_ARGUMENT)
            << "kernel scale " << ks << " gave " << name;
    }
    EXPECT_STREQ(name, "untouched"); // nothing written on failure
    cfg = config(64, 64);
    EXPECT_EQ(vif_metric_name(nullptr, VIF_METRIC_SCALE0, name, sizeof name),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_metric_name(&cfg, VIF_METRIC_SCALE0, nullptr, 64), VIF_ERROR_INVALID_ARGUMENT);
    // Other enum arguments read from the caller.
    EXPECT_TRUE(std::isnan(vif_metric_value(nullptr, VIF_METRIC_SCALE0)));
    VifScores sc{};
    EXPECT_TRUE(std::isnan(vif_metric_value(&sc, raw_enum<VifMetric>(1000))));
    const double v[2] = {1.0, 2.0};
    double r = 0;
    EXPECT_EQ(vif_pool(v, 2, raw_enum<VifPoolMethod>(77), 0, &r), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("77"), std::string::npos) << vif_last_error();
    EXPECT_STREQ(vif_status_string(raw_enum<VifStatus>(-100)), "unknown status");
}

TEST(ApiInputs, CreateRefusesNonZeroReservedFields) {
    // The first, a middle and the last reserved word (VifConfig.maps took one of them).
    const size_t last = sizeof(VifConfig::reserved) / sizeof(VifConfig::reserved[0]) - 1;
    for (size_t k : {size_t(0), size_t(7), last}) {
        VifConfig cfg = config(64, 64);
        cfg.reserved[k] = 1;
        VifContext* ctx = nullptr;
        EXPECT_EQ(vif_create(&ctx, &cfg), VIF_ERROR_INVALID_ARGUMENT) << "reserved[" << k << "]";
        EXPECT_EQ(ctx, nullptr);
        EXPECT_NE(std::string(vif_last_error()).find("reserved[" + std::to_string(k) + "]"),
                  std::string::npos)
            << vif_last_error();
        vif_destroy(ctx);
    }
}

// Backends to run a contract on: the CPU always, CUDA when a GPU is present.
std::vector<VifBackend> backends_here() {
    std::vector<VifBackend> b{VIF_BACKEND_CPU};
    if (vif_cuda_available()) b.push_back(VIF_BACKEND_CUDA);
    return b;
}

TEST(ApiInputs, HugeNegativeAndWrappingStridesAreInvalidArguments) {
    for (VifBackend backend : backends_here()) {
        VifConfig cfg = config(64, 64);
        cfg.backend = backend;
        VifContext* ctx = nullptr;
        ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
        std::vector<uint8_t> a(64 * 64, 100);
        const VifPicture good{a.data(), 64, 64, 64, 8, 0};
        const ptrdiff_t strides[] = {
            PTRDIFF_MAX, PTRDIFF_MAX / 63 + 1, ptrdiff_t(1) << 40, (ptrdiff_t(1) << 30) + 1,
            -64,         PTRDIFF_MIN};
        for (ptrdiff_t stride : strides) {
            VifPicture p = good;
            p.stride = stride;
            EXPECT_EQ(vif_submit(ctx, &p, &good, nullptr), VIF_ERROR_INVALID_ARGUMENT) << stride;
            EXPECT_NE(std::string(vif_last_error()).find("stride"), std::string::npos)
                << stride << ": " << vif_last_error();
            EXPECT_EQ(vif_submit(ctx, &good, &p, nullptr), VIF_ERROR_INVALID_ARGUMENT) << stride;
        }
        // A plane whose last row would lie past the end of the address space.
        VifPicture high = good;
        high.data = reinterpret_cast<const void*>(UINTPTR_MAX - 1000);
        EXPECT_EQ(vif_submit(ctx, &high, &good, nullptr), VIF_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(vif_last_error()).find("address space"), std::string::npos)
            << vif_last_error();
        // Nothing was queued; the context still scores.
        EXPECT_EQ(vif_pending(ctx), 0u);
        VifScores s;
        ASSERT_EQ(vif_score(ctx, &good, &good, &s), VIF_OK) << vif_last_error();
        EXPECT_EQ(s.frame_index, 0u);
        vif_destroy(ctx);
    }
}

// A 10- or 12-bit picture (LSB-aligned words) with one sample above the maximum: vif_submit
// refuses it naming the frame, the plane, the position and the value, and queues nothing.
TEST(ApiInputs, SamplesAboveTheBitDepthAreNamed) {
    for (VifBackend backend : backends_here())
        for (uint32_t bpc : {10u, 12u}) {
            VifConfig cfg = config(64, 48, bpc);
            cfg.backend = backend;
            VifContext* ctx = nullptr;
            ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
            const uint16_t max = static_cast<uint16_t>((1u << bpc) - 1);
            // Padded rows whose padding holds 0xFFFF: only samples count, never padding.
            const size_t stride_words = 70;
            std::vector<uint16_t> ref(stride_words * 48, 0xFFFF), dis(stride_words * 48, 0xFFFF);
            for (size_t y = 0; y < 48; ++y)
                for (size_t x = 0; x < 64; ++x) {
                    ref[y * stride_words + x] =
                        static_cast<uint16_t>((x * 37 + y * 11) % (max + 1));
                    dis[y * stride_words + x] = max;
                }
            const ptrdiff_t stride = static_cast<ptrdiff_t>(stride_words * 2);
            VifPicture r{ref.data(), stride, 64, 48, bpc, 0}, d{dis.data(), stride, 64, 48, bpc, 0};
            uint64_t idx = 99;
            ASSERT_EQ(vif_submit(ctx, &r, &d, &idx), VIF_OK) << vif_last_error(); // max is fine
            EXPECT_EQ(idx, 0u);
            dis[7 * stride_words + 5] = static_cast<uint16_t>(max + 1);
            dis[9 * stride_words + 1] = 0xFFFF; // a later one: the first is named
            EXPECT_EQ(vif_submit(ctx, &r, &d, &idx), VIF_ERROR_INVALID_ARGUMENT);
            const std::string msg = vif_last_error();
            for (const std::string& part :
                 {std::string("frame 1"), std::string("distorted"), std::to_string(max + 1),
                  std::string("x=5, y=7"), std::to_string(bpc) + "-bit"})
                EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' in: " << msg;
            EXPECT_EQ(idx, 0u);
            EXPECT_EQ(vif_pending(ctx), 1u);
            // The reference is checked as well.
            EXPECT_EQ(vif_submit(ctx, &d, &r, nullptr), VIF_ERROR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(vif_last_error()).find("reference"), std::string::npos);
            // MSB-aligned words use every bit: no error for the same data.
            VifPicture dm = d;
            dm.flags = VIF_PICTURE_MSB_ALIGNED;
            ASSERT_EQ(vif_submit(ctx, &dm, &dm, &idx), VIF_OK) << vif_last_error();
            EXPECT_EQ(idx, 1u); // the refused frames consumed no index
            VifScores s;
            ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
            ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
            EXPECT_EQ(s.frame_index, 1u);
            vif_destroy(ctx);
        }
}

// One queue rule for every backend (vif.h): at most queue_depth frames submitted and not yet
// received; one more gets VIF_AGAIN at once and queues nothing.
TEST(ApiInputs, QueueRuleIsTheSameOnEveryBackend) {
    for (VifBackend backend : backends_here()) {
        VifConfig cfg = config(64, 64);
        cfg.backend = backend;
        cfg.threads = 1;
        cfg.queue_depth = 3;
        VifContext* ctx = nullptr;
        ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
        std::vector<uint8_t> a(64 * 64, 100);
        VifPicture p{a.data(), 64, 64, 64, 8, 0};
        for (int i = 0; i < 3; ++i) ASSERT_EQ(vif_submit(ctx, &p, &p, nullptr), VIF_OK) << i;
        for (int round = 0; round < 5; ++round) { // never more than three held
            uint64_t idx = 99;
            EXPECT_EQ(vif_submit(ctx, &p, &p, &idx), VIF_AGAIN) << vif_backend_name(ctx);
            EXPECT_EQ(idx, 99u);
            EXPECT_EQ(vif_pending(ctx), 3u);
            VifScores s;
            ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
            EXPECT_EQ(s.frame_index, static_cast<uint64_t>(round));
            ASSERT_EQ(vif_submit(ctx, &p, &p, &idx), VIF_OK) << vif_last_error();
            EXPECT_EQ(idx, static_cast<uint64_t>(round + 3));
        }
        VifScores s;
        for (int i = 0; i < 3; ++i) ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
        EXPECT_EQ(s.frame_index, 7u);
        EXPECT_EQ(vif_receive(ctx, &s, 0), VIF_AGAIN);
        vif_destroy(ctx);
    }
}

} // namespace
