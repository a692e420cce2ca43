// The byte-plane arithmetic of the integer tensor-core vertical pass (cuda/kernels/int_mma_planes.hpp)
// without a GPU: the mma.m16n8k32 u8 x u8 -> s32 product is emulated from the per-lane fragments
// (the layout functions of the header), and the recombined sums are compared with the vertical
// sums of docs/algorithm.md §6.2 computed directly from the taps (8-bit scale 0: means and
// second moments of one 16-row tile, and the downsampling filter on its even rows).
// The hardware's own fragment layout is checked by the parity gate (tests/parity).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "kernels/int_mma_planes.hpp"
#include "core/vif_constants.hpp"

namespace {

namespace m = vif::cuda::mma;

// Every (row, column) of A, B and C belongs to exactly one (lane, register, byte).
TEST(IntMmaPlanes, FragmentLayoutsCoverEachElementOnce) {
    int a[16][32] = {}, b[32][8] = {}, c[16][8] = {};
    for (int lane = 0; lane < 32; ++lane) {
        for (int j = 0; j < 4; ++j)
            for (int e = 0; e < 4; ++e) ++a[m::a_row(lane, j)][m::a_col(lane, j, e)];
        for (int j = 0; j < 2; ++j)
            for (int e = 0; e < 4; ++e) ++b[m::b_row(lane, j, e)][m::b_col(lane)];
        for (int i = 0; i < 4; ++i) ++c[m::c_row(lane, i)][m::c_col(lane, i)];
    }
    for (auto& r : a)
        for (int v : r) EXPECT_EQ(v, 1);
    for (auto& r : b)
        for (int v : r) EXPECT_EQ(v, 1);
    for (auto& r : c)
        for (int v : r) EXPECT_EQ(v, 1);
    int rows[32] = {};
    for (int k = 0; k < 32; ++k) ++rows[m::k_to_row(k)];
    for (int v : rows) EXPECT_EQ(v, 1);
    int out[16] = {};
    for (int r = 0; r < 16; ++r) ++out[m::m_to_row(r)];
    for (int v : out) EXPECT_EQ(v, 1);
    int wide_rows[16] = {};
    for (int r = 0; r < 16; ++r) ++wide_rows[m::m_to_row_wide(r)];
    for (int v : wide_rows) EXPECT_EQ(v, 1);
    // The wide order: 16-byte stores, row stride 4 mod 16 doubles: a quarter-warp's 8 lanes hit
    // 8 different 16-byte bank groups.
    for (int quarter = 0; quarter < 4; ++quarter)
        for (int second = 0; second < 2; ++second) {
            int group[8] = {};
            for (int lane = 8 * quarter; lane < 8 * quarter + 8; ++lane) {
                const int row = m::m_to_row_wide(m::c_row(lane, 2 * second));
                ++group[(row * 4 + m::c_col(lane, 0)) / 2 % 8];
            }
            for (int v : group) EXPECT_EQ(v, 1);
        }
    // The double stores of a half-warp (row stride 1 mod 16 doubles) hit 16 different bank pairs.
    for (int half = 0; half < 2; ++half)
        for (int i = 0; i < 4; ++i) {
            int bank[16] = {};
            for (int lane = 16 * half; lane < 16 * half + 16; ++lane)
                ++bank[(m::m_to_row(m::c_row(lane, i)) + m::c_col(lane, i)) % 16];
            for (int v : bank) EXPECT_EQ(v, 1) << "half " << half << " value " << i;
        }
}

// D = A * B + C from the fragments, as the hardware defines it (s32 accumulation of u8
// products); C = 0 when c is null.
void emulate_mma(const uint32_t (&a)[4][32], const uint32_t (&bf)[2][32], int32_t (&d)[4][32],
                 const int32_t (*c)[4][32] = nullptr) {
    int64_t A[16][32], B[32][8];
    for (int lane = 0; lane < 32; ++lane) {
        for (int j = 0; j < 4; ++j)
            for (int e = 0; e < 4; ++e)
                A[m::a_row(lane, j)][m::a_col(lane, j, e)] = (a[j][lane] >> (8 * e)) & 0xFF;
        for (int j = 0; j < 2; ++j)
            for (int e = 0; e < 4; ++e)
                B[m::b_row(lane, j, e)][m::b_col(lane)] = (bf[j][lane] >> (8 * e)) & 0xFF;
    }
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            int64_t s = c ? (*c)[i][lane] : 0;
            for (int k = 0; k < 32; ++k) s += A[m::c_row(lane, i)][k] * B[k][m::c_col(lane, i)];
            ASSERT_LT(s, int64_t(1) << 23) << "a partial sum beyond the docs/cuda.md bound";
            d[i][lane] = static_cast<int32_t>(s);
        }
}

// B fragments of one plane of 32 rows x 8 columns of values v[row][col] (plane 0: low byte,
// 1: second byte); k runs over the rows in the order k_to_row.
void b_fragments(const uint32_t (&v)[32][8], int plane, uint32_t (&bf)[2][32]) {
    for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < 2; ++j) {
            uint32_t b[4];
            for (int e = 0; e < 4; ++e)
                b[e] = v[m::k_to_row(m::b_row(lane, j, e))][m::b_col(lane)] >> (8 * plane);
            bf[j][lane] = m::pack4(b[0], b[1], b[2], b[3]);
        }
}

void check_block(const uint8_t (&x)[32][8], const uint8_t (&y)[32][8], bool wide) {
    static constexpr m::AFragments af = m::make_a_fragments();
    const int lo_m = wide ? m::kMeanLoWide : m::kMeanLo, hi_m = wide ? m::kMeanHiWide : m::kMeanHi;
    auto tile_row = [wide](int r) { return wide ? m::m_to_row_wide(r) : m::m_to_row(r); };
    uint32_t xs[32][8], ps[3][32][8];
    for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 8; ++c) {
            xs[r][c] = x[r][c];
            ps[0][r][c] = uint32_t(x[r][c]) * x[r][c];
            ps[1][r][c] = uint32_t(y[r][c]) * y[r][c];
            ps[2][r][c] = uint32_t(x[r][c]) * y[r][c];
        }
    const uint16_t* c0 = vif::kIntFilter0;
    const uint16_t* c1 = vif::kIntFilter1;
    // Means of x: rs(sum, 8) (V_m = 8 at 8 bits).
    uint32_t bx[2][32];
    int32_t lo[4][32], hi[4][32], dn[4][32];
    b_fragments(xs, 0, bx);
    emulate_mma(af.v[lo_m], bx, lo);
    emulate_mma(af.v[hi_m], bx, hi);
    emulate_mma(af.v[m::kDown], bx, dn);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            const int row = tile_row(m::c_row(lane, i)), col = m::c_col(lane, i);
            uint32_t want = 0;
            for (int k = 0; k < 17; ++k) want += uint32_t(c0[k]) * x[row + k][col];
            EXPECT_EQ(m::combine2(lo[i][lane], hi[i][lane]), want) << row << "," << col;
            if (i < 2) { // decimated row 2 g: rows 2 g + 4 .. 2 g + 12 of the window
                const int g = m::c_row(lane, i);
                uint32_t wd = 0;
                for (int k = 0; k < 9; ++k) wd += uint32_t(c1[k]) * x[2 * g + 4 + k][col];
                EXPECT_EQ(m::combine2(dn[i][lane], dn[i + 2][lane]), wd) << g << "," << col;
            }
        }
    // Second moments: exact sums (V_q = 0 at 8 bits).
    for (int q = 0; q < 3; ++q) {
        uint32_t pl[2][32], ph[2][32];
        b_fragments(ps[q], 0, pl);
        b_fragments(ps[q], 1, ph);
        int32_t ll[4][32], lh[4][32], mid[4][32], hh[4][32];
        emulate_mma(af.v[lo_m], pl, ll);
        emulate_mma(af.v[lo_m], ph, lh);
        emulate_mma(af.v[hi_m], pl, mid, &lh); // chained through the accumulator
        emulate_mma(af.v[hi_m], ph, hh);
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < 4; ++i) {
                const int row = tile_row(m::c_row(lane, i)), col = m::c_col(lane, i);
                uint64_t want = 0;
                for (int k = 0; k < 17; ++k) want += uint64_t(c0[k]) * ps[q][row + k][col];
                ASSERT_LT(want, uint64_t(1) << 32);
                EXPECT_EQ(m::combine3(ll[i][lane], mid[i][lane], hh[i][lane]), want)
                    << "q " << q << " at " << row << "," << col;
            }
    }
}

TEST(IntMmaPlanes, RecombinedSumsEqualDirectSums) {
    uint8_t x[32][8], y[32][8];
    // Extremes first: the largest sums (all 255) and the largest cross terms.
    for (int v : {0, 1, 128, 255}) {
        for (auto& r : x)
            for (auto& s : r) s = static_cast<uint8_t>(v);
        for (auto& r : y)
            for (auto& s : r) s = static_cast<uint8_t>(255 - v);
        for (bool wide : {false, true}) {
            check_block(x, y, wide);
            check_block(y, x, wide);
        }
    }
    std::mt19937 rng(12345);
    for (int it = 0; it < 200; ++it) {
        for (int r = 0; r < 32; ++r)
            for (int c = 0; c < 8; ++c) {
                x[r][c] = static_cast<uint8_t>(rng());
                // Mostly large values (the high byte planes), sometimes anything.
                y[r][c] = static_cast<uint8_t>(it % 2 ? 255 - (rng() & 15) : rng());
            }
        check_block(x, y, it % 3 == 0);
    }
}

// The FP64 horizontal pass: 8 rows x 24 columns of values below 2^32 through six emulated
// m8n8k4 steps equal the 17-tap sums computed directly (all exact in double).
TEST(IntMmaPlanes, Fp64BandProductEqualsDirectSums) {
    static constexpr m::DmmaTaps taps = m::make_dmma_taps();
    std::mt19937 rng(777);
    for (int it = 0; it < 50; ++it) {
        double v[8][24];
        for (auto& r : v)
            for (double& x : r) x = it == 0 ? 4294967295.0 : static_cast<double>(rng());
        double d[8][8] = {};
        for (int s = 0; s < m::kDmmaSteps; ++s) {
            double a[8][4], b[4][8];
            for (int lane = 0; lane < 32; ++lane) {
                const int g = lane >> 2, t = lane & 3;
                a[g][t] = v[g][4 * s + t]; // A: row g, column t of the k-step
                b[t][g] = taps.v[s][lane]; // B: row t, column g
            }
            for (int r = 0; r < 8; ++r)
                for (int n = 0; n < 8; ++n)
                    for (int k = 0; k < 4; ++k) d[r][n] += a[r][k] * b[k][n];
        }
        for (int r = 0; r < 8; ++r)
            for (int n = 0; n < 8; ++n) {
                uint64_t want = 0;
                for (int k = 0; k < 17; ++k)
                    want += uint64_t(vif::kIntFilter0[k]) * static_cast<uint64_t>(v[r][n + k]);
                EXPECT_EQ(static_cast<uint64_t>(d[r][n]), want) << r << "," << n;
            }
    }
}

} // namespace
