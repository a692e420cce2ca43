// Integer VIF of one reference against K distorted pictures (a ladder's rungs, vif_submit_multi)
// with the reference's work done once (docs/cuda.md, "One reference, K rungs").
//
// A block owns the same kTileW x kTileH tile as int_scale_tile (int_kernels.cuh), made of the same
// block steps (int_block_steps.cuh), and
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
    const uint64_t un = static_cast<uint64_t>(nn);
    wnl = static_cast<int32_t>(warp_sum_u32(static_cast<uint32_t>(nl)));
    const uint32_t lo = warp_sum_u32(static_cast<uint32_t>(un & 0xFFFFFFu));
    const uint32_t mid = warp_sum_u32(static_cast<uint32_t>((un >> 24) & 0xFFFFFFu));
    const uint32_t hi = warp_sum_u32(static_cast<uint32_t>(un >> 48)); // sign bits
    wnn = static_cast<int64_t>(uint64_t(lo) + (uint64_t(mid) << 24) + (uint64_t(hi) << 48));
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
    {
        const StagePic ref[1] = {{a.ref, a.ref_pitch, S == 0 ? a.ref_shift : 0}};
        int_stage_tile<S, BPC, P, kFromFiner>(ref, w, h, a.src_w, a.src_h, x0, y0, s_in);
    }
    __syncthreads();
    int_vertical_step<S, BPC, P, vert::kX, kWriteNext>(smem);
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
            int_mean_h<S, HC>(s_mu + row * SM + j0, mux[it]);
            int_moment_h<S, HC>(s_mom + row * SD + j0, exx);
#pragma unroll
            for (int o = 0; o < HC; ++o) {
                sxx[it][o] = pixel::variance(exx[o], mux[it][o], mux[it][o]);
                if (x0 + j0 + o < w && y0 + row < h) pixel::add_pixel_den(sxx[it][o], lt, dl, dn);
            }
        }
    }
    if constexpr (kNext)
        if (g == 0) {
            uint16_t* const next[1] = {a.next_ref};
            int_down_h<S, P, 0, 1>(smem, x0, y0, w, h, next, a.next_pitch);
        }
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
        {
            const StagePic dis[1] = {{a.dis[k], a.dis_pitch, S == 0 ? a.dis_shift[k] : 0}};
            int_stage_tile<S, BPC, P, kFromFiner>(dis, w, h, a.src_w, a.src_h, x0, y0,
                                                  s_in + IH * SI);
        }
        __syncthreads();
        int_vertical_step<S, BPC, P, vert::kRung, kWriteNext>(smem);
        __syncthreads();
        int32_t nl = 0;
        int64_t nn = 0;
#pragma unroll
        for (int it = 0; it < kHIt; ++it) {
            const int t = tid + it * NT;
            if (kTasks % NT == 0 || t < kTasks) {
                const int row = t % TH, j0 = (t / TH) * HC;
                uint32_t muy[HC], eyy[HC], exy[HC];
                int_mean_h<S, HC>(s_mu + (TH + row) * SM + j0, muy);
                int_moment_h<S, HC>(s_mom + (TH + row) * SD + j0, eyy);
                int_moment_h<S, HC>(s_mom + (2 * TH + row) * SD + j0, exy);
#pragma unroll
                for (int o = 0; o < HC; ++o)
                    if (x0 + j0 + o < w && y0 + row < h)
                        pixel::add_pixel_num<F>(sxx[it][o], pixel::variance(eyy[o], muy[o], muy[o]),
                                                pixel::variance(exy[o], mux[it][o], muy[o]), lt,
                                                a.gain_limit, nl, nn);
            }
        }
        if constexpr (kNext) {
            uint16_t* const next[1] = {a.next_dis + k * a.next_rung_elems};
            int_down_h<S, P, 1, 1>(smem, x0, y0, w, h, next, a.next_pitch);
        }
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
