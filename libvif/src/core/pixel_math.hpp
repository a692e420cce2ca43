// The per-pixel maths of VIF, one definition for the CPU scorers (cpu_ref/, cpu_fast/) and the CUDA
// kernels (cuda/kernels/): the integer statistic of docs/algorithm.md §6.3-6.5 (variance rounding,
// the log lookup L(v), the numerator's double steps, one pixel's contribution) and the float
// per-pixel terms of §7.4. Each function is `__host__ __device__` under nvcc.
//
// Bit-exactness on both sides: the host builds with -ffp-contract=off and the device with
// --fmad=false --prec-div=true, so every `*`, `+`, `-`, `/` below is one IEEE operation rounded to
// nearest on both, and conversions truncate (cvt.rzi on the device, cvttsd2si on x86). The
// vectorised CPU paths (AVX2/AVX-512 in cpu_fast/) keep their own vector code of the same steps and
// call these functions for their scalar tails; the kernels' branch-free multi-pixel variant
// (int_kernels.cuh, kStatsILP) uses the same building blocks.
#pragma once

#include <cstdint>

#include "core/vif_constants.hpp"

namespace vif::pixel {
// cpu_fast compiles its files once per x86-64 level (VIF_ISA_NS = base, v3, v4): an inline
// namespace per level keeps each build's copies of these inline functions apart, so the linker
// cannot hand the base build an AVX-512 copy.
#if defined(VIF_ISA_NS)
inline namespace VIF_ISA_NS {
#endif

// ---- Integer path ----------------------------------------------------------------------------

// §6.3: rs(a * b, 32), the rounded product of two 16.16 means.
VIF_HD uint32_t mean_product(uint32_t a, uint32_t b) {
    return static_cast<uint32_t>((static_cast<uint64_t>(a) * b + 0x80000000ull) >> 32);
}

// §6.3: sigma = E - rs(mu_a * mu_b, 32), in 32-bit two's complement (may be negative).
VIF_HD int32_t variance(uint32_t e, uint32_t mu_a, uint32_t mu_b) {
    return static_cast<int32_t>(e - mean_product(mu_a, mu_b));
}

// Index of the highest set bit (v > 0).
VIF_HD int msb32(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return 31 - __clz(static_cast<int>(v));
#else
    return 31 - __builtin_clz(v);
#endif
}
VIF_HD int msb64(uint64_t v) {
#if defined(__CUDA_ARCH__)
    return 63 - __clzll(static_cast<long long>(v));
#else
    return 63 - __builtin_clzll(v);
#endif
}

// §6.4: L(v) = T[v >> k] + 2048 k, k = msb(v) - 15, for v >= 2^15 (every argument VIF takes is
// at least NSQ = 2^17). `t(i)` returns T[i] for i in [32768, 65535]: a table read on the CPU,
// the hardware log2 with a table fallback on the GPU (device_helpers.cuh).
template <class T>
VIF_HD int32_t log_l32(const T& t, uint32_t v) {
    const int k = msb32(v) - 15;
    return static_cast<int32_t>(t(v >> k)) + 2048 * k;
}
template <class T>
VIF_HD int32_t log_l64(const T& t, uint64_t v) {
    const int k = msb64(v) - 15;
    return static_cast<int32_t>(t(static_cast<uint32_t>(v >> k))) + 2048 * k;
}

// T from a table of T[32768..65535] (any integer element type).
template <class E>
struct TableLog {
    const E* table;
    VIF_HD uint32_t operator()(uint32_t i) const {
        return static_cast<uint32_t>(table[i - static_cast<uint32_t>(kLogTableFirst)]);
    }
};

// T in two levels (6 KB instead of 64 KB): for i >= 32768, T[i] - T[i - 1] is 0 or 1 (the slope of
// 2048 log2(i) is 2048 / (i ln 2) < 0.1), so the 1,024 values T[32768 + 32b] and one 32-bit mask
// per b (bit j: the step T[32768 + 32b + j] - T[32768 + 32b + j - 1], j >= 1) reproduce all
// 32,768 entries: T[32768 + 32b + j] = base[b] + popcount(mask[b] & (2^(j+1) - 1)). 6 KB instead
// of 64 KB, small enough for shared memory. build_log_table2 checks every entry against the
// reference table. The CUDA kernels can read it from shared memory (the `l` variants of
// cuda/dispatch/kernel_table.cu, docs/cuda.md "The per-pixel statistic"); the CPU's AVX-512 statistic
// measured no faster with it (docs/journal/2026-11-25-performance.md).
struct LogTable2 {
    static constexpr int kBlocks = kLogTableSize / 32;
    uint16_t base[kBlocks];
    uint32_t mask[kBlocks];
    VIF_HD uint32_t operator()(uint32_t i) const {
        const uint32_t o = i - static_cast<uint32_t>(kLogTableFirst);
        const uint32_t below = (2u << (o & 31u)) - 1u; // bits 0..j (j = 31: all, by wrap-around)
#if defined(__CUDA_ARCH__)
        return base[o >> 5] + static_cast<uint32_t>(__popc(mask[o >> 5] & below));
#else
        return base[o >> 5] + static_cast<uint32_t>(__builtin_popcount(mask[o >> 5] & below));
#endif
    }
};

// The steps T[first + j] - T[first + j - 1] for j = 1 .. n - 1 as bits 1 .. n - 1 of *bits; false
// when one is not 0 or 1. Shared by both two-level forms below.
inline bool log_table_steps(const uint16_t* first, int n, uint32_t* bits) {
    uint32_t m = 0;
    for (int j = 1; j < n; ++j) {
        const int step = first[j] - first[j - 1];
        if (step != 0 && step != 1) return false;
        m |= static_cast<uint32_t>(step) << j;
    }
    *bits = m;
    return true;
}

// Whether the two-level form t gives every entry of T[32768..65535].
template <class Table>
bool log_table_matches(const Table& t, const uint16_t* table) {
    for (int k = 0; k < kLogTableSize; ++k)
        if (t(static_cast<uint32_t>(kLogTableFirst + k)) != table[k]) return false;
    return true;
}

// Fills *out from T[32768..65535]; false when a step is not 0 or 1 or an entry differs.
inline bool build_log_table2(const uint16_t* table, LogTable2* out) {
    for (int b = 0; b < LogTable2::kBlocks; ++b) {
        out->base[b] = table[32 * b];
        if (!log_table_steps(table + 32 * b, 32, &out->mask[b])) return false;
    }
    return log_table_matches(*out, table);
}

// The same two levels with blocks of 16 packed in one 32-bit word (8 KB), so that a lookup is one
// load: word b holds T[32768 + 16b] (<= 32768) in bits 16-31 and the steps of entries 1-15 of
// the block in bits 1-15 (bit 0 is always 0): T[32768 + 16b + j] = (w >> 16) +
// popcount(w & (2^(j+1) - 1)), with j = i mod 16 (32768 is a multiple of 16).
struct LogTablePacked {
    static constexpr int kBlocks = kLogTableSize / 16;
    uint32_t word[kBlocks];
    VIF_HD uint32_t operator()(uint32_t i) const {
        const uint32_t w = word[(i >> 4) - static_cast<uint32_t>(kLogTableFirst / 16)];
        const uint32_t below = ~(0xFFFFFFFEu << (i & 15u)); // bits 0..j
#if defined(__CUDA_ARCH__)
        return (w >> 16) + static_cast<uint32_t>(__popc(w & below));
#else
        return (w >> 16) + static_cast<uint32_t>(__builtin_popcount(w & below));
#endif
    }
};

// Fills *out from T[32768..65535]; false when a step is not 0 or 1 or an entry differs.
inline bool build_log_table_packed(const uint16_t* table, LogTablePacked* out) {
    for (int b = 0; b < LogTablePacked::kBlocks; ++b) {
        uint32_t steps = 0;
        if (!log_table_steps(table + 16 * b, 16, &steps)) return false;
        out->word[b] = (static_cast<uint32_t>(table[16 * b]) << 16) | steps;
    }
    return log_table_matches(*out, table);
}

// max(trunc(t), 0) for the double t of §6.5 (the device's conversion saturates; the host's
// would be undefined below the int32 range, so it tests the sign first: same result).
VIF_HD int32_t trunc_nonneg(double t) {
#if defined(__CUDA_ARCH__)
    const int32_t v = __double2int_rz(t);
    return v < 0 ? 0 : v;
#else
    return t < 0.0 ? 0 : static_cast<int32_t>(t);
#endif
}

// How the device computes the double steps of §6.5 (template argument F of numerator_args,
// add_pixel_num, add_pixel): bit flags, 0 = the plain code below (the CPU always uses it). Each
// flag gives the same bits as the plain code on every input VIF can produce; docs/cuda.md,
// "The per-pixel statistic", has the proofs and the measurements.
//   kExactConv:   int <-> double by exact additions of 2^52 on the FP64 pipe instead of the
//                 conversion unit (I2F.F64 / F2I.F64 issue at a quarter of the FP64 rate).
//   kDivNoBranch: the division g = sigma_xy / (sigma_x^2 + eps) as the compiler's own fast
//                 path of div.rn.f64 without its range check and slow-path branch (the operands
//                 never leave the range where the fast path is the IEEE result).
namespace stat {
constexpr unsigned kExactConv = 1u;
constexpr unsigned kDivNoBranch = 2u;
} // namespace stat

#if defined(__CUDACC__)
// 2^52 as a double: hi word 0x43300000. For an integer 0 <= v < 2^32, the double with hi word
// 0x43300000 and lo word v is exactly 2^52 + v (v fits the 52-bit mantissa), so subtracting
// 2^52 leaves exactly v: one DADD instead of I2F.F64.
constexpr double kTwo52 = 4503599627370496.0;
__device__ __forceinline__ double u32_to_double_exact(uint32_t v) {
    return __dsub_rn(__hiloint2double(0x43300000, static_cast<int>(v)), kTwo52);
}

// a / b rounded to nearest, for 0 <= a < 2^31 and 2^17 <= b < 2^31 (integers and sigma_x^2 +
// eps). The instructions nvcc emits for div.rn.f64 (--prec-div=true; docs/cuda.md shows the
// SASS): a reciprocal seed from MUFU.RCP64H with the low word 1, two Newton steps, the quotient
// and one correction with the exact remainder; then a check that sends operands near the ends
// of the exponent range (b's exponent below about -1000 or above 1000, a quotient below 2^-1022
// or not finite) to a slow path. Here b, a / b in [2^-31, 2^14] and a are far from those ends, so
// that check always passes and the fast path's result is the one `/` returns: the same
// instructions without the check and its branch (a = 0 gives +0 both ways: the compiler's path
// takes the slow branch for a zero quotient, which returns 0 / b = +0; here q = r = 0).
__device__ __forceinline__ double div_rn_no_branch(double a, double b) {
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
    y = __hiloint2double(__double2hiint(y), 1); // the seed as div.rn.f64 forms it
    double e = __fma_rn(-b, y, 1.0);
    e = __fma_rn(e, e, e);
    y = __fma_rn(y, e, y);
    e = __fma_rn(-b, y, 1.0);
    y = __fma_rn(y, e, y);
    const double q = __dmul_rn(a, y);
    const double r = __fma_rn(-b, q, a);
    return __fma_rn(y, r, q);
}
#endif

// §6.5, a pixel with sigma_x^2 >= NSQ, sigma_xy > 0 and sigma_y^2 > 0: the two arguments of the
// numerator's log term, n1 = max(sigma_v^2, 0) + NSQ and n2 = trunc(g^2 sigma_x^2) + n1, with
// g = sigma_xy / (sigma_x^2 + eps) capped at the gain limit. The double steps in libvmaf's order.
// The callers also pass (NSQ, 0, 0) as safe operands where the term does not apply (the
// branch-free kernels): n1 = NSQ, n2 = NSQ.
struct NumeratorArgs {
    uint32_t n1;
    uint64_t n2;
};
template <unsigned F = 0>
VIF_HD NumeratorArgs numerator_args(int32_t sx, int32_t sy, int32_t sxy, double gain_limit) {
    const double eps = 65536 * 1.0e-10;
#if defined(__CUDA_ARCH__)
    if constexpr ((F & stat::kExactConv) != 0) {
        // Ranges: NSQ <= sx < 2^31, 0 <= sy < 2^31, 0 <= sxy < 2^31 (int32 values, positive
        // here), so u32_to_double_exact is exact for all three.
        const double dsx = u32_to_double_exact(static_cast<uint32_t>(sx));
        const double dsxy = u32_to_double_exact(static_cast<uint32_t>(sxy));
        const double den = dsx + eps;
        double g = (F & stat::kDivNoBranch) ? div_rn_no_branch(dsxy, den) : dsxy / den;
        const double t = u32_to_double_exact(static_cast<uint32_t>(sy)) - g * dsxy;
        // n1 = max(trunc(t), 0) + NSQ. t < 2^31 (g * sxy >= 0, so t <= sy), and t is finite.
        // max(trunc(t), 0) = floor(max(t, 0)); max(t, 0) without a conversion: a negative t
        // (sign bit in the hi word) gets hi word 0, leaving a non-negative subnormal or zero.
        // Adding C1 = 2^52 + NSQ rounding down then gives exactly 2^52 + NSQ + floor(max(t, 0))
        // (an integer < 2^53, so representable; a subnormal rounds down to C1): D1 = 2^52 + n1,
        // whose lo word is n1 (< 2^32).
        const double tp = __hiloint2double(max(__double2hiint(t), 0), __double2loint(t));
        const double d1 = __dadd_rd(tp, kTwo52 + static_cast<double>(kNsq));
        const uint32_t n1 = static_cast<uint32_t>(__double2loint(d1));
        g = g < gain_limit ? g : gain_limit;
        // x = g^2 sx >= 0 and x <= (sxy / sx)^2 sx (1 + 2^-50) < 2^45 (g is at most the
        // uncapped quotient, sxy < 2^31, sx >= 2^17). Adding D1 rounding down gives exactly
        // 2^52 + n1 + floor(x) = 2^52 + n2 (< 2^53): n2 = the bits of D2 minus those of 2^52.
        const double x = (g * g) * dsx;
        const double d2 = __dadd_rd(x, d1);
        const uint32_t hi = static_cast<uint32_t>(__double2hiint(d2)) - 0x43300000u;
        const uint32_t lo = static_cast<uint32_t>(__double2loint(d2));
        return {n1, (static_cast<uint64_t>(hi) << 32) | lo};
    }
#endif
    const double dsx = static_cast<double>(sx), dsxy = static_cast<double>(sxy);
    double g;
#if defined(__CUDA_ARCH__)
    if constexpr ((F & stat::kDivNoBranch) != 0)
        g = div_rn_no_branch(dsxy, dsx + eps);
    else
#endif
        g = dsxy / (dsx + eps);
    const int32_t sv = trunc_nonneg(static_cast<double>(sy) - g * dsxy);
    g = g < gain_limit ? g : gain_limit;
    const uint32_t n1 = static_cast<uint32_t>(sv) + kNsq;
#if defined(__CUDA_ARCH__)
    const int64_t q = __double2ll_rz((g * g) * dsx);
#else
    const int64_t q = static_cast<int64_t>((g * g) * dsx);
#endif
    return {n1, static_cast<uint64_t>(q + n1)};
}

// §6.5, split in the two halves a ladder computes apart (one reference, many distorted): the
// denominator's terms (DL, DN) depend on sigma_x^2 alone, the numerator's (NL, NN) on all three.
template <class T, class Acc32>
VIF_HD void add_pixel_den(int32_t sx, const T& t, Acc32& dl, Acc32& dn) {
    if (sx >= static_cast<int32_t>(kNsq))
        dl += log_l32(t, static_cast<uint32_t>(sx) + kNsq) - 17 * 2048;
    else
        dn += 1;
}
template <unsigned F = 0, class T, class Acc32, class Acc64>
VIF_HD void add_pixel_num(int32_t sx, int32_t sy, int32_t sxy, const T& t, double gain_limit,
                          Acc32& nl, Acc64& nn) {
    sy = sy < 0 ? 0 : sy;
    if (sx >= static_cast<int32_t>(kNsq)) {
        if (sxy > 0 && sy > 0) {
            const NumeratorArgs a = numerator_args<F>(sx, sy, sxy, gain_limit);
            nl += log_l64(t, a.n2) - log_l32(t, a.n1);
        }
    } else {
        nn += sy;
    }
}

// §6.5: one pixel's contribution to the four sums, from its variances (sy not yet clamped).
// Acc32 holds NL, DL and DN (int32_t per GPU thread, int64_t on the CPU), Acc64 NN.
template <unsigned F = 0, class T, class Acc32, class Acc64>
VIF_HD void add_pixel(int32_t sx, int32_t sy, int32_t sxy, const T& t, double gain_limit, Acc32& nl,
                      Acc32& dl, Acc64& nn, Acc32& dn) {
    add_pixel_den(sx, t, dl, dn);
    add_pixel_num<F>(sx, sy, sxy, t, gain_limit, nl, nn);
}

// ---- Float path (§7.4) -----------------------------------------------------------------------

constexpr float kFloatEps = 1.0e-10f;
constexpr double kFloatNsq = 2.0;
// fl32(powf(fl32(nsq), 2) / 65025.0)
constexpr float kFloatSmax = static_cast<float>(4.0 / 65025.0);

// Steps 1-7 of one pixel: the variances and the arguments of the two logs (fl32 of the doubles
// A and B). The overrides of steps 8-9 need sxy, sx and sy afterwards (float_terms).
struct FloatLogArgs {
    float a, b;        // log2 arguments of num and den
    float sxy, sx, sy; // sigma_xy, sigma_x^2 (after step 4), sigma_y^2
};
VIF_HD FloatLogArgs float_log_args(float mu1, float mu2, float exx, float eyy, float exy,
                                   float gain_limit) {
    const float eps = kFloatEps;
    float sx = exx - mu1 * mu1;
    float sy = eyy - mu2 * mu2;
    const float sxy = exy - mu1 * mu2;
    sx = sx > 0.0f ? sx : 0.0f;
    sy = sy > 0.0f ? sy : 0.0f;
    float g = sxy / (sx + eps);
    float sv = sy - g * sxy;
    if (sx < eps) {
        g = 0.0f;
        sv = sy;
        sx = 0.0f;
    }
    if (sy < eps) {
        g = 0.0f;
        sv = 0.0f;
    }
    if (g < 0.0f) {
        sv = sy;
        g = 0.0f;
    }
    sv = sv > eps ? sv : eps;
    g = g < gain_limit ? g : gain_limit;
    const float q = (g * g) * sx;
    const double A = 1.0 + static_cast<double>(q) / (static_cast<double>(sv) + kFloatNsq);
    const double B = 1.0 + static_cast<double>(sx) / kFloatNsq;
    return {static_cast<float>(A), static_cast<float>(B), sxy, sx, sy};
}

// Steps 8-9: num and den of one pixel from the logs of its arguments.
VIF_HD void float_terms(float log_a, float log_b, float sxy, float sx, float sy, float& num,
                        float& den) {
    num = log_a;
    den = log_b;
    if (sxy < 0.0f) num = 0.0f;
    if (static_cast<double>(sx) < kFloatNsq) {
        num = 1.0f - sy * kFloatSmax;
        den = 1.0f;
    }
}

#if defined(VIF_ISA_NS)
} // namespace VIF_ISA_NS
#endif
} // namespace vif::pixel
