// The block steps of an integer VIF tile (docs/algorithm.md §6), shared by the pair kernel
// (int_scale_tile, int_kernels.cuh: a reference and a distorted picture) and the ladder kernel
// (int_multi_tile, int_multi_kernels.cuh: the reference once, then each rung against it):
//   shared-memory layout  IntSmemLayout
//   1. staging            int_stage_tile      tile + halo of one or two pictures (reflect-101)
//   2. vertical passes    int_vertical_step   means, second moments, downsampling rows
//   3. horizontal passes  int_mean_h, int_moment_h (per task row), int_down_h (next scale)
//   4. block sums         block_sum_stats (device_helpers.cuh)
// Each step is written once: every per-pixel value is the same integer in both kernels, so a
// rung's sums equal its own pair's bit for bit. The steps are force-inlined with compile-time
// choices, so each kernel compiles to the code it had with the steps written out in it.
//
// Arithmetic notes (§6.2, §6.3, §6.8):
// - Means: taps are symmetric (c_k = c_{N-1-k}), so c_k * (x_k + x_{N-1-k}) halves the
//   multiplies; every mean sum is < 2^32.
// - Second moments, vertical: for 8-bit scale 0 the sums fit 32 bits (paired as above); for
//   10/12-bit the paired squares fit 32 bits and one 32x32->64 multiply-add per pair forms the
//   64-bit sum; 16-bit scale 0 and scales >= 1 (16-bit domain) multiply-add per tap.
// - Second moments, horizontal: the vertical results (< 2^32) are held as doubles, and the sum
//   of 17 products tap * value (< 2^48) is exact in double precision. That moves the widest
//   multiply-adds to the FP64 pipe (idle otherwise) instead of emulated 64-bit integer code.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/device_helpers.cuh"
#include "kernels/int_tensor_passes.cuh"
#include "kernels/tile_policy.hpp"

namespace vif::cuda {

// Shared-memory layout of one block, usable on the host to size the launch.
template <int S, class P>
struct IntSmemLayout {
    using Info = IntScaleInfo<S>;
    static constexpr int kR = Info::kR;
    static constexpr int kIW = P::kTileW + 2 * kR; // tile + halo columns
    static constexpr int kIH = P::kTileH + 2 * kR;
    // Row strides chosen so that a warp reading down a column (one row per lane) hits distinct
    // banks: doubles with an odd stride, 16-bit values with (stride / 2) odd.
    static constexpr int kSD = P::kHorizMma ? (kIW + 11) / 16 * 16 + 4 : kIW | 1; // (4 mod 16)
    static constexpr int kSM = ((kIW + 1) / 2 | 1) * 2;
    // Input rows: kIW, or for the tensor-core pass an odd number of 16-byte units (ldmatrix reads
    // 8 rows of 16 bytes at once: conflict-free when consecutive rows start in different banks).
    static constexpr int kSI = P::kVertMma ? (kIW + 7) / 16 * 16 + 8 : kIW;
    static constexpr int kDW = P::kTileW + 2 * Info::kRD; // downsampling: vertical pass columns
    static constexpr int kDH = P::kTileH / 2;

    static constexpr size_t kOffMoments = 0; // double [3][TileH][kSD]
    static constexpr size_t kOffReduce = kOffMoments + sizeof(double) * 3 * P::kTileH * kSD;
    static constexpr size_t kOffIn = kOffReduce + sizeof(int64_t) * 4 * 32; // u16 [2][kIH][kSI]
    static constexpr size_t kOffMeans =
        kOffIn + sizeof(uint16_t) * 2 * kIH * kSI; // u16 [2][H][kSM]
    static constexpr size_t kOffDown = kOffMeans + sizeof(uint16_t) * 2 * P::kTileH * kSM;
    static constexpr size_t kEnd =
        kOffDown + (Info::kHasNext ? sizeof(uint16_t) * 2 * kDH * kDW : 0);
    // stat_mode::kLogTable2 / kLogPacked: the two-level log table, 16-byte aligned, last.
    static constexpr size_t kLogBytes =
        (P::kStat & stat_mode::kLogTable2)   ? sizeof(pixel::LogTable2)
        : (P::kStat & stat_mode::kLogPacked) ? sizeof(pixel::LogTablePacked)
                                             : 0;
    static constexpr size_t kOffLog = (kEnd + 15) / 16 * 16;
    static constexpr size_t kBytes = kLogBytes ? kOffLog + kLogBytes : kEnd;
};

static_assert(stat_mode::kExactConv == pixel::stat::kExactConv &&
                  stat_mode::kDivNoBranch == pixel::stat::kDivNoBranch,
              "tile_policy.hpp and pixel_math.hpp agree");

// Where the statistic of tile shape P reads T (§6.4): the hardware log2 (log_t) or the
// two-level table staged in shared memory at `smem + L::kOffLog`.
template <class P, class L>
__device__ __forceinline__ auto int_log_of(const LogLookup& lk, unsigned char* smem) {
    if constexpr ((P::kStat & stat_mode::kLogTable2) != 0)
        return SharedLog<pixel::LogTable2>{
            reinterpret_cast<const pixel::LogTable2*>(smem + L::kOffLog)};
    else if constexpr ((P::kStat & stat_mode::kLogPacked) != 0)
        return SharedLog<pixel::LogTablePacked>{
            reinterpret_cast<const pixel::LogTablePacked*>(smem + L::kOffLog)};
    else
        return DeviceLog{lk};
}

// Scale-3 samples made on the fly from the scale-2 image (§6.7 with scale-3 taps and
// V_m = 16): the fused scales 2+3 launch reads scale 2 from global memory (written by the
// scale-1 kernel) and never materialises scale 3.
__device__ __forceinline__ uint32_t down_from_finer(const unsigned char* src, ptrdiff_t pitch,
                                                    int i3, int j3, int w2, int h2) {
    const uint32_t* c = c_int_taps.v[3];
    const int r[3] = {reflect_clamp(2 * i3 - 1, h2), reflect_clamp(2 * i3, h2),
                      reflect_clamp(2 * i3 + 1, h2)};
    uint32_t out = 0;
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        const int col = reflect_clamp(2 * j3 - 1 + k, w2);
        uint32_t d = 0;
#pragma unroll
        for (int l = 0; l < 3; ++l)
            d +=
                c[l] * uint32_t(__ldg(reinterpret_cast<const uint16_t*>(src + r[l] * pitch) + col));
        out += c[k] * rshift_round32<16>(d);
    }
    return rshift_round32<16>(out);
}

// One picture to stage: its samples at this scale (bytes `pitch` apart) and, at scale 0, the
// right shift of each sample (MSB-aligned 16-bit words; 0 elsewhere).
struct StagePic {
    const void* src;
    ptrdiff_t pitch;
    int shift;
};

// 1. Tile (x0, y0) + halo of kPics pictures into dst (picture p at dst + p * kIH * kSI: kIH rows
//    of kIW 16-bit samples, kSI apart). Interior tiles of aligned rows: vector loads of kEPC
//    samples; else one warp per row, lanes along the row (no divisions), all of a warp's loads
//    issued before its first store (one global-memory latency per tile instead of one per row).
//    Pictures are interleaved so that their loads wait together. kFromFiner: scale 3 of the fused
//    2+3 launch, the samples derived from the scale-2 image (src_w x src_h).
template <int S, int BPC, class P, bool kFromFiner, int kPics>
__device__ __forceinline__ void int_stage_tile(const StagePic (&pic)[kPics], int w, int h,
                                               int src_w, int src_h, int x0, int y0,
                                               uint16_t* dst) {
    using L = IntSmemLayout<S, P>;
    using InT = typename std::conditional<S == 0 && BPC == 8, uint8_t, uint16_t>::type;
    constexpr int R = L::kR, IW = L::kIW, IH = L::kIH, SI = L::kSI;
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads;
    static_assert(NT % 32 == 0, "whole warps");
    const int tid = threadIdx.x;
    const unsigned char* src[kPics];
#pragma unroll
    for (int p = 0; p < kPics; ++p) src[p] = static_cast<const unsigned char*>(pic[p].src);
    if constexpr (kFromFiner) {
        for (int i = tid; i < IH * IW; i += NT) {
            const int r = i / IW, c = i - r * IW;
            const int gy = reflect_clamp(y0 - R + r, h), gx = reflect_clamp(x0 - R + c, w);
#pragma unroll
            for (int p = 0; p < kPics; ++p)
                dst[p * IH * SI + r * SI + c] = static_cast<uint16_t>(
                    down_from_finer(src[p], pic[p].pitch, gy, gx, src_w, src_h));
        }
        return;
    }
    const bool interior = x0 >= R && y0 >= R && x0 + TW + R <= w && y0 + TH + R <= h;
    // Vector path: chunks of kEPC consecutive samples (4 or 8 bytes) per load, for tiles whose
    // tile + halo lies inside the picture and rows that are aligned for it (always so for the
    // backend's own buffers: staging_pitch).
    constexpr int kEPC = (R % 4 == 0 && TW % 4 == 0) ? 4 : (R % 2 == 0 && TW % 2 == 0) ? 2 : 1;
    constexpr int kVecBytes = kEPC * int(sizeof(InT));
    uintptr_t bits = 0;
#pragma unroll
    for (int p = 0; p < kPics; ++p) bits |= reinterpret_cast<uintptr_t>(src[p]);
#pragma unroll
    for (int p = 0; p < kPics; ++p) bits |= static_cast<uintptr_t>(pic[p].pitch);
    const bool aligned = (bits & (kVecBytes - 1)) == 0;
    if (kEPC > 1 && interior && aligned) {
        using Vec = typename std::conditional<
            kVecBytes == 8, uint2,
            typename std::conditional<kVecBytes == 4, uint32_t, uint16_t>::type>::type;
        constexpr int kCPR = IW / kEPC; // chunks per row
        constexpr int kChunks = IH * kCPR;
        constexpr int kIt = (kChunks + NT - 1) / NT;
        Vec v[kPics][kIt];
        const unsigned char* base[kPics];
#pragma unroll
        for (int p = 0; p < kPics; ++p)
            base[p] = src[p] + (y0 - R) * pic[p].pitch + (x0 - R) * int(sizeof(InT));
#pragma unroll
        for (int it = 0; it < kIt; ++it) {
            const int i = tid + it * NT;
            if (kChunks % NT == 0 || i < kChunks) {
                const int r = i / kCPR, c = (i - r * kCPR) * kVecBytes;
#pragma unroll
                for (int p = 0; p < kPics; ++p)
                    v[p][it] = __ldg(reinterpret_cast<const Vec*>(base[p] + r * pic[p].pitch + c));
            }
        }
#pragma unroll
        for (int it = 0; it < kIt; ++it) {
            const int i = tid + it * NT;
            if (kChunks % NT == 0 || i < kChunks) {
                const int r = i / kCPR, c = (i - r * kCPR) * kEPC;
#pragma unroll
                for (int p = 0; p < kPics; ++p) {
                    uint16_t* d = dst + p * IH * SI + r * SI + c;
                    if constexpr (sizeof(InT) == 1 && kEPC == 4) {
                        // Four bytes to four 16-bit samples.
                        *reinterpret_cast<uint2*>(d) = make_uint2(__byte_perm(v[p][it], 0, 0x4140),
                                                                  __byte_perm(v[p][it], 0, 0x4342));
                    } else if constexpr (sizeof(InT) == 1 && kEPC == 2) {
                        *reinterpret_cast<uint32_t*>(d) = __byte_perm(v[p][it], 0, 0x4140);
                    } else if constexpr (S == 0) {
                        // 16-bit words, each shifted right (MSB-aligned input): both halves of a
                        // 32-bit word at once, the bits that cross into the low half masked off.
                        const int sh = pic[p].shift;
                        const uint32_t m = 0xFFFF0000u | (0xFFFFu >> sh);
                        if constexpr (kEPC == 4)
                            *reinterpret_cast<uint2*>(d) =
                                make_uint2((v[p][it].x >> sh) & m, (v[p][it].y >> sh) & m);
                        else
                            *reinterpret_cast<uint32_t*>(d) = (v[p][it] >> sh) & m;
                    } else {
                        *reinterpret_cast<Vec*>(d) = v[p][it];
                    }
                }
            }
        }
    } else {
        constexpr int kWarps = NT / 32;
        const int warp = tid / 32, lane = tid % 32;
        constexpr int kRowIt = (IH + kWarps - 1) / kWarps, kColIt = (IW + 31) / 32;
        uint16_t v[kPics][kRowIt][kColIt];
#pragma unroll
        for (int it = 0; it < kRowIt; ++it) {
            const int r = warp + it * kWarps;
            const int gy = interior ? y0 - R + r : reflect_clamp(y0 - R + r, h);
            const InT* row[kPics];
#pragma unroll
            for (int p = 0; p < kPics; ++p)
                row[p] = reinterpret_cast<const InT*>(src[p] + gy * pic[p].pitch);
#pragma unroll
            for (int ci = 0; ci < kColIt; ++ci) {
                const int c = lane + 32 * ci;
                const int gx = interior ? x0 - R + c : reflect_clamp(x0 - R + c, w);
                const bool ok = r < IH && c < IW;
#pragma unroll
                for (int p = 0; p < kPics; ++p)
                    v[p][it][ci] =
                        ok ? static_cast<uint16_t>(__ldg(row[p] + gx) >> pic[p].shift) : 0;
            }
        }
#pragma unroll
        for (int it = 0; it < kRowIt; ++it)
#pragma unroll
            for (int ci = 0; ci < kColIt; ++ci) {
                const int r = warp + it * kWarps, c = lane + 32 * ci;
                if (r < IH && c < IW)
#pragma unroll
                    for (int p = 0; p < kPics; ++p) dst[p * IH * SI + r * SI + c] = v[p][it][ci];
            }
    }
}

// Vertical second moment of output row o from the products p: 32-bit sums for 8-bit scale 0,
// paired 32-bit squares for 10/12-bit, per-tap 64-bit otherwise (the notes at the top).
template <int S, int BPC>
__device__ __forceinline__ uint32_t int_moment_v(const uint32_t* p, int o) {
    constexpr int N = IntScaleInfo<S>::kN, R = IntScaleInfo<S>::kR;
    constexpr int VQ = S == 0 ? 2 * (BPC - 8) : 16;
    if constexpr (S == 0 && BPC == 8) {
        uint32_t b = c_int_taps.v[S][R] * p[o + R];
#pragma unroll
        for (int k = 0; k < R; ++k) b += c_int_taps.v[S][k] * (p[o + k] + p[o + N - 1 - k]);
        return rshift_round32<VQ>(b);
    } else if constexpr (S == 0 && BPC <= 12) {
        uint64_t b = uint64_t(c_int_taps.v[S][R]) * p[o + R];
#pragma unroll
        for (int k = 0; k < R; ++k)
            b += uint64_t(c_int_taps.v[S][k]) * (p[o + k] + p[o + N - 1 - k]);
        return static_cast<uint32_t>(rshift_round64<VQ>(b));
    } else {
        uint64_t b = 0;
#pragma unroll
        for (int k = 0; k < N; ++k) b += uint64_t(c_int_taps.v[S][k]) * p[o + k];
        return static_cast<uint32_t>(rshift_round64<VQ>(b));
    }
}

// What a vertical pass makes (int_vertical_step): kX the reference's mean, x*x and downsampling
// rows; kY the same of the distorted picture; kXY the cross moment x*y.
namespace vert {
constexpr unsigned kX = 1, kY = 2, kXY = 4;
constexpr unsigned kPair = kX | kY | kXY; // int_scale_tile
constexpr unsigned kRung = kY | kXY;      // a ladder rung against its staged reference
} // namespace vert

// 2. Vertical passes from the staged pictures (x at kOffIn, y after it) into the means (x: rows
//    [0, TH), y: [TH, 2 TH)), the moments (xx, yy, xy: TH rows each) and, on the even rows, the
//    downsampling rows of scale S + 1 (x, then y). One thread: one column, VR consecutive rows;
//    or, P::kVertMma (8-bit scale 0), the same values from the integer tensor cores
//    (int_tensor_passes.cuh).
template <int S, int BPC, class P, unsigned kParts, bool kWriteNext>
__device__ __forceinline__ void int_vertical_step(unsigned char* smem) {
    using Info = IntScaleInfo<S>;
    using L = IntSmemLayout<S, P>;
    constexpr int N = Info::kN, R = Info::kR;
    constexpr int TH = P::kTileH, NT = P::kThreads, VR = P::kVertRows;
    constexpr int IW = L::kIW, IH = L::kIH, SD = L::kSD, SM = L::kSM, SI = L::kSI;
    constexpr int VM = S == 0 ? BPC : 16; // §6.2
    constexpr bool kMX = (kParts & vert::kX) != 0, kMY = (kParts & vert::kY) != 0;
    constexpr bool kLoadX = kMX || (kParts & vert::kXY) != 0;
    constexpr bool kLoadY = kMY || (kParts & vert::kXY) != 0;
    constexpr bool kNext = Info::kHasNext && kWriteNext;
    double* s_mom = reinterpret_cast<double*>(smem + L::kOffMoments);           // xx, yy, xy
    const uint16_t* s_in = reinterpret_cast<const uint16_t*>(smem + L::kOffIn); // x, y
    uint16_t* s_mu = reinterpret_cast<uint16_t*>(smem + L::kOffMeans);          // mu x, mu y
    uint16_t* s_dn = reinterpret_cast<uint16_t*>(smem + L::kOffDown);           // down x, down y
    if constexpr (P::kVertMma) {
        static_assert(S == 0 && BPC == 8 && P::kTileH == 16,
                      "tensor-core pass: 8-bit scale 0, 16 rows");
        static_assert(L::kOffIn % 16 == 0, "ldmatrix rows are 16-byte aligned");
        if constexpr (kParts == vert::kPair) {
            int_vertical_mma_8b<IW, SI, SM, SD, L::kDW, L::kDH, NT, kNext, P::kHorizMma>(
                s_in, s_mu, s_mom, s_dn);
        } else {
            static_assert(kParts == vert::kX || kParts == vert::kRung, "one picture's passes");
            static_assert(!P::kHorizMma && (IH * SI * 2) % 16 == 0,
                          "ladder tensor-core pass: CUDA-core horizontal, rows aligned");
            int_vertical_mma_8b_one<IW, SI, SM, SD, L::kDW, L::kDH, NT, kNext,
                                    kParts == vert::kRung>(s_in, s_mu, s_mom, s_dn);
        }
        return;
    }
    constexpr int kGroups = TH / VR;
    for (int t = threadIdx.x; t < IW * kGroups; t += NT) {
        const int c = t % IW, r0 = (t / IW) * VR;
        uint32_t x[VR + 2 * R], y[VR + 2 * R];
#pragma unroll
        for (int i = 0; i < VR + 2 * R; ++i) {
            if constexpr (kLoadX) x[i] = s_in[(r0 + i) * SI + c];
            if constexpr (kLoadY) y[i] = s_in[IH * SI + (r0 + i) * SI + c];
        }
#pragma unroll
        for (int o = 0; o < VR; ++o) {
            uint32_t ax = 0, ay = 0;
            if constexpr (kMX) ax = c_int_taps.v[S][R] * x[o + R];
            if constexpr (kMY) ay = c_int_taps.v[S][R] * y[o + R];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                if constexpr (kMX) ax += c_int_taps.v[S][k] * (x[o + k] + x[o + N - 1 - k]);
                if constexpr (kMY) ay += c_int_taps.v[S][k] * (y[o + k] + y[o + N - 1 - k]);
            }
            if constexpr (kMX)
                s_mu[(r0 + o) * SM + c] = static_cast<uint16_t>(rshift_round32<VM>(ax));
            if constexpr (kMY)
                s_mu[(TH + r0 + o) * SM + c] = static_cast<uint16_t>(rshift_round32<VM>(ay));
        }
        // Second moments: q = 0 (x*x), 1 (y*y), 2 (x*y).
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            if ((kParts & (1u << q)) == 0) continue; // vert::kX, kY, kXY in q's order
            uint32_t p[VR + 2 * R];
#pragma unroll
            for (int i = 0; i < VR + 2 * R; ++i)
                p[i] = q == 0 ? x[i] * x[i] : q == 1 ? y[i] * y[i] : x[i] * y[i];
#pragma unroll
            for (int o = 0; o < VR; ++o)
                s_mom[(q * TH + r0 + o) * SD + c] = static_cast<double>(int_moment_v<S, BPC>(p, o));
        }
        // Downsampling filter (scale S + 1 taps), vertical pass on the even rows.
        if constexpr (kNext) {
            constexpr int RD = Info::kRD;
            const int dc = c - (R - RD);
            if (dc >= 0 && dc < L::kDW) {
#pragma unroll
                for (int o = 0; o < VR; o += 2) {
                    uint32_t dx = 0, dy = 0;
                    if constexpr (kMX) dx = c_int_taps.v[S + 1][RD] * x[o + R];
                    if constexpr (kMY) dy = c_int_taps.v[S + 1][RD] * y[o + R];
#pragma unroll
                    for (int k = 0; k < RD; ++k) {
                        if constexpr (kMX)
                            dx += c_int_taps.v[S + 1][k] * (x[o + R - RD + k] + x[o + R + RD - k]);
                        if constexpr (kMY)
                            dy += c_int_taps.v[S + 1][k] * (y[o + R - RD + k] + y[o + R + RD - k]);
                    }
                    const int m = (r0 + o) / 2;
                    if constexpr (kMX)
                        s_dn[m * L::kDW + dc] = static_cast<uint16_t>(rshift_round32<VM>(dx));
                    if constexpr (kMY)
                        s_dn[L::kDH * L::kDW + m * L::kDW + dc] =
                            static_cast<uint16_t>(rshift_round32<VM>(dy));
                }
            }
        }
    }
}

// 3. Horizontal pass of a mean row for the HC columns from `row` (no shift, §6.3).
template <int S, int HC>
__device__ __forceinline__ void int_mean_h(const uint16_t* row, uint32_t (&mu)[HC]) {
    constexpr int N = IntScaleInfo<S>::kN, R = IntScaleInfo<S>::kR;
    uint32_t v[HC + 2 * R];
#pragma unroll
    for (int i = 0; i < HC + 2 * R; ++i) v[i] = row[i];
#pragma unroll
    for (int o = 0; o < HC; ++o) {
        uint32_t sum = c_int_taps.v[S][R] * v[o + R];
#pragma unroll
        for (int k = 0; k < R; ++k) sum += c_int_taps.v[S][k] * (v[o + k] + v[o + N - 1 - k]);
        mu[o] = sum;
    }
}

// 3. Horizontal pass of a second-moment row: rs(sum, 16) of exact FP64 sums.
template <int S, int HC>
__device__ __forceinline__ void int_moment_h(const double* row, uint32_t (&e)[HC]) {
    constexpr int N = IntScaleInfo<S>::kN;
    double v[HC + N - 1];
#pragma unroll
    for (int i = 0; i < HC + N - 1; ++i) v[i] = row[i];
#pragma unroll
    for (int o = 0; o < HC; ++o) {
        // Exact integers < 2^49 throughout. rs(sum, 16) = floor((sum + 2^15) / 2^16): the
        // rounding constant is the start value, and one multiply-add rounding down onto 2^52
        // leaves the floor in the low word (it is < 2^32).
        double sum = 32768.0;
#pragma unroll
        for (int k = 0; k < N; ++k) sum = __fma_rn(c_int_taps.d[S][k], v[o + k], sum);
        e[o] =
            static_cast<uint32_t>(__double2loint(__fma_rd(sum, 1.0 / 65536.0, 4503599627370496.0)));
    }
}

// 3. Horizontal pass of the downsampling filter at the even columns: the samples of scale S + 1
//    of the kPics pictures from kPic0 (0: x, 1: y), picture kPic0 + p into out[p] (pitch
//    elements per row).
template <int S, class P, int kPic0, int kPics>
__device__ __forceinline__ void int_down_h(const unsigned char* smem, int x0, int y0, int w, int h,
                                           uint16_t* const (&out)[kPics], int pitch) {
    using Info = IntScaleInfo<S>;
    using L = IntSmemLayout<S, P>;
    constexpr int RD = Info::kRD, DW = P::kTileW / 2;
    const uint16_t* s_dn = reinterpret_cast<const uint16_t*>(smem + L::kOffDown);
    const int wn = w / 2, hn = h / 2;
    for (int t = threadIdx.x; t < L::kDH * DW; t += P::kThreads) {
        const int m = t / DW, n = t - m * DW;
        const int gy = y0 / 2 + m, gx = x0 / 2 + n;
        if (gy < hn && gx < wn) {
#pragma unroll
            for (int p = 0; p < kPics; ++p) {
                const uint16_t* d = s_dn + (kPic0 + p) * L::kDH * L::kDW + m * L::kDW + 2 * n;
                uint32_t sum = c_int_taps.v[S + 1][RD] * uint32_t(d[RD]);
#pragma unroll
                for (int k = 0; k < RD; ++k)
                    sum += c_int_taps.v[S + 1][k] * (uint32_t(d[k]) + uint32_t(d[2 * RD - k]));
                out[p][static_cast<size_t>(gy) * pitch + gx] =
                    static_cast<uint16_t>(rshift_round32<16>(sum));
            }
        }
    }
}

} // namespace vif::cuda
