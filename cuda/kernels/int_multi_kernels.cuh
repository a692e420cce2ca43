// Integer VIF of one reference against K distorted pictures (a ladder's rungs, vif_submit_multi)
// with the reference's work done once (docs/cuda.md, "One reference, K rungs").
//
// A block owns the same kTileW x kTileH tile as int_scale_tile (int_kernels.cuh) and
//   R. stages the reference tile + halo once; runs its vertical passes (mean of x, x*x, the
//      next scale's downsampling rows), its horizontal passes (mu_x, E[x*x]) and sigma_x^2,
//      adds the denominator terms (DL, DN: they depend on sigma_x^2 alone, pixel_math.hpp
//      add_pixel_den) and writes the reference's next-scale samples, all once;
//   k. then for each rung: stages the distorted tile into the second picture buffer (the
//      reference's stays), runs the vertical passes of y (mean, y*y, x*y, downsampling), the
//      horizontal passes (mu_y, E[y*y], E[x*y]), the numerator terms (NL, NN: add_pixel_num)
//      from the mu_x and sigma_x^2 each thread kept in registers, writes the rung's next-scale
//      samples and adds the block's NL/NN, and the once-computed DL/DN, to the rung's
//      accumulators (acc[k][scale][nl, dl, nn, dn]).
// Every per-pixel value is the same integer as the pair kernel's, so each rung's sums equal a
// separate pair's bit for bit (tests/api/multi_test.cpp, tests/parity/multi_parity_test.cpp).
#pragma once

#include <cstdint>

#include "kernels/int_kernels.cuh"

namespace vif::cuda {

constexpr int kMultiMaxRungs = 64; // VIF_MAX_DISTORTED

// One scale of a ladder launch. Scale 0 reads the caller's planes (dis[k], its shift); scales
// >= 1 the engine's images, rung k's at dis[k]. Next-scale samples: the reference's at next_ref,
// rung k's at next_dis + k * next_rung_elems.
struct IntMultiArgs {
    const void* ref;
    ptrdiff_t ref_pitch; // bytes
    int ref_shift;
    ptrdiff_t dis_pitch; // bytes, every rung alike
    const void* dis[kMultiMaxRungs];
    unsigned char dis_shift[kMultiMaxRungs];
    int rungs;
    int rungs_per_block; // a block handles rungs [g * rungs_per_block, ...) of its group g
    int w, h;            // size of this scale
    uint16_t* next_ref;
    uint16_t* next_dis;
    size_t next_rung_elems;
    int next_pitch; // elements
    LogLookup log;
    unsigned long long* acc; // [rungs][4 scales][nl, dl, nn, dn]
    unsigned int* done_counter;
    long long* out[kMultiMaxRungs]; // scale 3: rung k's 16 sums go to out[k]
    double gain_limit;
    int src_w, src_h; // fused scale 3: size of the scale-2 images that ref/dis point to
};

// Stages one picture's tile + halo (reflect-101) into dst (kIH rows of kIW 16-bit samples, kSI
// apart): the single-picture form of int_scale_tile's step 1 (vector loads for interior tiles of aligned
// rows, else one warp per row with all loads issued before the stores).
template <int S, int BPC, class P, bool kFromFiner>
__device__ __forceinline__ void multi_stage(const void* src_v, ptrdiff_t pitch, int shift,
                                            const IntMultiArgs& a, int x0, int y0, uint16_t* dst) {
    using L = IntSmemLayout<S, P>;
    using InT = typename std::conditional<S == 0 && BPC == 8, uint8_t, uint16_t>::type;
    constexpr int R = L::kR, IW = L::kIW, IH = L::kIH, SI = L::kSI;
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads;
    const int tid = threadIdx.x, w = a.w, h = a.h;
    const unsigned char* src = static_cast<const unsigned char*>(src_v);
    if constexpr (kFromFiner) {
        for (int i = tid; i < IH * IW; i += NT) {
            const int r = i / IW, c = i - r * IW;
            const int gy = reflect_clamp(y0 - R + r, h), gx = reflect_clamp(x0 - R + c, w);
            dst[r * SI + c] =
                static_cast<uint16_t>(down_from_finer(src, pitch, gy, gx, a.src_w, a.src_h));
        }
        return;
    } else {
        const bool interior = x0 >= R && y0 >= R && x0 + TW + R <= w && y0 + TH + R <= h;
        constexpr int kEPC = (R % 4 == 0 && TW % 4 == 0) ? 4 : (R % 2 == 0 && TW % 2 == 0) ? 2 : 1;
        constexpr int kVecBytes = kEPC * int(sizeof(InT));
        const bool aligned = ((reinterpret_cast<uintptr_t>(src) | static_cast<uintptr_t>(pitch)) &
                              (kVecBytes - 1)) == 0;
        if (kEPC > 1 && interior && aligned) {
            using Vec = typename std::conditional<
                kVecBytes == 8, uint2,
                typename std::conditional<kVecBytes == 4, uint32_t, uint16_t>::type>::type;
            constexpr int kCPR = IW / kEPC;
            constexpr int kChunks = IH * kCPR;
            constexpr int kIt = (kChunks + NT - 1) / NT;
            Vec v[kIt];
            const unsigned char* base = src + (y0 - R) * pitch + (x0 - R) * int(sizeof(InT));
#pragma unroll
            for (int it = 0; it < kIt; ++it) {
                const int i = tid + it * NT;
                if (kChunks % NT == 0 || i < kChunks) {
                    const int r = i / kCPR, c = (i - r * kCPR) * kVecBytes;
                    v[it] = __ldg(reinterpret_cast<const Vec*>(base + r * pitch + c));
                }
            }
#pragma unroll
            for (int it = 0; it < kIt; ++it) {
                const int i = tid + it * NT;
                if (kChunks % NT == 0 || i < kChunks) {
                    const int r = i / kCPR, c = (i - r * kCPR) * kEPC;
                    uint16_t* d = dst + r * SI + c;
                    if constexpr (sizeof(InT) == 1 && kEPC == 4) {
                        *reinterpret_cast<uint2*>(d) = make_uint2(__byte_perm(v[it], 0, 0x4140),
                                                                  __byte_perm(v[it], 0, 0x4342));
                    } else if constexpr (sizeof(InT) == 1 && kEPC == 2) {
                        *reinterpret_cast<uint32_t*>(d) = __byte_perm(v[it], 0, 0x4140);
                    } else if constexpr (S == 0) {
                        const uint32_t m = 0xFFFF0000u | (0xFFFFu >> shift);
                        if constexpr (kEPC == 4)
                            *reinterpret_cast<uint2*>(d) =
                                make_uint2((v[it].x >> shift) & m, (v[it].y >> shift) & m);
                        else
                            *reinterpret_cast<uint32_t*>(d) = (v[it] >> shift) & m;
                    } else {
                        *reinterpret_cast<Vec*>(d) = v[it];
                    }
                }
            }
        } else {
            constexpr int kWarps = NT / 32;
            const int warp = tid / 32, lane = tid % 32;
            constexpr int kRowIt = (IH + kWarps - 1) / kWarps, kColIt = (IW + 31) / 32;
            uint16_t v[kRowIt][kColIt];
#pragma unroll
            for (int it = 0; it < kRowIt; ++it) {
                const int r = warp + it * kWarps;
                const int gy = interior ? y0 - R + r : reflect_clamp(y0 - R + r, h);
                const InT* p = reinterpret_cast<const InT*>(src + gy * pitch);
#pragma unroll
                for (int ci = 0; ci < kColIt; ++ci) {
                    const int c = lane + 32 * ci;
                    const int gx = interior ? x0 - R + c : reflect_clamp(x0 - R + c, w);
                    v[it][ci] = (r < IH && c < IW) ? static_cast<uint16_t>(__ldg(p + gx) >> shift)
                                                   : uint16_t(0);
                }
            }
#pragma unroll
            for (int it = 0; it < kRowIt; ++it)
#pragma unroll
                for (int ci = 0; ci < kColIt; ++ci) {
                    const int r = warp + it * kWarps, c = lane + 32 * ci;
                    if (r < IH && c < IW) dst[r * SI + c] = v[it][ci];
                }
        }
    }
}

// Two barriers a rung (a tile shape P with kLean, MultiLean<P>): each warp adds its NL and NN of a
// rung to the block's per-rung sums in shared memory (integer atomics: the order does not matter)
// instead of a block reduction per rung, and the barrier before a rung's staging goes (the
// barrier after the previous rung's vertical pass already orders the staging after its readers);
// the sums go to the accumulators after the last rung.
template <class P, class = void>
struct MultiLeanOf {
    static constexpr bool value = false;
};
template <class P>
struct MultiLeanOf<P, decltype(void(P::kLean))> {
    static constexpr bool value = P::kLean;
};
template <class Base>
struct MultiLean : Base {
    static constexpr bool kLean = true;
};

// The warp's sums of nl and nn (block_sum_stats's warp step: nn in 24-bit parts), in every lane.
__device__ __forceinline__ void warp_sum_num(int32_t nl, int64_t nn, int64_t& wnl, int64_t& wnn) {
    const unsigned full = 0xffffffffu;
    const uint64_t un = static_cast<uint64_t>(nn);
    wnl = static_cast<int32_t>(__reduce_add_sync(full, static_cast<uint32_t>(nl)));
    const uint32_t lo = __reduce_add_sync(full, static_cast<uint32_t>(un & 0xFFFFFFu));
    const uint32_t mid = __reduce_add_sync(full, static_cast<uint32_t>((un >> 24) & 0xFFFFFFu));
    const uint32_t hi = __reduce_add_sync(full, static_cast<uint32_t>(un >> 48)); // sign bits
    wnn = static_cast<int64_t>(uint64_t(lo) + (uint64_t(mid) << 24) + (uint64_t(hi) << 48));
}

// Vertical second moment of one output row o from the products p (the three forms of
// int_scale_tile's step 2: 32-bit sums for 8-bit scale 0, paired 32-bit squares for 10/12-bit,
// per-tap 64-bit otherwise).
template <int S, int BPC, int VR>
__device__ __forceinline__ uint32_t multi_moment_v(const uint32_t* p, int o) {
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

// Vertical passes of one picture. kRef: the reference (mean of x -> means[0], x*x -> moments[0],
// downsampling rows -> down[0]); else the rung (mean of y -> means[1], y*y -> moments[1], x*y ->
// moments[2], downsampling rows -> down[1]). P::kVertMma (8-bit scale 0): the same values from the
// integer tensor cores (int_tensor_passes.cuh, int_vertical_mma_8b_one); else CUDA cores, one
// thread per column and VR rows.
template <int S, int BPC, class P, bool kRef, bool kWriteNext>
__device__ __forceinline__ void multi_vertical(unsigned char* smem) {
    using Info = IntScaleInfo<S>;
    using L = IntSmemLayout<S, P>;
    constexpr int N = Info::kN, R = Info::kR;
    constexpr int TH = P::kTileH, NT = P::kThreads, VR = P::kVertRows;
    constexpr int IW = L::kIW, IH = L::kIH, SD = L::kSD, SM = L::kSM, SI = L::kSI;
    constexpr int VM = S == 0 ? BPC : 16;
    constexpr int pic = kRef ? 0 : 1;
    double* s_mom = reinterpret_cast<double*>(smem + L::kOffMoments);
    const uint16_t* s_in = reinterpret_cast<const uint16_t*>(smem + L::kOffIn);
    uint16_t* s_mu = reinterpret_cast<uint16_t*>(smem + L::kOffMeans);
    uint16_t* s_dn = reinterpret_cast<uint16_t*>(smem + L::kOffDown);
    if constexpr (P::kVertMma) {
        static_assert(S == 0 && BPC == 8 && TH == 16 && !P::kHorizMma,
                      "ladder tensor-core pass: 8-bit scale 0, 16 rows, CUDA-core horizontal");
        static_assert(L::kOffIn % 16 == 0 && (IH * SI * 2) % 16 == 0, "ldmatrix rows aligned");
        int_vertical_mma_8b_one<IW, SI, SM, SD, L::kDW, L::kDH, NT, Info::kHasNext && kWriteNext,
                                !kRef>(s_in, s_mu, s_mom, s_dn);
        return;
    }
    constexpr int kGroups = TH / VR;
    for (int t = threadIdx.x; t < IW * kGroups; t += NT) {
        const int c = t % IW, r0 = (t / IW) * VR;
        uint32_t x[VR + 2 * R], y[VR + 2 * R];
#pragma unroll
        for (int i = 0; i < VR + 2 * R; ++i) {
            x[i] = s_in[(r0 + i) * SI + c];
            if constexpr (!kRef) y[i] = s_in[IH * SI + (r0 + i) * SI + c];
        }
        // The picture whose mean and square this pass makes (a compile-time choice).
        const uint32_t(&v)[VR + 2 * R] = kRef ? x : y;
#pragma unroll
        for (int o = 0; o < VR; ++o) {
            uint32_t acc = c_int_taps.v[S][R] * v[o + R];
#pragma unroll
            for (int k = 0; k < R; ++k) acc += c_int_taps.v[S][k] * (v[o + k] + v[o + N - 1 - k]);
            s_mu[(pic * TH + r0 + o) * SM + c] = static_cast<uint16_t>(rshift_round32<VM>(acc));
        }
        {
            uint32_t p[VR + 2 * R];
#pragma unroll
            for (int i = 0; i < VR + 2 * R; ++i) p[i] = v[i] * v[i];
#pragma unroll
            for (int o = 0; o < VR; ++o)
                s_mom[(pic * TH + r0 + o) * SD + c] =
                    static_cast<double>(multi_moment_v<S, BPC, VR>(p, o));
        }
        if constexpr (!kRef) {
            uint32_t p[VR + 2 * R];
#pragma unroll
            for (int i = 0; i < VR + 2 * R; ++i) p[i] = x[i] * y[i];
#pragma unroll
            for (int o = 0; o < VR; ++o)
                s_mom[(2 * TH + r0 + o) * SD + c] =
                    static_cast<double>(multi_moment_v<S, BPC, VR>(p, o));
        }
        if constexpr (Info::kHasNext && kWriteNext) {
            constexpr int RD = Info::kRD;
            const int dc = c - (R - RD);
            if (dc >= 0 && dc < L::kDW) {
#pragma unroll
                for (int o = 0; o < VR; o += 2) {
                    uint32_t d = c_int_taps.v[S + 1][RD] * v[o + R];
#pragma unroll
                    for (int k = 0; k < RD; ++k)
                        d += c_int_taps.v[S + 1][k] * (v[o + R - RD + k] + v[o + R + RD - k]);
                    s_dn[pic * L::kDH * L::kDW + ((r0 + o) / 2) * L::kDW + dc] =
                        static_cast<uint16_t>(rshift_round32<VM>(d));
                }
            }
        }
    }
}

// Horizontal pass of a mean row (no shift, §6.3) for the HC columns from j0.
template <int S, int HC>
__device__ __forceinline__ void multi_mean_h(const uint16_t* row, uint32_t (&mu)[HC]) {
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

// Horizontal pass of a second-moment row: exact FP64 sums, rs(sum, 16) (as int_scale_tile).
template <int S, int HC>
__device__ __forceinline__ void multi_moment_h(const double* row, uint32_t (&e)[HC]) {
    constexpr int N = IntScaleInfo<S>::kN;
    double v[HC + N - 1];
#pragma unroll
    for (int i = 0; i < HC + N - 1; ++i) v[i] = row[i];
#pragma unroll
    for (int o = 0; o < HC; ++o) {
        double sum = 32768.0;
#pragma unroll
        for (int k = 0; k < N; ++k) sum = __fma_rn(c_int_taps.d[S][k], v[o + k], sum);
        e[o] =
            static_cast<uint32_t>(__double2loint(__fma_rd(sum, 1.0 / 65536.0, 4503599627370496.0)));
    }
}

// Horizontal pass of the downsampling filter at the even columns: picture `pic`'s samples of
// scale S + 1 into out (pitch elements per row).
template <int S, class P>
__device__ __forceinline__ void multi_down_h(const unsigned char* smem, int pic, int x0, int y0,
                                             int w, int h, uint16_t* out, int pitch) {
    using Info = IntScaleInfo<S>;
    using L = IntSmemLayout<S, P>;
    constexpr int RD = Info::kRD, DW = P::kTileW / 2;
    const uint16_t* s_dn = reinterpret_cast<const uint16_t*>(smem + L::kOffDown);
    const int wn = w / 2, hn = h / 2;
    for (int t = threadIdx.x; t < L::kDH * DW; t += P::kThreads) {
        const int m = t / DW, n = t - m * DW;
        const int gy = y0 / 2 + m, gx = x0 / 2 + n;
        if (gy < hn && gx < wn) {
            const uint16_t* d = s_dn + pic * L::kDH * L::kDW + m * L::kDW + 2 * n;
            uint32_t sum = c_int_taps.v[S + 1][RD] * uint32_t(d[RD]);
#pragma unroll
            for (int k = 0; k < RD; ++k)
                sum += c_int_taps.v[S + 1][k] * (uint32_t(d[k]) + uint32_t(d[2 * RD - k]));
            out[static_cast<size_t>(gy) * pitch + gx] =
                static_cast<uint16_t>(rshift_round32<16>(sum));
        }
    }
}

// One tile of scale S for the reference and every rung (the steps at the top of this file).
// Group g (the grid's last dimension) takes rungs_per_block rungs from g * rungs_per_block: small
// grids are split over the rungs so that they fill the GPU (each group repeats the reference's
// work; group 0 writes its next-scale samples).
template <int S, int BPC, class P, bool kFromFiner, bool kWriteNext>
__device__ __forceinline__ void int_multi_tile(const IntMultiArgs& a, int bx, int by, int g,
                                               unsigned char* smem) {
    using L = IntSmemLayout<S, P>;
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads, HC = P::kHorizCols;
    constexpr int IH = L::kIH, SI = L::kSI, SD = L::kSD, SM = L::kSM;
    constexpr bool kNext = IntScaleInfo<S>::kHasNext && kWriteNext;
    constexpr int kTasks = TH * (TW / HC);       // horizontal tasks of a tile
    constexpr int kHIt = (kTasks + NT - 1) / NT; // per thread
    double* s_mom = reinterpret_cast<double*>(smem + L::kOffMoments);
    int64_t* s_red = reinterpret_cast<int64_t*>(smem + L::kOffReduce);
    uint16_t* s_in = reinterpret_cast<uint16_t*>(smem + L::kOffIn);
    const uint16_t* s_mu = reinterpret_cast<const uint16_t*>(smem + L::kOffMeans);
    const int tid = threadIdx.x;
    const int x0 = bx * TW, y0 = by * TH;
    const int w = a.w, h = a.h;
    constexpr unsigned F = P::kStat & stat_mode::kNumerics; // pixel::stat flags
    const auto lt = int_log_of<P, L>(a.log, smem);
    constexpr bool kLean = MultiLeanOf<P>::value;
    [[maybe_unused]] unsigned long long* s_num = nullptr; // kLean: [rung of the block][nl, nn]
    if constexpr (kLean) {
        __shared__ unsigned long long s_num_buf[2 * kMultiMaxRungs];
        s_num = s_num_buf;
        for (int i = tid; i < 2 * kMultiMaxRungs; i += NT) s_num[i] = 0; // before 3 barriers
    }

    // The two-level log table (P::kStat's kLogTable2 / kLogPacked) into shared memory, once per
    // block; the barrier after the reference's staging orders it before every lookup.
    constexpr int kLogPieces = static_cast<int>(L::kLogBytes / 16);
    if constexpr (kLogPieces > 0) {
        const uint4* src = (P::kStat & stat_mode::kLogTable2) ? a.log.table2 : a.log.packed;
        uint4* dst = reinterpret_cast<uint4*>(smem + L::kOffLog);
        for (int i = tid; i < kLogPieces; i += NT) dst[i] = __ldg(src + i);
    }

    // R. The reference, once.
    multi_stage<S, BPC, P, kFromFiner>(a.ref, a.ref_pitch, S == 0 ? a.ref_shift : 0, a, x0, y0,
                                       s_in);
    __syncthreads();
    multi_vertical<S, BPC, P, true, kWriteNext>(smem);
    __syncthreads();
    uint32_t mux[kHIt][HC];
    int32_t sxx[kHIt][HC];
    int32_t dl = 0, dn = 0;
#pragma unroll
    for (int it = 0; it < kHIt; ++it) {
        const int t = tid + it * NT;
        if (kTasks % NT == 0 || t < kTasks) {
            const int row = t % TH, j0 = (t / TH) * HC;
            uint32_t exx[HC];
            multi_mean_h<S, HC>(s_mu + row * SM + j0, mux[it]);
            multi_moment_h<S, HC>(s_mom + row * SD + j0, exx);
#pragma unroll
            for (int o = 0; o < HC; ++o) {
                sxx[it][o] = pixel::variance(exx[o], mux[it][o], mux[it][o]);
                if (x0 + j0 + o < w && y0 + row < h) pixel::add_pixel_den(sxx[it][o], lt, dl, dn);
            }
        }
    }
    if constexpr (kNext)
        if (g == 0) multi_down_h<S, P>(smem, 0, x0, y0, w, h, a.next_ref, a.next_pitch);
    int64_t den[4];
    block_sum_stats<NT>(0, dl, 0, dn, den, s_red);

    // k. Each rung against the reference held in shared memory and registers.
    const int k_end = min(a.rungs, (g + 1) * a.rungs_per_block);
    for (int k = g * a.rungs_per_block; k < k_end; ++k) {
        // The previous rung's (or the reference's) readers of the second picture buffer, the
        // moments and the reduction slots are past the barriers that follow them. kLean: the
        // staging writes only the second picture buffer, whose readers (the previous vertical
        // pass) are past the barrier after that pass; the moments and means are rewritten only
        // after the barrier below, and no reduction slots are used.
        if constexpr (!kLean) __syncthreads();
        multi_stage<S, BPC, P, kFromFiner>(a.dis[k], a.dis_pitch, S == 0 ? a.dis_shift[k] : 0, a,
                                           x0, y0, s_in + IH * SI);
        __syncthreads();
        multi_vertical<S, BPC, P, false, kWriteNext>(smem);
        __syncthreads();
        int32_t nl = 0;
        int64_t nn = 0;
#pragma unroll
        for (int it = 0; it < kHIt; ++it) {
            const int t = tid + it * NT;
            if (kTasks % NT == 0 || t < kTasks) {
                const int row = t % TH, j0 = (t / TH) * HC;
                uint32_t muy[HC], eyy[HC], exy[HC];
                multi_mean_h<S, HC>(s_mu + (TH + row) * SM + j0, muy);
                multi_moment_h<S, HC>(s_mom + (TH + row) * SD + j0, eyy);
                multi_moment_h<S, HC>(s_mom + (2 * TH + row) * SD + j0, exy);
#pragma unroll
                for (int o = 0; o < HC; ++o)
                    if (x0 + j0 + o < w && y0 + row < h)
                        pixel::add_pixel_num<F>(sxx[it][o], pixel::variance(eyy[o], muy[o], muy[o]),
                                                pixel::variance(exy[o], mux[it][o], muy[o]), lt,
                                                a.gain_limit, nl, nn);
            }
        }
        if constexpr (kNext)
            multi_down_h<S, P>(smem, 1, x0, y0, w, h, a.next_dis + k * a.next_rung_elems,
                               a.next_pitch);
        if constexpr (kLean) {
            int64_t wnl, wnn;
            warp_sum_num(nl, nn, wnl, wnn);
            if ((tid & 31) == 0) {
                unsigned long long* sn = s_num + 2 * (k - g * a.rungs_per_block);
                atomicAdd(sn + 0, static_cast<unsigned long long>(wnl));
                atomicAdd(sn + 1, static_cast<unsigned long long>(wnn));
            }
        } else {
            int64_t num[4];
            block_sum_stats<NT>(nl, 0, nn, 0, num, s_red);
            if (tid == 0) {
                unsigned long long* acc = a.acc + k * 16 + S * 4;
                atomicAdd(acc + 0, static_cast<unsigned long long>(num[0]));
                atomicAdd(acc + 1, static_cast<unsigned long long>(den[1]));
                atomicAdd(acc + 2, static_cast<unsigned long long>(num[2]));
                atomicAdd(acc + 3, static_cast<unsigned long long>(den[3]));
            }
        }
    }
    if constexpr (kLean) {
        __syncthreads(); // every warp's shared atomics are done
        if (tid == 0)
            for (int k = g * a.rungs_per_block; k < k_end; ++k) {
                const unsigned long long* sn = s_num + 2 * (k - g * a.rungs_per_block);
                unsigned long long* acc = a.acc + k * 16 + S * 4;
                atomicAdd(acc + 0, sn[0]);
                atomicAdd(acc + 1, static_cast<unsigned long long>(den[1]));
                atomicAdd(acc + 2, sn[1]);
                atomicAdd(acc + 3, static_cast<unsigned long long>(den[3]));
            }
    }
}

// The last block of the launch to finish moves every rung's sums to out[k] and zeroes them.
__device__ __forceinline__ void int_multi_publish_if_last(const IntMultiArgs& a) {
    __shared__ bool s_last;
    __syncthreads(); // every thread's atomics of this block are issued
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned int prev = atomicAdd(a.done_counter, 1u);
        s_last = prev == gridDim.x * gridDim.y * gridDim.z - 1;
    }
    __syncthreads();
    if (s_last) {
        __threadfence();
        for (int i = threadIdx.x; i < a.rungs * 16; i += blockDim.x)
            a.out[i / 16][i % 16] = static_cast<long long>(atomicExch(a.acc + i, 0ull));
        if (threadIdx.x == 0) atomicExch(a.done_counter, 0u);
    }
}

// Scale S (0 or 1) of every rung.
template <int S, int BPC, class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    int_multi_kernel(const IntMultiArgs a) {
    extern __shared__ __align__(16) unsigned char smem[];
    int_multi_tile<S, BPC, P, false, true>(a, blockIdx.x, blockIdx.y, blockIdx.z, smem);
}

// Scales 2 and 3 of every rung in one grid (as int_scale23_kernel; x: the scale-2 tiles, then the
// scale-3 tiles; y: the rung group): scale-3 samples are derived from the scale-2 images; the
// last block publishes all rungs.
template <class P2, class P3>
__global__ void __launch_bounds__(P2::kThreads, P2::kMinBlocks)
    int_multi23_kernel(const IntMultiArgs a2, const IntMultiArgs a3, int blocks2, int grid2_x,
                       int grid3_x) {
    static_assert(P2::kThreads == P3::kThreads, "one block size per launch");
    extern __shared__ __align__(16) unsigned char smem[];
    const int b = blockIdx.x;
    if (b < blocks2)
        int_multi_tile<2, 16, P2, false, false>(a2, b % grid2_x, b / grid2_x, blockIdx.y, smem);
    else
        int_multi_tile<3, 16, P3, true, false>(a3, (b - blocks2) % grid3_x, (b - blocks2) / grid3_x,
                                               blockIdx.y, smem);
    int_multi_publish_if_last(a3);
}

} // namespace vif::cuda
