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

// L(v) of spec 5.4; table holds T[32768..65535].
__device__ __forceinline__ int32_t log_l(const uint16_t* __restrict__ table, uint64_t v) {
    const int b = 63 - __clzll(static_cast<long long>(v));
    const int k = b - 15;
    return static_cast<int32_t>(__ldg(table + ((v >> k) - kLogTableFirst))) + 2048 * k;
}
__device__ __forceinline__ int32_t log_l32(const uint16_t* __restrict__ table, uint32_t v) {
    const int b = 31 - __clz(static_cast<int>(v));
    const int k = b - 15;
    return static_cast<int32_t>(__ldg(table + ((v >> k) - kLogTableFirst))) + 2048 * k;
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
