// Parity gate: the CUDA backend against the CPU reference (cpu_ref), like dav1d's checkasm.
//
// - Synthetic frames (random noise, flat blocks that hit the low-variance branch, saturated and
//   checkerboard frames, gains above the limit, negative covariance), every bit depth, odd and
//   tiny sizes, 1080p and 2160p: raw per-scale accumulators compared (integer NL/DL/NN/DN
//   equal; float per-scale totals compared bit for bit, and scores within 1e-4), plus the scores
//   the shared finalisation makes of them.
// - Golden cases of testdata/ through the public API, backend cpu against backend cuda.
// - The device-pointer entry point (vif_cuda.h), NV12-style pitched 8-bit and P010-style
//   MSB-aligned 10-bit planes, and several frames in flight.
// - The kernel table (cuda/dispatch/kernel_table.cu): every variant of every launch slot at every bit
//   depth it is compiled for, forced through CudaOptions; the launches without CUDA graphs, with
//   the table-only log lookup, synchronised per launch and unfused; and (no GPU needed) the
//   rules: every slot, depth and size gets a compiled variant, and sm_90 keeps its choices.
// Every GPU test skips (GTEST_SKIP) when no CUDA device is present, so CI without a GPU passes.
#include <gtest/gtest.h>

#include <ostream>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "common/golden_data.hpp"
#include "api/checks.hpp"
#include "core/scores.hpp"
#include "engine/engine.hpp"
#include "dispatch/kernel_table.hpp"
#include "forced_rules.hpp"
#include "vif/vif.h"
#include "vif/vif_cuda.h"

namespace {

#define SKIP_WITHOUT_GPU()                                                                         \
    do {                                                                                           \
        if (!vif_cuda_available())                                                                 \
            GTEST_SKIP() << "no CUDA device present: the CUDA parity tests need a GPU "            \
                            "(this build has the CUDA backend; nothing was compared)";             \
    } while (0)

uint32_t g_seed = 0;

uint32_t seed() {
    if (g_seed == 0) {
        const char* s = std::getenv("VIF_PARITY_SEED");
        g_seed = s ? static_cast<uint32_t>(std::strtoul(s, nullptr, 10)) : 20261121u;
        std::printf("[parity] random seed %u (set VIF_PARITY_SEED to change)\n", g_seed);
    }
    return g_seed;
}

// A luma plane in host memory, LSB-aligned unless made otherwise.
struct Plane {
    int w = 0, h = 0, bpc = 8;
    ptrdiff_t stride = 0; // bytes
    std::vector<uint8_t> bytes;
    uint32_t get(int x, int y) const {
        const uint8_t* row = bytes.data() + y * stride;
        if (bpc == 8) return row[x];
        uint16_t v;
        std::memcpy(&v, row + 2 * x, 2);
        return v;
    }
    void set(int x, int y, uint32_t v) {
        uint8_t* row = bytes.data() + y * stride;
        if (bpc == 8)
            row[x] = static_cast<uint8_t>(v);
        else {
            const uint16_t u = static_cast<uint16_t>(v);
            std::memcpy(row + 2 * x, &u, 2);
        }
    }
};

Plane make_plane(int w, int h, int bpc, int pad = 0) {
    Plane p;
    p.w = w;
    p.h = h;
    p.bpc = bpc;
    p.stride = static_cast<ptrdiff_t>(w + pad) * (bpc == 8 ? 1 : 2);
    p.bytes.assign(p.stride * h, 0xA5); // padding poisoned
    return p;
}

enum class Content { Noise, Smooth, FlatBlocks, Saturated, Checker, Natural };
enum class Distortion { Noise, Blur, Contrast, Identical, Independent, Inverted, Flat };

Plane make_ref(int w, int h, int bpc, Content c, std::mt19937& rng, int pad) {
    Plane p = make_plane(w, h, bpc, pad);
    const uint32_t maxv = (1u << bpc) - 1;
    std::uniform_int_distribution<uint32_t> any(0, maxv);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    const double f1 = 0.02 + 0.2 * u01(rng), f2 = 0.01 + 0.1 * u01(rng), ph = 6.28 * u01(rng);
    std::vector<uint32_t> blocks((w / 8 + 1) * (h / 8 + 1));
    for (auto& b : blocks) b = any(rng);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double v = 0;
            switch (c) {
            case Content::Noise:
                v = any(rng);
                break;
            case Content::Smooth:
                v = maxv * (0.5 + 0.4 * std::sin(f1 * x + ph) * std::cos(f2 * y));
                break;
            case Content::FlatBlocks: {
                const uint32_t b = blocks[(y / 8) * (w / 8 + 1) + x / 8];
                v = (b % 4 == 0) ? b + any(rng) % 3 : b; // mostly perfectly flat
                break;
            }
            case Content::Saturated:
                v = ((x / 5 + y / 7) % 3 == 0) ? maxv : ((x * y) % 11 == 0 ? 0 : maxv);
                break;
            case Content::Checker:
                v = ((x + y) % 2) ? maxv : 0;
                break;
            case Content::Natural:
                v = maxv *
                        (0.5 + 0.25 * std::sin(f1 * x + ph) + 0.15 * std::sin(f2 * (x + 2 * y))) +
                    (any(rng) % std::max<uint32_t>(1, maxv / 16)) - maxv / 32.0;
                break;
            }
            p.set(x, y, static_cast<uint32_t>(std::clamp(v, 0.0, double(maxv))));
        }
    return p;
}

Plane distort(const Plane& r, Distortion d, std::mt19937& rng, int pad) {
    Plane p = make_plane(r.w, r.h, r.bpc, pad);
    const int maxv = (1 << r.bpc) - 1;
    std::normal_distribution<double> n(0.0, maxv / 20.0);
    std::uniform_int_distribution<int> any(0, maxv);
    double mean = 0;
    for (int y = 0; y < r.h; ++y)
        for (int x = 0; x < r.w; ++x) mean += r.get(x, y);
    mean /= double(r.w) * r.h;
    for (int y = 0; y < r.h; ++y)
        for (int x = 0; x < r.w; ++x) {
            double v = r.get(x, y);
            switch (d) {
            case Distortion::Noise:
                v += n(rng);
                break;
            case Distortion::Blur: {
                double s = 0;
                for (int k = -1; k <= 1; ++k)
                    for (int l = -1; l <= 1; ++l)
                        s += r.get(std::clamp(x + l, 0, r.w - 1), std::clamp(y + k, 0, r.h - 1));
                v = s / 9.0;
                break;
            }
            case Distortion::Contrast:
                v = mean + 2.5 * (v - mean);
                break;
            case Distortion::Identical:
                break;
            case Distortion::Independent:
                v = any(rng);
                break;
            case Distortion::Inverted:
                v = maxv - v;
                break;
            case Distortion::Flat:
                v = mean;
                break;
            }
            p.set(x, y, static_cast<uint32_t>(std::clamp(std::lround(v), 0L, long(maxv))));
        }
    return p;
}

vif::HostPlane host(const Plane& p, bool msb = false) {
    vif::HostPlane h;
    h.data = p.bytes.data();
    h.stride = p.stride;
    h.width = static_cast<uint32_t>(p.w);
    h.height = static_cast<uint32_t>(p.h);
    h.msb_aligned = msb;
    return h;
}

// Submits one frame to an internal backend under vif.h's queue rule: when every slot holds a
// frame not yet received (VIF_AGAIN), takes the oldest result into *got and tries again.
void submit_draining(vif::Backend& b, const vif::HostPlane& r, const vif::HostPlane& d,
                     uint64_t index, std::vector<vif::FrameRaw>* got) {
    for (;;) {
        const vif::Status e = b.submit(r, d, index);
        if (e.status == VIF_OK) return;
        ASSERT_EQ(e.status, VIF_AGAIN) << e.message;
        vif::FrameRaw raw;
        const vif::Status re = b.receive(&raw, true);
        ASSERT_EQ(re.status, VIF_OK) << re.message;
        got->push_back(raw);
    }
}

// The same through the C API: `submit` is a callable returning the VifStatus of one attempt.
template <typename Submit>
void submit_draining(VifContext* ctx, Submit submit, std::vector<VifScores>* got) {
    for (;;) {
        const VifStatus st = submit();
        if (st == VIF_OK) return;
        ASSERT_EQ(st, VIF_AGAIN) << vif_last_error();
        VifScores s;
        ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
        got->push_back(s);
    }
}

// Receives everything still pending.
void drain(VifContext* ctx, std::vector<VifScores>* got) {
    VifScores s;
    while (vif_receive(ctx, &s, 1) == VIF_OK) got->push_back(s);
}

struct Tally {
    double max_score_diff = 0; // float: largest |cpu - cuda| over scores
    long float_mismatches = 0; // float: per-scale totals that are not bit-identical
    long compared = 0;
};
Tally g_float_tally;

std::string raw_str(const vif::ScaleRaw& r) {
    char b[200];
    std::snprintf(b, sizeof b, "nl=%lld dl=%lld nn=%lld dn=%lld num=%.9g den=%.9g", (long long)r.nl,
                  (long long)r.dl, (long long)r.nn, (long long)r.dn, r.num, r.den);
    return b;
}

// Runs frames through the internal cpu and cuda backends (several in flight on the GPU) and
// compares raw results and finalised scores.
void compare_backends(const vif::CudaParams& params,
                      const std::vector<std::pair<Plane, Plane>>& frames, const std::string& what) {
    vif::Status err;
    auto cpu = vif::create_cpu_backend(params, &err);
    ASSERT_TRUE(cpu) << err.message;
    auto gpu = vif::create_cuda_backend(params, &err);
    ASSERT_TRUE(gpu) << err.message;
    std::vector<vif::FrameRaw> rc, rg;
    for (size_t i = 0; i < frames.size(); ++i) {
        submit_draining(*cpu, host(frames[i].first), host(frames[i].second), i, &rc);
        submit_draining(*gpu, host(frames[i].first), host(frames[i].second), i, &rg);
        ASSERT_FALSE(::testing::Test::HasFatalFailure()) << what;
    }
    while (cpu->pending() || gpu->pending()) {
        vif::FrameRaw a, b;
        if (cpu->pending()) {
            ASSERT_EQ(cpu->receive(&a, true).status, VIF_OK);
            rc.push_back(a);
        }
        if (gpu->pending()) {
            const vif::Status e = gpu->receive(&b, true);
            ASSERT_EQ(e.status, VIF_OK) << what << ": " << e.message;
            rg.push_back(b);
        }
    }
    ASSERT_EQ(rc.size(), frames.size()) << what;
    ASSERT_EQ(rg.size(), frames.size()) << what;
    for (size_t i = 0; i < frames.size(); ++i)
        ASSERT_EQ(rg[i].index, i) << what << ": frames out of order";
    EXPECT_EQ(gpu->pending(), 0u);
    for (size_t i = 0; i < frames.size(); ++i) {
        VifScores sc, sg;
        vif::finalize_scores(params, rc[i], &sc);
        vif::finalize_scores(params, rg[i], &sg);
        for (int s = 0; s < 4; ++s) {
            const vif::ScaleRaw &a = rc[i].scale[s], &b = rg[i].scale[s];
            const std::string where =
                what + " frame " + std::to_string(i) + " scale " + std::to_string(s);
            if (params.variant == VIF_VARIANT_INTEGER) {
                EXPECT_TRUE(a.nl == b.nl && a.dl == b.dl && a.nn == b.nn && a.dn == b.dn)
                    << where << "\n  cpu:  " << raw_str(a) << "\n  cuda: " << raw_str(b);
                EXPECT_EQ(sc.scale[s], sg.scale[s]) << where;
                EXPECT_EQ(sc.num[s], sg.num[s]) << where;
                EXPECT_EQ(sc.den[s], sg.den[s]) << where;
            } else {
                const double d = std::fabs(sc.scale[s] - sg.scale[s]);
                g_float_tally.max_score_diff = std::max(g_float_tally.max_score_diff, d);
                ++g_float_tally.compared;
                if (std::memcmp(&a.num, &b.num, 4) || std::memcmp(&a.den, &b.den, 4))
                    ++g_float_tally.float_mismatches;
                EXPECT_LE(d, 1e-4)
                    << where << "\n  cpu:  " << raw_str(a) << "\n  cuda: " << raw_str(b);
                EXPECT_EQ(a.num, b.num) << where << " (float totals not bit-identical)";
                EXPECT_EQ(a.den, b.den) << where << " (float totals not bit-identical)";
            }
        }
    }
}

vif::CudaParams params_of(VifVariant v, int bpc, int w, int h, double egl = 100.0,
                          float ks = 1.0f) {
    vif::CudaParams p;
    p.variant = v;
    p.bitdepth = static_cast<uint32_t>(bpc);
    p.max_width = static_cast<uint32_t>(w);
    p.max_height = static_cast<uint32_t>(h);
    p.gain_limit = egl;
    p.kernelscale = ks;
    p.threads = 0;
    p.queue_depth = 3;
    p.cuda.sm75_rules = vif::testing::sm75_rules_forced();
    return p;
}

// Frames covering every content and distortion kind for one size and bit depth.
std::vector<std::pair<Plane, Plane>> synthetic_frames(int w, int h, int bpc, int count,
                                                      uint32_t salt) {
    std::mt19937 rng(seed() ^ (salt * 2654435761u) ^ (w * 7919u + h * 104729u + bpc));
    const Content contents[] = {Content::Natural,   Content::Noise,   Content::FlatBlocks,
                                Content::Saturated, Content::Checker, Content::Smooth};
    const Distortion dists[] = {
        Distortion::Noise,       Distortion::Contrast,  Distortion::Blur, Distortion::Inverted,
        Distortion::Independent, Distortion::Identical, Distortion::Flat};
    std::vector<std::pair<Plane, Plane>> out;
    for (int i = 0; i < count; ++i) {
        const Content c = contents[(i + salt) % 6];
        const Distortion d = dists[(i * 3 + salt) % 7];
        const int pad = (i % 2) ? 13 : 0; // some strides larger than a row
        Plane r = make_ref(w, h, bpc, c, rng, pad);
        Plane q = distort(r, d, rng, pad);
        out.emplace_back(std::move(r), std::move(q));
    }
    return out;
}

struct SizeCase {
    int w, h, frames;
};
void PrintTo(const SizeCase& c, std::ostream* os) {
    *os << c.w << "x" << c.h << "x" << c.frames << "frames";
}

class SyntheticInteger : public ::testing::TestWithParam<std::tuple<int, SizeCase, double>> {};

TEST_P(SyntheticInteger, RawAccumulatorsEqual) {
    SKIP_WITHOUT_GPU();
    const auto [bpc, sz, egl] = GetParam();
    const auto frames = synthetic_frames(sz.w, sz.h, bpc, sz.frames, 1);
    compare_backends(params_of(VIF_VARIANT_INTEGER, bpc, sz.w, sz.h, egl), frames,
                     "integer " + std::to_string(bpc) + "-bit " + std::to_string(sz.w) + "x" +
                         std::to_string(sz.h) + " egl " + std::to_string(egl));
}

const SizeCase kSmallSizes[] = {{16, 16, 7},   {17, 19, 7},   {33, 31, 7},   {176, 144, 7},
                                {175, 143, 7}, {481, 271, 4}, {64, 1000, 2}, {1000, 40, 2}};

INSTANTIATE_TEST_SUITE_P(Small, SyntheticInteger,
                         ::testing::Combine(::testing::Values(8, 10, 12, 16),
                                            ::testing::ValuesIn(kSmallSizes),
                                            ::testing::Values(100.0, 1.0)));
INSTANTIATE_TEST_SUITE_P(Large, SyntheticInteger,
                         ::testing::Combine(::testing::Values(8, 10),
                                            ::testing::Values(SizeCase{1920, 1080, 3},
                                                              SizeCase{1919, 1079, 2},
                                                              SizeCase{3840, 2160, 2}),
                                            ::testing::Values(100.0)));
INSTANTIATE_TEST_SUITE_P(LargeDeep, SyntheticInteger,
                         ::testing::Combine(::testing::Values(12, 16),
                                            ::testing::Values(SizeCase{1920, 1080, 2}),
                                            ::testing::Values(100.0)));

class SyntheticFloat : public ::testing::TestWithParam<std::tuple<int, SizeCase, double, float>> {};

TEST_P(SyntheticFloat, TotalsBitIdentical) {
    SKIP_WITHOUT_GPU();
    const auto [bpc, sz, egl, ks] = GetParam();
    const auto frames = synthetic_frames(sz.w, sz.h, bpc, sz.frames, 2);
    compare_backends(params_of(VIF_VARIANT_FLOAT, bpc, sz.w, sz.h, egl, ks), frames,
                     "float " + std::to_string(bpc) + "-bit " + std::to_string(sz.w) + "x" +
                         std::to_string(sz.h) + " egl " + std::to_string(egl) + " ks " +
                         std::to_string(ks));
}

INSTANTIATE_TEST_SUITE_P(Small, SyntheticFloat,
                         ::testing::Combine(::testing::Values(8, 10, 12, 16),
                                            ::testing::Values(SizeCase{16, 16, 6},
                                                              SizeCase{33, 31, 6},
                                                              SizeCase{175, 143, 6}),
                                            ::testing::Values(100.0, 1.0),
                                            ::testing::Values(1.0f)));
INSTANTIATE_TEST_SUITE_P(KernelScales, SyntheticFloat,
                         ::testing::Combine(::testing::Values(8, 10),
                                            ::testing::Values(SizeCase{301, 257, 3}),
                                            ::testing::Values(100.0),
                                            ::testing::Values(0.5f, 1.5f, 2.0f, 3.0f,
                                                              static_cast<float>(360.0 / 97.0),
                                                              static_cast<float>(2.0 / 3.0))));
INSTANTIATE_TEST_SUITE_P(Large, SyntheticFloat,
                         ::testing::Combine(::testing::Values(8),
                                            ::testing::Values(SizeCase{1920, 1080, 1},
                                                              SizeCase{3840, 2160, 1}),
                                            ::testing::Values(100.0), ::testing::Values(1.0f)));

// ---- Public API: golden cases, cpu against cuda ---------------------------------------------

std::string testdata_dir() {
    for (const char* d : {VIF_TESTDATA_DIR, VIF_SHARED_TESTDATA_DIR})
        if (!vif::testing::load_manifest(d).empty()) return d;
    return "";
}

struct ApiVariant {
    VifVariant variant;
    double egl;
};
void PrintTo(const ApiVariant& v, std::ostream* os) {
    *os << (v.variant == VIF_VARIANT_INTEGER ? "integer" : "float") << "_egl" << v.egl;
}

class GoldenParity : public ::testing::TestWithParam<ApiVariant> {};

TEST_P(GoldenParity, CpuEqualsCuda) {
    SKIP_WITHOUT_GPU();
    const std::string dir = testdata_dir();
    if (dir.empty()) GTEST_SKIP() << "no golden test data (testdata/MANIFEST.csv) found";
    const ApiVariant v = GetParam();
    double max_diff = 0;
    int cases = 0;
    for (const auto& c : vif::testing::load_manifest(dir)) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = c.width;
        cfg.max_height = c.height;
        cfg.bitdepth = c.bitdepth;
        cfg.variant = v.variant;
        cfg.enhn_gain_limit = v.egl;
        VifContext *cc = nullptr, *gc = nullptr;
        cfg.backend = VIF_BACKEND_CPU;
        ASSERT_EQ(vif_create(&cc, &cfg), VIF_OK) << vif_last_error();
        cfg.backend = VIF_BACKEND_CUDA;
        ASSERT_EQ(vif_create(&gc, &cfg), VIF_OK) << vif_last_error();
        ASSERT_STREQ(vif_backend_name(gc), "cuda");
        std::vector<VifScores> got_c, got_g;
        for (uint32_t f = 0; f < c.frames; ++f) {
            const auto r = vif::testing::read_luma(c, c.ref_path(), f);
            const auto d = vif::testing::read_luma(c, c.dist_path(), f);
            ASSERT_FALSE(r.empty() || d.empty()) << c.name << " frame " << f;
            const ptrdiff_t stride = static_cast<ptrdiff_t>(c.width) * c.bytes_per_sample();
            VifPicture pr{r.data(), stride, c.width, c.height, c.bitdepth, 0};
            VifPicture pd{d.data(), stride, c.width, c.height, c.bitdepth, 0};
            submit_draining(
                cc, [&] { return vif_submit(cc, &pr, &pd, nullptr); }, &got_c);
            submit_draining(
                gc, [&] { return vif_submit(gc, &pr, &pd, nullptr); }, &got_g);
            ASSERT_FALSE(HasFatalFailure()) << c.name << " frame " << f;
        }
        drain(cc, &got_c);
        drain(gc, &got_g);
        ASSERT_EQ(got_c.size(), c.frames);
        ASSERT_EQ(got_g.size(), c.frames);
        for (uint32_t f = 0; f < c.frames; ++f) {
            const VifScores &a = got_c[f], &b = got_g[f];
            ASSERT_EQ(b.frame_index, f);
            for (int s = 0; s < 4; ++s) {
                if (v.variant == VIF_VARIANT_INTEGER) {
                    EXPECT_EQ(a.scale[s], b.scale[s]) << c.name << " frame " << f << " scale " << s;
                    EXPECT_EQ(a.num[s], b.num[s]) << c.name << " frame " << f << " scale " << s;
                    EXPECT_EQ(a.den[s], b.den[s]) << c.name << " frame " << f << " scale " << s;
                } else {
                    const double dd = std::fabs(a.scale[s] - b.scale[s]);
                    max_diff = std::max(max_diff, dd);
                    EXPECT_LE(dd, 1e-4) << c.name << " frame " << f << " scale " << s;
                }
            }
        }
        vif_destroy(cc);
        vif_destroy(gc);
        ++cases;
    }
    std::printf("[parity] golden %s egl %g: %d cases, largest float score difference %.3g\n",
                v.variant == VIF_VARIANT_INTEGER ? "integer" : "float", v.egl, cases, max_diff);
}

INSTANTIATE_TEST_SUITE_P(All, GoldenParity,
                         ::testing::Values(ApiVariant{VIF_VARIANT_INTEGER, 100.0},
                                           ApiVariant{VIF_VARIANT_INTEGER, 1.0},
                                           ApiVariant{VIF_VARIANT_FLOAT, 100.0},
                                           ApiVariant{VIF_VARIANT_FLOAT, 1.0}));

// ---- Device pointers (vif_cuda.h) ------------------------------------------------------------

struct DeviceBuffer {
    void* p = nullptr;
    size_t pitch = 0;
    ~DeviceBuffer() {
        if (p) cudaFree(p);
    }
};

// Uploads a plane into pitched device memory; with msb = true the 16-bit samples are shifted
// into the top bits (P010 style).
void upload(const Plane& pl, bool msb, DeviceBuffer* out, cudaStream_t st) {
    const size_t bps = pl.bpc == 8 ? 1 : 2;
    std::vector<uint8_t> tmp(pl.bytes);
    if (msb)
        for (int y = 0; y < pl.h; ++y)
            for (int x = 0; x < pl.w; ++x) {
                uint16_t v;
                std::memcpy(&v, tmp.data() + y * pl.stride + 2 * x, 2);
                v = static_cast<uint16_t>(v << (16 - pl.bpc));
                std::memcpy(tmp.data() + y * pl.stride + 2 * x, &v, 2);
            }
    ASSERT_EQ(cudaMallocPitch(&out->p, &out->pitch, pl.w * bps + 64, pl.h), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DAsync(out->p, out->pitch, tmp.data(), pl.stride, pl.w * bps, pl.h,
                                cudaMemcpyHostToDevice, st),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
}

struct DeviceCase {
    int bpc;
    bool msb;
    VifVariant variant;
};
void PrintTo(const DeviceCase& c, std::ostream* os) {
    *os << (c.variant == VIF_VARIANT_INTEGER ? "integer_" : "float_") << c.bpc << "bit"
        << (c.msb ? "_msb" : "");
}

class DevicePointer : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(DevicePointer, MatchesHostSubmission) {
    SKIP_WITHOUT_GPU();
    const DeviceCase dc = GetParam();
    const int w = 643, h = 361, n = 5;
    auto frames = synthetic_frames(w, h, dc.bpc, n, 3);
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.bitdepth = dc.bpc;
    cfg.variant = dc.variant;
    cfg.queue_depth = 2; // fewer slots than frames: exercises VIF_AGAIN and receiving early
    VifContext *cc = nullptr, *gc = nullptr;
    cfg.backend = VIF_BACKEND_CPU;
    ASSERT_EQ(vif_create(&cc, &cfg), VIF_OK) << vif_last_error();
    cfg.backend = VIF_BACKEND_CUDA;
    ASSERT_EQ(vif_create(&gc, &cfg), VIF_OK) << vif_last_error();
    cudaStream_t st;
    ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
    std::vector<DeviceBuffer> bufs(2 * n);
    std::vector<VifScores> got_c, got_g;
    const uint32_t flags = dc.msb ? VIF_PICTURE_MSB_ALIGNED : 0;
    for (int i = 0; i < n; ++i) {
        upload(frames[i].first, dc.msb, &bufs[2 * i], st);
        upload(frames[i].second, dc.msb, &bufs[2 * i + 1], st);
        const Plane& r = frames[i].first;
        VifPicture hr{r.bytes.data(), r.stride, (uint32_t)w, (uint32_t)h, (uint32_t)dc.bpc, 0};
        VifPicture hd{frames[i].second.bytes.data(),
                      frames[i].second.stride,
                      (uint32_t)w,
                      (uint32_t)h,
                      (uint32_t)dc.bpc,
                      0};
        submit_draining(
            cc, [&] { return vif_submit(cc, &hr, &hd, nullptr); }, &got_c);
        // Alternate host and device submissions on the CUDA context: one queue, one order.
        uint64_t idx = 99;
        if (i % 3 == 1) {
            submit_draining(
                gc, [&] { return vif_submit(gc, &hr, &hd, &idx); }, &got_g);
        } else {
            VifDevicePicture dr{bufs[2 * i].p,    (ptrdiff_t)bufs[2 * i].pitch,
                                (uint32_t)w,      (uint32_t)h,
                                (uint32_t)dc.bpc, flags};
            VifDevicePicture dd{bufs[2 * i + 1].p, (ptrdiff_t)bufs[2 * i + 1].pitch,
                                (uint32_t)w,       (uint32_t)h,
                                (uint32_t)dc.bpc,  flags};
            submit_draining(
                gc, [&] { return vif_cuda_submit(gc, &dr, &dd, st, &idx); }, &got_g);
        }
        ASSERT_FALSE(HasFatalFailure());
        EXPECT_EQ(idx, static_cast<uint64_t>(i));
    }
    drain(cc, &got_c);
    drain(gc, &got_g);
    ASSERT_EQ(got_c.size(), static_cast<size_t>(n));
    ASSERT_EQ(got_g.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const VifScores &a = got_c[i], &b = got_g[i];
        EXPECT_EQ(b.frame_index, static_cast<uint64_t>(i));
        for (int s = 0; s < 4; ++s) {
            if (dc.variant == VIF_VARIANT_INTEGER) {
                EXPECT_EQ(a.num[s], b.num[s]) << "frame " << i << " scale " << s;
                EXPECT_EQ(a.den[s], b.den[s]) << "frame " << i << " scale " << s;
            } else {
                EXPECT_LE(std::fabs(a.scale[s] - b.scale[s]), 1e-4)
                    << "frame " << i << " scale " << s;
            }
        }
    }
    EXPECT_EQ(vif_receive(gc, nullptr, 0), VIF_ERROR_INVALID_ARGUMENT);
    VifScores none;
    EXPECT_EQ(vif_receive(gc, &none, 0), VIF_AGAIN);
    ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
    cudaStreamDestroy(st);
    vif_destroy(cc);
    vif_destroy(gc);
}

INSTANTIATE_TEST_SUITE_P(All, DevicePointer,
                         ::testing::Values(DeviceCase{8, false, VIF_VARIANT_INTEGER},
                                           DeviceCase{10, true, VIF_VARIANT_INTEGER},
                                           DeviceCase{10, false, VIF_VARIANT_INTEGER},
                                           DeviceCase{12, true, VIF_VARIANT_FLOAT},
                                           DeviceCase{8, false, VIF_VARIANT_FLOAT}));

TEST(DevicePointerErrors, RejectsHostMemoryAndCpuContexts) {
    SKIP_WITHOUT_GPU();
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = 64;
    cfg.max_height = 64;
    std::vector<uint8_t> hostbuf(64 * 64, 7);
    VifDevicePicture p{hostbuf.data(), 64, 64, 64, 8, 0};
    VifContext* ctx = nullptr;
    cfg.backend = VIF_BACKEND_CPU;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    EXPECT_EQ(vif_cuda_submit(ctx, &p, &p, nullptr, nullptr), VIF_ERROR_UNSUPPORTED);
    EXPECT_EQ(vif_cuda_context_device(ctx), -1);
    vif_destroy(ctx);
    cfg.backend = VIF_BACKEND_CUDA;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    EXPECT_EQ(vif_cuda_context_device(ctx), 0);
    EXPECT_EQ(vif_cuda_submit(ctx, &p, &p, nullptr, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_cuda_submit(ctx, nullptr, &p, nullptr, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 64 * 64), cudaSuccess);
    VifDevicePicture small{d, 64, 8, 8, 8, 0};
    EXPECT_EQ(vif_cuda_submit(ctx, &small, &small, nullptr, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    VifDevicePicture ok{d, 64, 64, 64, 8, 0};
    ASSERT_EQ(cudaMemset(d, 100, 64 * 64), cudaSuccess);
    EXPECT_EQ(vif_cuda_submit(ctx, &ok, &ok, nullptr, nullptr), VIF_OK) << vif_last_error();
    VifScores s;
    EXPECT_EQ(vif_receive(ctx, &s, 1), VIF_OK);
    EXPECT_EQ(s.scale[0], 1.0); // flat identical frames: all low-variance pixels
    cudaFree(d);
    vif_destroy(ctx);
}

// Device pictures with a sample above the bit depth: the check runs on the device, so the frame
// is refused when it is received (VIF_ERROR_INVALID_ARGUMENT naming frame, plane, position and
// value); the frames around it score and the context stays usable. Device submissions follow
// the same queue rule as host ones (VIF_AGAIN with queue_depth frames unreceived).
TEST(DevicePointerErrors, SamplesAboveTheBitDepthAreNamedWhenReceived) {
    SKIP_WITHOUT_GPU();
    for (uint32_t bpc : {10u, 12u}) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = 64;
        cfg.max_height = 48;
        cfg.bitdepth = bpc;
        cfg.backend = VIF_BACKEND_CUDA;
        cfg.queue_depth = 2;
        VifContext* ctx = nullptr;
        ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
        const uint16_t max = static_cast<uint16_t>((1u << bpc) - 1);
        const size_t pitch_words = 80; // padding holds 0xFFFF: never counts
        std::vector<uint16_t> good(pitch_words * 48, 0xFFFF);
        for (size_t y = 0; y < 48; ++y)
            for (size_t x = 0; x < 64; ++x)
                good[y * pitch_words + x] = static_cast<uint16_t>((x * 37 + y * 11) % (max + 1));
        std::vector<uint16_t> bad = good;
        bad[7 * pitch_words + 5] = static_cast<uint16_t>(max + 1);
        void *dg = nullptr, *db = nullptr;
        const size_t bytes = good.size() * 2;
        ASSERT_EQ(cudaMalloc(&dg, bytes), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&db, bytes), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dg, good.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(db, bad.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
        const ptrdiff_t pitch = static_cast<ptrdiff_t>(pitch_words * 2);
        VifDevicePicture g{dg, pitch, 64, 48, bpc, 0}, b{db, pitch, 64, 48, bpc, 0};
        uint64_t idx = 99;
        ASSERT_EQ(vif_cuda_submit(ctx, &g, &g, nullptr, &idx), VIF_OK) << vif_last_error();
        ASSERT_EQ(vif_cuda_submit(ctx, &g, &b, nullptr, &idx), VIF_OK) << vif_last_error();
        EXPECT_EQ(idx, 1u);
        EXPECT_EQ(vif_cuda_submit(ctx, &g, &g, nullptr, &idx), VIF_AGAIN); // both slots held
        EXPECT_EQ(idx, 1u);
        VifScores s;
        ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
        EXPECT_EQ(s.frame_index, 0u);
        ASSERT_EQ(vif_cuda_submit(ctx, &g, &g, nullptr, &idx), VIF_OK) << vif_last_error();
        EXPECT_EQ(idx, 2u);
        EXPECT_EQ(vif_receive(ctx, &s, 1), VIF_ERROR_INVALID_ARGUMENT);
        const std::string msg = vif_last_error();
        for (const std::string& part : {std::string("frame 1"), std::string("distorted"),
                                        std::to_string(max + 1), std::string("x=5, y=7")})
            EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' in: " << msg;
        EXPECT_EQ(vif_pending(ctx), 1u);
        ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
        EXPECT_EQ(s.frame_index, 2u);
        // MSB-aligned words use all 16 bits: the same memory is valid then.
        VifDevicePicture bm = b;
        bm.flags = VIF_PICTURE_MSB_ALIGNED;
        ASSERT_EQ(vif_cuda_submit(ctx, &bm, &bm, nullptr, &idx), VIF_OK) << vif_last_error();
        EXPECT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
        cudaFree(dg);
        cudaFree(db);
        vif_destroy(ctx);
    }
}

// ---- Ladders already on the device (vif_cuda_submit_multi) -----------------------------------

// One reference against three rungs per source frame, all in device memory, in one call: each
// pair scores as the CPU backend scores the same pair through vif_submit (integer: the same
// numerators and denominators; float: the parity tolerance), in the order of the rungs.
TEST_P(DevicePointer, LadderMatchesHostPairs) {
    SKIP_WITHOUT_GPU();
    const DeviceCase dc = GetParam();
    const int w = 643, h = 361, n = 3, rungs = 3;
    auto frames = synthetic_frames(w, h, dc.bpc, n * rungs, 5);
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.bitdepth = dc.bpc;
    cfg.variant = dc.variant;
    cfg.queue_depth = 4; // one ladder fits, two do not: VIF_AGAIN and receiving in between
    VifContext *cc = nullptr, *gc = nullptr;
    cfg.backend = VIF_BACKEND_CPU;
    ASSERT_EQ(vif_create(&cc, &cfg), VIF_OK) << vif_last_error();
    cfg.backend = VIF_BACKEND_CUDA;
    ASSERT_EQ(vif_create(&gc, &cfg), VIF_OK) << vif_last_error();
    cudaStream_t st;
    ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
    const uint32_t flags = dc.msb ? VIF_PICTURE_MSB_ALIGNED : 0;
    std::vector<DeviceBuffer> bufs(n * (rungs + 1));
    std::vector<VifScores> got_c, got_g;
    for (int i = 0; i < n; ++i) {
        // Frame i's reference is that of synthetic pair i*rungs; its rungs the distorted
        // pictures of pairs i*rungs .. i*rungs+rungs-1 (distortions of other references too:
        // any picture of the size is a valid rung).
        const Plane& r = frames[i * rungs].first;
        DeviceBuffer* b = &bufs[i * (rungs + 1)];
        upload(r, dc.msb, &b[0], st);
        VifDevicePicture dr{b[0].p,      (ptrdiff_t)b[0].pitch, (uint32_t)w,
                            (uint32_t)h, (uint32_t)dc.bpc,      flags};
        VifDevicePicture dd[rungs];
        const VifDevicePicture* dp[rungs];
        for (int k = 0; k < rungs; ++k) {
            const Plane& d = frames[i * rungs + k].second;
            upload(d, dc.msb, &b[1 + k], st);
            dd[k] = VifDevicePicture{b[1 + k].p,  (ptrdiff_t)b[1 + k].pitch, (uint32_t)w,
                                     (uint32_t)h, (uint32_t)dc.bpc,          flags};
            dp[k] = &dd[k];
            VifPicture hr{r.bytes.data(), r.stride, (uint32_t)w, (uint32_t)h, (uint32_t)dc.bpc, 0};
            VifPicture hd{d.bytes.data(), d.stride, (uint32_t)w, (uint32_t)h, (uint32_t)dc.bpc, 0};
            submit_draining(
                cc, [&] { return vif_submit(cc, &hr, &hd, nullptr); }, &got_c);
        }
        ASSERT_FALSE(HasFatalFailure());
        uint64_t first = 99;
        submit_draining(
            gc, [&] { return vif_cuda_submit_multi(gc, &dr, dp, rungs, st, &first); }, &got_g);
        ASSERT_FALSE(HasFatalFailure());
        EXPECT_EQ(first, static_cast<uint64_t>(i * rungs));
    }
    drain(cc, &got_c);
    drain(gc, &got_g);
    ASSERT_EQ(got_c.size(), static_cast<size_t>(n * rungs));
    ASSERT_EQ(got_g.size(), static_cast<size_t>(n * rungs));
    for (int i = 0; i < n * rungs; ++i) {
        const VifScores &a = got_c[i], &b = got_g[i];
        EXPECT_EQ(b.frame_index, static_cast<uint64_t>(i));
        for (int s = 0; s < 4; ++s) {
            if (dc.variant == VIF_VARIANT_INTEGER) {
                EXPECT_EQ(a.num[s], b.num[s]) << "pair " << i << " scale " << s;
                EXPECT_EQ(a.den[s], b.den[s]) << "pair " << i << " scale " << s;
            } else {
                EXPECT_LE(std::fabs(a.scale[s] - b.scale[s]), 1e-4)
                    << "pair " << i << " scale " << s;
            }
        }
    }
    ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
    cudaStreamDestroy(st);
    vif_destroy(cc);
    vif_destroy(gc);
}

// Refusals queue nothing; a reference sample above the bit depth is named for every pair.
TEST(DevicePointerErrors, LadderRefusalsAndBadReferenceSample) {
    SKIP_WITHOUT_GPU();
    const uint32_t bpc = 10, W = 64, H = 48;
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = W;
    cfg.max_height = H;
    cfg.bitdepth = bpc;
    cfg.queue_depth = 3;
    VifContext* ctx = nullptr;
    cfg.backend = VIF_BACKEND_CPU;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    std::vector<uint16_t> good(W * H);
    for (uint32_t i = 0; i < W * H; ++i) good[i] = static_cast<uint16_t>((i * 37) % 1024);
    std::vector<uint16_t> bad = good;
    bad[3 * W + 9] = 1024;
    void *dg = nullptr, *db = nullptr;
    ASSERT_EQ(cudaMalloc(&dg, good.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&db, bad.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dg, good.data(), good.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(db, bad.data(), bad.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    VifDevicePicture g{dg, W * 2, W, H, bpc, 0}, b{db, W * 2, W, H, bpc, 0};
    const VifDevicePicture* two[2] = {&g, &g};
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, two, 2, nullptr, nullptr), VIF_ERROR_UNSUPPORTED);
    vif_destroy(ctx);
    cfg.backend = VIF_BACKEND_CUDA;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    const VifDevicePicture* four[4] = {&g, &g, &g, &g};
    const VifDevicePicture* with_null[2] = {&g, nullptr};
    VifDevicePicture small{dg, W * 2, 32, 32, bpc, 0};
    const VifDevicePicture* other_size[2] = {&g, &small};
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, four, 4, nullptr, nullptr),
              VIF_ERROR_INVALID_ARGUMENT); // more rungs than queue_depth
    EXPECT_NE(std::string(vif_last_error()).find("queue_depth"), std::string::npos);
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, with_null, 2, nullptr, nullptr),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, other_size, 2, nullptr, nullptr),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, nullptr, 2, nullptr, nullptr),
              VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, two, 0, nullptr, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_pending(ctx), 0u); // nothing queued by any of those
    uint64_t first = 99;
    ASSERT_EQ(vif_cuda_submit_multi(ctx, &b, two, 2, nullptr, &first), VIF_OK) << vif_last_error();
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(vif_cuda_submit_multi(ctx, &g, two, 2, nullptr, &first), VIF_AGAIN); // 1 free
    EXPECT_EQ(vif_pending(ctx), 2u);
    VifScores s;
    for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(vif_receive(ctx, &s, 1), VIF_ERROR_INVALID_ARGUMENT) << "pair " << k;
        const std::string msg = vif_last_error();
        for (const std::string& part :
             {"frame " + std::to_string(k), std::string("reference"), std::string("x=9, y=3")})
            EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' in: " << msg;
    }
    ASSERT_EQ(vif_cuda_submit_multi(ctx, &g, two, 2, nullptr, &first), VIF_OK)
        << vif_last_error(); // the context stays usable
    EXPECT_EQ(first, 2u);
    for (int k = 0; k < 2; ++k) EXPECT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
    cudaFree(dg);
    cudaFree(db);
    vif_destroy(ctx);
}

// ---- Pipeline: many frames in flight, sizes changing inside one context ----------------------

TEST(Pipeline, ManyFramesInFlightAndChangingSizes) {
    SKIP_WITHOUT_GPU();
    const int W = 400, H = 300;
    vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, 10, W, H);
    p.queue_depth = 4;
    std::vector<std::pair<Plane, Plane>> frames;
    const int sizes[][2] = {{400, 300}, {399, 299}, {16, 16}, {256, 17}, {17, 256}, {400, 300}};
    for (int i = 0; i < 12; ++i) {
        auto f = synthetic_frames(sizes[i % 6][0], sizes[i % 6][1], 10, 1, 10 + i);
        frames.push_back(std::move(f[0]));
    }
    // 12 frames through 4 slots: submit says VIF_AGAIN whenever all four hold unreceived
    // frames, the oldest is received and the frame submitted again; results stay in order.
    vif::Status err;
    auto cpu = vif::create_cpu_backend(p, &err);
    auto gpu = vif::create_cuda_backend(p, &err);
    ASSERT_TRUE(cpu && gpu) << err.message;
    std::vector<vif::FrameRaw> rc, rg;
    for (size_t i = 0; i < frames.size(); ++i) {
        submit_draining(*cpu, host(frames[i].first), host(frames[i].second), 100 + i, &rc);
        submit_draining(*gpu, host(frames[i].first), host(frames[i].second), 100 + i, &rg);
        ASSERT_FALSE(HasFatalFailure());
        EXPECT_LE(gpu->pending(), 4u);
        if (i == 5) { // poll without blocking in the middle
            vif::FrameRaw r;
            const vif::Status e = gpu->receive(&r, false);
            EXPECT_TRUE(e.status == VIF_OK || e.status == VIF_AGAIN);
            if (e.status == VIF_OK) rg.push_back(r);
        }
    }
    while (gpu->pending()) {
        vif::FrameRaw b;
        ASSERT_EQ(gpu->receive(&b, true).status, VIF_OK);
        rg.push_back(b);
    }
    while (cpu->pending()) {
        vif::FrameRaw a;
        ASSERT_EQ(cpu->receive(&a, true).status, VIF_OK);
        rc.push_back(a);
    }
    ASSERT_EQ(rc.size(), frames.size());
    ASSERT_EQ(rg.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
        const vif::FrameRaw &a = rc[i], &b = rg[i];
        ASSERT_EQ(a.index, 100 + i);
        ASSERT_EQ(b.index, 100 + i);
        for (int s = 0; s < 4; ++s)
            EXPECT_TRUE(a.scale[s].nl == b.scale[s].nl && a.scale[s].dl == b.scale[s].dl &&
                        a.scale[s].nn == b.scale[s].nn && a.scale[s].dn == b.scale[s].dn)
                << "frame " << a.index << " scale " << s << "\n  cpu:  " << raw_str(a.scale[s])
                << "\n  cuda: " << raw_str(b.scale[s]);
    }
    vif::FrameRaw r;
    EXPECT_EQ(gpu->receive(&r, false).status, VIF_AGAIN);
}

// ---- Batched launches: several frames per launch (grid.z = frame) ---------------------------

// Runs `frames` through a CUDA backend with CudaOptions::batch_frames = batch and returns the raw
// results in submission order.
std::vector<vif::FrameRaw> run_gpu(vif::CudaParams p, int batch,
                                   const std::vector<std::pair<Plane, Plane>>& frames,
                                   bool poll = false) {
    p.cuda.batch_frames = batch;
    vif::Status err;
    auto gpu = vif::create_cuda_backend(p, &err);
    EXPECT_TRUE(gpu) << err.message;
    std::vector<vif::FrameRaw> got;
    if (!gpu) return got;
    for (size_t i = 0; i < frames.size(); ++i) {
        submit_draining(*gpu, host(frames[i].first), host(frames[i].second), i, &got);
        if (poll) { // what a caller that polls after each submit does
            vif::FrameRaw r;
            if (gpu->receive(&r, false).status == VIF_OK) got.push_back(r);
        }
    }
    while (gpu->pending()) {
        vif::FrameRaw r;
        const vif::Status e = gpu->receive(&r, true);
        EXPECT_EQ(e.status, VIF_OK) << e.message;
        if (e.status != VIF_OK) break;
        got.push_back(r);
    }
    return got;
}

class Batching : public ::testing::TestWithParam<int> {};

// The same frames scored with batches of 1, 3, 8 and 16 frames (the last batch partial, sent by
// receive) and with the automatic rule: every frame's raw sums equal the CPU reference's, so the
// scores do not depend on how frames were grouped.
TEST_P(Batching, ScoresDoNotDependOnGrouping) {
    SKIP_WITHOUT_GPU();
    const int bpc = GetParam();
    const SizeCase sizes[] = {{17, 19, 11}, {175, 143, 11}, {576, 324, 11}};
    for (const SizeCase& sz : sizes) {
        vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, bpc, sz.w, sz.h);
        p.queue_depth = 16;
        const auto frames = synthetic_frames(sz.w, sz.h, bpc, sz.frames, 60);
        vif::Status err;
        auto cpu = vif::create_cpu_backend(p, &err);
        ASSERT_TRUE(cpu) << err.message;
        std::vector<vif::FrameRaw> want;
        for (size_t i = 0; i < frames.size(); ++i)
            submit_draining(*cpu, host(frames[i].first), host(frames[i].second), i, &want);
        while (cpu->pending()) {
            vif::FrameRaw r;
            ASSERT_EQ(cpu->receive(&r, true).status, VIF_OK);
            want.push_back(r);
        }
        for (int batch : {1, 3, 8, 16, vif::CudaOptions::kAuto}) {
            for (bool poll : {false, true}) {
                const auto got = run_gpu(p, batch, frames, poll);
                const std::string what = std::to_string(bpc) + "-bit " + std::to_string(sz.w) +
                                         "x" + std::to_string(sz.h) + " batch " +
                                         std::to_string(batch) + (poll ? " polled" : "");
                ASSERT_EQ(got.size(), want.size()) << what;
                for (size_t i = 0; i < got.size(); ++i) {
                    ASSERT_EQ(got[i].index, i) << what << ": out of order";
                    for (int s = 0; s < 4; ++s) {
                        const vif::ScaleRaw &a = want[i].scale[s], &b = got[i].scale[s];
                        EXPECT_TRUE(a.nl == b.nl && a.dl == b.dl && a.nn == b.nn && a.dn == b.dn)
                            << what << " frame " << i << " scale " << s
                            << "\n  cpu:  " << raw_str(a) << "\n  cuda: " << raw_str(b);
                    }
                }
            }
        }
    }
}
INSTANTIATE_TEST_SUITE_P(Depths, Batching, ::testing::Values(8, 10, 12, 16));

// A batch mixes sizes and layouts only by sending the held frames first: frames of changing
// size and MSB-aligned 10-bit words among plain ones, batches of 4.
TEST(BatchingMixed, SizesAndLayoutsChangeInsideABatch) {
    SKIP_WITHOUT_GPU();
    const int sizes[][2] = {{64, 48}, {64, 48}, {63, 47}, {64, 48}, {16, 16}, {64, 48}, {64, 48}};
    vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, 10, 64, 48);
    p.queue_depth = 8;
    p.cuda.batch_frames = 4;
    vif::Status err;
    auto cpu = vif::create_cpu_backend(p, &err);
    auto gpu = vif::create_cuda_backend(p, &err);
    ASSERT_TRUE(cpu && gpu) << err.message;
    std::vector<std::pair<Plane, Plane>> frames;
    std::vector<Plane> msb; // the MSB-aligned copies must live until submitted
    std::vector<vif::FrameRaw> rc, rg;
    for (int i = 0; i < 14; ++i) {
        auto f = synthetic_frames(sizes[i % 7][0], sizes[i % 7][1], 10, 1, 70 + i);
        frames.push_back(std::move(f[0]));
    }
    for (size_t i = 0; i < frames.size(); ++i) {
        vif::HostPlane r = host(frames[i].first), d = host(frames[i].second);
        if (i % 3 == 1) { // this frame's distorted plane as P010-style words
            Plane m = frames[i].second;
            for (size_t k = 0; k + 1 < m.bytes.size(); k += 2) {
                uint16_t v;
                std::memcpy(&v, &m.bytes[k], 2);
                v = static_cast<uint16_t>(v << 6);
                std::memcpy(&m.bytes[k], &v, 2);
            }
            msb.push_back(std::move(m));
            d = host(msb.back(), true);
        }
        submit_draining(*cpu, r, d, i, &rc);
        submit_draining(*gpu, r, d, i, &rg);
        ASSERT_FALSE(HasFatalFailure());
    }
    while (cpu->pending()) {
        vif::FrameRaw a;
        ASSERT_EQ(cpu->receive(&a, true).status, VIF_OK);
        rc.push_back(a);
    }
    while (gpu->pending()) {
        vif::FrameRaw b;
        ASSERT_EQ(gpu->receive(&b, true).status, VIF_OK);
        rg.push_back(b);
    }
    ASSERT_EQ(rc.size(), frames.size());
    ASSERT_EQ(rg.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i)
        for (int s = 0; s < 4; ++s) {
            const vif::ScaleRaw &a = rc[i].scale[s], &b = rg[i].scale[s];
            EXPECT_TRUE(a.nl == b.nl && a.dl == b.dl && a.nn == b.nn && a.dn == b.dn)
                << "frame " << i << " scale " << s << "\n  cpu:  " << raw_str(a)
                << "\n  cuda: " << raw_str(b);
        }
}

// Host-side only: the batching rule gives every size a batch the engine can launch, and batches
// the small frames the rule was measured on (not the large ones).
TEST(KernelTableRules, BatchRuleCoversEverySize) {
    using namespace vif::cuda;
    for (Arch a : {Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Ptx})
        for (int bpc : {8, 10, 12, 16})
            for (const auto& sz :
                 {std::pair<int, int>{16, 16}, {576, 324}, {1920, 1080}, {32768, 32768}}) {
                const int f = int_batch_frames(a, bpc, sz.first, sz.second);
                EXPECT_GE(f, 1);
                EXPECT_LE(f, Engine::kMaxBatchFrames);
            }
    EXPECT_GT(int_batch_frames(Arch::Sm90, 8, 576, 324), 1);
    EXPECT_EQ(int_batch_frames(Arch::Sm90, 8, 3840, 2160), 1);
}

// The engine refuses a batch it cannot launch as one.
TEST(BatchingErrors, BadBatchesAreRefused) {
    SKIP_WITHOUT_GPU();
    vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, 8, 64, 64);
    vif::Status err;
    auto engine = vif::cuda::Engine::create(p, &err);
    ASSERT_TRUE(engine) << err.message;
    DeviceBuffer a, b;
    ASSERT_EQ(cudaMalloc(&a.p, 64 * 64 * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b.p, 64 * 64 * 2), cudaSuccess);
    vif::cuda::DeviceResult* out = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&out), 2 * sizeof(*out)), cudaSuccess);
    vif::cuda::DeviceResult* outs[2] = {out, out + 1};
    vif::cuda::DevPlane r[2] = {{a.p, 64, 0}, {a.p, 128, 0}}; // pitches differ
    vif::cuda::DevPlane d[2] = {{b.p, 64, 0}, {b.p, 64, 0}};
    vif::Status e = engine->enqueue_batch(r, d, 2, 64, 64, outs, nullptr);
    EXPECT_EQ(e.status, VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message.find("pitch"), std::string::npos) << e.message;
    e = engine->enqueue_batch(r, d, vif::cuda::Engine::kMaxBatchFrames + 1, 64, 64, outs, nullptr);
    EXPECT_EQ(e.status, VIF_ERROR_INVALID_ARGUMENT);
    e = engine->enqueue_batch(r, d, 0, 64, 64, outs, nullptr);
    EXPECT_EQ(e.status, VIF_ERROR_INVALID_ARGUMENT);
    cudaFree(out);
}

// ---- The kernel table ------------------------------------------------------------------------

// Host-side only: docs/cuda.md's rules table is the dispatch table's own rendering, so the docs
// cannot drift from what runs. On a change, paste the expected text printed below.
TEST(KernelTableRules, TheDocsShowTheTable) {
    std::FILE* f = std::fopen(VIF_DOCS_DIR "/cuda.md", "rb");
    ASSERT_NE(f, nullptr) << VIF_DOCS_DIR "/cuda.md";
    std::string doc;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) doc.append(buf, n);
    std::fclose(f);
    using vif::cuda::Arch;
    const std::pair<std::string, std::string> tables[] = {
        {"rules sm_90", vif::cuda::dispatch_markdown(Arch::Sm90)},
        {"rules sm_75", vif::cuda::dispatch_markdown(Arch::Sm75)},
        {"rules by architecture", vif::cuda::rules_by_arch_markdown()},
    };
    for (const auto& [name, want] : tables) {
        const std::string begin = "<!-- " + name + ": begin -->\n",
                          end = "<!-- " + name + ": end -->";
        const size_t a = doc.find(begin), b = doc.find(end);
        ASSERT_TRUE(a != std::string::npos && b != std::string::npos && a < b)
            << "docs/cuda.md lacks the markers " << begin << end;
        EXPECT_EQ(doc.substr(a + begin.size(), b - a - begin.size()), want)
            << "docs/cuda.md's table '" << name
            << "' differs from the dispatch table; it should read:\n"
            << want;
    }
}

// Host-side only: the float rule picks a set that exists, 32x16 scale-0 tiles below 0.5 Mpx and
// 64x16 from there on (docs/perf/h100-sweep-float-3.md), on every architecture.
TEST(KernelTableRules, FloatRulesKeepTheirChoices) {
    using namespace vif::cuda;
    for (Arch a : {Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Ptx}) {
        for (const DispatchRow& r : dispatch_rows(a, Pick::FloatSet))
            EXPECT_GE(float_variant_index(r.choice), 1) << arch_name(a) << ": " << r.choice;
        EXPECT_STREQ(float_select(a, 576, 324), "s32");
        EXPECT_STREQ(float_select(a, 999, 500), "s32");
        EXPECT_STREQ(float_select(a, 1000, 500), "s64");
        EXPECT_STREQ(float_select(a, 1920, 1080), "s64");
        EXPECT_STREQ(float_select(a, 32768, 32768), "s64");
    }
}

// Host-side only: runs without a GPU.
TEST(KernelTableRules, EverySlotDepthAndSizeGetsACompiledVariant) {
    using namespace vif::cuda;
    const int sizes[][2] = {{16, 16},     {17, 19},     {576, 324},   {1280, 720},   {1920, 1080},
                            {1919, 1079}, {3840, 2160}, {7680, 4320}, {32768, 32768}};
    for (Arch a : {Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Ptx}) {
        for (const DispatchRow& r : dispatch_rows(a, Pick::IntTile))
            EXPECT_GE(int_variant_index(r.slot, r.choice), 0)
                << arch_name(a) << ": row names variant " << r.choice << " missing from slot "
                << r.slot;
        for (int slot = 0; slot < kIntSlots; ++slot)
            for (int bpc : {8, 10, 12, 16})
                for (const auto& sz : sizes) {
                    const int scale = slot == kFusedSlot ? 2 : slot;
                    const int w = sz[0] >> scale, h = sz[1] >> scale;
                    const int i = int_select(a, slot, bpc, w, h);
                    ASSERT_GE(i, 0);
                    ASSERT_LT(i, static_cast<int>(int_variants(slot).size()));
                    const IntVariant& v = int_variants(slot)[i];
                    EXPECT_TRUE(v.has_depth(bpc))
                        << arch_name(a) << " slot " << slot << " " << bpc << "-bit";
                    const KernelLaunch k = v.launch(bpc, w, h);
                    EXPECT_NE(k.func, nullptr) << v.id << " " << bpc << "-bit";
                    EXPECT_GT(k.grid.x * k.grid.y, 0u);
                }
    }
    for (int slot = 0; slot < kIntSlots; ++slot)
        for (const IntVariant& v : int_variants(slot)) {
            EXPECT_EQ(v.slot, slot) << v.id;
            for (int bpc : {8, 10, 12, 16})
                EXPECT_EQ(v.launch(bpc, 64, 64).func != nullptr, v.has_depth(bpc))
                    << v.id << " " << bpc;
        }
}

// The choices of the H200 before the table existed (tile_policy.hpp and engine.cu's switch at
// commit 4bb1f35), so that moving them into the table did not move performance; since then 8-bit
// scale 0 moved to the tensor-core 0t at every size (docs/perf/h200-tensor-ncu.md), and frames of
// 1080p and up to the statistic's options with the packed log table (docs/perf/h100-stat-options.md).
TEST(KernelTableRules, Sm90KeepsItsChoices) {
    using namespace vif::cuda;
    struct Want {
        int w, h, bpc;
        const char* s0;
        const char* s1;
        const char* s23;
        const char* shape0;
    };
    const Want wants[] = {
        {576, 324, 8, "0t", "1s", "23", "48x16/256t/mmah3"},
        {1280, 720, 8, "0t", "1", "23", "48x16/256t/mmah3"},
        {1920, 1080, 8, "0tp", "1p", "23bp", "48x16/256t/mmah3/scdp"},
        {1919, 1079, 8, "0tp", "1p", "23bp", "48x16/256t/mmah3/scdp"},
        {1920, 1080, 10, "0p", "1p", "23bp", "48x16/256t/v2h3/scdp"},
        {1920, 1080, 12, "0", "1p", "23bp", "48x16/256t/v2h3"},
        {3840, 2160, 8, "0tp", "1p", "23bp", "48x16/256t/mmah3/scdp"},
        {3840, 2160, 16, "0", "1p", "23bp", "48x16/256t/v2h3"},
        {16, 16, 8, "0t", "1s", "23", "48x16/256t/mmah3"},
    };
    for (const Want& x : wants) {
        const std::string what =
            std::to_string(x.w) + "x" + std::to_string(x.h) + " " + std::to_string(x.bpc) + "-bit";
        const int i0 = int_select(Arch::Sm90, 0, x.bpc, x.w, x.h);
        EXPECT_STREQ(int_variants(0)[i0].id, x.s0) << what;
        EXPECT_EQ(int_variants(0)[i0].launch(x.bpc, x.w, x.h).shape, x.shape0) << what;
        EXPECT_STREQ(int_variants(1)[int_select(Arch::Sm90, 1, x.bpc, x.w >> 1, x.h >> 1)].id, x.s1)
            << what;
        EXPECT_STREQ(int_variants(2)[int_select(Arch::Sm90, 2, x.bpc, x.w >> 2, x.h >> 2)].id, "2")
            << what;
        EXPECT_STREQ(int_variants(3)[int_select(Arch::Sm90, 3, x.bpc, x.w >> 3, x.h >> 3)].id, "3")
            << what;
        EXPECT_STREQ(
            int_variants(kFusedSlot)[int_select(Arch::Sm90, kFusedSlot, x.bpc, x.w >> 2, x.h >> 2)]
                .id,
            x.s23)
            << what;
    }
    // The shapes the ids stand for (as the sweeps in docs/perf/ name them).
    EXPECT_EQ(int_variants(1)[int_variant_index(1, "1")].launch(8, 960, 540).shape,
              "56x16/256t/v4h4");
    EXPECT_EQ(int_variants(1)[int_variant_index(1, "1s")].launch(8, 288, 162).shape,
              "24x16/256t/v2h2");
    EXPECT_EQ(
        int_variants(kFusedSlot)[int_variant_index(kFusedSlot, "23b")].launch(8, 480, 270).shape,
        "60x16/256t+62x8/256t");
    EXPECT_EQ(
        int_variants(kFusedSlot)[int_variant_index(kFusedSlot, "23")].launch(8, 144, 81).shape,
        "28x16/256t+62x8/256t");
    // The fused launch's grid: scale-2 tiles first, then scale 3's.
    const vif::cuda::KernelLaunch f =
        int_variants(kFusedSlot)[int_variant_index(kFusedSlot, "23b")].launch(8, 480, 270);
    EXPECT_EQ(f.fused_grid2_x, 8);            // ceil(480 / 60)
    EXPECT_EQ(f.fused_blocks2, 8 * 17);       // ceil(270 / 16) rows
    EXPECT_EQ(f.fused_grid3_x, 4);            // ceil(240 / 62)
    EXPECT_EQ(f.grid.x, 8u * 17u + 4u * 17u); // ceil(135 / 8) rows of scale 3
}

// Host-side only: the Turing rules (sm_75) pick no tensor-core kernel for any slot, depth or size,
// and are sm_90's choices wherever those run on CUDA cores; compute capability 7.5 maps to them.
TEST(KernelTableRules, Sm75PicksOnlyCudaCoreKernels) {
    using namespace vif::cuda;
    EXPECT_EQ(arch_of(7, 5), Arch::Sm75);
    EXPECT_EQ(arch_of(9, 0), Arch::Sm90);
    EXPECT_EQ(arch_of(12, 0), Arch::Ptx);
    EXPECT_EQ(int_rules_owner(Arch::Sm75), Arch::Sm75);
    EXPECT_EQ(int_rules_owner(Arch::Sm86), Arch::Sm90);
    EXPECT_FALSE(arch_has_tensor_cores(Arch::Sm75));
    EXPECT_TRUE(arch_has_tensor_cores(Arch::Ptx));
    Arch named = Arch::Sm90;
    EXPECT_TRUE(arch_from_name("sm_75", &named));
    EXPECT_EQ(named, Arch::Sm75);
    EXPECT_FALSE(arch_from_name("sm_70", &named));
    const int sizes[][2] = {{16, 16},     {576, 324},   {1280, 720},  {1920, 1080},
                            {1919, 1079}, {3840, 2160}, {7680, 4320}, {32768, 32768}};
    int tensor_in_sm90 = 0;
    for (int slot = 0; slot < kIntSlots; ++slot)
        for (int bpc : {8, 10, 12, 16})
            for (const auto& sz : sizes) {
                const int scale = slot == kFusedSlot ? 2 : slot;
                const int w = sz[0] >> scale, h = sz[1] >> scale;
                const IntVariant& t = int_variants(slot)[int_select(Arch::Sm75, slot, bpc, w, h)];
                const IntVariant& n = int_variants(slot)[int_select(Arch::Sm90, slot, bpc, w, h)];
                const std::string what = std::string(t.id) + " slot " + std::to_string(slot) + " " +
                                         std::to_string(bpc) + "-bit " + std::to_string(w) + "x" +
                                         std::to_string(h);
                EXPECT_FALSE(t.launch(bpc, w, h).tensor_cores) << what;
                if (n.launch(bpc, w, h).tensor_cores) {
                    ++tensor_in_sm90;
                    EXPECT_STREQ(t.id, "0") << what; // 48x16 on CUDA cores
                } else {
                    EXPECT_STREQ(t.id, n.id) << what;
                }
            }
    EXPECT_GT(tensor_in_sm90, 0) << "sm_90's 8-bit scale 0 runs on the tensor cores";
    EXPECT_STREQ(int_variants(0)[int_select(Arch::Sm75, 0, 10, 1920, 1080)].id, "0p");
    EXPECT_NE(std::string(int_rules_measured_on(Arch::Sm75)).find("no Turing GPU"),
              std::string::npos);
}

// The rule set a GPU runs: its own (sm_75 where the loaded code has no tensor cores), or the
// Turing one when forced (CudaOptions::sm75_rules); the plan then holds no tensor-core launch.
TEST(Sm75Rules, ForcedOnThisGpu) {
    SKIP_WITHOUT_GPU();
    using namespace vif::cuda;
    vif::Status err;
    vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, 8, 1920, 1080);
    p.cuda.sm75_rules = false;
    {
        auto e = Engine::create(p, &err);
        ASSERT_TRUE(e) << err.message;
        std::printf("[sm75] device code compute_%d, tensor cores %s, rules of %s%s%s\n",
                    device_code_ptx_arch(), e->tensor_cores() ? "yes" : "no",
                    arch_name(int_rules_owner(e->arch())), e->rules_reason().empty() ? "" : ": ",
                    e->rules_reason().c_str());
        if (!e->tensor_cores()) {
            EXPECT_EQ(e->arch(), Arch::Sm75) << "no tensor cores here";
        }
    }
    p.cuda.sm75_rules = true;
    auto e = Engine::create(p, &err);
    ASSERT_TRUE(e) << err.message;
    EXPECT_EQ(e->arch(), Arch::Sm75);
    EXPECT_NE(e->rules_reason().find("sm75_rules"), std::string::npos) << e->rules_reason();
    const std::vector<KernelLaunch> plan = e->plan(1920, 1080);
    for (const KernelLaunch& k : plan) EXPECT_FALSE(k.tensor_cores) << k.name << " " << k.shape;
    ASSERT_FALSE(plan.empty());
    EXPECT_EQ(plan[0].shape, "48x16/256t/v2h3");
}

// The golden cases of testdata/ on the Turing rules, raw accumulators against the CPU backend
// (whatever VIF_TEST_CUDA_RULES says: every GPU run of the gate covers them).
TEST(Sm75Rules, GoldenCasesEqualTheCpu) {
    SKIP_WITHOUT_GPU();
    std::string dir;
    for (const char* d : {VIF_TESTDATA_DIR, VIF_SHARED_TESTDATA_DIR})
        if (dir.empty() && !vif::testing::load_manifest(d).empty()) dir = d;
    if (dir.empty()) GTEST_SKIP() << "no golden test data (testdata/MANIFEST.csv) found";
    int cases = 0;
    for (const auto& c : vif::testing::load_manifest(dir)) {
        std::vector<std::pair<Plane, Plane>> frames;
        for (uint32_t f = 0; f < c.frames; ++f) {
            Plane pr = make_plane(c.width, c.height, c.bitdepth), pd = pr;
            pr.bytes = vif::testing::read_luma(c, c.ref_path(), f);
            pd.bytes = vif::testing::read_luma(c, c.dist_path(), f);
            ASSERT_EQ(pr.bytes.size(), size_t(pr.stride) * c.height) << c.name;
            ASSERT_EQ(pd.bytes.size(), size_t(pd.stride) * c.height) << c.name;
            frames.emplace_back(std::move(pr), std::move(pd));
        }
        for (double egl : {100.0, 1.0}) {
            vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, c.bitdepth, c.width, c.height, egl);
            p.cuda.sm75_rules = true;
            compare_backends(p, frames, "sm_75 rules " + c.name + " egl " + std::to_string(egl));
            if (HasFatalFailure()) return;
        }
        ++cases;
    }
    EXPECT_GT(cases, 0);
    std::printf("[sm75] golden cases on the Turing rules: %d, integer egl 100 and 1\n", cases);
}

// Host-side only: the ladder rows pick, on every architecture, size and depth, a compiled variant
// of their slot, and the ones Engine::enqueue_multi launched before the rows existed (commit
// 795f527: 48x16 scale 0 with the tensor-core vertical pass and two barriers a rung at 8 bits,
// 48x16 on CUDA cores at the other depths, 56x16 scale 1, 60x16+62x8 scales 2+3, each with the
// packed statistic; sm_75's rows, without tensor cores: 48x16 on CUDA cores with two barriers a
// rung at 8 bits, as b726a87 chose). Every row of the table has a choice its lists carry.
TEST(KernelTableRules, LadderRowsKeepTheirChoices) {
    using namespace vif::cuda;
    const int sizes[][2] = {{16, 16}, {576, 324}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
    for (Arch a : {Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Ptx}) {
        const bool tc = arch_has_tensor_cores(a);
        for (const DispatchRow& r : dispatch_rows(a, Pick::LadderTile))
            EXPECT_GE(ladder_variant_index(r.slot, r.choice), 0)
                << arch_name(a) << ": row names ladder variant " << r.choice;
        for (const auto& sz : sizes)
            for (int bpc : {8, 10, 12, 16}) {
                const std::string what = std::string(arch_name(a)) + " " + std::to_string(sz[0]) +
                                         "x" + std::to_string(sz[1]) + " " + std::to_string(bpc) +
                                         "-bit";
                const int i0 = ladder_select(a, 0, bpc, sz[0], sz[1]);
                const int i1 = ladder_select(a, 1, bpc, sz[0] >> 1, sz[1] >> 1);
                const int i23 = ladder_select(a, kFusedSlot, bpc, sz[0] >> 2, sz[1] >> 2);
                ASSERT_GE(i0, 0) << what;
                ASSERT_GE(i1, 0) << what;
                ASSERT_GE(i23, 0) << what;
                const LadderVariant& v0 = ladder_variants(0)[i0];
                EXPECT_STREQ(v0.id, bpc != 8 ? "L0" : tc ? "L0t" : "L0l") << what;
                EXPECT_EQ(v0.launch(bpc, sz[0], sz[1]).shape, bpc != 8 ? "48x16/256t/v2h3/scdp"
                                                              : tc ? "48x16/256t/mmah3/lean/scdp"
                                                                   : "48x16/256t/v2h3/lean/scdp")
                    << what;
                EXPECT_EQ(v0.launch(bpc, sz[0], sz[1]).tensor_cores, tc && bpc == 8) << what;
                EXPECT_NE(v0.launch(bpc, sz[0], sz[1]).func, nullptr) << what;
                EXPECT_STREQ(ladder_variants(1)[i1].id, "L1") << what;
                EXPECT_EQ(ladder_variants(1)[i1].launch(bpc, sz[0] >> 1, sz[1] >> 1).shape,
                          "56x16/256t/v4h4/scdp")
                    << what;
                EXPECT_STREQ(ladder_variants(kFusedSlot)[i23].id, "L23") << what;
                EXPECT_EQ(
                    ladder_variants(kFusedSlot)[i23].launch(bpc, sz[0] >> 2, sz[1] >> 2).shape,
                    "60x16/256t+62x8/256t/scdp")
                    << what;
            }
    }
    for (int slot : {0, 1, kFusedSlot})
        for (const LadderVariant& v : ladder_variants(slot)) {
            EXPECT_EQ(v.slot, slot) << v.id;
            for (int bpc : {8, 10, 12, 16})
                EXPECT_EQ(v.launch(bpc, 64, 64).func != nullptr, v.has_depth(bpc))
                    << v.id << " " << bpc;
        }
    // Every pick ends with a row that always matches (pixels [0, inf), every depth).
    for (Pick p : {Pick::IntBatch, Pick::FloatSet}) {
        const std::vector<DispatchRow> rows = dispatch_rows(Arch::Sm90, p);
        ASSERT_FALSE(rows.empty());
        EXPECT_EQ(rows.back().max_pixels, LONG_MAX);
    }
    EXPECT_EQ(int_batch_frames(Arch::Sm90, 8, 576, 324), 16);
    EXPECT_EQ(int_batch_frames(Arch::Sm90, 10, 576, 324), 16);
    EXPECT_EQ(int_batch_frames(Arch::Sm90, 8, 1920, 1080), 1);
}

// Every variant of the table, forced through CudaOptions, against the CPU reference.
struct VariantCase {
    int slot, index, bpc;
};
void PrintTo(const VariantCase& c, std::ostream* os) {
    *os << "slot" << c.slot << "_" << vif::cuda::int_variants(c.slot)[c.index].id << "_" << c.bpc
        << "bit";
}
std::vector<VariantCase> all_variant_cases() {
    std::vector<VariantCase> out;
    for (int slot = 0; slot < vif::cuda::kIntSlots; ++slot) {
        const auto& v = vif::cuda::int_variants(slot);
        for (size_t i = 0; i < v.size(); ++i)
            for (int bpc : {8, 10, 12, 16})
                if (v[i].has_depth(bpc)) out.push_back({slot, static_cast<int>(i), bpc});
    }
    return out;
}

class KernelVariant : public ::testing::TestWithParam<VariantCase> {};

TEST_P(KernelVariant, EqualsCpuReference) {
    SKIP_WITHOUT_GPU();
    const VariantCase c = GetParam();
    const std::string id = vif::cuda::int_variants(c.slot)[c.index].id;
    // Odd sizes (partial tiles, reflections on every side), a tiny frame, and a large odd one.
    const SizeCase sizes[] = {{17, 19, 3}, {175, 143, 3}, {481, 271, 2}, {1919, 1079, 1}};
    if (vif::cuda::int_variants(c.slot)[c.index].launch(c.bpc, 64, 64).tensor_cores &&
        !vif::cuda::device_code_has_tensor_cores()) {
        // A build without sm_80 code (or a Turing GPU): the variant is refused, never run.
        vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, c.bpc, 64, 64);
        p.cuda.tiles[c.slot] = c.index;
        vif::Status err;
        EXPECT_EQ(vif::create_cuda_backend(p, &err), nullptr);
        EXPECT_EQ(err.status, VIF_ERROR_UNSUPPORTED) << err.message;
        EXPECT_NE(err.message.find("tensor cores"), std::string::npos) << err.message;
        return;
    }
    for (const SizeCase& sz : sizes) {
        vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, c.bpc, sz.w, sz.h);
        p.cuda.tiles[c.slot] = c.index;
        p.cuda.fuse23 = c.slot != 2 && c.slot != 3;
        const auto frames = synthetic_frames(sz.w, sz.h, c.bpc, sz.frames, 20 + c.slot);
        compare_backends(p, frames,
                         "variant " + id + " " + std::to_string(c.bpc) + "-bit " +
                             std::to_string(sz.w) + "x" + std::to_string(sz.h));
        if (HasFatalFailure()) return;
        if (sz.frames < 2) continue;
        // The same frames as one batched launch per scale (grid.z = frame).
        p.cuda.batch_frames = sz.frames;
        compare_backends(p, frames,
                         "variant " + id + " batched " + std::to_string(c.bpc) + "-bit " +
                             std::to_string(sz.w) + "x" + std::to_string(sz.h));
        if (HasFatalFailure()) return;
    }
}
INSTANTIATE_TEST_SUITE_P(Table, KernelVariant, ::testing::ValuesIn(all_variant_cases()),
                         [](const ::testing::TestParamInfo<VariantCase>& i) {
                             return "slot" + std::to_string(i.param.slot) + "_v" +
                                    vif::cuda::int_variants(i.param.slot)[i.param.index].id + "_" +
                                    std::to_string(i.param.bpc) + "bit";
                         });

TEST(KernelVariantErrors, AVariantNotCompiledForTheDepthIsRefused) {
    SKIP_WITHOUT_GPU();
    vif::CudaParams p = params_of(VIF_VARIANT_INTEGER, 12, 64, 64);
    p.cuda.tiles[0] = vif::cuda::int_variant_index(0, "0t"); // 8 bits only
    vif::Status err;
    EXPECT_EQ(vif::create_cuda_backend(p, &err), nullptr);
    EXPECT_EQ(err.status, VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(err.message.find("variant"), std::string::npos) << err.message;
    p.cuda.tiles[0] = 99;
    EXPECT_EQ(vif::create_cuda_backend(p, &err), nullptr);
    EXPECT_EQ(err.status, VIF_ERROR_INVALID_ARGUMENT);
}

// Every float kernel set (CudaOptions::float_kernels: the generic kernels at the default widths
// too, each set specialised for them), forced, against the CPU reference: odd sizes (partial
// tiles, reflections on every side), a tiny frame, a large odd one; both gain limits.
struct FloatSetCase {
    int index, bpc;
};
std::vector<FloatSetCase> all_float_set_cases() {
    std::vector<FloatSetCase> out;
    for (size_t i = 0; i < vif::cuda::float_variants().size(); ++i)
        for (int bpc : {8, 10, 12, 16}) out.push_back({static_cast<int>(i), bpc});
    return out;
}
void PrintTo(const FloatSetCase& c, std::ostream* os) {
    *os << vif::cuda::float_variants()[c.index].id << "_" << c.bpc << "bit";
}
class FloatKernelSet : public ::testing::TestWithParam<FloatSetCase> {};

TEST_P(FloatKernelSet, TotalsBitIdentical) {
    SKIP_WITHOUT_GPU();
    const FloatSetCase c = GetParam();
    const std::string id = vif::cuda::float_variants()[c.index].id;
    const SizeCase sizes[] = {{16, 16, 3},   {17, 19, 3},   {33, 31, 3},   {175, 143, 3},
                              {481, 271, 2}, {64, 1000, 1}, {1000, 40, 1}, {1919, 1079, 1}};
    for (const SizeCase& sz : sizes)
        for (double egl : {100.0, 1.0}) {
            if (egl != 100.0 && sz.w * sz.h > 500000) continue; // the large frame once
            vif::CudaParams p = params_of(VIF_VARIANT_FLOAT, c.bpc, sz.w, sz.h, egl);
            p.cuda.float_kernels = c.index;
            const auto frames = synthetic_frames(sz.w, sz.h, c.bpc, sz.frames, 50 + c.index);
            compare_backends(p, frames,
                             "float set " + id + " " + std::to_string(c.bpc) + "-bit " +
                                 std::to_string(sz.w) + "x" + std::to_string(sz.h) + " egl " +
                                 std::to_string(egl));
            if (HasFatalFailure()) return;
        }
}
INSTANTIATE_TEST_SUITE_P(Sets, FloatKernelSet, ::testing::ValuesIn(all_float_set_cases()),
                         [](const ::testing::TestParamInfo<FloatSetCase>& i) {
                             return std::string(vif::cuda::float_variants()[i.param.index].id) +
                                    "_" + std::to_string(i.param.bpc) + "bit";
                         });

// The engine's own choice changes with the frame size (float_auto_set in engine.cu: 32x16
// scale-0 tiles below 0.5 Mpx, 64x16 above): frames of both kinds through one backend.
TEST(FloatKernelSetAuto, FrameSizesAcrossTheRule) {
    SKIP_WITHOUT_GPU();
    auto frames = synthetic_frames(1280, 720, 8, 2, 60);
    for (auto& f : synthetic_frames(577, 323, 8, 2, 61)) frames.push_back(std::move(f));
    for (auto& f : synthetic_frames(1279, 719, 8, 1, 62)) frames.push_back(std::move(f));
    compare_backends(params_of(VIF_VARIANT_FLOAT, 8, 1280, 720), frames,
                     "float auto set, mixed frame sizes");
}

TEST(FloatKernelSetErrors, ASpecialisedSetNeedsTheDefaultWidths) {
    SKIP_WITHOUT_GPU();
    ASSERT_GE(vif::cuda::float_variants().size(), 2u);
    vif::CudaParams p = params_of(VIF_VARIANT_FLOAT, 8, 128, 128, 100.0, 2.0f);
    p.cuda.float_kernels = 1; // specialised for 17/9/5/3 taps; kernelscale 2 has 35/19/9/5
    vif::Status err;
    EXPECT_EQ(vif::create_cuda_backend(p, &err), nullptr);
    EXPECT_EQ(err.status, VIF_ERROR_INVALID_ARGUMENT);
    p.cuda.float_kernels = 0; // the generic kernels take any width
    auto b = vif::create_cuda_backend(p, &err);
    EXPECT_NE(b, nullptr) << err.message;
    p.kernelscale = 1.0f;
    p.cuda.float_kernels = 99;
    EXPECT_EQ(vif::create_cuda_backend(p, &err), nullptr);
    EXPECT_EQ(err.status, VIF_ERROR_INVALID_ARGUMENT);
}

// The other launch paths of CudaOptions: no CUDA graphs, the table-only log lookup, a
// synchronisation after every launch, scales 2 and 3 unfused.
enum class PathOption { NoGraphs, LogTableOnly, SyncEachLaunch, Unfused, BatchedUnfused };
void PrintTo(PathOption o, std::ostream* os) {
    const char* n[] = {"NoGraphs", "LogTableOnly", "SyncEachLaunch", "Unfused", "BatchedUnfused"};
    *os << n[static_cast<int>(o)];
}
class LaunchPath : public ::testing::TestWithParam<std::tuple<PathOption, int>> {};

TEST_P(LaunchPath, EqualsCpuReference) {
    SKIP_WITHOUT_GPU();
    const auto [opt, bpc] = GetParam();
    const SizeCase sizes[] = {{16, 16, 3}, {33, 31, 3}, {481, 271, 3}, {1920, 1080, 2}};
    for (const SizeCase& sz : sizes) {
        for (VifVariant variant : {VIF_VARIANT_INTEGER, VIF_VARIANT_FLOAT}) {
            if (variant == VIF_VARIANT_FLOAT &&
                (opt == PathOption::LogTableOnly || opt == PathOption::Unfused))
                continue; // integer-only options (the float path runs batches frame by frame)
            vif::CudaParams p = params_of(variant, bpc, sz.w, sz.h);
            p.cuda.graphs = opt != PathOption::NoGraphs;
            p.cuda.log_table_only = opt == PathOption::LogTableOnly;
            p.cuda.sync_each_launch = opt == PathOption::SyncEachLaunch;
            p.cuda.fuse23 = opt != PathOption::Unfused && opt != PathOption::BatchedUnfused;
            if (opt == PathOption::BatchedUnfused) p.cuda.batch_frames = 3;
            const auto frames = synthetic_frames(sz.w, sz.h, bpc, sz.frames, 40);
            compare_backends(p, frames,
                             std::string(variant == VIF_VARIANT_INTEGER ? "integer " : "float ") +
                                 std::to_string(bpc) + "-bit " + std::to_string(sz.w) + "x" +
                                 std::to_string(sz.h));
            if (HasFatalFailure()) return;
        }
    }
}
INSTANTIATE_TEST_SUITE_P(
    Options, LaunchPath,
    ::testing::Combine(::testing::Values(PathOption::NoGraphs, PathOption::LogTableOnly,
                                         PathOption::SyncEachLaunch, PathOption::Unfused,
                                         PathOption::BatchedUnfused),
                       ::testing::Values(8, 10, 16)));

// Prints the float summary at the end (the brief: report the largest difference).
class FloatSummary : public ::testing::Environment {
public:
    void TearDown() override {
        if (g_float_tally.compared)
            std::printf("[parity] float synthetic: %ld scale results compared, largest score "
                        "difference %.3g, %ld per-scale totals not bit-identical\n",
                        g_float_tally.compared, g_float_tally.max_score_diff,
                        g_float_tally.float_mismatches);
    }
};
const auto* g_env = ::testing::AddGlobalTestEnvironment(new FloatSummary);

} // namespace
