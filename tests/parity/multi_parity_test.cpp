// Parity of the CUDA ladder kernels (cuda/kernels/int_multi_kernels.cuh, Engine::enqueue_multi):
// one reference against K rungs through the CUDA backend's submit_multi, each rung's raw
// per-scale accumulators (NL, DL, NN, DN) equal to the CPU reference's for that pair, submitted
// on its own. Every bit depth, odd, tiny, tall and wide sizes, 1080p and 2160p, K = 1, 2, 6 and
// 64, a gain limit of 1, an MSB-aligned rung (its own load shift), every 8-bit scale-0 kernel
// (the tensor-core vertical pass with two barriers a rung by default, with four, the CUDA-core
// 48x16 tile with four and two, the 64x16 tile), forced rung groups, and a second call with fewer
// rungs in another order (no state left from the first); a context's first ladder with the legacy
// default stream held up (its sums zeroed on the kernels' stream). Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "engine/cuda_options.hpp"
#include "forced_rules.hpp"
#include "vif/vif.h"

namespace {

struct LadderCase {
    int w, h, bpc, rungs;
    double gain_limit;
    int shape0 = 0; // CudaOptions::ladder_shape0 (8-bit scale-0 kernel of engine_multi.cu)
    int rpb = 0;    // CudaOptions::ladder_rungs_per_block, all three launches (0: automatic)
    // CudaOptions::ladder_stat_packed = false: the hardware-log2 statistic.
    bool plain_stat = false;
    // CudaOptions::sm75_rules: the Turing rules (8-bit scale 0 on CUDA cores, no tensor cores).
    bool sm75 = false;
};
void PrintTo(const LadderCase& c, std::ostream* os) {
    *os << c.w << "x" << c.h << "_" << c.bpc << "bit_K" << c.rungs << "_egl" << c.gain_limit;
}

// A plane of 16-bit samples (stored as bytes at 8 bits); msb: words shifted to the top bits.
struct Plane {
    int w, h, bpc;
    ptrdiff_t stride;
    std::vector<uint8_t> bytes;
    bool msb = false;
    vif::HostPlane host() const {
        return vif::HostPlane{bytes.data(), stride, uint32_t(w), uint32_t(h), msb};
    }
};

Plane to_plane(const std::vector<uint32_t>& v, int w, int h, int bpc, int pad, bool msb) {
    Plane p{w, h, bpc, ptrdiff_t(w + pad) * (bpc == 8 ? 1 : 2), {}, msb};
    p.bytes.assign(size_t(p.stride) * h, 0x5A); // padding poisoned
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const uint32_t s = v[size_t(y) * w + x];
            uint8_t* row = p.bytes.data() + y * p.stride;
            if (bpc == 8) {
                row[x] = uint8_t(s);
            } else {
                const uint16_t u = uint16_t(msb ? s << (16 - bpc) : s);
                std::memcpy(row + 2 * x, &u, 2);
            }
        }
    return p;
}

// A textured reference (smooth waves, flat blocks, noise) and rung r: the reference degraded
// in r's way (noise of growing strength, blur, contrast, inversion, flat, identical).
std::vector<uint32_t> reference(int w, int h, int bpc, std::mt19937& rng) {
    const uint32_t maxv = (1u << bpc) - 1;
    std::uniform_int_distribution<uint32_t> any(0, maxv);
    std::vector<uint32_t> v(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = maxv * (0.5 + 0.3 * std::sin(0.07 * x) * std::cos(0.05 * y));
            if (((x / 8) + (y / 8)) % 5 == 0) s = maxv * 0.25; // flat: the low-variance branch
            if (((x / 16) + (y / 4)) % 7 == 0) s = any(rng);   // noise
            v[size_t(y) * w + x] = uint32_t(std::clamp(s, 0.0, double(maxv)));
        }
    return v;
}

std::vector<uint32_t> rung(const std::vector<uint32_t>& r, int w, int h, int bpc, int k,
                           std::mt19937& rng) {
    const int maxv = (1 << bpc) - 1;
    std::normal_distribution<double> n(0.0, maxv / 200.0 * (1 + k % 9));
    std::vector<uint32_t> v(r.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * w + x;
            double s = r[i];
            switch (k % 6) {
            case 0:
                s += n(rng);
                break;
            case 1: { // horizontal blur
                const int a = std::max(x - 1, 0), b = std::min(x + 1, w - 1);
                s = (r[size_t(y) * w + a] + r[i] + r[size_t(y) * w + b]) / 3.0;
                break;
            }
            case 2:
                s = maxv / 2.0 + 1.8 * (s - maxv / 2.0);
                break;
            case 3:
                s = maxv - s + n(rng);
                break;
            case 4:
                s = maxv / 3.0;
                break;
            default: // identical
                break;
            }
            v[i] = uint32_t(std::clamp(std::lround(s), 0L, long(maxv)));
        }
    return v;
}

class MultiParity : public ::testing::TestWithParam<LadderCase> {};

TEST_P(MultiParity, EveryRungEqualsItsPairOnTheCpu) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no CUDA device present: nothing compared";
    const LadderCase c = GetParam();
    std::mt19937 rng(20261123u + c.w * 31u + c.h * 7u + c.bpc + c.rungs * 1000u);
    const auto rv = reference(c.w, c.h, c.bpc, rng);
    const Plane ref = to_plane(rv, c.w, c.h, c.bpc, 0, false);
    std::vector<Plane> plain, sent; // plain: for the CPU; sent: the CUDA ladder's (rung 1 MSB)
    for (int k = 0; k < c.rungs; ++k) {
        const auto dv = rung(rv, c.w, c.h, c.bpc, k, rng);
        const int pad = k % 2 ? 7 : 0;
        plain.push_back(to_plane(dv, c.w, c.h, c.bpc, pad, false));
        sent.push_back(to_plane(dv, c.w, c.h, c.bpc, pad, c.bpc != 8 && k == 1));
    }
    vif::CudaParams p;
    p.bitdepth = uint32_t(c.bpc);
    p.max_width = uint32_t(c.w);
    p.max_height = uint32_t(c.h);
    p.gain_limit = c.gain_limit;
    p.queue_depth = uint32_t(c.rungs);
    p.cuda.ladder_shape0 = c.shape0;
    p.cuda.ladder_stat_packed = !c.plain_stat;
    p.cuda.sm75_rules = c.sm75 || vif::testing::sm75_rules_forced();
    for (int& r : p.cuda.ladder_rungs_per_block) r = c.rpb;
    vif::Status err;
    auto cpu = vif::create_cpu_backend(p, &err);
    ASSERT_TRUE(cpu) << err.message;
    auto gpu = vif::create_cuda_backend(p, &err);
    ASSERT_TRUE(gpu) << err.message;

    // The CPU reference of each pair, on its own.
    std::vector<vif::FrameRaw> expected(c.rungs);
    for (int k = 0; k < c.rungs; ++k) {
        ASSERT_EQ(cpu->submit(ref.host(), plain[k].host(), k).status, VIF_OK);
        ASSERT_EQ(cpu->receive(&expected[k], true).status, VIF_OK);
    }
    // Call 1: every rung in order. Call 2: the first half (at least one), reversed.
    std::vector<int> order1(c.rungs), order2;
    for (int k = 0; k < c.rungs; ++k) order1[k] = k;
    for (int k = std::max(1, c.rungs / 2) - 1; k >= 0; --k) order2.push_back(k);
    uint64_t index = 0;
    for (const auto& order : {order1, order2}) {
        std::vector<vif::HostPlane> d;
        for (int k : order) d.push_back(sent[k].host());
        const vif::Status e = gpu->submit_multi(ref.host(), d.data(), d.size(), index);
        ASSERT_EQ(e.status, VIF_OK) << e.message;
        ASSERT_EQ(gpu->pending(), order.size());
        for (size_t i = 0; i < order.size(); ++i) {
            vif::FrameRaw got;
            const vif::Status re = gpu->receive(&got, true);
            ASSERT_EQ(re.status, VIF_OK) << re.message;
            EXPECT_EQ(got.index, index + i);
            const vif::FrameRaw& want = expected[order[i]];
            for (int s = 0; s < 4; ++s) {
                const vif::ScaleRaw &a = want.scale[s], &b = got.scale[s];
                EXPECT_TRUE(a.nl == b.nl && a.dl == b.dl && a.nn == b.nn && a.dn == b.dn)
                    << "rung " << order[i] << " scale " << s << "\n  cpu:  nl=" << a.nl
                    << " dl=" << a.dl << " nn=" << a.nn << " dn=" << a.dn << "\n  cuda: nl=" << b.nl
                    << " dl=" << b.dl << " nn=" << b.nn << " dn=" << b.dn;
            }
            EXPECT_NE(want.scale[0].dl + want.scale[0].dn, 0); // something was computed
        }
        index += order.size();
    }
    EXPECT_EQ(gpu->pending(), 0u);
}

std::vector<LadderCase> ladder_cases() {
    std::vector<LadderCase> v;
    const std::pair<int, int> small[] = {{16, 16},   {17, 19},   {33, 31},   {175, 143},
                                         {176, 144}, {64, 1000}, {1000, 40}, {481, 271}};
    for (int bpc : {8, 10, 12, 16})
        for (const auto& s : small)
            for (int k : {1, 2, 6}) v.push_back({s.first, s.second, bpc, k, 100.0});
    for (int bpc : {8, 16}) {
        v.push_back({67, 45, bpc, 64, 100.0});
        v.push_back({176, 144, bpc, 64, 100.0});
        v.push_back({175, 143, bpc, 6, 1.0});
    }
    for (int bpc : {8, 10, 12, 16}) v.push_back({1920, 1080, bpc, 6, 100.0});
    v.push_back({1919, 1079, 8, 2, 100.0});
    v.push_back({3840, 2160, 8, 2, 100.0});
    // The Turing rules' 8-bit scale 0 (CUDA cores, two barriers a rung) on any GPU; the other
    // depths are the same kernels under both rule sets.
    for (const auto& s : {std::make_pair(17, 19), std::make_pair(481, 271),
                          std::make_pair(1919, 1079), std::make_pair(1920, 1080)})
        v.push_back({s.first, s.second, 8, 6, 100.0, 0, 0, false, true});
    v.push_back({67, 45, 8, 64, 100.0, 0, 0, false, true});
    v.push_back({175, 143, 8, 6, 1.0, 0, 0, false, true});
    // Forced rung groups (1 rung per block: as many groups as rungs; 4 of 6: a partial last
    // group).
    for (int rpb : {1, 4}) {
        v.push_back({175, 143, 10, 6, 100.0, 0, rpb});
        v.push_back({1920, 1080, 8, 6, 100.0, 0, rpb});
    }
#if VIF_BUILD_TUNING
    // The tuning candidates (cuda/tuning/README.md): the other 8-bit scale-0 kernels
    // (CudaOptions::ladder_shape0; 8-bit cases above use 0, the tensor-core vertical pass with
    // two barriers a rung), also with forced rung groups.
    for (int shape : {1, 2, 3, 4})
        for (const auto& s : {std::make_pair(481, 271), std::make_pair(1919, 1079)})
            v.push_back({s.first, s.second, 8, 6, 100.0, shape});
    for (int shape : {2, 3, 4}) {
        v.push_back({17, 19, 8, 2, 100.0, shape});
        v.push_back({67, 45, 8, 64, 100.0, shape});
        v.push_back({1920, 1080, 8, 6, 100.0, shape});
    }
    // The statistic before the packed table (CudaOptions::ladder_stat_packed = false): every
    // 8-bit scale-0 kernel and every depth, gain limits 100 and 1.
    for (int shape : {0, 1, 2, 3, 4}) v.push_back({481, 271, 8, 6, 100.0, shape, 0, true});
    for (int bpc : {8, 10, 12, 16}) {
        v.push_back({1920, 1080, bpc, 6, 100.0, 0, 0, true});
        v.push_back({175, 143, bpc, 6, 1.0, 0, 0, true});
    }
    for (int rpb : {1, 4}) {
        v.push_back({481, 271, 8, 6, 100.0, 2, rpb});
        v.push_back({481, 271, 8, 6, 100.0, 3, rpb});
    }
#endif
    return v;
}

#if !VIF_BUILD_TUNING
// Without -DVIF_BUILD_TUNING=ON the other ladder shapes and the plain statistic are not compiled:
// asking for one is refused with a message saying how to get it, never run as the default.
TEST(MultiParityErrors, ATuningCandidateIsRefusedInAShippedBuild) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no CUDA device present: nothing checked";
    for (const auto& [shape, packed] : {std::make_pair(2, true), std::make_pair(0, false)}) {
        vif::CudaParams p;
        p.bitdepth = 8;
        p.max_width = 64;
        p.max_height = 64;
        p.queue_depth = 2;
        p.cuda.ladder_shape0 = shape;
        p.cuda.ladder_stat_packed = packed;
        vif::Status err;
        auto gpu = vif::create_cuda_backend(p, &err);
        ASSERT_TRUE(gpu) << err.message;
        const Plane ref = to_plane(std::vector<uint32_t>(64 * 64, 100), 64, 64, 8, 0, false);
        const vif::HostPlane d[1] = {ref.host()};
        const vif::Status e = gpu->submit_multi(ref.host(), d, 1, 0);
        EXPECT_EQ(e.status, VIF_ERROR_INVALID_ARGUMENT) << shape << " " << packed;
        EXPECT_NE(e.message.find("VIF_BUILD_TUNING"), std::string::npos) << e.message;
    }
}
#endif

INSTANTIATE_TEST_SUITE_P(Ladder, MultiParity, ::testing::ValuesIn(ladder_cases()),
                         [](const ::testing::TestParamInfo<LadderCase>& i) {
                             const LadderCase& c = i.param;
                             return std::to_string(c.w) + "x" + std::to_string(c.h) + "_" +
                                    std::to_string(c.bpc) + "bit_K" + std::to_string(c.rungs) +
                                    (c.gain_limit != 100.0 ? "_egl1" : "") +
                                    (c.shape0 ? "_shape" + std::to_string(c.shape0) : "") +
                                    (c.rpb ? "_rpb" + std::to_string(c.rpb) : "") +
                                    (c.plain_stat ? "_plainstat" : "") + (c.sm75 ? "_sm75" : "");
                         });

// A context's first ladder allocates its sums and done counter and zeroes them, on the kernels'
// own stream. Session 6 zeroed them with cudaMemset, on the legacy default stream, which the
// backend's non-blocking streams do not wait for: with that stream held up (another context's
// start-up work on the device) the first frames added to sums not yet zeroed (a row of a
// 2-GPU batch once scored differently). Here the legacy stream sleeps in a host function while
// the first ladder runs, on memory of the sums' sizes poisoned and freed just before (the
// allocator gives it back): the first frame must equal the CPU backend's, every time.
TEST(LadderFirstFrame, SumsAreZeroedBeforeTheFirstKernels) {
    if (!vif_cuda_available()) GTEST_SKIP() << "no CUDA device: nothing compared";
    const uint32_t w = 640, h = 360;
    std::mt19937 rng(7);
    std::vector<uint8_t> ref(size_t(w) * h), dis(size_t(w) * h);
    for (size_t i = 0; i < ref.size(); ++i) {
        ref[i] = uint8_t(rng());
        dis[i] = uint8_t(std::clamp<int>(ref[i] + int(rng() % 41) - 20, 0, 255));
    }
    const VifPicture rp{ref.data(), ptrdiff_t(w), w, h, 8, 0},
        dp{dis.data(), ptrdiff_t(w), w, h, 8, 0};
    const VifPicture* dists[1] = {&dp};
    auto score = [&](VifBackend backend, bool hold_legacy_stream, VifScores* out) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = w;
        cfg.max_height = h;
        cfg.bitdepth = 8;
        cfg.backend = backend;
        VifContext* ctx = nullptr;
        ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
        if (hold_legacy_stream) {
            for (size_t bytes : {size_t(16 * 8), sizeof(unsigned)}) {
                void* p = nullptr;
                ASSERT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
                ASSERT_EQ(cudaMemset(p, 0xff, bytes), cudaSuccess);
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                ASSERT_EQ(cudaFree(p), cudaSuccess);
            }
            ASSERT_EQ(
                cudaLaunchHostFunc(
                    cudaStreamLegacy,
                    [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(200)); },
                    nullptr),
                cudaSuccess);
        }
        ASSERT_EQ(vif_submit_multi(ctx, &rp, dists, 1, nullptr), VIF_OK) << vif_last_error();
        ASSERT_EQ(vif_receive(ctx, out, 1), VIF_OK) << vif_last_error();
        if (hold_legacy_stream) {
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        }
        vif_destroy(ctx);
    };
    VifScores want{};
    score(VIF_BACKEND_CPU, false, &want);
    for (int trial = 0; trial < 4; ++trial) {
        VifScores got{};
        score(VIF_BACKEND_CUDA, true, &got);
        for (int s = 0; s < VIF_NUM_SCALES; ++s) {
            EXPECT_EQ(got.num[s], want.num[s]) << "trial " << trial << " scale " << s;
            EXPECT_EQ(got.den[s], want.den[s]) << "trial " << trial << " scale " << s;
        }
    }
}

} // namespace
