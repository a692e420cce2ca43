// Step 2 of int_scale_tile (int_kernels.cuh) on the integer tensor cores, for 8-bit scale 0:
// the vertical passes as banded matrix products, mma.sync.m16n8k32 u8 x u8 -> s32.
//
// The tile is 16 rows high, so its 32 input rows (16 + 2 * 8 halo) are exactly one k-step:
// D (16 rows x 8 columns) = A (16 x 32 band of taps) * B (32 rows x 8 columns of samples). One
// warp owns 8 columns of the tile + halo and issues, per column block, 18 mma:
//   means of x and y:        2 x 2 (low and high byte of the taps)
//   second moments xx, yy, xy: 3 x 4 (tap bytes x product bytes; products are < 2^16)
//   downsampling (rows 2m):  2 x 1 (both tap bytes in one A: rows 0-7 low, 8-15 high)
// and writes exactly what the CUDA-core pass writes (int_kernels.cuh step 2): means as u16 after
// rs(., 8), second moments as exact integers in doubles (V_q = 0 at 8 bits), decimated rows as
// u16 after rs(., 8). The byte planes and their recombination: int_mma_planes.hpp; the proof that
// nothing overflows: docs/cuda.md, "Integer tensor cores".
#pragma once

#include <cstdint>

#include "kernels/int_mma_planes.hpp"

namespace vif::cuda {

// The per-lane A operands (constant): read once per block through the read-only path (lanes
// read different words, which the constant bank would serialise).
static __device__ const mma::AFragments g_int_mma_a = mma::make_a_fragments();

// D = A * B + C with 8-bit unsigned A, B and 32-bit C, D.
__device__ __forceinline__ void mma_u8_16x8x32(const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
                                               const int32_t (&c)[4], int32_t (&d)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
#else
    __trap(); // the table offers these variants only for sm_80 and newer
#endif
}

// The two C fragments shared by the vertical passes below (A: the low and high byte planes of
// the taps; B: one 16x8 block of samples or of a product's byte plane).
// Means: rs(sum, 8) of the samples (V_m = 8), the rounding constant in C; each value < 2^16.
__device__ __forceinline__ void mma_mean_block(const uint32_t (&a_lo)[4], const uint32_t (&a_hi)[4],
                                               uint32_t b0, uint32_t b1, uint32_t (&m)[4]) {
    const int32_t zero[4] = {0, 0, 0, 0};
    const int32_t half[4] = {128, 128, 128, 128}; // rounding constant of rs(., 8)
    int32_t lo[4], hi[4];
    mma_u8_16x8x32(a_lo, b0, b1, half, lo);
    mma_u8_16x8x32(a_hi, b0, b1, zero, hi);
#pragma unroll
    for (int i = 0; i < 4; ++i) m[i] = mma::combine2(lo[i], hi[i]) >> 8;
}
// Second moments: the exact sums (< 2^32; no shift at 8 bits, V_q = 0) of a product whose low
// and high bytes are the planes (pl0, pl1) and (ph0, ph1), as doubles.
__device__ __forceinline__ void mma_moment_block(const uint32_t (&a_lo)[4],
                                                 const uint32_t (&a_hi)[4], uint32_t pl0,
                                                 uint32_t pl1, uint32_t ph0, uint32_t ph1,
                                                 double (&v)[4]) {
    const int32_t zero[4] = {0, 0, 0, 0};
    int32_t ll[4], lh[4], mid[4], hh[4];
    mma_u8_16x8x32(a_lo, pl0, pl1, zero, ll);
    mma_u8_16x8x32(a_lo, ph0, ph1, zero, lh);
    mma_u8_16x8x32(a_hi, pl0, pl1, lh, mid);
    mma_u8_16x8x32(a_hi, ph0, ph1, zero, hh);
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = static_cast<double>(mma::combine3(ll[i], mid[i], hh[i]));
}

// Four 8x8 blocks of 16-bit values, transposed: lane 4g + t gets, from block j (rows given by
// lanes 8j .. 8j + 7), the values of rows 2t and 2t + 1 of column g (low half: row 2t).
__device__ __forceinline__ void ldmatrix_x4_trans(const uint16_t* row_addr, uint32_t (&r)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row_addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
#else
    __trap();
#endif
}

// IW: columns of tile + halo (a multiple of 8); s_in: u16 [2][32][SI] (SI / 8 odd: the 8 rows of
// an ldmatrix block start in different banks); s_mu: u16 [2][16][SM]; s_mom: double [3][16][SD];
// s_dn: u16 [2][DH][DW], column dc = column of s_in - 4. kWide: SD = 4 mod 16 (the FP64
// horizontal pass's layout), rows in the order mma::m_to_row_wide, 16-byte stores of the moments.
template <int IW, int SI, int SM, int SD, int DW, int DH, int NT, bool kDown, bool kWide>
__device__ __forceinline__ void int_vertical_mma_8b(const uint16_t* s_in, uint16_t* s_mu,
                                                    double* s_mom, uint16_t* s_dn) {
    constexpr int IH = 32, TH = 16;
    static_assert(IW % 8 == 0 && SI >= IW && SI % 16 == 8, "8-column blocks, padded rows");
    static_assert(SM % 2 == 0 && DW % 2 == 0, "u16 pairs stored as one word");
    static_assert(!kWide || SD % 16 == 4, "16-byte aligned, conflict-free moment stores");
    constexpr int kLo = kWide ? mma::kMeanLoWide : mma::kMeanLo;
    constexpr int kHi = kWide ? mma::kMeanHiWide : mma::kMeanHi;
    constexpr int kSecond = kWide ? 8 : 4; // tile row of output row g + 8, less that of g
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    uint32_t a_lo[4], a_hi[4], a_dn[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        a_lo[j] = __ldg(&g_int_mma_a.v[kLo][j][lane]);
        a_hi[j] = __ldg(&g_int_mma_a.v[kHi][j][lane]);
        if constexpr (kDown) a_dn[j] = __ldg(&g_int_mma_a.v[mma::kDown][j][lane]);
    }
    const int32_t zero[4] = {0, 0, 0, 0};
    for (int cb = warp; cb < IW / 8; cb += NT / 32) {
        // Lane L gives the address of input row L (block L / 8); xr[j] = rows 8j + 2t, 8j + 2t + 1.
        uint32_t xr[4], yr[4];
        ldmatrix_x4_trans(s_in + lane * SI + cb * 8, xr);
        ldmatrix_x4_trans(s_in + IH * SI + lane * SI + cb * 8, yr);
        // B registers in the k order of mma::k_to_row: bytes 0 and 2 of two row pairs.
        const uint32_t bx[2] = {__byte_perm(xr[0], xr[1], 0x6420),
                                __byte_perm(xr[2], xr[3], 0x6420)};
        const uint32_t by[2] = {__byte_perm(yr[0], yr[1], 0x6420),
                                __byte_perm(yr[2], yr[3], 0x6420)};
        // Products of a row pair w = a | b << 16 (a, b < 2^8): w * a = a^2 | (a b) << 16 and
        // w * b = a b | b^2 << 16, no carries since every product is < 2^16; so one byte_perm
        // of the two gives a^2 | b^2 << 16 (and w_x * y_a, w_x * y_b give x_a y_a | x_b y_b << 16).
        uint32_t pl[3][2], ph[3][2];
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            uint32_t p[3][2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const uint32_t wx = xr[2 * j + h], wy = yr[2 * j + h];
                const uint32_t xa = wx & 0xFFFFu, xb = wx >> 16, ya = wy & 0xFFFFu, yb = wy >> 16;
                p[0][h] = __byte_perm(wx * xa, wx * xb, 0x7610);
                p[1][h] = __byte_perm(wy * ya, wy * yb, 0x7610);
                p[2][h] = __byte_perm(wx * ya, wx * yb, 0x7610);
            }
#pragma unroll
            for (int q = 0; q < 3; ++q) {
                pl[q][j] = __byte_perm(p[q][0], p[q][1], 0x6420);
                ph[q][j] = __byte_perm(p[q][0], p[q][1], 0x7531);
            }
        }
        // C fragment: output rows g and g + 8 (tile rows r0 and r0 + kSecond), columns oc and
        // oc + 1.
        const int oc = cb * 8 + 2 * t;
        const int r0 = kWide ? mma::m_to_row_wide(g) : mma::m_to_row(g);
        // Means: rs(sum, 8) (V_m = 8), two u16 per store.
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const uint32_t* b = q == 0 ? bx : by;
            uint32_t m[4];
            mma_mean_block(a_lo, a_hi, b[0], b[1], m);
            uint16_t* base = s_mu + q * TH * SM + oc;
            *reinterpret_cast<uint32_t*>(base + r0 * SM) = m[0] | m[1] << 16;
            *reinterpret_cast<uint32_t*>(base + (r0 + kSecond) * SM) = m[2] | m[3] << 16;
        }
        // Second moments: exact sums (< 2^32), no shift at 8 bits (V_q = 0).
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            double v[4];
            mma_moment_block(a_lo, a_hi, pl[q][0], pl[q][1], ph[q][0], ph[q][1], v);
            double* dst = s_mom + (q * TH + r0) * SD + oc;
            if constexpr (kWide) {
                *reinterpret_cast<double2*>(dst) = make_double2(v[0], v[1]);
                *reinterpret_cast<double2*>(dst + kSecond * SD) = make_double2(v[2], v[3]);
            } else {
                dst[0] = v[0];
                dst[1] = v[1];
                dst[kSecond * SD] = v[2];
                dst[kSecond * SD + 1] = v[3];
            }
        }
        // Downsampling filter on the even rows 2g: low plane in rows 0-7, high in 8-15. The mma
        // runs on the whole warp (.aligned); only the stores depend on the column.
        if constexpr (kDown) {
            const int dc = oc - 4; // (r0 - r1) columns of halo fewer
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const uint32_t* b = q == 0 ? bx : by;
                int32_t d[4];
                mma_u8_16x8x32(a_dn, b[0], b[1], zero, d);
                const uint32_t d0 = (mma::combine2(d[0], d[2]) + 128u) >> 8;
                const uint32_t d1 = (mma::combine2(d[1], d[3]) + 128u) >> 8;
                if (dc >= 0 && dc < DW)
                    *reinterpret_cast<uint32_t*>(s_dn + q * DH * DW + g * DW + dc) = d0 | d1 << 16;
            }
        }
    }
}

// The ladder's share of int_vertical_mma_8b (int_multi_kernels.cuh: the reference's passes once,
// then each rung's against the reference kept in s_in[0]), same layouts, same values:
//   kRung false, the reference: mean of x -> s_mu[0], x*x -> s_mom[0], decimated rows -> s_dn[0]
//                               (7 mma per column block);
//   kRung true, a rung:         mean of y -> s_mu[1], y*y -> s_mom[1], x*y -> s_mom[2],
//                               decimated rows -> s_dn[1] (11 mma per column block).
// Moments in the row order mma::m_to_row (SD = 1 mod 16; no FP64 horizontal pass here).
template <int IW, int SI, int SM, int SD, int DW, int DH, int NT, bool kDown, bool kRung>
__device__ __forceinline__ void int_vertical_mma_8b_one(const uint16_t* s_in, uint16_t* s_mu,
                                                        double* s_mom, uint16_t* s_dn) {
    constexpr int IH = 32, TH = 16;
    static_assert(IW % 8 == 0 && SI >= IW && SI % 16 == 8, "8-column blocks, padded rows");
    static_assert(SM % 2 == 0 && DW % 2 == 0, "u16 pairs stored as one word");
    constexpr int kPic = kRung ? 1 : 0; // the picture whose mean, square and rows are made
    constexpr int kMoments = kRung ? 2 : 1;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    uint32_t a_lo[4], a_hi[4], a_dn[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        a_lo[j] = __ldg(&g_int_mma_a.v[mma::kMeanLo][j][lane]);
        a_hi[j] = __ldg(&g_int_mma_a.v[mma::kMeanHi][j][lane]);
        if constexpr (kDown) a_dn[j] = __ldg(&g_int_mma_a.v[mma::kDown][j][lane]);
    }
    const int32_t zero[4] = {0, 0, 0, 0};
    for (int cb = warp; cb < IW / 8; cb += NT / 32) {
        uint32_t xr[4], vr[4];
        ldmatrix_x4_trans(s_in + lane * SI + cb * 8, xr);
        if constexpr (kRung) {
            ldmatrix_x4_trans(s_in + IH * SI + lane * SI + cb * 8, vr);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) vr[j] = xr[j];
        }
        const uint32_t bv[2] = {__byte_perm(vr[0], vr[1], 0x6420),
                                __byte_perm(vr[2], vr[3], 0x6420)};
        // Products of the row pairs as in int_vertical_mma_8b: q = 0 the square of v, q = 1
        // (rungs) x*y.
        uint32_t pl[kMoments][2], ph[kMoments][2];
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            uint32_t p[kMoments][2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const uint32_t wv = vr[2 * j + h], va = wv & 0xFFFFu, vb = wv >> 16;
                p[0][h] = __byte_perm(wv * va, wv * vb, 0x7610);
                if constexpr (kRung) {
                    const uint32_t wx = xr[2 * j + h];
                    p[kMoments - 1][h] = __byte_perm(wx * va, wx * vb, 0x7610);
                }
            }
#pragma unroll
            for (int q = 0; q < kMoments; ++q) {
                pl[q][j] = __byte_perm(p[q][0], p[q][1], 0x6420);
                ph[q][j] = __byte_perm(p[q][0], p[q][1], 0x7531);
            }
        }
        const int oc = cb * 8 + 2 * t;
        const int r0 = mma::m_to_row(g); // second output row: r0 + 4
        {
            uint32_t m[4];
            mma_mean_block(a_lo, a_hi, bv[0], bv[1], m);
            uint16_t* base = s_mu + kPic * TH * SM + oc;
            *reinterpret_cast<uint32_t*>(base + r0 * SM) = m[0] | m[1] << 16;
            *reinterpret_cast<uint32_t*>(base + (r0 + 4) * SM) = m[2] | m[3] << 16;
        }
#pragma unroll
        for (int q = 0; q < kMoments; ++q) {
            double v[4];
            mma_moment_block(a_lo, a_hi, pl[q][0], pl[q][1], ph[q][0], ph[q][1], v);
            double* dst = s_mom + ((q == 0 ? kPic : 2) * TH + r0) * SD + oc;
            dst[0] = v[0];
            dst[1] = v[1];
            dst[4 * SD] = v[2];
            dst[4 * SD + 1] = v[3];
        }
        if constexpr (kDown) {
            const int dc = oc - 4;
            int32_t d[4];
            mma_u8_16x8x32(a_dn, bv[0], bv[1], zero, d);
            const uint32_t d0 = (mma::combine2(d[0], d[2]) + 128u) >> 8;
            const uint32_t d1 = (mma::combine2(d[1], d[3]) + 128u) >> 8;
            if (dc >= 0 && dc < DW)
                *reinterpret_cast<uint32_t*>(s_dn + kPic * DH * DW + g * DW + dc) = d0 | d1 << 16;
        }
    }
}

// ---- Step 3 on the FP64 tensor cores (8-bit scale 0) ---------------------------------------
static __device__ const mma::DmmaTaps g_int_dmma_taps = mma::make_dmma_taps();

// C += A * B, m8n8k4 in FP64 (exact here: every value is an integer below 2^53).
__device__ __forceinline__ void dmma_8x8x4(double a, double b, double (&c)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a), "d"(b));
#else
    __trap();
#endif
}

// Horizontal passes of the statistics filter (int_kernels.cuh step 3) as banded matrix products:
// one warp per 8 x 8 block of output pixels, means (from u16) and second moments (from the exact
// doubles) alike, 6 k-steps each. Then f(row, col, mu, e) for the lane's two pixels (tile row
// `row`, tile columns col and col + 1): mu[q][i] the horizontal mean sums (no shift, §6.3),
// e[q][i] = rs(moment sum, 16), exactly what the CUDA-core pass computes.
template <int TW, int TH, int SM, int SD, int NT, class F>
__device__ __forceinline__ void int_horizontal_dmma(const uint16_t* s_mu, const double* s_mom,
                                                    F&& f) {
    static_assert(TW % 8 == 0 && TH % 8 == 0, "8 x 8 output blocks");
    static_assert(SD % 16 == 4, "A loads: lanes 4g + t hit 16 different bank pairs per half-warp");
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    double b[mma::kDmmaSteps];
#pragma unroll
    for (int s = 0; s < mma::kDmmaSteps; ++s) b[s] = __ldg(&g_int_dmma_taps.v[s][lane]);
    constexpr int kCB = TW / 8, kTasks = kCB * (TH / 8);
    for (int task = warp; task < kTasks; task += NT / 32) {
        const int rb = task / kCB, cb = task - rb * kCB;
        const int row = rb * 8 + g, c0 = cb * 8 + t; // A: row g, column 4s + t of the block
        uint32_t mu[2][2], e[3][2];
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            double d[2] = {0.0, 0.0};
            const uint16_t* src = s_mu + (q * TH + row) * SM + c0;
#pragma unroll
            for (int s = 0; s < mma::kDmmaSteps; ++s)
                dmma_8x8x4(static_cast<double>(src[4 * s]), b[s], d);
#pragma unroll
            for (int i = 0; i < 2; ++i) mu[q][i] = __double2uint_rn(d[i]); // exact, < 2^32
        }
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            // rs(sum, 16) as in int_kernels.cuh: start at 2^15, then one rounding-down
            // multiply-add onto 2^52 leaves the floor in the low word.
            double d[2] = {32768.0, 32768.0};
            const double* src = s_mom + (q * TH + row) * SD + c0;
#pragma unroll
            for (int s = 0; s < mma::kDmmaSteps; ++s) dmma_8x8x4(src[4 * s], b[s], d);
#pragma unroll
            for (int i = 0; i < 2; ++i)
                e[q][i] = static_cast<uint32_t>(
                    __double2loint(__fma_rd(d[i], 1.0 / 65536.0, 4503599627370496.0)));
        }
        f(row, cb * 8 + 2 * t, mu, e);
    }
}

} // namespace vif::cuda
