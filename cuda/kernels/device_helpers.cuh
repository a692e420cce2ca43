// Device helpers shared by the CUDA kernels: border handling, filter taps in constant memory,
// the integer log lookup, and the deterministic block reduction.
#pragma once

#include <cstdint>

#include "core/pixel_math.hpp"
#include "core/vif_constants.hpp"

namespace vif::cuda {

// ---- Integer filter taps (docs/algorithm.md §5.1), copied at compile time from vif_constants.hpp
struct IntTapTable {
    uint32_t v[kNumScales][17];
    double d[kNumScales][17]; // the same taps as doubles, for the exact FP64 sums
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
    static constexpr int kN = S == 0 ? 17 : S == 1 ? 9 : S == 2 ? 5 : 3; // statistics filter
    static constexpr int kR = kN / 2;
    static constexpr bool kHasNext = S < 3;
    static constexpr int kND = S == 0 ? 9 : S == 1 ? 5 : S == 2 ? 3 : 1; // downsampling filter
    static constexpr int kRD = kND / 2;
};

// Reflect-101 (docs/algorithm.md §4.2), then clamp: positions that stay outside [0, n) after one
// reflection only feed outputs outside the image (tile padding), so clamping just keeps the loads
// in bounds.
__device__ __forceinline__ int reflect_clamp(int t, int n) {
    t = t < 0 ? -t : (t >= n ? 2 * n - 2 - t : t);
    return t < 0 ? 0 : (t >= n ? n - 1 : t);
}

// rs(v, n) of docs/algorithm.md §1 for a compile-time n.
template <int N>
__device__ __forceinline__ uint32_t rshift_round32(uint32_t v) {
    if constexpr (N == 0)
        return v;
    else
        return (v + (1u << (N - 1))) >> N;
}
template <int N>
__device__ __forceinline__ uint64_t rshift_round64(uint64_t v) {
    if constexpr (N == 0)
        return v;
    else
        return (v + (uint64_t(1) << (N - 1))) >> N;
}

// T[i] of docs/algorithm.md §6.4 for i in [32768, 65535]. The table is 64 KB, and a warp's 32
// lookups land on up to 32 different L1 lines: three gathers per pixel were the largest stall of
// the scale-0 kernel. So T[i] = floor(fl32(log2 i) * 2048 + 0.5) is computed with the hardware log2
// (MUFU.LG2, one instruction) instead, and the table is read only where that approximation
// lands within `eps` of a rounding boundary (under 1% of lookups). Whether this reproduces T for
// every i is checked exhaustively on the device at create (engine.cu: verify_log_lookup); if it
// does not, eps is set to 1 and every lookup reads the table, as before.
struct LogLookup {
    const uint16_t* __restrict__ table; // T[32768..65535]
    float eps;                          // rounding margin; >= 0.5 means always the table
    // The two-level forms of T (pixel_math.hpp LogTable2, LogTablePacked) in global memory, for
    // the kernels that copy one into shared memory (stat_mode::kLogTable2, kLogPacked).
    const uint4* __restrict__ table2; // sizeof(LogTable2) bytes
    const uint4* __restrict__ packed; // sizeof(LogTablePacked) bytes
};

__device__ __forceinline__ int32_t log_t(const LogLookup& lk, uint32_t i) {
    const float fi = __uint_as_float(0x47000000u | ((i - 32768u) << 8)); // == float(i), exact
    const float y = __fmaf_rn(__log2f(fi), 2048.0f, 0.5f);               // ~ T[i] + fraction
    // floor(y) without a conversion instruction: adding 1.5 * 2^23 rounding down leaves floor(y)
    // in the low mantissa bits (y < 2^22).
    const float m = __fadd_rd(y, 12582912.0f);
    const float frac = y - (m - 12582912.0f); // exact
    int32_t t = __float_as_int(m) - 0x4B400000;
    if (fabsf(frac - 0.5f) > 0.5f - lk.eps)
        t = static_cast<int32_t>(__ldg(lk.table + (i - static_cast<uint32_t>(kLogTableFirst))));
    return t;
}

// T for pixel::log_l32 / log_l64 (pixel_math.hpp: L(v) of docs/algorithm.md §6.4).
struct DeviceLog {
    const LogLookup& lk;
    __device__ __forceinline__ int32_t operator()(uint32_t i) const { return log_t(lk, i); }
};

// T from a two-level table in shared memory (stat_mode::kLogTable2 / kLogPacked): every entry
// is checked on the host when the table is built and on the device at create (engine.cu).
template <class Table>
struct SharedLog {
    const Table* t; // shared memory
    __device__ __forceinline__ uint32_t operator()(uint32_t i) const { return (*t)(i); }
};

// Copies a two-level table (16-byte multiple) from global into shared memory; the caller
// synchronises before the first lookup.
template <int kThreads, class Table>
__device__ __forceinline__ void stage_log_table(const uint4* __restrict__ src, Table* dst) {
    static_assert(sizeof(Table) % 16 == 0, "whole 16-byte pieces");
    constexpr int kPieces = static_cast<int>(sizeof(Table) / 16);
    uint4* d = reinterpret_cast<uint4*>(dst);
    for (int i = threadIdx.x; i < kPieces; i += kThreads) d[i] = __ldg(src + i);
}

// A 32-bit sum over the full warp, in every lane: one REDUX (__reduce_add_sync) on sm_80 and
// newer, five shuffles on sm_75, which lacks it. Both add modulo 2^32: the same bits.
__device__ __forceinline__ uint32_t warp_sum_u32(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
#else
    return __reduce_add_sync(0xffffffffu, v);
#endif
}

// The four per-block sums of the integer kernels, valid in thread 0 as int64 {nl, dl, nn, dn}.
// Within a warp one REDUX per 32-bit value (warp_sum_u32); NN is split into 24-bit pieces
// so that each warp sum fits 32 bits (per thread NN < 2^33). Exact, so the order does not matter.
template <int kThreads>
__device__ __forceinline__ void block_sum_stats(int32_t nl, int32_t dl, int64_t nn, int32_t dn,
                                                int64_t (&out)[4], int64_t* smem /* 4*32 */) {
    constexpr int kWarps = (kThreads + 31) / 32;
    static_assert(kThreads % 32 == 0, "whole warps");
    const unsigned full = 0xffffffffu;
    const uint64_t un = static_cast<uint64_t>(nn);
    const int32_t wnl = static_cast<int32_t>(warp_sum_u32(static_cast<uint32_t>(nl)));
    const int32_t wdl = static_cast<int32_t>(warp_sum_u32(static_cast<uint32_t>(dl)));
    const int32_t wdn = static_cast<int32_t>(warp_sum_u32(static_cast<uint32_t>(dn)));
    const uint32_t lo = warp_sum_u32(static_cast<uint32_t>(un & 0xFFFFFFu));
    const uint32_t mid = warp_sum_u32(static_cast<uint32_t>((un >> 24) & 0xFFFFFFu));
    const uint32_t hi = warp_sum_u32(static_cast<uint32_t>(un >> 48)); // sign bits
    const int64_t wnn =
        static_cast<int64_t>(uint64_t(lo) + (uint64_t(mid) << 24) + (uint64_t(hi) << 48));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int64_t v[4] = {wnl, wdl, wnn, wdn};
    if (kWarps > 1) {
        if (lane == 0)
#pragma unroll
            for (int i = 0; i < 4; ++i) smem[i * 32 + warp] = v[i];
        __syncthreads();
        if (warp == 0) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                v[i] = lane < kWarps ? smem[i * 32 + lane] : 0;
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_down_sync(full, v[i], o);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = v[i];
}

} // namespace vif::cuda
