// The per-pixel maths of VIF, one definition for the CPU scorers (cpu_ref/, cpu_fast/) and the CUDA
// kernels (cuda/src/): the integer statistic of docs/algorithm.md §6.3-6.5 (variance rounding,
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

#include "vif_constants.hpp"

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
// reference table; not yet used by the scoring paths (measure first: docs/cuda.md, "Not done"; the
// CPU's AVX-512 statistic measured no faster with it, docs/performance.md).
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

// Fills *out from T[32768..65535]; false when a step is not 0 or 1 or an entry differs.
inline bool build_log_table2(const uint16_t* table, LogTable2* out) {
    for (int b = 0; b < LogTable2::kBlocks; ++b) {
        out->base[b] = table[32 * b];
        uint32_t m = 0;
        for (int j = 1; j < 32; ++j) {
            const int step = table[32 * b + j] - table[32 * b + j - 1];
            if (step != 0 && step != 1) return false;
            m |= static_cast<uint32_t>(step) << j;
        }
        out->mask[b] = m;
    }
    for (int k = 0; k < kLogTableSize; ++k)
        if ((*out)(static_cast<uint32_t>(kLogTableFirst + k)) != table[k]) return false;
    return true;
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

// §6.5, a pixel with sigma_x^2 >= NSQ, sigma_xy > 0 and sigma_y^2 > 0: the two arguments of the
// numerator's log term, n1 = max(sigma_v^2, 0) + NSQ and n2 = trunc(g^2 sigma_x^2) + n1, with
// g = sigma_xy / (sigma_x^2 + eps) capped at the gain limit. The double steps in libvmaf's order.
struct NumeratorArgs {
    uint32_t n1;
    uint64_t n2;
};
VIF_HD NumeratorArgs numerator_args(int32_t sx, int32_t sy, int32_t sxy, double gain_limit) {
    const double eps = 65536 * 1.0e-10;
    const double dsx = static_cast<double>(sx), dsxy = static_cast<double>(sxy);
    double g = dsxy / (dsx + eps);
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
template <class T, class Acc32, class Acc64>
VIF_HD void add_pixel_num(int32_t sx, int32_t sy, int32_t sxy, const T& t, double gain_limit,
                          Acc32& nl, Acc64& nn) {
    sy = sy < 0 ? 0 : sy;
    if (sx >= static_cast<int32_t>(kNsq)) {
        if (sxy > 0 && sy > 0) {
            const NumeratorArgs a = numerator_args(sx, sy, sxy, gain_limit);
            nl += log_l64(t, a.n2) - log_l32(t, a.n1);
        }
    } else {
        nn += sy;
    }
}

// §6.5: one pixel's contribution to the four sums, from its variances (sy not yet clamped).
// Acc32 holds NL, DL and DN (int32_t per GPU thread, int64_t on the CPU), Acc64 NN.
template <class T, class Acc32, class Acc64>
VIF_HD void add_pixel(int32_t sx, int32_t sy, int32_t sxy, const T& t, double gain_limit, Acc32& nl,
                      Acc32& dl, Acc64& nn, Acc32& dn) {
    add_pixel_den(sx, t, dl, dn);
    add_pixel_num(sx, sy, sxy, t, gain_limit, nl, nn);
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
