// Per-pixel maps on the CUDA backend (docs/algorithm.md §12, docs/api.md "Per-pixel maps"): the
// terms the CUDA kernels write equal the CPU's bit for bit.
// - Every testdata case (and the shared ones when present), integer and float, through the
//   public API: backend cuda against backend cpu, maps of host pictures (host copies).
// - The device-pointer entry point: vif_cuda_submit's frames get their maps in device memory.
// - Every integer kernel variant of the table, forced, against cpu_ref's compute_maps on
//   synthetic frames with odd sizes (partial tiles on every side).
// Every test skips (GTEST_SKIP) without a CUDA device, so CI without a GPU passes.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/golden_data.hpp"
#include "core/backend.hpp"
#include "core/frame_maps.hpp"
#include "cpu_ref/cpu_ref.hpp"
#include "dispatch/kernel_table.hpp"
#include "engine/cuda_options.hpp"
#include "vif/vif.h"
#include "vif/vif_cuda.h"

namespace {

#define SKIP_WITHOUT_GPU()                                                                         \
    do {                                                                                           \
        if (!vif_cuda_available())                                                                 \
            GTEST_SKIP() << "no CUDA device present: the CUDA maps tests need a GPU (this "        \
                            "build has the CUDA backend; nothing was compared)";                   \
    } while (0)

// A host copy of one received scale's arrays (device ones copied back).
struct Terms {
    uint32_t w = 0, h = 0;
    std::vector<int32_t> t[4]; // integer nl, dl, nn, dn
    std::vector<float> f[2];   // float num, den
};

Terms copy_terms(const VifScaleMap& m, bool on_device) {
    Terms out;
    out.w = m.width;
    out.h = m.height;
    const size_t n = size_t(m.width) * m.height;
    const cudaMemcpyKind kind = on_device ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
    const int32_t* ti[4] = {m.nl, m.dl, m.nn, m.dn};
    for (int q = 0; q < 4; ++q)
        if (ti[q]) {
            out.t[q].resize(n);
            EXPECT_EQ(cudaMemcpy(out.t[q].data(), ti[q], 4 * n, kind), cudaSuccess);
        }
    const float* tf[2] = {m.num, m.den};
    for (int q = 0; q < 2; ++q)
        if (tf[q]) {
            out.f[q].resize(n);
            EXPECT_EQ(cudaMemcpy(out.f[q].data(), tf[q], 4 * n, kind), cudaSuccess);
        }
    return out;
}

bool same(const Terms& a, const Terms& b) {
    if (a.w != b.w || a.h != b.h) return false;
    for (int q = 0; q < 4; ++q)
        if (a.t[q] != b.t[q]) return false;
    for (int q = 0; q < 2; ++q)
        if (a.f[q].size() != b.f[q].size() ||
            std::memcmp(a.f[q].data(), b.f[q].data(), 4 * a.f[q].size()) != 0)
            return false;
    return true;
}

bool is_device_pointer(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice;
}

VifContext* create(VifBackend backend, bool integer, const vif::testing::GoldenCase& c) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = c.width;
    cfg.max_height = c.height;
    cfg.bitdepth = c.bitdepth;
    cfg.variant = integer ? VIF_VARIANT_INTEGER : VIF_VARIANT_FLOAT;
    cfg.backend = backend;
    cfg.queue_depth = 4;
    cfg.maps = 1;
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    return ctx;
}

std::vector<vif::testing::GoldenCase> all_cases() {
    auto cases = vif::testing::load_manifest(VIF_TESTDATA_DIR);
    for (auto& c : vif::testing::load_manifest(VIF_SHARED_TESTDATA_DIR)) cases.push_back(c);
    return cases;
}

TEST(CudaMaps, EveryTestdataCaseBothVariantsEqualsTheCpu) {
    SKIP_WITHOUT_GPU();
    const auto cases = all_cases();
    ASSERT_FALSE(cases.empty()) << "no testdata manifest in " << VIF_TESTDATA_DIR;
    size_t compared = 0;
    for (const auto& c : cases)
        for (const bool integer : {true, false}) {
            SCOPED_TRACE(c.name + (integer ? " integer" : " float"));
            VifContext* cpu = create(VIF_BACKEND_CPU, integer, c);
            VifContext* gpu = create(VIF_BACKEND_CUDA, integer, c);
            ASSERT_TRUE(cpu && gpu);
            ASSERT_STREQ(vif_backend_name(gpu), "cuda");
            const ptrdiff_t stride = c.width * c.bytes_per_sample();
            for (uint32_t f = 0; f < c.frames; ++f) {
                const auto ref = vif::testing::read_luma(c, c.ref_path(), f);
                const auto dis = vif::testing::read_luma(c, c.dist_path(), f);
                ASSERT_FALSE(ref.empty() || dis.empty());
                const VifPicture r{ref.data(), stride, c.width, c.height, c.bitdepth, 0};
                const VifPicture d{dis.data(), stride, c.width, c.height, c.bitdepth, 0};
                ASSERT_EQ(vif_submit(cpu, &r, &d, nullptr), VIF_OK) << vif_last_error();
                ASSERT_EQ(vif_submit(gpu, &r, &d, nullptr), VIF_OK) << vif_last_error();
                VifScores sc, sg;
                VifMaps mc, mg;
                ASSERT_EQ(vif_receive_maps(cpu, &sc, &mc, 1), VIF_OK) << vif_last_error();
                ASSERT_EQ(vif_receive_maps(gpu, &sg, &mg, 1), VIF_OK) << vif_last_error();
                EXPECT_EQ(std::memcmp(sc.num, sg.num, sizeof sc.num), 0) << "frame " << f;
                EXPECT_EQ(std::memcmp(sc.den, sg.den, sizeof sc.den), 0) << "frame " << f;
                for (int s = 0; s < 4; ++s) {
                    EXPECT_FALSE(is_device_pointer(
                        integer ? static_cast<const void*>(mg.scale[s].nl) : mg.scale[s].num))
                        << "host pictures get host maps";
                    EXPECT_TRUE(
                        same(copy_terms(mc.scale[s], false), copy_terms(mg.scale[s], false)))
                        << "frame " << f << " scale " << s;
                }
                ++compared;
            }
            vif_destroy(cpu);
            vif_destroy(gpu);
        }
    std::printf("[maps parity] %zu frames compared (every case, integer and float)\n", compared);
    EXPECT_GT(compared, 0u);
}

TEST(CudaMaps, DevicePicturesGetDeviceMaps) {
    SKIP_WITHOUT_GPU();
    const auto cases = vif::testing::load_manifest(VIF_TESTDATA_DIR);
    const auto it = std::find_if(cases.begin(), cases.end(), [](const auto& c) {
        return c.name == "foreman_176x144_8b_crf45";
    });
    ASSERT_NE(it, cases.end());
    const auto& c = *it;
    for (const bool integer : {true, false}) {
        SCOPED_TRACE(integer ? "integer" : "float");
        VifContext* cpu = create(VIF_BACKEND_CPU, integer, c);
        VifContext* gpu = create(VIF_BACKEND_CUDA, integer, c);
        ASSERT_TRUE(cpu && gpu);
        const size_t bytes = size_t(c.width) * c.height;
        void *d_ref = nullptr, *d_dis = nullptr;
        ASSERT_EQ(cudaMalloc(&d_ref, bytes), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_dis, bytes), cudaSuccess);
        for (uint32_t f = 0; f < c.frames; ++f) {
            const auto ref = vif::testing::read_luma(c, c.ref_path(), f);
            const auto dis = vif::testing::read_luma(c, c.dist_path(), f);
            ASSERT_EQ(cudaMemcpy(d_ref, ref.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d_dis, dis.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
            const VifPicture r{ref.data(), ptrdiff_t(c.width), c.width, c.height, 8, 0};
            const VifPicture d{dis.data(), ptrdiff_t(c.width), c.width, c.height, 8, 0};
            const VifDevicePicture dr{d_ref, ptrdiff_t(c.width), c.width, c.height, 8, 0};
            const VifDevicePicture dd{d_dis, ptrdiff_t(c.width), c.width, c.height, 8, 0};
            ASSERT_EQ(vif_submit(cpu, &r, &d, nullptr), VIF_OK) << vif_last_error();
            ASSERT_EQ(vif_cuda_submit(gpu, &dr, &dd, nullptr, nullptr), VIF_OK) << vif_last_error();
            VifScores sc, sg;
            VifMaps mc, mg;
            ASSERT_EQ(vif_receive_maps(cpu, &sc, &mc, 1), VIF_OK) << vif_last_error();
            ASSERT_EQ(vif_receive_maps(gpu, &sg, &mg, 1), VIF_OK) << vif_last_error();
            for (int s = 0; s < 4; ++s) {
                const void* p = integer ? static_cast<const void*>(mg.scale[s].nl)
                                        : static_cast<const void*>(mg.scale[s].num);
                EXPECT_TRUE(is_device_pointer(p)) << "scale " << s << ": not device memory";
                EXPECT_TRUE(same(copy_terms(mc.scale[s], false), copy_terms(mg.scale[s], true)))
                    << "frame " << f << " scale " << s;
            }
        }
        cudaFree(d_ref);
        cudaFree(d_dis);
        vif_destroy(cpu);
        vif_destroy(gpu);
    }
}

// Random texture with flat blocks (the low-variance branch) and a distorted copy.
std::vector<uint16_t> synthetic(int w, int h, int bpc, uint32_t seed, bool distorted) {
    std::mt19937 rng(seed);
    const int maxv = (1 << bpc) - 1;
    std::uniform_int_distribution<int> u(0, maxv), n(-maxv / 16, maxv / 16);
    std::vector<uint16_t> f(size_t(w) * h);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const bool flat = ((i / 20) + (j / 20)) % 3 == 0;
            int v = flat ? maxv / 2 : (i * 7 + j * 3) % (maxv + 1) / 2 + u(rng) / 4;
            if (distorted) v += ((i / 30) % 2) ? n(rng) : -v / 5;
            f[size_t(i) * w + j] = static_cast<uint16_t>(std::clamp(v, 0, maxv));
        }
    return f;
}

TEST(CudaMaps, EveryIntegerKernelVariantWritesTheReferenceTerms) {
    SKIP_WITHOUT_GPU();
    const struct { int w, h; } sizes[] = {{175, 143}, {481, 271}};
    size_t compared = 0;
    for (int slot = 0; slot < vif::cuda::kIntSlots; ++slot) {
        const auto& variants = vif::cuda::int_variants(slot);
        for (size_t i = 0; i < variants.size(); ++i)
            for (int bpc : {8, 10, 12, 16}) {
                if (!variants[i].has_depth(bpc)) continue;
                for (const auto& sz : sizes) {
                    const std::string what = std::string("variant ") + variants[i].id + " " +
                                             std::to_string(bpc) + "-bit " + std::to_string(sz.w) +
                                             "x" + std::to_string(sz.h);
                    SCOPED_TRACE(what);
                    vif::CudaParams p;
                    p.variant = VIF_VARIANT_INTEGER;
                    p.bitdepth = static_cast<uint32_t>(bpc);
                    p.max_width = static_cast<uint32_t>(sz.w);
                    p.max_height = static_cast<uint32_t>(sz.h);
                    p.queue_depth = 2;
                    p.maps = true;
                    p.cuda.tiles[slot] = static_cast<int>(i);
                    p.cuda.fuse23 = slot != 2 && slot != 3;
                    vif::Status err;
                    auto gpu = vif::create_cuda_backend(p, &err);
                    ASSERT_TRUE(gpu) << err.message;
                    const auto r16 = synthetic(sz.w, sz.h, bpc, 11 + slot, false);
                    const auto d16 = synthetic(sz.w, sz.h, bpc, 11 + slot, true);
                    const std::vector<uint8_t> r8(r16.begin(), r16.end()),
                        d8(d16.begin(), d16.end());
                    const bool bytes = bpc == 8;
                    const void* rp = bytes ? static_cast<const void*>(r8.data()) : r16.data();
                    const void* dp = bytes ? static_cast<const void*>(d8.data()) : d16.data();
                    const ptrdiff_t stride = sz.w * (bytes ? 1 : 2);
                    const vif::HostPlane hr{rp, stride, uint32_t(sz.w), uint32_t(sz.h), false};
                    const vif::HostPlane hd{dp, stride, uint32_t(sz.w), uint32_t(sz.h), false};
                    ASSERT_EQ(gpu->submit(hr, hd, 0).status, VIF_OK);
                    vif::FrameRaw got;
                    const vif::Status e = gpu->receive(&got, true);
                    ASSERT_EQ(e.status, VIF_OK) << e.message;
                    ASSERT_TRUE(got.maps);
                    vif::FrameMaps want;
                    vif::ScaleRaw raw[4];
                    auto ref = vif::cpu_ref::make_integer(sz.w, sz.h, bpc, 100.0);
                    ASSERT_TRUE(ref->compute_maps(vif::cpu_ref::Plane{rp, stride, sz.w, sz.h},
                                                  vif::cpu_ref::Plane{dp, stride, sz.w, sz.h}, raw,
                                                  want));
                    for (int s = 0; s < 4; ++s) {
                        const vif::ScaleMap &a = want.scale[s], &b = got.maps->scale[s];
                        EXPECT_EQ(b.width, a.width) << "scale " << s;
                        EXPECT_EQ(b.height, a.height) << "scale " << s;
                        EXPECT_TRUE(a.nl == b.nl && a.dl == b.dl && a.nn == b.nn && a.dn == b.dn)
                            << "scale " << s << ": terms differ";
                        EXPECT_EQ(got.scale[s].nl, raw[s].nl) << "scale " << s;
                        EXPECT_EQ(got.scale[s].dl, raw[s].dl) << "scale " << s;
                    }
                    ++compared;
                }
            }
    }
    EXPECT_GT(compared, 0u);
}

} // namespace
