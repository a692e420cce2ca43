// Device helpers shared by the CUDA kernels: border handling, filter taps in constant memory,
// the integer log lookup, and deterministic block reductions.
#pragma once

#include <cstdint>

#include "vif_constants.hpp"

namespace vif::cuda {

// ---- Integer filter taps (spec 4.1), copied at compile time from vif_constants.hpp ----------
struct IntTapTable {
    uint32_t v[kNumScales][17];
    double d[kNumScales][17];  // the same taps as doubles, for the exact FP64 sums
};

constexpr IntTapTable make_int_tap_table() {
    IntTapTable t{};
    for (int k = 0; k < 17; ++k) t.v[0][k] = kIntFilter0[k];
    for (int k = 0; k < 9; ++k) t.v[1][k] = kIntFilter1[k];
    for (int k = 0; k < 5; ++k) t.v[2][k] = kIntFilter2[k];
    for (int k = 0; k < 3; ++k) t.v[3][k] = kIntFilter3[k];
    for (int s = 0; s < kNumScales; ++s)
        for (int k = 0; k < 17; ++k) t.d[s][k] = static_cast<double>(t.v[s][k]);
    return t;
}

// Uniform across a warp, so each tap is a constant-bank operand of the multiply.
static __constant__ const IntTapTable c_int_taps = make_int_tap_table();

template <int S>
struct IntScaleInfo {
    static constexpr int kN = S == 0 ? 17 : S == 1 ? 9 : S == 2 ? 5 : 3;  // statistics filter
    static constexpr int kR = kN / 2;
    static constexpr bool kHasNext = S < 3;
    static constexpr int kND = S == 0 ? 9 : S == 1 ? 5 : S == 2 ? 3 : 1;  // downsampling filter
    static constexpr int kRD = kND / 2;
};

// Reflect-101 (spec 3), then clamp: positions that stay outside [0, n) after one reflection only
// feed outputs outside the image (tile padding), so clamping just keeps the loads in bounds.
__device__ __forceinline__ int reflect_clamp(int t, int n) {
    t = t < 0 ? -t : (t >= n ? 2 * n - 2 - t : t);
    return t < 0 ? 0 : (t >= n ? n - 1 : t);
}

// rs(v, n) of the spec for a compile-time n.
template <int N>
__device__ __forceinline__ uint32_t rshift_round32(uint32_t v) {
    if constexpr (N == 0) return v;
    else return (v + (1u << (N - 1))) >> N;
}
template <int N>
__device__ __forceinline__ uint64_t rshift_round64(uint64_t v) {
    if constexpr (N == 0) return v;
    else return (v + (uint64_t(1) << (N - 1))) >> N;
}

// T[i] of spec 5.4 for i in [32768, 65535]. The table is 64 KB, and a warp's 32 lookups land on
// up to 32 different L1 lines: three gathers per pixel were the largest stall of the scale-0
// kernel. So T[i] = floor(fl32(log2 i) * 2048 + 0.5) is computed with the hardware log2
// (MUFU.LG2, one instruction) instead, and the table is read only where that approximation
// lands within `eps` of a rounding boundary (under 1% of lookups). Whether this reproduces T for
// every i is checked exhaustively on the device at create (engine.cu: verify_log_lookup); if it
// does not, eps is set to 1 and every lookup reads the table, as before.
struct LogLookup {
    const uint16_t* __restrict__ table;  // T[32768..65535]
    float eps;                           // rounding margin; >= 0.5 means always the table
};

__device__ __forceinline__ int32_t log_t(const LogLookup& lk, uint32_t i) {
    const float fi = __uint_as_float(0x47000000u | ((i - 32768u) << 8));  // == float(i), exact
    const float y = __fmaf_rn(__log2f(fi), 2048.0f, 0.5f);                // ~ T[i] + fraction
    // floor(y) without a conversion instruction: adding 1.5 * 2^23 rounding down leaves floor(y)
    // in the low mantissa bits (y < 2^22).
    const float m = __fadd_rd(y, 12582912.0f);
    const float frac = y - (m - 12582912.0f);  // exact
    int32_t t = __float_as_int(m) - 0x4B400000;
    if (fabsf(frac - 0.5f) > 0.5f - lk.eps)
        t = static_cast<int32_t>(__ldg(lk.table + (i - static_cast<uint32_t>(kLogTableFirst))));
    return t;
}

// L(v) of spec 5.4.
__device__ __forceinline__ int32_t log_l(const LogLookup& lk, uint64_t v) {
    const int b = 63 - __clzll(static_cast<long long>(v));
    const int k = b - 15;
    return log_t(lk, static_cast<uint32_t>(v >> k)) + 2048 * k;
}
__device__ __forceinline__ int32_t log_l32(const LogLookup& lk, uint32_t v) {
    const int b = 31 - __clz(static_cast<int>(v));
    const int k = b - 15;
    return log_t(lk, v >> k) + 2048 * k;
}

// Sum over the block of a few int64 values; the result is valid in thread 0. Integer sums are
// exact, so the order (and thus the block shape) does not change the result.
template <int kThreads, int kCount>
__device__ __forceinline__ void block_sum_i64(int64_t (&v)[kCount], int64_t* smem /* kCount*32 */) {
    constexpr int kWarps = (kThreads + 31) / 32;
#pragma unroll
    for (int i = 0; i < kCount; ++i)
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_down_sync(0xffffffffu, v[i], o);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (kWarps > 1) {
        if (lane == 0)
#pragma unroll
            for (int i = 0; i < kCount; ++i) smem[i * 32 + warp] = v[i];
        __syncthreads();
        if (warp == 0) {
#pragma unroll
            for (int i = 0; i < kCount; ++i) {
                v[i] = lane < kWarps ? smem[i * 32 + lane] : 0;
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_down_sync(0xffffffffu, v[i], o);
            }
        }
    }
}

}  // namespace vif::cuda
