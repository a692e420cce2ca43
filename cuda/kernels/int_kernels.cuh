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
// Integer sums are exact, so the result does not depend on tile shape or scheduling. Steps 1-4
// are the block steps of int_block_steps.cuh (shared with the ladder kernel, whose rungs must
// equal their pairs bit for bit); its header has the arithmetic notes.
#pragma once

#include <cstdint>

#include "kernels/int_block_steps.cuh"

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
    // Maps instances only (kMaps): this scale's per-pixel terms (docs/algorithm.md §12.1), the
    // planes nl, dl, nn, dn of w x h int32 one after another. Last, so that the other fields
    // keep their parameter offsets (the plain kernels' code is unchanged).
    int32_t* map;
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

// Where a maps instance stores the terms of its pixels (docs/algorithm.md §12.1): pixel p of
// the scale at map[p], map[p + plane], map[p + 2 plane], map[p + 3 plane] (nl, dl, nn, dn).
struct MapStore {
    int32_t* map;
    size_t plane;
    __device__ __forceinline__ void put(size_t p, int32_t nl, int32_t dl, int32_t nn,
                                        int32_t dn) const {
        map[p] = nl;
        map[p + plane] = dl;
        map[p + 2 * plane] = nn;
        map[p + 3 * plane] = dn;
    }
};

// The terms sink of the plain instances: nothing is kept.
struct NoTerms {
    __device__ __forceinline__ void operator()(int, int32_t, int32_t, int32_t, int32_t) const {}
};

// int_pixel_stat for a maps instance: the pixel's own terms go to put(o, nl, dl, nn, dn), then
// are added.
template <unsigned F, class LogT, class PutTerms>
__device__ __forceinline__ void
int_pixel_stat_map(uint32_t mux, uint32_t muy, uint32_t exx, uint32_t eyy, uint32_t exy,
                   const LogT& lt, double gain_limit, int32_t& nl, int32_t& dl, int64_t& nn,
                   int32_t& dn, const PutTerms& put, int o) {
    int32_t pl = 0, pd = 0, pdn = 0;
    int64_t pn = 0;
    pixel::add_pixel<F>(pixel::variance(exx, mux, mux), pixel::variance(eyy, muy, muy),
                        pixel::variance(exy, mux, muy), lt, gain_limit, pl, pd, pn, pdn);
    put(o, pl, pd, static_cast<int32_t>(pn), pdn);
    nl += pl;
    dl += pd;
    nn += pn;
    dn += pdn;
}

// The same statistics for the HC pixels of one thread, written without branches so that their
// independent chains (table loads, divisions) overlap: every pixel runs the same instructions
// with safe operands where a branch of §6.5 does not apply, and the masks pick what is
// added. Bit-identical to int_pixel_stat on the pixels it counts.
// kMaps: each counted pixel's terms also go to put(o, nl, dl, nn, dn).
template <int HC, unsigned F, class LogT, bool kMaps = false, class PutTerms = NoTerms>
__device__ __forceinline__ void
int_pixel_stats_ilp(const uint32_t (&mu)[2][HC], const uint32_t (&e)[3][HC], uint32_t valid,
                    const LogT& lt, double gain_limit, int32_t& nl, int32_t& dl, int64_t& nn,
                    int32_t& dn, const PutTerms& put = PutTerms{}) {
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
        const int32_t pd = big ? ld[o] - 17 * 2048 : 0, pl = lp ? ln[o] : 0;
        const int32_t pn = big ? 0 : syy[o], pdn = big ? 0 : 1;
        dl += pd;
        nl += pl;
        nn += pn;
        dn += pdn;
        if constexpr (kMaps) put(o, pl, pd, pn, pdn);
    }
}

// One tile (block coordinates bx, by) of scale S: everything but the frame-level bookkeeping,
// in the block steps of int_block_steps.cuh.
// kFromFiner: S == 3 inside the fused 2+3 launch (inputs derived from scale 2).
// kWriteNext: whether to produce the next scale's samples (off for scale 2 when fused).
// kMaps: the maps instance, storing each pixel's terms at a.map (docs/algorithm.md §12.1).
template <int S, int BPC, class P, bool kFromFiner, bool kWriteNext, bool kMaps = false>
__device__ __forceinline__ void int_scale_tile(const IntScaleArgs& a, int bx, int by,
                                               unsigned char* smem) {
    using Info = IntScaleInfo<S>;
    using L = IntSmemLayout<S, P>;
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads;
    constexpr int HC = P::kHorizCols;
    constexpr int SD = L::kSD, SM = L::kSM;

    double* s_mom = reinterpret_cast<double*>(smem + L::kOffMoments); // xx, yy, xy
    int64_t* s_red = reinterpret_cast<int64_t*>(smem + L::kOffReduce);
    uint16_t* s_in = reinterpret_cast<uint16_t*>(smem + L::kOffIn);    // x, y
    uint16_t* s_mu = reinterpret_cast<uint16_t*>(smem + L::kOffMeans); // mu x, mu y

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

    // 1. Tile + halo of both pictures.
    const StagePic pics[2] = {{a.ref, a.ref_pitch, S == 0 ? a.ref_shift : 0},
                              {a.dis, a.dis_pitch, S == 0 ? a.dis_shift : 0}};
    int_stage_tile<S, BPC, P, kFromFiner>(pics, w, h, a.src_w, a.src_h, x0, y0, s_in);
    if constexpr (kLogPieces > 0) {
        uint4* dst = reinterpret_cast<uint4*>(smem + L::kOffLog);
#pragma unroll
        for (int it = 0; it < kLogIt; ++it)
            if (kLogPieces % NT == 0 || tid + it * NT < kLogPieces) dst[tid + it * NT] = log_v[it];
    }
    __syncthreads();

    // 2. Vertical passes of both pictures.
    int_vertical_step<S, BPC, P, vert::kPair, kWriteNext>(smem);
    __syncthreads();

    // 3. Horizontal passes and per-pixel statistics. One thread: one row, HC consecutive
    //    columns; consecutive lanes take consecutive rows (conflict-free with the odd strides).
    // Per-thread sums: NL, DL and DN fit 32 bits for a block's pixels (|NL| < 2^17 and |DL| < 2^16
    // per pixel, at most 1024 pixels a block); NN (a variance per pixel) needs 64.
    int32_t nl = 0, dl = 0, dn = 0;
    int64_t nn = 0;
    const auto lt = int_log_of<P, L>(a.log, smem);
    // Maps: where the pixels' terms go. Written straight to global memory, one lane a row, a
    // warp's stores touch a sector per lane and plane (1080p: 1.77x the kernel time). When the
    // block's horizontal tasks fit one pass (every shipped shape), each thread keeps its HC
    // pixels' terms in registers instead, and they reach global memory through shared memory as
    // whole rows (kStagedMaps, below).
    constexpr int kGroups = TW / HC;
    constexpr bool kStagedMaps = kMaps && !P::kHorizMma && TH * kGroups <= NT;
    const MapStore ms{a.map, static_cast<size_t>(w) * h};
    // Held packed (§12.1: a pixel's nl and nn are never both non-zero, and dn says which one
    // it has): mt_a = dn ? nn : nl, mt_d = dl, bit o of mt_dn = dn. 2 HC + 1 registers, not 4 HC.
    int32_t mt_a[kStagedMaps ? HC : 1] = {}, mt_d[kStagedMaps ? HC : 1] = {};
    uint32_t mt_dn = 0;
    size_t map_p0 = 0; // direct stores: the first pixel of the thread's current task
    const auto put = [&](int o, int32_t pl, int32_t pd, int32_t pn, int32_t pdn) {
        if constexpr (kStagedMaps) {
            mt_a[o] = pdn ? pn : pl;
            mt_d[o] = pd;
            mt_dn |= pdn ? 1u << o : 0u;
        } else {
            ms.put(map_p0 + o, pl, pd, pn, pdn);
        }
    };
    if constexpr (P::kHorizMma) {
        // The same sums from the FP64 tensor cores (int_tensor_passes.cuh), two pixels a lane.
        int_horizontal_dmma<TW, TH, SM, SD, NT>(
            s_mu, s_mom,
            [&](int row, int col, const uint32_t(&mu)[2][2], const uint32_t(&e)[3][2]) {
                const int gy = y0 + row;
                uint32_t valid = 0;
#pragma unroll
                for (int o = 0; o < 2; ++o) valid |= (x0 + col + o < w && gy < h) ? 1u << o : 0u;
                map_p0 = static_cast<size_t>(gy) * w + x0 + col;
                int_pixel_stats_ilp<2, F, decltype(lt), kMaps>(mu, e, valid, lt, a.gain_limit, nl,
                                                               dl, nn, dn, put);
            });
    } else {
        for (int t = tid; t < TH * kGroups; t += NT) {
            const int row = t % TH, j0 = (t / TH) * HC;
            uint32_t mu[2][HC];
#pragma unroll
            for (int q = 0; q < 2; ++q) int_mean_h<S, HC>(s_mu + (q * TH + row) * SM + j0, mu[q]);
            uint32_t e[3][HC];
#pragma unroll
            for (int q = 0; q < 3; ++q) int_moment_h<S, HC>(s_mom + (q * TH + row) * SD + j0, e[q]);
            const int gy = y0 + row;
            map_p0 = static_cast<size_t>(gy) * w + x0 + j0;
            if constexpr (P::kStatsILP) {
                uint32_t valid = 0;
#pragma unroll
                for (int o = 0; o < HC; ++o) valid |= (x0 + j0 + o < w && gy < h) ? 1u << o : 0u;
                int_pixel_stats_ilp<HC, F, decltype(lt), kMaps>(mu, e, valid, lt, a.gain_limit, nl,
                                                                dl, nn, dn, put);
            } else {
#pragma unroll
                for (int o = 0; o < HC; ++o) {
                    const int gx = x0 + j0 + o;
                    if (gx < w && gy < h) {
                        if constexpr (kMaps)
                            int_pixel_stat_map<F>(mu[0][o], mu[1][o], e[0][o], e[1][o], e[2][o], lt,
                                                  a.gain_limit, nl, dl, nn, dn, put, o);
                        else
                            int_pixel_stat<F>(mu[0][o], mu[1][o], e[0][o], e[1][o], e[2][o], lt,
                                              a.gain_limit, nl, dl, nn, dn);
                    }
                }
            }
        }
    }

    // Maps, staged: once every thread has read its moments, their space holds the tile's terms
    // ([4 planes][TH][TW + 1] int32; the odd stride keeps a warp's column writes on distinct
    // banks), then each warp stores runs of consecutive pixels of a row (full sectors).
    if constexpr (kStagedMaps) {
        constexpr int SS = TW + 1;
        static_assert(sizeof(int32_t) * 4 * TH * SS <= L::kOffReduce - L::kOffMoments,
                      "the tile's terms fit where its moments were");
        int32_t* s_terms = reinterpret_cast<int32_t*>(smem + L::kOffMoments);
        __syncthreads();
        if (tid < TH * kGroups) {
            const int row = tid % TH, j0 = (tid / TH) * HC;
            int32_t* const d = s_terms + row * SS + j0;
#pragma unroll
            for (int o = 0; o < HC; ++o) {
                const bool low = (mt_dn >> o) & 1u; // the low-variance branch
                d[o] = low ? 0 : mt_a[o];
                d[TH * SS + o] = mt_d[o];
                d[2 * TH * SS + o] = low ? mt_a[o] : 0;
                d[3 * TH * SS + o] = low ? 1 : 0;
            }
        }
        __syncthreads();
        const size_t plane = static_cast<size_t>(w) * h;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
#pragma unroll
            for (int k = 0; k < (TH * TW + NT - 1) / NT; ++k) {
                const int i = tid + k * NT, r = i / TW, c = i - r * TW;
                const int gx = x0 + c, gy = y0 + r;
                if ((TH * TW % NT == 0 || i < TH * TW) && gx < w && gy < h)
                    a.map[q * plane + static_cast<size_t>(gy) * w + gx] =
                        s_terms[(q * TH + r) * SS + c];
            }
        }
    }

    // Downsampling filter, horizontal pass at the even columns: samples of scale S + 1.
    if constexpr (Info::kHasNext && kWriteNext) {
        uint16_t* const next[2] = {a.next_ref, a.next_dis};
        int_down_h<S, P, 0, 2>(smem, x0, y0, w, h, next, a.next_pitch);
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

// Resident blocks an SM that int_scale_kernel's __launch_bounds__ asks for (which caps its
// registers): the shape's, except for the maps instances of scale 0 at 10 and 12 bits, which
// keep a few values more than the 64 registers of 4 blocks of 256 threads and spilled 20 bytes
// there: they ask for one block less. The plain instances keep the shape's, so their code is
// what it was.
template <int S, int BPC, class P, bool kMaps>
constexpr int int_scale_min_blocks() {
    return kMaps && S == 0 && (BPC == 10 || BPC == 12) && P::kMinBlocks > 1 ? P::kMinBlocks - 1
                                                                            : P::kMinBlocks;
}

// One scale per launch. kBatched: the instance for batched launches (grid.z = frame,
// int_frame_args); a separate instance so that one-frame launches keep their pointers in the
// constant bank instead of registers. kMaps: the instance that also stores each pixel's terms
// (one-frame launches only), so that the plain instances are the code they were.
template <int S, int BPC, class P, bool kBatched = false, bool kMaps = false>
__global__ void __launch_bounds__(P::kThreads, (int_scale_min_blocks<S, BPC, P, kMaps>()))
    int_scale_kernel(const IntScaleArgs a) {
    static_assert(!(kBatched && kMaps), "maps: one frame per launch");
    extern __shared__ __align__(16) unsigned char smem[];
    if constexpr (kBatched) {
        const IntScaleArgs f = int_frame_args(a);
        int_scale_tile<S, BPC, P, false, true>(f, blockIdx.x, blockIdx.y, smem);
        if constexpr (S == 3) int_publish_if_last(f);
    } else {
        int_scale_tile<S, BPC, P, false, true, kMaps>(a, blockIdx.x, blockIdx.y, smem);
        if constexpr (S == 3) int_publish_if_last(a);
    }
}

// Scales 2 and 3 in one launch (a 1-D grid: the scale-2 tiles, then the scale-3 tiles, whose
// inputs are derived from scale 2): one kernel boundary less for the two smallest scales.
template <class P2, class P3, bool kBatched = false, bool kMaps = false>
__global__ void __launch_bounds__(P2::kThreads, P2::kMinBlocks)
    int_scale23_kernel(const IntScaleArgs a2, const IntScaleArgs a3, int blocks2, int grid2_x,
                       int grid3_x) {
    static_assert(P2::kThreads == P3::kThreads, "one block size per launch");
    static_assert(!(kBatched && kMaps), "maps: one frame per launch");
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
            int_scale_tile<2, 16, P2, false, false, kMaps>(a2, b % grid2_x, b / grid2_x, smem);
        else
            int_scale_tile<3, 16, P3, true, false, kMaps>(a3, (b - blocks2) % grid3_x,
                                                          (b - blocks2) / grid3_x, smem);
        int_publish_if_last(a3);
    }
}

} // namespace vif::cuda
