// The per-pixel statistic's device options (pixel_math.hpp pixel::stat) against the plain code,
// on the GPU, far beyond what frames exercise: the division without its branch against `/`, and
// numerator_args with each flag against numerator_args<0> (the code the parity gate ties to the
// CPU reference), over billions of operand triples drawn across the whole ranges the statistic
// can see (0 <= sigma_y^2, sigma_xy < 2^31, NSQ <= sigma_x^2 < 2^31), log-uniformly so that small
// and large magnitudes, negative sigma_v^2 and capped gains all occur, plus the ends of the ranges.
// Label gpu; skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>

#include "core/pixel_math.hpp"

namespace {

__device__ __forceinline__ uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// A value in [lo, 2^31): log-uniform most of the time, an end of the range or a power of two
// +-1 otherwise.
__device__ __forceinline__ uint32_t draw(uint64_t r, uint32_t lo) {
    const uint32_t kind = r & 15u;
    const int bits = static_cast<int>((r >> 4) % 32u); // 0..31
    uint32_t v;
    if (kind == 0)
        v = lo;
    else if (kind == 1)
        v = 0x7FFFFFFFu;
    else if (kind == 2)
        v = (1u << (bits > 30 ? 30 : bits)) + static_cast<uint32_t>((r >> 9) % 3u) - 1u;
    else
        v = static_cast<uint32_t>(r >> 32) >> (31 - (bits > 30 ? 30 : bits)); // < 2^(bits+1)
    if (v < lo) v = lo + (v & 0xFFFFu);
    return v > 0x7FFFFFFFu ? 0x7FFFFFFFu : v;
}

struct Mismatch {
    unsigned long long count;
    unsigned long long done; // triples or quotients checked (one atomic per thread)
    int32_t sx, sy, sxy;
    unsigned flags;
};

__global__ void div_check(uint64_t seed, int iters, Mismatch* m) {
    const double eps = 65536 * 1.0e-10;
    uint64_t s = seed ^ (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 0x632BE59BD9B4E019ull;
    for (int it = 0; it < iters; ++it) {
        s = mix(s);
        const uint32_t a = draw(s, 0), sx = draw(mix(s + 1), vif::kNsq);
        const double da = static_cast<double>(a), db = static_cast<double>(sx) + eps;
        const double want = da / db, got = vif::pixel::div_rn_no_branch(da, db);
        if (__double_as_longlong(want) != __double_as_longlong(got)) {
            if (atomicAdd(&m->count, 1ull) == 0) {
                m->sx = static_cast<int32_t>(sx);
                m->sxy = static_cast<int32_t>(a);
            }
        }
    }
    atomicAdd(&m->done, static_cast<unsigned long long>(iters));
}

template <unsigned F>
__device__ __forceinline__ bool same(int32_t sx, int32_t sy, int32_t sxy, double gl) {
    const vif::pixel::NumeratorArgs a = vif::pixel::numerator_args<0>(sx, sy, sxy, gl);
    const vif::pixel::NumeratorArgs b = vif::pixel::numerator_args<F>(sx, sy, sxy, gl);
    return a.n1 == b.n1 && a.n2 == b.n2;
}

__global__ void args_check(uint64_t seed, int iters, double gl, Mismatch* m) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        // The safe operands of the branch-free kernels, and the ends of the ranges.
        const int32_t n = static_cast<int32_t>(vif::kNsq), M = 0x7FFFFFFF;
        const int32_t t[][3] = {{n, 0, 0}, {n, M, M}, {n, 1, M}, {M, M, M}, {M, 1, 1}, {n, M, 1}};
        for (const auto& v : t)
            if (!same<vif::pixel::stat::kExactConv | vif::pixel::stat::kDivNoBranch>(v[0], v[1],
                                                                                     v[2], gl) ||
                !same<vif::pixel::stat::kExactConv>(v[0], v[1], v[2], gl) ||
                !same<vif::pixel::stat::kDivNoBranch>(v[0], v[1], v[2], gl))
                if (atomicAdd(&m->count, 1ull) == 0) {
                    m->sx = v[0];
                    m->sy = v[1];
                    m->sxy = v[2];
                    m->flags = 8;
                }
    }
    uint64_t s = seed ^ (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 0xD1B54A32D192ED03ull;
    for (int it = 0; it < iters; ++it) {
        s = mix(s);
        const int32_t sx = static_cast<int32_t>(draw(s, vif::kNsq));
        const int32_t sy = static_cast<int32_t>(draw(mix(s + 1), 1));
        int32_t sxy = static_cast<int32_t>(draw(mix(s + 2), 1));
        // A third of the triples near sigma_xy^2 = sigma_x^2 sigma_y^2 (sigma_v^2 near 0, of
        // either sign), as correlated pictures give.
        if ((s >> 60) < 5) {
            const double c = sqrt(static_cast<double>(sx) * static_cast<double>(sy));
            const int64_t d = static_cast<int64_t>(c) + static_cast<int64_t>((s >> 40) % 64u) - 32;
            sxy = d < 1 ? 1 : d > 0x7FFFFFFF ? 0x7FFFFFFF : static_cast<int32_t>(d);
        }
        unsigned bad = 0;
        if (!same<vif::pixel::stat::kExactConv>(sx, sy, sxy, gl)) bad |= 1u;
        if (!same<vif::pixel::stat::kDivNoBranch>(sx, sy, sxy, gl)) bad |= 2u;
        if (!same<vif::pixel::stat::kExactConv | vif::pixel::stat::kDivNoBranch>(sx, sy, sxy, gl))
            bad |= 4u;
        if (bad && atomicAdd(&m->count, 1ull) == 0) {
            m->sx = sx;
            m->sy = sy;
            m->sxy = sxy;
            m->flags = bad;
        }
    }
    atomicAdd(&m->done, static_cast<unsigned long long>(iters));
}

bool have_gpu() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// Plain device memory (no managed memory), read back once.
Mismatch* zeroed() {
    Mismatch* m = nullptr;
    EXPECT_EQ(cudaMalloc(&m, sizeof *m), cudaSuccess);
    EXPECT_EQ(cudaMemset(m, 0, sizeof *m), cudaSuccess);
    return m;
}
Mismatch fetch(const Mismatch* d) {
    Mismatch h{};
    EXPECT_EQ(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
}

constexpr int kBlocks = 132 * 16, kThreads = 256;

TEST(StatCheck, DivisionWithoutBranchEqualsIeeeDivision) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    Mismatch* d = zeroed();
    constexpr int kIters = 2048; // 2^30 quotients
    div_check<<<kBlocks, kThreads>>>(12345, kIters, d);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess); // the launch itself (resources)
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const Mismatch m = fetch(d);
    std::printf("[stat] division: %llu of %llu differ\n", m.count, m.done);
    EXPECT_EQ(m.done, static_cast<unsigned long long>(kBlocks) * kThreads * kIters);
    EXPECT_EQ(m.count, 0ull) << "first: " << m.sxy << " / (" << m.sx << " + eps)";
    cudaFree(d);
}

TEST(StatCheck, NumeratorArgsFlagsEqualPlainCode) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (double gl : {100.0, 1.0, 17.5}) {
        Mismatch* d = zeroed();
        const int iters = gl == 100.0 ? 1024 : 128; // 2^29 triples at the default limit
        args_check<<<kBlocks, kThreads>>>(777 + static_cast<uint64_t>(gl), iters, gl, d);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const Mismatch m = fetch(d);
        std::printf("[stat] numerator_args, gain limit %g: %llu of %llu triples differ\n", gl,
                    m.count, m.done);
        EXPECT_EQ(m.done, static_cast<unsigned long long>(kBlocks) * kThreads * iters);
        EXPECT_EQ(m.count, 0ull) << "first: sx " << m.sx << " sy " << m.sy << " sxy " << m.sxy
                                 << " flags " << m.flags;
        cudaFree(d);
    }
}

} // namespace
