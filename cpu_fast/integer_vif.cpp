// Integer VIF on the CPU, fast: the CPU backend's scorer, docs/algorithm.md §6. Rows are
// streamed: for each output row the vertical pass fills padded row buffers, the horizontal pass
// filters them, and the per-pixel statistics are accumulated at once, so the working set stays in
// L1/L2 whatever the frame size.
//
// The plain loops are written for the auto-vectoriser (filter widths are template parameters so
// the tap loops unroll fully); they are the baseline and AVX2 code and the tails of the AVX-512
// versions beside them: the per-pixel contribution with masks for its branches (skipping blocks
// with no log-domain pixel), the filter passes with 16-bit multiply-adds (docs/decisions/0002),
// and the 16-bit samples' vertical pass with 64-bit products. Every version computes the
// integers of the plain reference, cpu_ref/integer_vif.cpp (tests/unit/isa_test.cpp).
#include <algorithm>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
// GCC 12 reports its own _mm512_undefined_* placeholders inside the conversion intrinsics as
// "maybe uninitialized"; the values are never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "cpu_fast.hpp"
#include "core/pixel_math.hpp"
#include "core/vif_constants.hpp"

namespace vif::cpu_fast::VIF_ISA_NS {
namespace {

// Fills the r padding entries on both sides of a row of w values stored at row[r .. r+w-1],
// mirroring about the edge samples (reflect-101).
template <typename T>
inline void pad_row(T* row, int w, int r) {
    for (int p = 1; p <= r; ++p) {
        row[r - p] = row[r + reflect101(-p, w)];
        row[r + w - 1 + p] = row[r + reflect101(w - 1 + p, w)];
    }
}

inline const uint8_t* row_ptr(const Plane& p, int i) {
    return static_cast<const uint8_t*>(p.data) + static_cast<ptrdiff_t>(i) * p.stride;
}

// Vertical results of one row, padded by the filter half-width on each side. Every value is
// below 2^16: the means, and the second moments (< 2^32) split in 16-bit halves, so the
// horizontal pass sums them in 32-bit lanes. They are stored offset by -32768 (v ^ 0x8000, an
// int16) so that 16-bit multiply-adds can use them directly; kOffset undoes that.
constexpr uint16_t kOffset = 0x8000;

// What a pass over one scale computes. kPair: everything of one (reference, distorted) pair.
// A ladder splits that in two: kRef, once per reference frame, computes what depends on the
// reference alone (its filtered mean and variance, and the whole denominator: DL and DN) and
// keeps the mean and variance per pixel; kDist, once per distorted plane, computes the rest
// (the distorted plane's mean and variance, the covariance, NL and NN) from the kept values.
// The split passes do the same integer operations on the same values: the sums are identical.
enum class Pass { kPair, kRef, kDist };

struct VerticalRow {
    uint16_t *mu_x, *mu_y, *xx_lo, *xx_hi, *yy_lo, *yy_hi, *xy_lo, *xy_hi;
};

// Vertical pass of the statistics (docs/algorithm.md §6.3) for one output row. Wide is uint32_t
// where every second-moment sum fits 32 bits (8-bit samples at scale 0), uint64_t otherwise.
template <int N, typename In, typename Wide, Pass P = Pass::kPair>
void vertical_stats_row(const Plane& X, const Plane& Y, int i, const uint16_t* c, int mean_shift,
                        int sq_shift, const VerticalRow& out, int offset, int j0 = 0) {
    constexpr bool kX = P != Pass::kDist, kY = P != Pass::kRef; // which statistics
    constexpr int r = N / 2;
    const In* px[N];
    const In* py[N];
    for (int k = 0; k < N; ++k) {
        const int src = reflect101(i - r + k, X.height);
        px[k] = reinterpret_cast<const In*>(row_ptr(X, src));
        py[k] = reinterpret_cast<const In*>(row_ptr(Y, src));
    }
    const int w = X.width;
    const uint32_t mean_round = mean_shift ? 1u << (mean_shift - 1) : 0u;
    const Wide sq_round = sq_shift ? static_cast<Wide>(1) << (sq_shift - 1) : 0;
    uint16_t *mu_x = out.mu_x + offset, *mu_y = out.mu_y + offset;
    uint16_t *xx_lo = out.xx_lo + offset, *xx_hi = out.xx_hi + offset;
    uint16_t *yy_lo = out.yy_lo + offset, *yy_hi = out.yy_hi + offset;
    uint16_t *xy_lo = out.xy_lo + offset, *xy_hi = out.xy_hi + offset;
#pragma GCC ivdep // the output rows never overlap the input rows
    for (int j = j0; j < w; ++j) {
        // Means: taps are symmetric, so pair the rows (sums stay below 2^32).
        uint32_t ax = 0, ay = 0;
        if constexpr (kX) ax = c[r] * static_cast<uint32_t>(px[r][j]);
        if constexpr (kY) ay = c[r] * static_cast<uint32_t>(py[r][j]);
#pragma GCC unroll 17
        for (int k = 0; k < r; ++k) {
            if constexpr (kX) ax += c[k] * (static_cast<uint32_t>(px[k][j]) + px[N - 1 - k][j]);
            if constexpr (kY) ay += c[k] * (static_cast<uint32_t>(py[k][j]) + py[N - 1 - k][j]);
        }
        Wide bxx = 0, byy = 0, bxy = 0;
#pragma GCC unroll 17 // unrolled taps let the column loop vectorise
        for (int k = 0; k < N; ++k) {
            const uint32_t x = px[k][j], y = py[k][j];
            const uint32_t cx = c[k] * x, cy = c[k] * y;
            if constexpr (kX) bxx += static_cast<Wide>(cx) * x;
            if constexpr (kY) byy += static_cast<Wide>(cy) * y;
            if constexpr (kY) bxy += static_cast<Wide>(cx) * y;
        }
        if constexpr (kX) {
            mu_x[j] = static_cast<uint16_t>(((ax + mean_round) >> mean_shift) ^ kOffset);
            const uint32_t vxx = static_cast<uint32_t>((bxx + sq_round) >> sq_shift);
            xx_lo[j] = static_cast<uint16_t>(vxx ^ kOffset);
            xx_hi[j] = static_cast<uint16_t>((vxx >> 16) ^ kOffset);
        }
        if constexpr (kY) {
            mu_y[j] = static_cast<uint16_t>(((ay + mean_round) >> mean_shift) ^ kOffset);
            const uint32_t vyy = static_cast<uint32_t>((byy + sq_round) >> sq_shift);
            const uint32_t vxy = static_cast<uint32_t>((bxy + sq_round) >> sq_shift);
            yy_lo[j] = static_cast<uint16_t>(vyy ^ kOffset);
            yy_hi[j] = static_cast<uint16_t>((vyy >> 16) ^ kOffset);
            xy_lo[j] = static_cast<uint16_t>(vxy ^ kOffset);
            xy_hi[j] = static_cast<uint16_t>((vxy >> 16) ^ kOffset);
        }
    }
}

#if defined(__AVX512BW__)
// Puts the two halves of a 32-column block in column order: _mm512_unpack{lo,hi}_epi16 + madd
// leave columns {0-3, 8-11, 16-19, 24-27} in lo and {4-7, 12-15, 20-23, 28-31} in hi.
inline void deinterleave(__m512i lo, __m512i hi, __m512i& first, __m512i& second) {
    const __m512i a = _mm512_shuffle_i32x4(lo, hi, 0x44); // lo.0 lo.1 hi.0 hi.1
    const __m512i b = _mm512_shuffle_i32x4(lo, hi, 0xEE); // lo.2 lo.3 hi.2 hi.3
    first = _mm512_shuffle_i32x4(a, a, 0xD8);             // columns 0..15
    second = _mm512_shuffle_i32x4(b, b, 0xD8);            // columns 16..31
}

// Stores 32 values below 2^16 (32-bit lanes, madd order) as offset 16-bit values.
inline void store_offset16(uint16_t* dst, __m512i lo, __m512i hi) {
    __m512i first, second;
    deinterleave(lo, hi, first, second);
    const __m512i off = _mm512_set1_epi32(kOffset);
    _mm256_storeu_si256((__m256i*)dst, _mm512_cvtepi32_epi16(_mm512_xor_si512(first, off)));
    _mm256_storeu_si256((__m256i*)(dst + 16), _mm512_cvtepi32_epi16(_mm512_xor_si512(second, off)));
}

// Sums formed on values offset by -32768 carry -32768 * sum(c) = -2^31 (taps sum to 2^16):
// adding 2^31 back, modulo 2^32, gives the exact sum (its true value is below 2^32).
inline __m512i unbias(__m512i sum) {
    return _mm512_add_epi32(sum, _mm512_set1_epi32(static_cast<int>(0x80000000u)));
}

inline void store_moment(uint16_t* lo_dst, uint16_t* hi_dst, __m512i lo, __m512i hi) {
    lo = unbias(lo);
    hi = unbias(hi);
    const __m512i mask = _mm512_set1_epi32(0xffff);
    store_offset16(lo_dst, _mm512_and_si512(lo, mask), _mm512_and_si512(hi, mask));
    store_offset16(hi_dst, _mm512_srli_epi32(lo, 16), _mm512_srli_epi32(hi, 16));
}

// The vertical pass for 8-bit samples at scale 0 (mean shift 8, moment shift 0), 32 columns at a
// time with 16-bit multiply-adds: taps are symmetric, so rows k and 16 - k are interleaved and
// one _mm512_madd_epi16 with (c_k, c_k) adds both. Samples (< 2^8) and their products x*x, y*y,
// x*y (< 2^16, exact in 16 bits) fit int16 once the products are offset by -32768; the offset
// contributes -32768 * sum(c) = -2^31 to each sum, which store_moment adds back. All sums are
// the exact integers of the generic code, modulo 2^32, and the true values are below 2^32.
template <Pass P>
void vertical_stats_row_u8(const Plane& X, const Plane& Y, int i, const uint16_t* c,
                           const VerticalRow& out, int offset) {
    constexpr int N = 17, r = 8;
    constexpr bool kX = P != Pass::kDist, kY = P != Pass::kRef;
    const uint8_t* px[N];
    const uint8_t* py[N];
    for (int k = 0; k < N; ++k) {
        const int src = reflect101(i - r + k, X.height);
        px[k] = row_ptr(X, src);
        py[k] = row_ptr(Y, src);
    }
    __m512i coef[r + 1];
    for (int k = 0; k < r; ++k) coef[k] = _mm512_set1_epi32(c[k] | (c[k] << 16));
    coef[r] = _mm512_set1_epi32(c[r]); // the centre row is paired with a zero-weight partner
    const __m512i bias = _mm512_set1_epi16(static_cast<short>(0x8000));
    const int w = X.width;
    int j = 0;
    for (; j + 32 <= w; j += 32) {
        __m512i mx[2], my[2], sxx[2], syy[2], sxy[2];
        for (int h = 0; h < 2; ++h)
            mx[h] = my[h] = sxx[h] = syy[h] = sxy[h] = _mm512_setzero_si512();
        for (int k = 0; k <= r; ++k) {
            const int kb = k < r ? N - 1 - k : k; // partner row (the centre pairs with itself)
            const __m512i xa =
                _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i*)(px[k] + j)));
            const __m512i xb =
                _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i*)(px[kb] + j)));
            const __m512i ya =
                _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i*)(py[k] + j)));
            const __m512i yb =
                _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i*)(py[kb] + j)));
            const __m512i cf = coef[k];
            auto add_pairs = [&](__m512i(&acc)[2], __m512i a, __m512i b) {
                acc[0] =
                    _mm512_add_epi32(acc[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), cf));
                acc[1] =
                    _mm512_add_epi32(acc[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), cf));
            };
            if constexpr (kX) {
                add_pairs(mx, xa, xb);
                add_pairs(sxx, _mm512_xor_si512(_mm512_mullo_epi16(xa, xa), bias),
                          _mm512_xor_si512(_mm512_mullo_epi16(xb, xb), bias));
            }
            if constexpr (kY) {
                add_pairs(my, ya, yb);
                add_pairs(syy, _mm512_xor_si512(_mm512_mullo_epi16(ya, ya), bias),
                          _mm512_xor_si512(_mm512_mullo_epi16(yb, yb), bias));
                add_pairs(sxy, _mm512_xor_si512(_mm512_mullo_epi16(xa, ya), bias),
                          _mm512_xor_si512(_mm512_mullo_epi16(xb, yb), bias));
            }
        }
        const __m512i round = _mm512_set1_epi32(128);
        if constexpr (kX) {
            store_offset16(out.mu_x + offset + j,
                           _mm512_srli_epi32(_mm512_add_epi32(mx[0], round), 8),
                           _mm512_srli_epi32(_mm512_add_epi32(mx[1], round), 8));
            store_moment(out.xx_lo + offset + j, out.xx_hi + offset + j, sxx[0], sxx[1]);
        }
        if constexpr (kY) {
            store_offset16(out.mu_y + offset + j,
                           _mm512_srli_epi32(_mm512_add_epi32(my[0], round), 8),
                           _mm512_srli_epi32(_mm512_add_epi32(my[1], round), 8));
            store_moment(out.yy_lo + offset + j, out.yy_hi + offset + j, syy[0], syy[1]);
            store_moment(out.xy_lo + offset + j, out.xy_hi + offset + j, sxy[0], sxy[1]);
        }
    }
    vertical_stats_row<N, uint8_t, uint32_t, P>(X, Y, i, c, 8, 0, out, offset, j);
}

// The vertical pass for 16-bit samples (scales 1 to 3, and scale 0 above 8 bits), 16 columns at a
// time: c*x in 32-bit lanes (below 2^32), its products with x and y in 64-bit lanes (the even and
// the odd columns apart, _mm512_mul_epu32), rounded by the moment shift and put back in column
// order. The same integer operations as vertical_stats_row with Wide = uint64_t.
template <int N, Pass P>
void vertical_stats_row_u16(const Plane& X, const Plane& Y, int i, const uint16_t* c,
                            int mean_shift, int sq_shift, const VerticalRow& out, int offset) {
    constexpr bool kX = P != Pass::kDist, kY = P != Pass::kRef;
    constexpr int r = N / 2;
    const uint16_t* px[N];
    const uint16_t* py[N];
    for (int k = 0; k < N; ++k) {
        const int src = reflect101(i - r + k, X.height);
        px[k] = reinterpret_cast<const uint16_t*>(row_ptr(X, src));
        py[k] = reinterpret_cast<const uint16_t*>(row_ptr(Y, src));
    }
    const __m512i mean_round = _mm512_set1_epi32(mean_shift ? 1 << (mean_shift - 1) : 0);
    const __m512i sq_round = _mm512_set1_epi64(sq_shift ? int64_t{1} << (sq_shift - 1) : 0);
    const __m128i ms = _mm_cvtsi32_si128(mean_shift), qs = _mm_cvtsi32_si128(sq_shift);
    const __m512i off = _mm512_set1_epi32(kOffset), low16 = _mm512_set1_epi32(0xffff);
    auto store16 = [&](uint16_t* dst, __m512i v) { // 16 values below 2^16, offset
        _mm256_storeu_si256((__m256i*)dst, _mm512_cvtepi32_epi16(_mm512_xor_si512(v, off)));
    };
    auto put_moment = [&](uint16_t* lo, uint16_t* hi, __m512i even, __m512i odd) {
        even = _mm512_srl_epi64(_mm512_add_epi64(even, sq_round), qs);
        odd = _mm512_srl_epi64(_mm512_add_epi64(odd, sq_round), qs);
        const __m512i v = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
        store16(lo, _mm512_and_si512(v, low16));
        store16(hi, _mm512_srli_epi32(v, 16));
    };
    const int w = X.width;
    int j = 0;
    for (; j + 16 <= w; j += 16) {
        const __m512i zero = _mm512_setzero_si512();
        __m512i ax = zero, ay = zero, xx[2] = {zero, zero}, yy[2] = {zero, zero},
                xy[2] = {zero, zero};
        for (int k = 0; k < N; ++k) {
            const __m512i ck = _mm512_set1_epi32(c[k]);
            const __m512i x =
                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(px[k] + j)));
            const __m512i y =
                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(py[k] + j)));
            const __m512i cx = _mm512_mullo_epi32(ck, x);
            const __m512i x_odd = _mm512_srli_epi64(x, 32), cx_odd = _mm512_srli_epi64(cx, 32);
            if constexpr (kX) {
                ax = _mm512_add_epi32(ax, cx);
                xx[0] = _mm512_add_epi64(xx[0], _mm512_mul_epu32(cx, x));
                xx[1] = _mm512_add_epi64(xx[1], _mm512_mul_epu32(cx_odd, x_odd));
            }
            if constexpr (kY) {
                const __m512i cy = _mm512_mullo_epi32(ck, y);
                const __m512i y_odd = _mm512_srli_epi64(y, 32);
                ay = _mm512_add_epi32(ay, cy);
                yy[0] = _mm512_add_epi64(yy[0], _mm512_mul_epu32(cy, y));
                yy[1] = _mm512_add_epi64(yy[1], _mm512_mul_epu32(_mm512_srli_epi64(cy, 32), y_odd));
                xy[0] = _mm512_add_epi64(xy[0], _mm512_mul_epu32(cx, y));
                xy[1] = _mm512_add_epi64(xy[1], _mm512_mul_epu32(cx_odd, y_odd));
            }
        }
        if constexpr (kX) {
            store16(out.mu_x + offset + j, _mm512_srl_epi32(_mm512_add_epi32(ax, mean_round), ms));
            put_moment(out.xx_lo + offset + j, out.xx_hi + offset + j, xx[0], xx[1]);
        }
        if constexpr (kY) {
            store16(out.mu_y + offset + j, _mm512_srl_epi32(_mm512_add_epi32(ay, mean_round), ms));
            put_moment(out.yy_lo + offset + j, out.yy_hi + offset + j, yy[0], yy[1]);
            put_moment(out.xy_lo + offset + j, out.xy_hi + offset + j, xy[0], xy[1]);
        }
    }
    vertical_stats_row<N, uint16_t, uint64_t, P>(X, Y, i, c, mean_shift, sq_shift, out, offset, j);
}
#endif

// Horizontal pass (docs/algorithm.md §6.3) over padded rows, then the variances as signed 32-bit.
// Every summed value is below 2^16 and the taps sum to 2^16, so each tap sum fits 32 bits, also
// with symmetric taps paired. A second moment E = rs(sum c*v, 16) with v = hi*2^16 + lo is
// sum(c*hi) + rs(sum(c*lo), 16), exactly.
inline void variances(uint32_t mx, uint32_t my, uint32_t sxl, uint32_t sxh, uint32_t syl,
                      uint32_t syh, uint32_t sxyl, uint32_t sxyh, int32_t& sig_x, int32_t& sig_y,
                      int32_t& sig_xy) {
    sig_x = pixel::variance(sxh + ((sxl + 0x8000) >> 16), mx, mx);
    sig_y = pixel::variance(syh + ((syl + 0x8000) >> 16), my, my);
    sig_xy = pixel::variance(sxyh + ((sxyl + 0x8000) >> 16), mx, my);
}

// kRef keeps each pixel's filtered mean in mean_x (and sigma_x^2 in sig_x); kDist reads them.
template <int N, Pass P = Pass::kPair>
void horizontal_stats_row(int w, const uint16_t* c, const VerticalRow& in, int32_t* sig_x,
                          int32_t* sig_y, int32_t* sig_xy, uint32_t* mean_x = nullptr, int j0 = 0) {
    constexpr int r = N / 2;
    const uint16_t *mu_x = in.mu_x, *mu_y = in.mu_y, *xx_lo = in.xx_lo, *xx_hi = in.xx_hi,
                   *yy_lo = in.yy_lo, *yy_hi = in.yy_hi, *xy_lo = in.xy_lo, *xy_hi = in.xy_hi;
    auto v = [](const uint16_t* a, int i) { return static_cast<uint32_t>(a[i] ^ kOffset); };
    if constexpr (P == Pass::kRef) {
#pragma GCC ivdep
        for (int j = j0; j < w; ++j) {
            uint32_t mx = c[r] * v(mu_x, j + r);
            uint32_t sxl = c[r] * v(xx_lo, j + r), sxh = c[r] * v(xx_hi, j + r);
#pragma GCC unroll 17
            for (int k = 0; k < r; ++k) {
                const int a = j + k, b = j + N - 1 - k;
                mx += c[k] * (v(mu_x, a) + v(mu_x, b));
                sxl += c[k] * (v(xx_lo, a) + v(xx_lo, b));
                sxh += c[k] * (v(xx_hi, a) + v(xx_hi, b));
            }
            const uint32_t mxx =
                static_cast<uint32_t>((static_cast<uint64_t>(mx) * mx + 0x80000000ull) >> 32);
            sig_x[j] = static_cast<int32_t>(sxh + ((sxl + 0x8000) >> 16) - mxx);
            mean_x[j] = mx;
        }
        return;
    } else if constexpr (P == Pass::kDist) {
#pragma GCC ivdep
        for (int j = j0; j < w; ++j) {
            const uint32_t mx = mean_x[j];
            uint32_t my = c[r] * v(mu_y, j + r);
            uint32_t syl = c[r] * v(yy_lo, j + r), syh = c[r] * v(yy_hi, j + r);
            uint32_t sxyl = c[r] * v(xy_lo, j + r), sxyh = c[r] * v(xy_hi, j + r);
#pragma GCC unroll 17
            for (int k = 0; k < r; ++k) {
                const int a = j + k, b = j + N - 1 - k;
                my += c[k] * (v(mu_y, a) + v(mu_y, b));
                syl += c[k] * (v(yy_lo, a) + v(yy_lo, b));
                syh += c[k] * (v(yy_hi, a) + v(yy_hi, b));
                sxyl += c[k] * (v(xy_lo, a) + v(xy_lo, b));
                sxyh += c[k] * (v(xy_hi, a) + v(xy_hi, b));
            }
            const uint32_t myy =
                static_cast<uint32_t>((static_cast<uint64_t>(my) * my + 0x80000000ull) >> 32);
            const uint32_t mxy =
                static_cast<uint32_t>((static_cast<uint64_t>(mx) * my + 0x80000000ull) >> 32);
            sig_y[j] = static_cast<int32_t>(syh + ((syl + 0x8000) >> 16) - myy);
            sig_xy[j] = static_cast<int32_t>(sxyh + ((sxyl + 0x8000) >> 16) - mxy);
        }
        return;
    }
#pragma GCC ivdep
    for (int j = j0; j < w; ++j) {
        uint32_t mx = c[r] * v(mu_x, j + r), my = c[r] * v(mu_y, j + r);
        uint32_t sxl = c[r] * v(xx_lo, j + r), sxh = c[r] * v(xx_hi, j + r);
        uint32_t syl = c[r] * v(yy_lo, j + r), syh = c[r] * v(yy_hi, j + r);
        uint32_t sxyl = c[r] * v(xy_lo, j + r), sxyh = c[r] * v(xy_hi, j + r);
#pragma GCC unroll 17
        for (int k = 0; k < r; ++k) {
            const int a = j + k, b = j + N - 1 - k;
            mx += c[k] * (v(mu_x, a) + v(mu_x, b));
            my += c[k] * (v(mu_y, a) + v(mu_y, b));
            sxl += c[k] * (v(xx_lo, a) + v(xx_lo, b));
            sxh += c[k] * (v(xx_hi, a) + v(xx_hi, b));
            syl += c[k] * (v(yy_lo, a) + v(yy_lo, b));
            syh += c[k] * (v(yy_hi, a) + v(yy_hi, b));
            sxyl += c[k] * (v(xy_lo, a) + v(xy_lo, b));
            sxyh += c[k] * (v(xy_hi, a) + v(xy_hi, b));
        }
        variances(mx, my, sxl, sxh, syl, syh, sxyl, sxyh, sig_x[j], sig_y[j], sig_xy[j]);
    }
}

#if defined(__AVX512BW__)
// (a * b + 2^31) >> 32 on 16 unsigned 32-bit lanes.
inline __m512i mul_round_hi(__m512i a, __m512i b) {
    const __m512i half = _mm512_set1_epi64(0x80000000ll);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epu32(a, b), half);
    const __m512i odd = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), half);
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
}

// The horizontal pass 32 columns at a time with 16-bit multiply-adds on the offset values, with
// no shuffles: one _mm512_madd_epi16 of the row at column j + k against the tap pair
// (c_k, c_k+1) adds taps k and k + 1 of the even columns j, j + 2, ..., j + 30 (32-bit lane i
// holds the values at j + k + 2i and j + k + 2i + 1); the same from j + 1 gives the odd columns.
// N + 1 multiply-adds per 32 columns and value stream (the last pair's second tap is 0). Needs
// every tap below 2^15 (scales 0 to 2), and one value after each row's padding (the last odd
// load's zero tap reads it). Same sums as horizontal_stats_row, exactly.
// Results of a block are stored even columns first (sig[j + i] is column j + 2i, sig[j + 16 + i]
// column j + 2i + 1): the per-pixel sums do not depend on the order, and every array of a row
// (sigma_x^2, sigma_y^2, sigma_xy, and the means kRef keeps for kDist) uses the same one.
template <int N, Pass P = Pass::kPair>
void horizontal_stats_row_madd(int w, const uint16_t* c, const VerticalRow& in, int32_t* sig_x,
                               int32_t* sig_y, int32_t* sig_xy, uint32_t* mean_x = nullptr) {
    constexpr int kPairs = (N + 1) / 2;
    __m512i coef[kPairs];
    for (int p = 0; p < kPairs; ++p) {
        const uint32_t second = 2 * p + 1 < N ? c[2 * p + 1] : 0u;
        coef[p] = _mm512_set1_epi32(static_cast<int>(c[2 * p] | (second << 16)));
    }
    const uint16_t* q[8] = {in.mu_x,  in.mu_y,  in.xx_lo, in.xx_hi,
                            in.yy_lo, in.yy_hi, in.xy_lo, in.xy_hi};
    int j = 0;
    for (; j + 32 <= w; j += 32) {
        __m512i acc[8][2]; // [stream][even, odd columns]
        for (int t = 0; t < 8; ++t) {
            // kRef: the mean and moment of x (0, 2, 3); kDist: the others.
            const bool x_only = t == 0 || t == 2 || t == 3;
            if ((P == Pass::kRef && !x_only) || (P == Pass::kDist && x_only)) continue;
            __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
            for (int p = 0; p < kPairs; ++p) {
                const uint16_t* at = q[t] + j + 2 * p;
                even = _mm512_add_epi32(even, _mm512_madd_epi16(_mm512_loadu_si512(at), coef[p]));
                odd = _mm512_add_epi32(odd, _mm512_madd_epi16(_mm512_loadu_si512(at + 1), coef[p]));
            }
            acc[t][0] = even;
            acc[t][1] = odd;
        }
        const __m512i round = _mm512_set1_epi32(0x8000);
        for (int h = 0; h < 2; ++h) {
            __m512i mx;
            if constexpr (P == Pass::kDist)
                mx = _mm512_loadu_si512(mean_x + j + 16 * h);
            else
                mx = unbias(acc[0][h]);
            if constexpr (P == Pass::kRef) _mm512_storeu_si512(mean_x + j + 16 * h, mx);
            const __m512i my = unbias(acc[1][h]);
            auto moment = [&](int lo, int hi) {
                return _mm512_add_epi32(
                    unbias(acc[hi][h]),
                    _mm512_srli_epi32(_mm512_add_epi32(unbias(acc[lo][h]), round), 16));
            };
            if constexpr (P != Pass::kDist)
                _mm512_storeu_si512(sig_x + j + 16 * h,
                                    _mm512_sub_epi32(moment(2, 3), mul_round_hi(mx, mx)));
            if constexpr (P != Pass::kRef) {
                _mm512_storeu_si512(sig_y + j + 16 * h,
                                    _mm512_sub_epi32(moment(4, 5), mul_round_hi(my, my)));
                _mm512_storeu_si512(sig_xy + j + 16 * h,
                                    _mm512_sub_epi32(moment(6, 7), mul_round_hi(mx, my)));
            }
        }
    }
    horizontal_stats_row<N, P>(w, c, in, sig_x, sig_y, sig_xy, mean_x, j);
}

// Maps store each pixel's terms at its column: puts a row that horizontal_stats_row_madd wrote
// (each full block of 32 even columns first, then the odd ones) back in column order.
inline void unpermute_madd_order(int w, int32_t* a) {
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second =
        _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    for (int j = 0; j + 32 <= w; j += 32) {
        const __m512i even = _mm512_loadu_si512(a + j), odd = _mm512_loadu_si512(a + j + 16);
        _mm512_storeu_si512(a + j, _mm512_permutex2var_epi32(even, first, odd));
        _mm512_storeu_si512(a + j + 16, _mm512_permutex2var_epi32(even, second, odd));
    }
}
#endif

// Per-pixel contribution (docs/algorithm.md §6.5, pixel_math.hpp: the CUDA kernels run the same
// functions) of pixels [j0, w) of a row, added to acc. kRef adds only the denominator (DL, DN:
// sigma_x^2 alone), kDist only the numerator (NL, NN), kPair both.
template <Pass P = Pass::kPair>
void accumulate_scalar(int j0, int w, const int32_t* sig_x, const int32_t* sig_y,
                       const int32_t* sig_xy, const uint32_t* table, double gain_limit,
                       ScaleRaw& acc) {
    const pixel::TableLog<uint32_t> t{table};
    int64_t nl = 0, dl = 0, nn = 0, dn = 0;
    for (int j = j0; j < w; ++j) {
        if constexpr (P != Pass::kDist) pixel::add_pixel_den(sig_x[j], t, dl, dn);
        if constexpr (P != Pass::kRef)
            pixel::add_pixel_num(sig_x[j], sig_y[j], sig_xy[j], t, gain_limit, nl, nn);
    }
    acc.nl += nl;
    acc.dl += dl;
    acc.nn += nn;
    acc.dn += dn;
}

// One row of a scale's map (docs/algorithm.md §12.1): where each pixel's four terms go, column 0
// first. Null when maps are off.
struct MapRow {
    int32_t *nl, *dl, *nn, *dn;
};

// accumulate_scalar<kPair> that also stores each pixel's terms at its column (maps).
inline void accumulate_scalar_maps(int j0, int w, const int32_t* sig_x, const int32_t* sig_y,
                                   const int32_t* sig_xy, const uint32_t* table, double gain_limit,
                                   ScaleRaw& acc, const MapRow& map) {
    const pixel::TableLog<uint32_t> t{table};
    for (int j = j0; j < w; ++j) {
        int64_t nl = 0, dl = 0, nn = 0, dn = 0;
        pixel::add_pixel_den(sig_x[j], t, dl, dn);
        pixel::add_pixel_num(sig_x[j], sig_y[j], sig_xy[j], t, gain_limit, nl, nn);
        map.nl[j] = static_cast<int32_t>(nl);
        map.dl[j] = static_cast<int32_t>(dl);
        map.nn[j] = static_cast<int32_t>(nn);
        map.dn[j] = static_cast<int32_t>(dn);
        acc.nl += nl;
        acc.dl += dl;
        acc.nn += nn;
        acc.dn += dn;
    }
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)
// L(v) on 8 lanes. v < 2^53, so its conversion to double is exact and the exponent field is
// the index of its highest set bit.
inline __m512i log2_fixed8(const uint32_t* table, __m512i v) {
    const __m512i bits = _mm512_castpd_si512(_mm512_cvtepi64_pd(v));
    const __m512i k = _mm512_sub_epi64(_mm512_srli_epi64(bits, 52), _mm512_set1_epi64(1023 + 15));
    const __m512i idx =
        _mm512_sub_epi64(_mm512_srlv_epi64(v, k), _mm512_set1_epi64(kLogTableFirst));
    const __m256i t = _mm512_i64gather_epi32(idx, table, 4);
    return _mm512_add_epi64(_mm512_cvtepu32_epi64(t), _mm512_slli_epi64(k, 11));
}

// The same contribution as accumulate_scalar, 8 pixels at a time with masks for the branches.
// Every lane does the scalar code's operations in the scalar code's order (no FMA: the file is
// built with -ffp-contract=off), so the sums are identical.
template <Pass P = Pass::kPair>
void accumulate_row(int w, const int32_t* sig_x, const int32_t* sig_y, const int32_t* sig_xy,
                    const uint32_t* table, double gain_limit, ScaleRaw& acc) {
    constexpr bool kDen = P != Pass::kDist, kNum = P != Pass::kRef;
    const __m512i nsq = _mm512_set1_epi64(kNsq);
    const __m512i zero = _mm512_setzero_si512();
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10);
    const __m512d gl = _mm512_set1_pd(gain_limit);
    __m512i nl = zero, dl = zero, nn = zero;
    int64_t dn = 0;
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        const __m512i sx = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i*)(sig_x + j)));
        const __mmask8 big = _mm512_cmpge_epi64_mask(sx, nsq);
        // Lanes outside `big` compute on sigma_x^2 = NSQ and are masked out of the sums.
        const __m512i sxs = _mm512_mask_blend_epi64(big, nsq, sx);
        if constexpr (kDen) {
            dn += 8 - __builtin_popcount(big);
            if (big) // flat areas give whole blocks of low-variance pixels: no log to take
                dl = _mm512_mask_add_epi64(
                    dl, big, dl,
                    _mm512_sub_epi64(log2_fixed8(table, _mm512_add_epi64(sxs, nsq)),
                                     _mm512_set1_epi64(17 * 2048)));
        }
        if constexpr (!kNum) continue;
        const __m512i sy = _mm512_max_epi64(
            _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i*)(sig_y + j))), zero);
        nn = _mm512_mask_add_epi64(nn, static_cast<__mmask8>(~big), nn, sy);
        const __m512i sxy = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i*)(sig_xy + j)));
        const __mmask8 num =
            big & _mm512_cmpgt_epi64_mask(sxy, zero) & _mm512_cmpgt_epi64_mask(sy, zero);
        if (!num) continue; // no pixel of the block takes the numerator's logs
        const __m512d sxd = _mm512_cvtepi64_pd(sxs);
        const __m512d sxyd = _mm512_cvtepi64_pd(sxy);
        const __m512d syd = _mm512_cvtepi64_pd(sy);
        __m512d g = _mm512_div_pd(sxyd, _mm512_add_pd(sxd, eps));
        const __m512d t = _mm512_sub_pd(syd, _mm512_mul_pd(g, sxyd));
        const __m512i sv = _mm512_cvttpd_epi64(_mm512_max_pd(t, _mm512_setzero_pd()));
        g = _mm512_min_pd(g, gl);
        const __m512i n1 = _mm512_add_epi64(sv, nsq);
        const __m512i n2 =
            _mm512_add_epi64(_mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), sxd)), n1);
        nl = _mm512_mask_add_epi64(
            nl, num, nl, _mm512_sub_epi64(log2_fixed8(table, n2), log2_fixed8(table, n1)));
    }
    auto lanes_sum = [](__m512i v) {
        alignas(64) int64_t lane[8];
        _mm512_store_si512(lane, v);
        int64_t sum = 0;
        for (int64_t x : lane) sum += x;
        return sum;
    };
    acc.nl += lanes_sum(nl);
    acc.dl += lanes_sum(dl);
    acc.nn += lanes_sum(nn);
    acc.dn += dn;
    accumulate_scalar<P>(j, w, sig_x, sig_y, sig_xy, table, gain_limit, acc);
}

// accumulate_row<kPair> that also stores each lane's four terms (maps): the same lane
// arithmetic, with the lanes a branch leaves out stored as 0 (and the blocks the plain version
// skips stored as zeros too). kMaddOrder: the row comes from horizontal_stats_row_madd, put back
// in column order first. Out of line: the plain pass's code is not touched by it.
template <bool kMaddOrder>
[[gnu::noinline]] void accumulate_row_maps(int w, int32_t* sig_x, int32_t* sig_y, int32_t* sig_xy,
                                           const uint32_t* table, double gain_limit, ScaleRaw& acc,
                                           const MapRow& map) {
    if constexpr (kMaddOrder)
        for (int32_t* a : {sig_x, sig_y, sig_xy}) unpermute_madd_order(w, a);
    const __m512i nsq = _mm512_set1_epi64(kNsq);
    const __m512i zero = _mm512_setzero_si512();
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10);
    const __m512d gl = _mm512_set1_pd(gain_limit);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i nl = zero, dl = zero, nn = zero;
    int64_t dn = 0;
    int j = 0;
    auto store32 = [](int32_t* dst, __m512i v) {
        _mm256_storeu_si256((__m256i*)dst, _mm512_cvtepi64_epi32(v));
    };
    for (; j + 8 <= w; j += 8) {
        const __m512i sx = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i*)(sig_x + j)));
        const __mmask8 big = _mm512_cmpge_epi64_mask(sx, nsq);
        const __m512i sxs = _mm512_mask_blend_epi64(big, nsq, sx);
        dn += 8 - __builtin_popcount(big);
        store32(map.dn + j, _mm512_maskz_mov_epi64(static_cast<__mmask8>(~big), one));
        __m512i dl_lane = zero;
        if (big)
            dl_lane = _mm512_maskz_sub_epi64(big, log2_fixed8(table, _mm512_add_epi64(sxs, nsq)),
                                             _mm512_set1_epi64(17 * 2048));
        dl = _mm512_add_epi64(dl, dl_lane);
        store32(map.dl + j, dl_lane);
        const __m512i sy = _mm512_max_epi64(
            _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i*)(sig_y + j))), zero);
        const __m512i nn_lane = _mm512_maskz_mov_epi64(static_cast<__mmask8>(~big), sy);
        nn = _mm512_add_epi64(nn, nn_lane);
        store32(map.nn + j, nn_lane);
        const __m512i sxy = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i*)(sig_xy + j)));
        const __mmask8 num =
            big & _mm512_cmpgt_epi64_mask(sxy, zero) & _mm512_cmpgt_epi64_mask(sy, zero);
        __m512i nl_lane = zero;
        if (num) {
            const __m512d sxd = _mm512_cvtepi64_pd(sxs);
            const __m512d sxyd = _mm512_cvtepi64_pd(sxy);
            const __m512d syd = _mm512_cvtepi64_pd(sy);
            __m512d g = _mm512_div_pd(sxyd, _mm512_add_pd(sxd, eps));
            const __m512d t = _mm512_sub_pd(syd, _mm512_mul_pd(g, sxyd));
            const __m512i sv = _mm512_cvttpd_epi64(_mm512_max_pd(t, _mm512_setzero_pd()));
            g = _mm512_min_pd(g, gl);
            const __m512i n1 = _mm512_add_epi64(sv, nsq);
            const __m512i n2 =
                _mm512_add_epi64(_mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), sxd)), n1);
            nl_lane = _mm512_maskz_sub_epi64(num, log2_fixed8(table, n2), log2_fixed8(table, n1));
        }
        nl = _mm512_add_epi64(nl, nl_lane);
        store32(map.nl + j, nl_lane);
    }
    auto lanes_sum = [](__m512i v) {
        alignas(64) int64_t lane[8];
        _mm512_store_si512(lane, v);
        int64_t sum = 0;
        for (int64_t x : lane) sum += x;
        return sum;
    };
    acc.nl += lanes_sum(nl);
    acc.dl += lanes_sum(dl);
    acc.nn += lanes_sum(nn);
    acc.dn += dn;
    accumulate_scalar_maps(j, w, sig_x, sig_y, sig_xy, table, gain_limit, acc, map);
}
#else
template <Pass P = Pass::kPair>
void accumulate_row(int w, const int32_t* sig_x, const int32_t* sig_y, const int32_t* sig_xy,
                    const uint32_t* table, double gain_limit, ScaleRaw& acc) {
    accumulate_scalar<P>(0, w, sig_x, sig_y, sig_xy, table, gain_limit, acc);
}

template <bool kMaddOrder>
[[gnu::noinline]] void accumulate_row_maps(int w, int32_t* sig_x, int32_t* sig_y, int32_t* sig_xy,
                                           const uint32_t* table, double gain_limit, ScaleRaw& acc,
                                           const MapRow& map) {
    static_assert(!kMaddOrder, "no AVX-512 horizontal pass in this build");
    accumulate_scalar_maps(0, w, sig_x, sig_y, sig_xy, table, gain_limit, acc, map);
}
#endif

// Downsampling (docs/algorithm.md §6.7) of one plane to the next scale: only even rows and columns
// of the filtered image are computed. The vertical results (below 2^16) are kept offset by -32768
// (kOffset, as the statistics' row buffers) so that the AVX-512 build can filter the even columns
// with 16-bit multiply-adds: one _mm512_madd_epi16 of the row at 2 j2 + k against the tap pair
// (c_k, c_k+1) adds taps k and k + 1 of 16 output columns j2, j2 + 1, ..., with no shuffle.
template <int N, typename In>
void downsample(const Plane& src, int scale, int bpc, uint16_t* row, uint16_t* dst) {
    constexpr int r = N / 2;
    const uint16_t* c = int_filter(scale + 1);
    const int shift = vertical_mean_shift(scale, bpc);
    const uint32_t round = 1u << (shift - 1);
    const int w = src.width, h = src.height;
    const int w2 = w / 2, h2 = h / 2;
#if defined(__AVX512BW__)
    constexpr int kPairs = (N + 1) / 2;
    constexpr bool kMadd = N != 3; // scale 3's centre tap (43728) does not fit a signed 16-bit madd
    __m512i coef[kPairs];
    for (int q = 0; q < kPairs; ++q) {
        const uint32_t second = 2 * q + 1 < N ? c[2 * q + 1] : 0u;
        coef[q] = _mm512_set1_epi32(static_cast<int>(c[2 * q] | (second << 16)));
    }
#endif
    for (int i2 = 0; i2 < h2; ++i2) {
        const int i = 2 * i2;
        const In* p[N];
        for (int k = 0; k < N; ++k)
            p[k] = reinterpret_cast<const In*>(row_ptr(src, reflect101(i - r + k, h)));
        for (int j = 0; j < w; ++j) {
            uint32_t a = 0;
            for (int k = 0; k < N; ++k) a += c[k] * static_cast<uint32_t>(p[k][j]);
            row[r + j] = static_cast<uint16_t>(((a + round) >> shift) ^ kOffset);
        }
        pad_row(row, w, r);
        uint16_t* out = dst + static_cast<ptrdiff_t>(i2) * w2;
        int j2 = 0;
#if defined(__AVX512BW__)
        if constexpr (kMadd) {
            for (; j2 + 16 <= w2; j2 += 16) {
                __m512i a = _mm512_setzero_si512();
                for (int q = 0; q < kPairs; ++q)
                    a = _mm512_add_epi32(
                        a, _mm512_madd_epi16(_mm512_loadu_si512(row + 2 * j2 + 2 * q), coef[q]));
                // unbias (see there), then rs(., 16)
                a = _mm512_srli_epi32(_mm512_add_epi32(unbias(a), _mm512_set1_epi32(0x8000)), 16);
                _mm256_storeu_si256((__m256i*)(out + j2), _mm512_cvtepi32_epi16(a));
            }
        }
#endif
        for (; j2 < w2; ++j2) {
            uint32_t a = 0;
            for (int k = 0; k < N; ++k)
                a += c[k] * static_cast<uint32_t>(row[2 * j2 + k] ^ kOffset);
            out[j2] = static_cast<uint16_t>((a + 0x8000) >> 16);
        }
    }
}

class IntegerVif final : public FrameScorer {
public:
    IntegerVif(int max_width, int max_height, int bitdepth, double gain_limit);
    void compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]) override;
    void compute_multi(const Plane& ref, const Plane* dists, size_t count,
                       ScaleRaw (*out)[4]) override;
    bool compute_maps(const Plane& ref, const Plane& dist, ScaleRaw out[4],
                      FrameMaps& maps) override;

private:
    // The reference's planes at scales 1..3, from ref_down_ (they depend on the reference only,
    // so a ladder computes them once per reference frame).
    void reference_pyramid(const Plane& ref, Plane X[kNumScales]);
    // Scores dist against a reference whose scales X[0..3] are ready (and, for a ladder, whose
    // statistics reference_statistics kept).
    void score_against(const Plane X[kNumScales], const Plane& dist, ScaleRaw out[4],
                       const ScaleRaw* den);
    template <Pass P>
    void statistics(const Plane& X, const Plane& Y, int s, ScaleRaw& out, ScaleMap* map = nullptr);
    // A ladder: the reference's mean and variance per pixel at every scale (kRef), once.
    void reference_statistics(const Plane X[kNumScales], ScaleRaw den[kNumScales]);
    void downsample_plane(const Plane& src, int s, uint16_t* dst);

    int bitdepth_;
    double gain_limit_;
    std::vector<uint32_t> log_table_; // T[32768..65535] widened to 32 bits for gathers
    std::vector<uint16_t> ref_down_[kNumScales - 1]; // reference at scales 1..3
    std::vector<uint16_t> dist_down_[2];             // distorted, ping-pong between scales
    // Row scratch: vertical results padded by the filter half-width on each side.
    std::vector<uint16_t> v_[8];
    std::vector<uint16_t> d_row_; // downsampling: one row of vertical results, padded
    std::vector<int32_t> sig_x_, sig_y_, sig_xy_;
    // Ladders only (allocated on first use): the reference's filtered mean and sigma_x^2 per
    // pixel, all scales one after another (4/3 of a frame each).
    std::vector<uint32_t> kept_mean_;
    std::vector<int32_t> kept_sig_;
    size_t kept_offset_[kNumScales] = {};
    size_t max_pixels_ = 0;
};

IntegerVif::IntegerVif(int max_width, int max_height, int bitdepth, double gain_limit)
    : bitdepth_(bitdepth), gain_limit_(gain_limit), log_table_(kLogTableSize) {
    std::vector<uint16_t> t(kLogTableSize);
    build_log_table(t.data());
    std::copy(t.begin(), t.end(), log_table_.begin());
    const size_t half = static_cast<size_t>(max_width / 2) * (max_height / 2);
    for (auto& img : ref_down_) img.resize(std::max<size_t>(half, 1));
    for (auto& img : dist_down_) img.resize(std::max<size_t>(half, 1));
    const size_t padded = static_cast<size_t>(max_width) + 2 * 8;
    // +1: the horizontal pass's last odd-column load of a row ends one value past the padding
    // (that value meets the zero tap; kept zero).
    for (auto& v : v_) v.resize(padded + 1);
    d_row_.resize(padded);
    for (auto* v : {&sig_x_, &sig_y_, &sig_xy_}) v->resize(max_width);
    max_pixels_ = static_cast<size_t>(max_width) * max_height;
}

// kRef and kDist keep and read each pixel's filtered reference mean and variance in
// mean_x/sig_x_kept (width * height each, row-major); kPair uses the row scratch sx.
// Whether the horizontal pass of filter width N leaves its rows in horizontal_stats_row_madd's
// order (even columns of each block of 32 first).
template <int N>
#if defined(__AVX512BW__)
constexpr bool kMaddOrder =
    N != 3; // scale 3's centre tap (43728) does not fit a signed 16-bit madd
#else
constexpr bool kMaddOrder = false;
#endif

// With `map` (kPair only), each pixel's terms are stored in it too (sized by the caller): a run-time
// choice per row, so that the plain pass stays one instance whose inlining is what it was.
template <int N, typename In, Pass P = Pass::kPair>
void stats_scale(const Plane& X, const Plane& Y, int scale, int bpc, double gain_limit,
                 const uint32_t* table, const VerticalRow& rows, int32_t* sx, int32_t* sy,
                 int32_t* sxy, ScaleRaw& acc, uint32_t* mean_x = nullptr,
                 int32_t* sig_x_kept = nullptr, ScaleMap* map = nullptr) {
    constexpr int r = N / 2;
    const uint16_t* c = int_filter(scale);
    const int ms = vertical_mean_shift(scale, bpc), qs = vertical_sq_shift(scale, bpc);
    const int w = X.width;
    const bool narrow = sizeof(In) == 1 && scale == 0; // all sums fit 32 bits (algorithm.md §6.2)
    for (int i = 0; i < X.height; ++i) {
        uint32_t* mx_row = nullptr;
        if constexpr (P != Pass::kPair) {
            mx_row = mean_x + static_cast<ptrdiff_t>(i) * w;
            sx = sig_x_kept + static_cast<ptrdiff_t>(i) * w;
        }
#if defined(__AVX512BW__)
        if constexpr (N == 17 && sizeof(In) == 1) {
            vertical_stats_row_u8<P>(X, Y, i, c, rows, r);
        } else
#endif
            if (narrow)
            vertical_stats_row<N, In, uint32_t, P>(X, Y, i, c, ms, qs, rows, r);
#if defined(__AVX512BW__)
        else if constexpr (sizeof(In) == 2)
            vertical_stats_row_u16<N, P>(X, Y, i, c, ms, qs, rows, r);
#endif
        else
            vertical_stats_row<N, In, uint64_t, P>(X, Y, i, c, ms, qs, rows, r);
        if constexpr (P != Pass::kDist)
            for (uint16_t* row : {rows.mu_x, rows.xx_lo, rows.xx_hi}) pad_row(row, w, r);
        if constexpr (P != Pass::kRef)
            for (uint16_t* row : {rows.mu_y, rows.yy_lo, rows.yy_hi, rows.xy_lo, rows.xy_hi})
                pad_row(row, w, r);
#if defined(__AVX512BW__)
        if constexpr (N != 3) // scale 3's centre tap (43728) does not fit a signed 16-bit madd
            horizontal_stats_row_madd<N, P>(w, c, rows, sx, sy, sxy, mx_row);
        else
#endif
            horizontal_stats_row<N, P>(w, c, rows, sx, sy, sxy, mx_row);
        if (P == Pass::kPair && map) {
            const size_t at = static_cast<size_t>(i) * w;
            accumulate_row_maps<kMaddOrder<N>>(w, sx, sy, sxy, table, gain_limit, acc,
                                               MapRow{map->nl.data() + at, map->dl.data() + at,
                                                      map->nn.data() + at, map->dn.data() + at});
        } else {
            accumulate_row<P>(w, sx, sy, sxy, table, gain_limit, acc);
        }
    }
}

template <Pass P>
void IntegerVif::statistics(const Plane& X, const Plane& Y, int s, ScaleRaw& out, ScaleMap* map) {
    const uint32_t* table = log_table_.data();
    const VerticalRow rows{v_[0].data(), v_[1].data(), v_[2].data(), v_[3].data(),
                           v_[4].data(), v_[5].data(), v_[6].data(), v_[7].data()};
    int32_t *sx = sig_x_.data(), *sy = sig_y_.data(), *sxy = sig_xy_.data();
    uint32_t* mean = P == Pass::kPair ? nullptr : kept_mean_.data() + kept_offset_[s];
    int32_t* sig = P == Pass::kPair ? nullptr : kept_sig_.data() + kept_offset_[s];
    const int bpc = bitdepth_;
    const double gl = gain_limit_;
    switch (s) {
    case 0:
        if (bpc == 8)
            stats_scale<17, uint8_t, P>(X, Y, 0, bpc, gl, table, rows, sx, sy, sxy, out, mean, sig,
                                        map);
        else
            stats_scale<17, uint16_t, P>(X, Y, 0, bpc, gl, table, rows, sx, sy, sxy, out, mean, sig,
                                         map);
        break;
    case 1:
        stats_scale<9, uint16_t, P>(X, Y, 1, bpc, gl, table, rows, sx, sy, sxy, out, mean, sig,
                                    map);
        break;
    case 2:
        stats_scale<5, uint16_t, P>(X, Y, 2, bpc, gl, table, rows, sx, sy, sxy, out, mean, sig,
                                    map);
        break;
    default:
        stats_scale<3, uint16_t, P>(X, Y, 3, bpc, gl, table, rows, sx, sy, sxy, out, mean, sig,
                                    map);
        break;
    }
}

// Next scale's image of one plane, from this scale's (docs/algorithm.md §4.4: strictly chained).
void IntegerVif::downsample_plane(const Plane& src, int s, uint16_t* dst) {
    uint16_t* row = d_row_.data();
    switch (s) {
    case 0:
        if (bitdepth_ == 8)
            downsample<9, uint8_t>(src, 0, bitdepth_, row, dst);
        else
            downsample<9, uint16_t>(src, 0, bitdepth_, row, dst);
        break;
    case 1:
        downsample<5, uint16_t>(src, 1, bitdepth_, row, dst);
        break;
    default:
        downsample<3, uint16_t>(src, 2, bitdepth_, row, dst);
        break;
    }
}

inline Plane half_plane(const Plane& p, uint16_t* data) {
    const int w2 = p.width / 2, h2 = p.height / 2;
    return Plane{data, static_cast<ptrdiff_t>(w2) * 2, w2, h2};
}

void IntegerVif::reference_pyramid(const Plane& ref, Plane X[kNumScales]) {
    X[0] = ref;
    for (int s = 0; s + 1 < kNumScales; ++s) {
        downsample_plane(X[s], s, ref_down_[s].data());
        X[s + 1] = half_plane(X[s], ref_down_[s].data());
    }
}

void IntegerVif::reference_statistics(const Plane X[kNumScales], ScaleRaw den[kNumScales]) {
    if (kept_mean_.empty()) {
        kept_mean_.resize(max_pixels_ * 4 / 3 + 4 * kNumScales);
        kept_sig_.resize(kept_mean_.size());
    }
    size_t offset = 0;
    for (int s = 0; s < kNumScales; ++s) {
        kept_offset_[s] = offset;
        offset += static_cast<size_t>(X[s].width) * X[s].height;
        den[s] = ScaleRaw{};
        statistics<Pass::kRef>(X[s], X[s], s, den[s]);
    }
}

// den: the reference's denominators (ladders: kDist adds the numerators to them); nullptr for
// a single pair, scored whole (kPair).
void IntegerVif::score_against(const Plane X[kNumScales], const Plane& dist, ScaleRaw out[4],
                               const ScaleRaw* den) {
    Plane Y = dist;
    for (int s = 0; s < kNumScales; ++s) {
        out[s] = ScaleRaw{};
        if (den) {
            statistics<Pass::kDist>(X[s], Y, s, out[s]);
            out[s].dl = den[s].dl;
            out[s].dn = den[s].dn;
        } else {
            statistics<Pass::kPair>(X[s], Y, s, out[s]);
        }
        if (s == kNumScales - 1) break;
        uint16_t* next = dist_down_[s & 1].data();
        downsample_plane(Y, s, next);
        Y = half_plane(Y, next);
    }
}

void IntegerVif::compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]) {
    compute_multi(ref, &dist, 1, reinterpret_cast<ScaleRaw(*)[4]>(out));
}

void IntegerVif::compute_multi(const Plane& ref, const Plane* dists, size_t count,
                               ScaleRaw (*out)[4]) {
    Plane X[kNumScales];
    reference_pyramid(ref, X);
    if (count == 1) { // nothing to share: the fused pass is cheaper
        score_against(X, dists[0], out[0], nullptr);
        return;
    }
    ScaleRaw den[kNumScales];
    reference_statistics(X, den);
    for (size_t k = 0; k < count; ++k) score_against(X, dists[k], out[k], den);
}

// The fused pass of score_against with each pixel's terms stored (docs/algorithm.md §12.1): the
// same integer operations, so the totals are compute()'s bits.
bool IntegerVif::compute_maps(const Plane& ref, const Plane& dist, ScaleRaw out[4],
                              FrameMaps& maps) {
    Plane X[kNumScales];
    reference_pyramid(ref, X);
    Plane Y = dist;
    for (int s = 0; s < kNumScales; ++s) {
        ScaleMap& m = maps.scale[s];
        m.width = Y.width;
        m.height = Y.height;
        // Every pixel is written: a reused map keeps its storage and is not cleared first.
        for (auto* v : {&m.nl, &m.dl, &m.nn, &m.dn}) v->resize(m.pixels());
        m.num.clear();
        m.den.clear();
        out[s] = ScaleRaw{};
        statistics<Pass::kPair>(X[s], Y, s, out[s], &m);
        if (s == kNumScales - 1) break;
        uint16_t* next = dist_down_[s & 1].data();
        downsample_plane(Y, s, next);
        Y = half_plane(Y, next);
    }
    return true;
}

} // namespace

std::unique_ptr<FrameScorer> make_integer(int max_w, int max_h, int bpc, double gain) {
    return std::make_unique<IntegerVif>(max_w, max_h, bpc, gain);
}

} // namespace vif::cpu_fast::VIF_ISA_NS
