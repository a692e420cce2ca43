// Integer VIF (docs/algorithm.md §6) on the GPU: one fused kernel per scale.
//
// A block owns a kTileW x kTileH tile of output pixels of scale S. It
//   1. stages the tile plus an r-sample halo of both pictures in shared memory (reflect-101),
//   2. runs the vertical pass of the statistics filter for every tile row and every column of
//      tile + halo (means as 16-bit, second moments as exact integers held in doubles), and, on
//      the even rows, the vertical pass of the next scale's downsampling filter,
//   3. runs the horizontal passes from shared memory, computes the per-pixel statistics of
//      §6.5 and the decimated samples of scale S + 1,
//   4. reduces NL/DL/NN/DN over the block and adds them to the frame's int64 accumulators.
// Integer sums are exact, so the result does not depend on tile shape or scheduling.
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

#include "kernels/device_helpers.cuh"
#include "kernels/int_tensor_passes.cuh"
#include "kernels/tile_policy.hpp"

namespace vif::cuda {

// Most frames one batched launch carries (grid.z = frame; Engine::enqueue_batch).
constexpr int kMaxBatch = 16;

// The per-frame pointers of a batched launch: frame z (blockIdx.z) reads ref[z]/dis[z], writes
// next_ref[z]/next_dis[z] and publishes to out[z]; pitches and shifts are shared by the batch.
struct IntBatchFrames {
    const void* ref[kMaxBatch];
    const void* dis[kMaxBatch];
    uint16_t* next_ref[kMaxBatch];
    uint16_t* next_dis[kMaxBatch];
    long long* out[kMaxBatch];
};

struct IntScaleArgs {
    const void* ref;
    const void* dis;
    ptrdiff_t ref_pitch; // bytes
    ptrdiff_t dis_pitch;
    int w, h;      // size of this scale
    int ref_shift; // scale 0: right shift of each sample (MSB-aligned 16-bit words)
    int dis_shift;
    uint16_t* next_ref; // scale S + 1 images (w/2 x h/2), next_pitch elements per row
    uint16_t* next_dis;
    int next_pitch;
    LogLookup log;              // T of §6.4 (device_helpers.cuh)
    unsigned long long* acc;    // [4 scales][nl, dl, nn, dn]
    unsigned int* done_counter; // scale 3: blocks finished (reset by the last block)
    long long* out;             // scale 3: the last block moves acc here and zeroes acc
    double gain_limit;
    int src_w, src_h; // fused scale 3: size of the scale-2 image that ref/dis point to
    // Batched launches only (the kBatched kernels): frame z's pointers; its accumulators are
    // acc + 16 z and its done counter done_counter + z.
    IntBatchFrames batch;
};

// The arguments of the frame this block of a batched launch (grid.z = frames) works on: frame
// blockIdx.z's pointers, accumulators and done counter, so that each frame's sums are exactly
// those of its own one-frame launch.
__device__ __forceinline__ IntScaleArgs int_frame_args(const IntScaleArgs& a) {
    IntScaleArgs f = a;
    const int z = blockIdx.z;
    f.ref = a.batch.ref[z];
    f.dis = a.batch.dis[z];
    f.next_ref = a.batch.next_ref[z];
    f.next_dis = a.batch.next_dis[z];
    f.out = a.batch.out[z];
    f.acc = a.acc + 16 * z;
    f.done_counter = a.done_counter + z;
    return f;
}

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

// Statistics of one pixel (§6.3 moments onwards, §6.5) added to the thread's accumulators: the
// variances and the contribution of pixel_math.hpp, the same functions as cpu_ref's (F: its
// pixel::stat flags; LogT: int_log_of).
template <unsigned F, class LogT>
__device__ __forceinline__ void
int_pixel_stat(uint32_t mux, uint32_t muy, uint32_t exx, uint32_t eyy, uint32_t exy, const LogT& lt,
               double gain_limit, int32_t& nl, int32_t& dl, int64_t& nn, int32_t& dn) {
    pixel::add_pixel<F>(pixel::variance(exx, mux, mux), pixel::variance(eyy, muy, muy),
                        pixel::variance(exy, mux, muy), lt, gain_limit, nl, dl, nn, dn);
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

// One tile (block coordinates bx, by) of scale S: everything but the frame-level bookkeeping.
// kFromFiner: S == 3 inside the fused 2+3 launch (inputs derived from scale 2).
// kWriteNext: whether to produce the next scale's samples (off for scale 2 when fused).
// The same statistics for the HC pixels of one thread, written without branches so that their
// independent chains (table loads, divisions) overlap: every pixel runs the same instructions
// with safe operands where a branch of §6.5 does not apply, and the masks pick what is
// added. Bit-identical to int_pixel_stat on the pixels it counts.
template <int HC, unsigned F, class LogT>
__device__ __forceinline__ void int_pixel_stats_ilp(const uint32_t (&mu)[2][HC],
                                                    const uint32_t (&e)[3][HC], uint32_t valid,
                                                    const LogT& lt, double gain_limit, int32_t& nl,
                                                    int32_t& dl, int64_t& nn, int32_t& dn) {
    int32_t sxx[HC], syy[HC], sxy[HC];
#pragma unroll
    for (int o = 0; o < HC; ++o) {
        sxx[o] = pixel::variance(e[0][o], mu[0][o], mu[0][o]);
        const int32_t t = pixel::variance(e[1][o], mu[1][o], mu[1][o]);
        syy[o] = t < 0 ? 0 : t;
        sxy[o] = pixel::variance(e[2][o], mu[0][o], mu[1][o]);
    }
    int32_t ld[HC], ln[HC];
#pragma unroll
    for (int o = 0; o < HC; ++o) {
        const bool big = sxx[o] >= static_cast<int32_t>(kNsq);
        const bool lp = big && sxy[o] > 0 && syy[o] > 0;
        ld[o] = pixel::log_l32(lt, big ? static_cast<uint32_t>(sxx[o]) + kNsq : kNsq);
        // Safe operands where the numerator term does not apply (sigma_x^2 = NSQ, 0, 0).
        const pixel::NumeratorArgs n = pixel::numerator_args<F>(
            lp ? sxx[o] : static_cast<int32_t>(kNsq), lp ? syy[o] : 0, lp ? sxy[o] : 0, gain_limit);
        ln[o] = pixel::log_l64(lt, n.n2) - pixel::log_l32(lt, n.n1);
    }
#pragma unroll
    for (int o = 0; o < HC; ++o) {
        if (!((valid >> o) & 1u)) continue;
        const bool big = sxx[o] >= static_cast<int32_t>(kNsq);
        const bool lp = big && sxy[o] > 0 && syy[o] > 0;
        dl += big ? ld[o] - 17 * 2048 : 0;
        nl += lp ? ln[o] : 0;
        nn += big ? 0 : syy[o];
        dn += big ? 0 : 1;
    }
}

template <int S, int BPC, class P, bool kFromFiner, bool kWriteNext>
__device__ __forceinline__ void int_scale_tile(const IntScaleArgs& a, int bx, int by,
                                               unsigned char* smem) {
    using Info = IntScaleInfo<S>;
    using L = IntSmemLayout<S, P>;
    using InT = typename std::conditional<S == 0 && BPC == 8, uint8_t, uint16_t>::type;
    constexpr int N = Info::kN, R = Info::kR;
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads;
    constexpr int VR = P::kVertRows, HC = P::kHorizCols;
    constexpr int IW = L::kIW, IH = L::kIH, SD = L::kSD, SM = L::kSM, SI = L::kSI;
    constexpr int VM = S == 0 ? BPC : 16; // §6.2
    constexpr int VQ = S == 0 ? 2 * (BPC - 8) : 16;
    constexpr bool kMoments32 = S == 0 && BPC == 8; // vertical second moments fit 32 bits
    constexpr bool kPairs32 = S == 0 && BPC <= 12;  // paired squares fit 32 bits

    double* s_mom = reinterpret_cast<double*>(smem + L::kOffMoments); // xx, yy, xy
    int64_t* s_red = reinterpret_cast<int64_t*>(smem + L::kOffReduce);
    uint16_t* s_in = reinterpret_cast<uint16_t*>(smem + L::kOffIn);    // x, y
    uint16_t* s_mu = reinterpret_cast<uint16_t*>(smem + L::kOffMeans); // mu x, mu y
    uint16_t* s_dn = reinterpret_cast<uint16_t*>(smem + L::kOffDown);  // down x, down y

    const int tid = threadIdx.x;
    const int x0 = bx * TW, y0 = by * TH;
    const int w = a.w, h = a.h;
    constexpr unsigned F = P::kStat & stat_mode::kNumerics; // pixel::stat flags

    // The two-level log table (stat_mode::kLogTable2 / kLogPacked): its loads are issued first
    // and stored to shared memory after the tile's, so that both wait for one memory latency.
    constexpr int kLogPieces = static_cast<int>(L::kLogBytes / 16);
    constexpr int kLogIt = (kLogPieces + NT - 1) / NT;
    uint4 log_v[kLogIt > 0 ? kLogIt : 1];
    if constexpr (kLogPieces > 0) {
        const uint4* src = (P::kStat & stat_mode::kLogTable2) ? a.log.table2 : a.log.packed;
#pragma unroll
        for (int it = 0; it < kLogIt; ++it)
            if (kLogPieces % NT == 0 || tid + it * NT < kLogPieces)
                log_v[it] = __ldg(src + tid + it * NT);
    }

    // 1. Tile + halo of both pictures: one warp per row, lanes along the row (no divisions);
    //    interior tiles skip the border arithmetic.
    {
        static_assert(NT % 32 == 0, "whole warps");
        constexpr int kWarps = NT / 32;
        const int warp = tid / 32, lane = tid % 32;
        const unsigned char* ref = static_cast<const unsigned char*>(a.ref);
        const unsigned char* dis = static_cast<const unsigned char*>(a.dis);
        const int shift_r = S == 0 ? a.ref_shift : 0, shift_d = S == 0 ? a.dis_shift : 0;
        const bool interior = x0 >= R && y0 >= R && x0 + TW + R <= w && y0 + TH + R <= h;
        // Vector path: chunks of kEPC consecutive samples (4 or 8 bytes) per load, for tiles whose
        // tile + halo lies inside the picture and rows that are aligned for it (always so for the
        // backend's own buffers: staging_pitch).
        constexpr int kEPC = (R % 4 == 0 && TW % 4 == 0) ? 4 : (R % 2 == 0 && TW % 2 == 0) ? 2 : 1;
        constexpr int kVecBytes = kEPC * int(sizeof(InT));
        const bool aligned =
            ((reinterpret_cast<uintptr_t>(ref) | reinterpret_cast<uintptr_t>(dis) |
              static_cast<uintptr_t>(a.ref_pitch) | static_cast<uintptr_t>(a.dis_pitch)) &
             (kVecBytes - 1)) == 0;
        if constexpr (kFromFiner) {
            for (int i = tid; i < IH * IW; i += NT) {
                const int r = i / IW, c = i - r * IW;
                const int gy = reflect_clamp(y0 - R + r, h), gx = reflect_clamp(x0 - R + c, w);
                s_in[r * SI + c] = static_cast<uint16_t>(
                    down_from_finer(ref, a.ref_pitch, gy, gx, a.src_w, a.src_h));
                s_in[IH * SI + r * SI + c] = static_cast<uint16_t>(
                    down_from_finer(dis, a.dis_pitch, gy, gx, a.src_w, a.src_h));
            }
        } else if (kEPC > 1 && interior && aligned) {
            using Vec = typename std::conditional<
                kVecBytes == 8, uint2,
                typename std::conditional<kVecBytes == 4, uint32_t, uint16_t>::type>::type;
            constexpr int kCPR = IW / kEPC; // chunks per row
            constexpr int kChunks = IH * kCPR;
            constexpr int kIt = (kChunks + NT - 1) / NT;
            Vec vr[kIt], vd[kIt];
            const unsigned char* base_r =
                ref + (y0 - R) * a.ref_pitch + (x0 - R) * int(sizeof(InT));
            const unsigned char* base_d =
                dis + (y0 - R) * a.dis_pitch + (x0 - R) * int(sizeof(InT));
#pragma unroll
            for (int it = 0; it < kIt; ++it) {
                const int i = tid + it * NT;
                if (kChunks % NT == 0 || i < kChunks) {
                    const int r = i / kCPR, c = (i - r * kCPR) * kVecBytes;
                    vr[it] = __ldg(reinterpret_cast<const Vec*>(base_r + r * a.ref_pitch + c));
                    vd[it] = __ldg(reinterpret_cast<const Vec*>(base_d + r * a.dis_pitch + c));
                }
            }
#pragma unroll
            for (int it = 0; it < kIt; ++it) {
                const int i = tid + it * NT;
                if (kChunks % NT == 0 || i < kChunks) {
                    const int r = i / kCPR, c = (i - r * kCPR) * kEPC;
                    uint16_t* dr = s_in + r * SI + c;
                    uint16_t* dd = dr + IH * SI;
                    if constexpr (sizeof(InT) == 1 && kEPC == 4) {
                        // Four bytes to four 16-bit samples.
                        *reinterpret_cast<uint2*>(dr) = make_uint2(__byte_perm(vr[it], 0, 0x4140),
                                                                   __byte_perm(vr[it], 0, 0x4342));
                        *reinterpret_cast<uint2*>(dd) = make_uint2(__byte_perm(vd[it], 0, 0x4140),
                                                                   __byte_perm(vd[it], 0, 0x4342));
                    } else if constexpr (sizeof(InT) == 1 && kEPC == 2) {
                        *reinterpret_cast<uint32_t*>(dr) = __byte_perm(vr[it], 0, 0x4140);
                        *reinterpret_cast<uint32_t*>(dd) = __byte_perm(vd[it], 0, 0x4140);
                    } else if constexpr (S == 0) {
                        // 16-bit words, each shifted right (MSB-aligned input): both halves of a
                        // 32-bit word at once, the bits that cross into the low half masked off.
                        const int sr = a.ref_shift, sd = a.dis_shift;
                        const uint32_t mr = 0xFFFF0000u | (0xFFFFu >> sr),
                                       md = 0xFFFF0000u | (0xFFFFu >> sd);
                        if constexpr (kEPC == 4) {
                            *reinterpret_cast<uint2*>(dr) =
                                make_uint2((vr[it].x >> sr) & mr, (vr[it].y >> sr) & mr);
                            *reinterpret_cast<uint2*>(dd) =
                                make_uint2((vd[it].x >> sd) & md, (vd[it].y >> sd) & md);
                        } else {
                            *reinterpret_cast<uint32_t*>(dr) = (vr[it] >> sr) & mr;
                            *reinterpret_cast<uint32_t*>(dd) = (vd[it] >> sd) & md;
                        }
                    } else {
                        *reinterpret_cast<Vec*>(dr) = vr[it];
                        *reinterpret_cast<Vec*>(dd) = vd[it];
                    }
                }
            }
        } else {
            // All of a warp's loads are issued before its first store (registers, then shared
            // memory): one global-memory latency per tile instead of one per row.
            constexpr int kRowIt = (IH + kWarps - 1) / kWarps, kColIt = (IW + 31) / 32;
            uint16_t vr[kRowIt][kColIt], vd[kRowIt][kColIt];
#pragma unroll
            for (int it = 0; it < kRowIt; ++it) {
                const int r = warp + it * kWarps;
                const int gy = interior ? y0 - R + r : reflect_clamp(y0 - R + r, h);
                const InT* pr = reinterpret_cast<const InT*>(ref + gy * a.ref_pitch);
                const InT* pd = reinterpret_cast<const InT*>(dis + gy * a.dis_pitch);
#pragma unroll
                for (int ci = 0; ci < kColIt; ++ci) {
                    const int c = lane + 32 * ci;
                    const int gx = interior ? x0 - R + c : reflect_clamp(x0 - R + c, w);
                    const bool ok = r < IH && c < IW;
                    vr[it][ci] = ok ? static_cast<uint16_t>(__ldg(pr + gx) >> shift_r) : 0;
                    vd[it][ci] = ok ? static_cast<uint16_t>(__ldg(pd + gx) >> shift_d) : 0;
                }
            }
#pragma unroll
            for (int it = 0; it < kRowIt; ++it)
#pragma unroll
                for (int ci = 0; ci < kColIt; ++ci) {
                    const int r = warp + it * kWarps, c = lane + 32 * ci;
                    if (r < IH && c < IW) {
                        s_in[r * SI + c] = vr[it][ci];
                        s_in[IH * SI + r * SI + c] = vd[it][ci];
                    }
                }
        }
    }
    if constexpr (kLogPieces > 0) {
        uint4* dst = reinterpret_cast<uint4*>(smem + L::kOffLog);
#pragma unroll
        for (int it = 0; it < kLogIt; ++it)
            if (kLogPieces % NT == 0 || tid + it * NT < kLogPieces) dst[tid + it * NT] = log_v[it];
    }
    __syncthreads();

    // 2. Vertical passes. One thread: one column, VR consecutive rows (or, P::kVertMma, the same
    //    results from the integer tensor cores: int_tensor_passes.cuh).
    if constexpr (P::kVertMma) {
        static_assert(S == 0 && BPC == 8 && TH == 16, "tensor-core pass: 8-bit scale 0, 16 rows");
        static_assert(L::kOffIn % 16 == 0, "ldmatrix rows are 16-byte aligned");
        int_vertical_mma_8b<IW, SI, SM, SD, L::kDW, L::kDH, NT, Info::kHasNext && kWriteNext,
                            P::kHorizMma>(s_in, s_mu, s_mom, s_dn);
    } else {
        constexpr int kGroups = TH / VR;
        for (int t = tid; t < IW * kGroups; t += NT) {
            const int c = t % IW, r0 = (t / IW) * VR;
            uint32_t x[VR + 2 * R], y[VR + 2 * R];
#pragma unroll
            for (int i = 0; i < VR + 2 * R; ++i) {
                x[i] = s_in[(r0 + i) * SI + c];
                y[i] = s_in[IH * SI + (r0 + i) * SI + c];
            }
#pragma unroll
            for (int o = 0; o < VR; ++o) {
                uint32_t ax = c_int_taps.v[S][R] * x[o + R];
                uint32_t ay = c_int_taps.v[S][R] * y[o + R];
#pragma unroll
                for (int k = 0; k < R; ++k) {
                    ax += c_int_taps.v[S][k] * (x[o + k] + x[o + N - 1 - k]);
                    ay += c_int_taps.v[S][k] * (y[o + k] + y[o + N - 1 - k]);
                }
                s_mu[(r0 + o) * SM + c] = static_cast<uint16_t>(rshift_round32<VM>(ax));
                s_mu[TH * SM + (r0 + o) * SM + c] = static_cast<uint16_t>(rshift_round32<VM>(ay));
            }
            // Second moments: q = 0 (x*x), 1 (y*y), 2 (x*y).
#pragma unroll
            for (int q = 0; q < 3; ++q) {
                uint32_t p[VR + 2 * R];
#pragma unroll
                for (int i = 0; i < VR + 2 * R; ++i)
                    p[i] = q == 0 ? x[i] * x[i] : q == 1 ? y[i] * y[i] : x[i] * y[i];
#pragma unroll
                for (int o = 0; o < VR; ++o) {
                    uint32_t v;
                    if constexpr (kMoments32) {
                        uint32_t b = c_int_taps.v[S][R] * p[o + R];
#pragma unroll
                        for (int k = 0; k < R; ++k)
                            b += c_int_taps.v[S][k] * (p[o + k] + p[o + N - 1 - k]);
                        v = rshift_round32<VQ>(b);
                    } else if constexpr (kPairs32) {
                        uint64_t b = uint64_t(c_int_taps.v[S][R]) * p[o + R];
#pragma unroll
                        for (int k = 0; k < R; ++k)
                            b += uint64_t(c_int_taps.v[S][k]) * (p[o + k] + p[o + N - 1 - k]);
                        v = static_cast<uint32_t>(rshift_round64<VQ>(b));
                    } else {
                        uint64_t b = 0;
#pragma unroll
                        for (int k = 0; k < N; ++k) b += uint64_t(c_int_taps.v[S][k]) * p[o + k];
                        v = static_cast<uint32_t>(rshift_round64<VQ>(b));
                    }
                    s_mom[(q * TH + r0 + o) * SD + c] = static_cast<double>(v);
                }
            }
            // Downsampling filter (scale S + 1 taps), vertical pass on the even rows.
            if constexpr (Info::kHasNext && kWriteNext) {
                constexpr int RD = Info::kRD;
                const int dc = c - (R - RD);
                if (dc >= 0 && dc < L::kDW) {
#pragma unroll
                    for (int o = 0; o < VR; o += 2) {
                        uint32_t dx = c_int_taps.v[S + 1][RD] * x[o + R];
                        uint32_t dy = c_int_taps.v[S + 1][RD] * y[o + R];
#pragma unroll
                        for (int k = 0; k < RD; ++k) {
                            dx += c_int_taps.v[S + 1][k] * (x[o + R - RD + k] + x[o + R + RD - k]);
                            dy += c_int_taps.v[S + 1][k] * (y[o + R - RD + k] + y[o + R + RD - k]);
                        }
                        const int m = (r0 + o) / 2;
                        s_dn[m * L::kDW + dc] = static_cast<uint16_t>(rshift_round32<VM>(dx));
                        s_dn[L::kDH * L::kDW + m * L::kDW + dc] =
                            static_cast<uint16_t>(rshift_round32<VM>(dy));
                    }
                }
            }
        }
    }
    __syncthreads();

    // 3. Horizontal passes and per-pixel statistics. One thread: one row, HC consecutive
    //    columns; consecutive lanes take consecutive rows (conflict-free with the odd strides).
    // Per-thread sums: NL, DL and DN fit 32 bits for a block's pixels (|NL| < 2^17 and |DL| < 2^16
    // per pixel, at most 1024 pixels a block); NN (a variance per pixel) needs 64.
    int32_t nl = 0, dl = 0, dn = 0;
    int64_t nn = 0;
    const auto lt = int_log_of<P, L>(a.log, smem);
    if constexpr (P::kHorizMma) {
        // The same sums from the FP64 tensor cores (int_tensor_passes.cuh), two pixels a lane.
        int_horizontal_dmma<TW, TH, SM, SD, NT>(
            s_mu, s_mom,
            [&](int row, int col, const uint32_t(&mu)[2][2], const uint32_t(&e)[3][2]) {
                const int gy = y0 + row;
                uint32_t valid = 0;
#pragma unroll
                for (int o = 0; o < 2; ++o) valid |= (x0 + col + o < w && gy < h) ? 1u << o : 0u;
                int_pixel_stats_ilp<2, F>(mu, e, valid, lt, a.gain_limit, nl, dl, nn, dn);
            });
    } else {
        constexpr int kGroups = TW / HC;
        for (int t = tid; t < TH * kGroups; t += NT) {
            const int row = t % TH, j0 = (t / TH) * HC;
            uint32_t mu[2][HC];
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                uint32_t v[HC + 2 * R];
#pragma unroll
                for (int i = 0; i < HC + 2 * R; ++i) v[i] = s_mu[(q * TH + row) * SM + j0 + i];
#pragma unroll
                for (int o = 0; o < HC; ++o) {
                    uint32_t sum = c_int_taps.v[S][R] * v[o + R];
#pragma unroll
                    for (int k = 0; k < R; ++k)
                        sum += c_int_taps.v[S][k] * (v[o + k] + v[o + N - 1 - k]);
                    mu[q][o] = sum; // no shift (§6.3)
                }
            }
            uint32_t e[3][HC];
#pragma unroll
            for (int q = 0; q < 3; ++q) {
                double v[HC + 2 * R];
#pragma unroll
                for (int i = 0; i < HC + 2 * R; ++i) v[i] = s_mom[(q * TH + row) * SD + j0 + i];
#pragma unroll
                for (int o = 0; o < HC; ++o) {
                    // Exact integers < 2^49 throughout. rs(sum, 16) = floor((sum + 2^15) / 2^16):
                    // the rounding constant is the start value, and one multiply-add rounding
                    // down onto 2^52 leaves the floor in the low word (it is < 2^32).
                    double sum = 32768.0;
#pragma unroll
                    for (int k = 0; k < N; ++k) sum = __fma_rn(c_int_taps.d[S][k], v[o + k], sum);
                    e[q][o] = static_cast<uint32_t>(
                        __double2loint(__fma_rd(sum, 1.0 / 65536.0, 4503599627370496.0)));
                }
            }
            const int gy = y0 + row;
            if constexpr (P::kStatsILP) {
                uint32_t valid = 0;
#pragma unroll
                for (int o = 0; o < HC; ++o) valid |= (x0 + j0 + o < w && gy < h) ? 1u << o : 0u;
                int_pixel_stats_ilp<HC, F>(mu, e, valid, lt, a.gain_limit, nl, dl, nn, dn);
            } else {
#pragma unroll
                for (int o = 0; o < HC; ++o) {
                    const int gx = x0 + j0 + o;
                    if (gx < w && gy < h)
                        int_pixel_stat<F>(mu[0][o], mu[1][o], e[0][o], e[1][o], e[2][o], lt,
                                          a.gain_limit, nl, dl, nn, dn);
                }
            }
        }
    }

    // Downsampling filter, horizontal pass at the even columns: samples of scale S + 1.
    if constexpr (Info::kHasNext && kWriteNext) {
        constexpr int RD = Info::kRD, DW = TW / 2;
        const int wn = w / 2, hn = h / 2;
        for (int t = tid; t < L::kDH * DW; t += NT) {
            const int m = t / DW, n = t - m * DW;
            const int gy = y0 / 2 + m, gx = x0 / 2 + n;
            if (gy < hn && gx < wn) {
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    const uint16_t* d = s_dn + q * L::kDH * L::kDW + m * L::kDW + 2 * n;
                    uint32_t sum = c_int_taps.v[S + 1][RD] * uint32_t(d[RD]);
#pragma unroll
                    for (int k = 0; k < RD; ++k)
                        sum += c_int_taps.v[S + 1][k] * (uint32_t(d[k]) + uint32_t(d[2 * RD - k]));
                    uint16_t* outp = q == 0 ? a.next_ref : a.next_dis;
                    outp[static_cast<size_t>(gy) * a.next_pitch + gx] =
                        static_cast<uint16_t>(rshift_round32<16>(sum));
                }
            }
        }
    }

    // 4. Block sums, then one int64 atomic per accumulator.
    int64_t v[4];
    block_sum_stats<NT>(nl, dl, nn, dn, v, s_red);
    if (tid == 0) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            atomicAdd(a.acc + S * 4 + i, static_cast<unsigned long long>(v[i]));
    }
}

// The last block of the frame to finish publishes its accumulators and resets them (a batched
// launch counts each frame's blocks, gridDim.x * gridDim.y, on the frame's own counter).
__device__ __forceinline__ void int_publish_if_last(const IntScaleArgs& a) {
    __shared__ bool s_last;
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned int prev = atomicAdd(a.done_counter, 1u);
        s_last = prev == gridDim.x * gridDim.y - 1;
    }
    __syncthreads();
    if (s_last) {
        __threadfence();
        if (threadIdx.x < 16)
            a.out[threadIdx.x] = static_cast<long long>(atomicExch(a.acc + threadIdx.x, 0ull));
        if (threadIdx.x == 0) atomicExch(a.done_counter, 0u);
    }
}

// One scale per launch. kBatched: the instance for batched launches (grid.z = frame,
// int_frame_args); a separate instance so that one-frame launches keep their pointers in the
// constant bank instead of registers.
template <int S, int BPC, class P, bool kBatched = false>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    int_scale_kernel(const IntScaleArgs a) {
    extern __shared__ __align__(16) unsigned char smem[];
    if constexpr (kBatched) {
        const IntScaleArgs f = int_frame_args(a);
        int_scale_tile<S, BPC, P, false, true>(f, blockIdx.x, blockIdx.y, smem);
        if constexpr (S == 3) int_publish_if_last(f);
    } else {
        int_scale_tile<S, BPC, P, false, true>(a, blockIdx.x, blockIdx.y, smem);
        if constexpr (S == 3) int_publish_if_last(a);
    }
}

// Scales 2 and 3 in one launch (a 1-D grid: the scale-2 tiles, then the scale-3 tiles, whose
// inputs are derived from scale 2): one kernel boundary less for the two smallest scales.
template <class P2, class P3, bool kBatched = false>
__global__ void __launch_bounds__(P2::kThreads, P2::kMinBlocks)
    int_scale23_kernel(const IntScaleArgs a2, const IntScaleArgs a3, int blocks2, int grid2_x,
                       int grid3_x) {
    static_assert(P2::kThreads == P3::kThreads, "one block size per launch");
    extern __shared__ __align__(16) unsigned char smem[];
    const int b = blockIdx.x;
    if constexpr (kBatched) {
        const IntScaleArgs f3 = int_frame_args(a3);
        if (b < blocks2)
            int_scale_tile<2, 16, P2, false, false>(int_frame_args(a2), b % grid2_x, b / grid2_x,
                                                    smem);
        else
            int_scale_tile<3, 16, P3, true, false>(f3, (b - blocks2) % grid3_x,
                                                   (b - blocks2) / grid3_x, smem);
        int_publish_if_last(f3);
    } else {
        if (b < blocks2)
            int_scale_tile<2, 16, P2, false, false>(a2, b % grid2_x, b / grid2_x, smem);
        else
            int_scale_tile<3, 16, P3, true, false>(a3, (b - blocks2) % grid3_x,
                                                   (b - blocks2) / grid3_x, smem);
        int_publish_if_last(a3);
    }
}

} // namespace vif::cuda
