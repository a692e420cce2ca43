// Byte planes for the integer tensor-core vertical pass (int_tensor_passes.cuh), host and device.
//
// mma.sync.m16n8k32 u8 x u8 -> s32 multiplies a 16x32 matrix A by a 32x8 matrix B. The vertical
// pass of 8-bit scale 0 is such a product: A is the banded (Toeplitz) matrix of the 17 taps
// (A[m][k] = c[k - m]: output row m of the 16-row tile from input rows m .. m + 16 of the 32-row
// tile + halo), B holds 8 columns of samples (or of their products). Taps (< 2^13) and products
// (< 2^16) do not fit a byte, so each is split into a low and a high byte plane, every plane pair
// is one mma, and the partial sums are put back together with shifts: exact, because no partial
// sum overflows and the recombined value is below 2^32 (docs/cuda.md, "Integer tensor cores").
//
// Everything here is plain integer arithmetic shared with the host test that emulates the mma
// (tests/unit/int_mma_planes_test.cpp), so the band construction, the fragment layouts and the
// recombination are checked without a GPU; the parity gate checks the hardware.
#pragma once

#include <cstdint>

#include "core/vif_constants.hpp"

namespace vif::cuda::mma {

// Fragment coordinates of mma.m16n8k32 with 8-bit A/B and 32-bit C (PTX ISA, "Matrix Fragments
// for mma.m16n8k32"): lane = 4 * group + t. A: 4 registers of 4 bytes, register j byte e;
// B: 2 registers of 4 bytes; C: 4 values.
constexpr int a_row(int lane, int j) {
    return (lane >> 2) + ((j & 1) ? 8 : 0);
}
constexpr int a_col(int lane, int j, int e) {
    return (lane & 3) * 4 + e + ((j & 2) ? 16 : 0);
}
constexpr int b_row(int lane, int j, int e) {
    return (lane & 3) * 4 + e + (j ? 16 : 0);
}
constexpr int b_col(int lane) {
    return lane >> 2;
}
constexpr int c_row(int lane, int i) {
    return (lane >> 2) + (i >= 2 ? 8 : 0);
}
constexpr int c_col(int lane, int i) {
    return (lane & 3) * 2 + (i & 1);
}

// The order of the 32 input rows along k. Any order works if A and B agree; this one matches
// ldmatrix.x4.trans over the four 8-row blocks of the window (int_tensor_passes.cuh): lane 4g + t
// receives rows 8j + 2t and 8j + 2t + 1 of column g from block j, and B register 0 holds
// k = 4t .. 4t + 3 := rows 2t, 2t + 1, 8 + 2t, 9 + 2t (register 1: 16 rows further).
constexpr int k_to_row(int k) {
    return (k & 16) + ((k & 2) ? 8 : 0) + 2 * ((k >> 2) & 3) + (k & 1);
}

// The tile row of output row m of the statistics products (A's rows may come in any order).
// Lane 4g + t holds rows m = g and g + 8, columns 2t and 2t + 1; with this order the 16 lanes of
// a half-warp store their doubles (row stride SD = 1 mod 16 doubles) to 16 different bank pairs:
// tile rows {0, 1, 8, 9} (+2 for g = 4..7) plus 2t cover every residue mod 16 once.
constexpr int m_to_row(int m) {
    return ((m & 2) << 2) | ((m & 8) >> 1) | ((m & 4) >> 1) | (m & 1);
}

constexpr bool second_row_is_four_below() {
    for (int m = 0; m < 8; ++m)
        if (m_to_row(m + 8) != m_to_row(m) + 4) return false;
    return true;
}
static_assert(second_row_is_four_below(), "int_tensor_passes.cuh stores rows r and r + 4");

// The order for tiles whose moments row stride SD is 4 mod 16 doubles (the FP64 tensor-core
// horizontal pass reads conflict-free with it): each lane stores its two columns as one 16-byte
// store, and the 8 lanes of a quarter-warp (g = 2k, 2k + 1) land on 8 different 16-byte bank
// groups when their rows differ by 2 mod 4. Rows g and g + 8: tile rows r and r + 8.
constexpr int m_to_row_wide(int m) {
    return (m & 12) | ((m & 1) << 1) | ((m & 2) >> 1);
}

// The A operands of the 8-bit scale-0 pass, per lane: [matrix][register][lane].
//   kMeanLo/kMeanHi: low and high byte of the statistics taps c0 (17 taps): output row m is tile
//                    row m_to_row(m), from input rows m_to_row(m) .. m_to_row(m) + 16;
//   kDown: rows 0-7 the low byte, rows 8-15 the high byte of the downsampling taps c1 (9 taps)
//          for the even output rows 2m, input rows 2m + 4 .. 2m + 12 (r0 - r1 = 8 - 4), so that
//          one mma gives both planes of the 8 decimated rows.
//   kMeanLoWide/kMeanHiWide: the same taps, output rows in the order m_to_row_wide.
enum AMatrix { kMeanLo = 0, kMeanHi = 1, kDown = 2, kMeanLoWide = 3, kMeanHiWide = 4, kNumA = 5 };

struct AFragments {
    uint32_t v[kNumA][4][32];
};

// Row `row`, column `col` (k) of A; column k multiplies input row k_to_row(k).
constexpr uint32_t a_element(int matrix, int row, int col) {
    const int in = k_to_row(col);
    if (matrix == kDown) {
        const int m = row & 7, k = in - (2 * m + 4);
        if (k < 0 || k > 8) return 0;
        const uint32_t tap = kIntFilter1[k];
        return row < 8 ? tap & 0xFFu : tap >> 8;
    }
    const bool wide = matrix == kMeanLoWide || matrix == kMeanHiWide;
    const int k = in - (wide ? m_to_row_wide(row) : m_to_row(row));
    if (k < 0 || k > 16) return 0;
    const uint32_t tap = kIntFilter0[k];
    return matrix == kMeanLo || matrix == kMeanLoWide ? tap & 0xFFu : tap >> 8;
}

constexpr AFragments make_a_fragments() {
    AFragments f{};
    for (int m = 0; m < kNumA; ++m)
        for (int j = 0; j < 4; ++j)
            for (int lane = 0; lane < 32; ++lane) {
                uint32_t w = 0;
                for (int e = 0; e < 4; ++e)
                    w |= a_element(m, a_row(lane, j), a_col(lane, j, e)) << (8 * e);
                f.v[m][j][lane] = w;
            }
    return f;
}

// Every tap's high byte must fit the plane; the taps must be what the bounds in docs/cuda.md
// assume.
constexpr bool taps_fit_two_bytes() {
    for (int k = 0; k < 17; ++k)
        if (kIntFilter0[k] >= (1u << 13)) return false;
    for (int k = 0; k < 9; ++k)
        if (kIntFilter1[k] >= (1u << 16)) return false;
    return true;
}
static_assert(taps_fit_two_bytes(), "the byte-plane bounds of docs/cuda.md assume c0 < 2^13");

// Four bytes (low byte of each value) into one register, b0 in the lowest byte.
VIF_HD uint32_t pack4(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3) {
    return (b0 & 0xFFu) | (b1 & 0xFFu) << 8 | (b2 & 0xFFu) << 16 | (b3 & 0xFFu) << 24;
}

// Recombination of the partial sums (the device chains the two middle products through the
// accumulator: mid = P(lo, hi) + P(hi, lo) in one s32, < 2^22). The true sums are below 2^32, so unsigned (mod 2^32)
// arithmetic on the partials (each < 2^23) gives them exactly.
//   means:   sum = P(lo taps, x) + 2^8 P(hi taps, x)
//   moments: sum = P(lo, lo) + 2^8 (P(lo, hi) + P(hi, lo)) + 2^16 P(hi, hi)   (taps, products)
VIF_HD uint32_t combine2(int32_t lo, int32_t hi) {
    return static_cast<uint32_t>(lo) + (static_cast<uint32_t>(hi) << 8);
}
VIF_HD uint32_t combine3(int32_t ll, int32_t mid, int32_t hh) {
    return static_cast<uint32_t>(ll) + (static_cast<uint32_t>(mid) << 8) +
           (static_cast<uint32_t>(hh) << 16);
}

// ---- FP64 tensor cores (mma.sync.m8n8k4 f64) for the horizontal pass ----------------------
// One warp: 8 rows x 8 output columns of a tile, E (8 x 8) = V (8 x 24 columns of tile + halo)
// * T (24 x 8 band of the 17 taps, T[k][n] = c[k - n]), six k-steps of 4. Every value is an
// integer: V < 2^32, products < 2^45, sums < 2^49, all exact in FP64 whatever the order.
// Fragments (PTX ISA, m8n8k4 .f64): A one value (row g, column t), B one value (row t, column g),
// C/D two values (row g, columns 2t, 2t + 1), for lane 4g + t.
constexpr int kDmmaSteps = 6; // 24 input columns
struct DmmaTaps {
    double v[kDmmaSteps][32]; // B of k-step s, per lane
};
constexpr DmmaTaps make_dmma_taps() {
    DmmaTaps f{};
    for (int s = 0; s < kDmmaSteps; ++s)
        for (int lane = 0; lane < 32; ++lane) {
            const int k = 4 * s + (lane & 3) - (lane >> 2);
            f.v[s][lane] = k >= 0 && k <= 16 ? static_cast<double>(kIntFilter0[k]) : 0.0;
        }
    return f;
}

} // namespace vif::cuda::mma
