// Float VIF (docs/algorithm.md §7) on the GPU.
//
// One kernel per scale computes, for a tile of output pixels, the five filtered planes (vertical
// then horizontal, taps in order, every product and sum rounded to float: __fmul_rn/__fadd_rn,
// so no contraction even without --fmad=false), the per-pixel num/den of §7.4, and the
// decimated images of the next scale (§7.3). Per-pixel num/den go to global memory; a row
// kernel sums each row sequentially in float (one lane per row, column order) and a final kernel
// sums the row totals sequentially in row order: exactly libvmaf's order (§7.6), so the
// totals are bit-identical to the CPU reference.
//
// The filter width is a run-time value (3..65 taps, §5.3): float_scale_kernel takes any width
// and loops over the taps; float_scale_spec_kernel is the same computation for the default
// widths (kernelscale 1), unrolled and blocked in registers, which the engine picks when the
// widths match.
#pragma once

#include <cuda_pipeline.h>

#include <cstdint>

#include "kernels/device_helpers.cuh"

namespace vif::cuda {

struct FloatTaps {
    float stat[kMaxFloatFilterWidth]; // filter of this scale
    float down[kMaxFloatFilterWidth]; // filter of the next scale (downsampling)
    int n;                            // widths
    int nd;
};

struct FloatScaleArgs {
    const void* ref; // scale 0: raw samples; scales >= 1: float images
    const void* dis;
    ptrdiff_t ref_pitch; // bytes
    ptrdiff_t dis_pitch;
    int w, h;
    int ref_shift; // scale 0: right shift of each sample (MSB-aligned words)
    int dis_shift;
    float* next_ref; // scale S + 1 images, next_pitch floats per row
    float* next_dis;
    int next_pitch;
    float* num; // per-pixel results of this scale, pix_pitch floats per row
    float* den;
    int pix_pitch;
    float gain_limit; // fl32(vif_enhn_gain_limit)
};

// Shared memory (floats) for radius r and a tile policy P.
template <class P>
__host__ __device__ constexpr size_t float_smem_floats(int r) {
    const size_t iw = P::kTileW + 2 * r, ih = P::kTileH + 2 * r;
    return 2 * ih * iw + 5 * size_t(P::kTileH) * iw + 2 * size_t(P::kTileH / 2) * iw;
}

// §7.4 for one pixel: pixel_math.hpp's steps, the same functions as cpu_ref's float path.
__device__ __forceinline__ void float_pixel_stat(float mu1, float mu2, float exx, float eyy,
                                                 float exy, float gain_limit, float* num_out,
                                                 float* den_out) {
    const pixel::FloatLogArgs t = pixel::float_log_args(mu1, mu2, exx, eyy, exy, gain_limit);
    pixel::float_terms(log2_approx(t.a), log2_approx(t.b), t.sxy, t.sx, t.sy, *num_out, *den_out);
}

template <int S, int BPC>
__device__ __forceinline__ float float_load(const void* base, ptrdiff_t pitch, int y, int x,
                                            int shift) {
    const unsigned char* row = static_cast<const unsigned char*>(base) + y * pitch;
    if constexpr (S > 0) {
        return __ldg(reinterpret_cast<const float*>(row) + x);
    } else if constexpr (BPC == 8) {
        return __fsub_rn(static_cast<float>(__ldg(row + x)), 128.0f); // §7.1
    } else {
        const uint16_t v = __ldg(reinterpret_cast<const uint16_t*>(row) + x) >> shift;
        constexpr float kInv = 1.0f / static_cast<float>(1 << (BPC - 8)); // exact
        return __fsub_rn(__fmul_rn(static_cast<float>(v), kInv), 128.0f);
    }
}

// Both pictures' tile + halo (reflect-101) into s_in: ih rows of iw floats each, the distorted
// picture's ih * iw after the reference's. Tile origin (x0, y0), filter radius r.
template <int S, int BPC, int NT>
__device__ __forceinline__ void float_stage_tile(const FloatScaleArgs& a, int x0, int y0, int r,
                                                 int ih, int iw, float* s_in) {
    for (int i = threadIdx.x; i < ih * iw; i += NT) {
        const int rr = i / iw, c = i - rr * iw;
        const int gy = reflect_clamp(y0 - r + rr, a.h), gx = reflect_clamp(x0 - r + c, a.w);
        s_in[i] = float_load<S, BPC>(a.ref, a.ref_pitch, gy, gx, a.ref_shift);
        s_in[ih * iw + i] = float_load<S, BPC>(a.dis, a.dis_pitch, gy, gx, a.dis_shift);
    }
}

template <int S, int BPC, class P>
__global__ void __launch_bounds__(P::kThreads)
    float_scale_kernel(const FloatScaleArgs a, const FloatTaps taps) {
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads;
    const int n = taps.n, r = n / 2;
    const int iw = TW + 2 * r, ih = TH + 2 * r;
    extern __shared__ __align__(16) float fsm[];
    float* s_in = fsm;               // [2][ih][iw]
    float* s_v = s_in + 2 * ih * iw; // [5][TH][iw]
    float* s_d = s_v + 5 * TH * iw;  // [2][TH/2][iw]

    const int tid = threadIdx.x;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int w = a.w, h = a.h;

    float_stage_tile<S, BPC, NT>(a, x0, y0, r, ih, iw, s_in);
    __syncthreads();

    // Vertical passes (§7.2), accumulators start at 0, taps in order.
    const int rd = taps.nd / 2;
    for (int i = tid; i < TH * iw; i += NT) {
        const int rr = i / iw, c = i - rr * iw;
        float mx = 0.f, my = 0.f, xx = 0.f, yy = 0.f, xy = 0.f;
        for (int k = 0; k < n; ++k) {
            const float f = taps.stat[k];
            const float xv = s_in[(rr + k) * iw + c], yv = s_in[ih * iw + (rr + k) * iw + c];
            mx = __fadd_rn(mx, __fmul_rn(f, xv));
            my = __fadd_rn(my, __fmul_rn(f, yv));
            xx = __fadd_rn(xx, __fmul_rn(f, __fmul_rn(xv, xv)));
            yy = __fadd_rn(yy, __fmul_rn(f, __fmul_rn(yv, yv)));
            xy = __fadd_rn(xy, __fmul_rn(f, __fmul_rn(xv, yv)));
        }
        s_v[(0 * TH + rr) * iw + c] = mx;
        s_v[(1 * TH + rr) * iw + c] = my;
        s_v[(2 * TH + rr) * iw + c] = xx;
        s_v[(3 * TH + rr) * iw + c] = yy;
        s_v[(4 * TH + rr) * iw + c] = xy;
        if (S < 3 && (rr & 1) == 0) {
            float dx = 0.f, dy = 0.f;
            for (int k = 0; k < taps.nd; ++k) {
                const float f = taps.down[k];
                const int ri = rr + r - rd + k;
                dx = __fadd_rn(dx, __fmul_rn(f, s_in[ri * iw + c]));
                dy = __fadd_rn(dy, __fmul_rn(f, s_in[ih * iw + ri * iw + c]));
            }
            s_d[(rr / 2) * iw + c] = dx;
            s_d[(TH / 2 + rr / 2) * iw + c] = dy;
        }
    }
    __syncthreads();

    // Horizontal passes and per-pixel statistics.
    for (int i = tid; i < TH * TW; i += NT) {
        const int rr = i / TW, j = i - rr * TW;
        const int gy = y0 + rr, gx = x0 + j;
        if (gy >= h || gx >= w) continue;
        float v[5];
#pragma unroll
        for (int q = 0; q < 5; ++q) {
            const float* row = s_v + (q * TH + rr) * iw + j;
            float acc = 0.f;
            for (int k = 0; k < n; ++k) acc = __fadd_rn(acc, __fmul_rn(taps.stat[k], row[k]));
            v[q] = acc;
        }
        float nv, dv;
        float_pixel_stat(v[0], v[1], v[2], v[3], v[4], a.gain_limit, &nv, &dv);
        a.num[static_cast<size_t>(gy) * a.pix_pitch + gx] = nv;
        a.den[static_cast<size_t>(gy) * a.pix_pitch + gx] = dv;
    }

    if (S < 3) {
        const int wn = w / 2, hn = h / 2;
        for (int i = tid; i < (TH / 2) * (TW / 2); i += NT) {
            const int m = i / (TW / 2), c2 = i - m * (TW / 2);
            const int gy = y0 / 2 + m, gx = x0 / 2 + c2;
            if (gy >= hn || gx >= wn) continue;
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const float* row = s_d + (q * (TH / 2) + m) * iw + 2 * c2 + r - rd;
                float acc = 0.f;
                for (int k = 0; k < taps.nd; ++k)
                    acc = __fadd_rn(acc, __fmul_rn(taps.down[k], row[k]));
                (q == 0 ? a.next_ref : a.next_dis)[static_cast<size_t>(gy) * a.next_pitch + gx] =
                    acc;
            }
        }
    }
}

// The same computation for one filter width known at compile time (N statistics taps, ND
// downsampling taps: 17/9, 9/5, 5/3, 3/- at scales 0..3 with kernelscale 1). Every tap loop is
// unrolled, so each tap is a constant-bank operand (the kernel parameter at a fixed offset), and
// work is blocked in registers: a thread filters P::kVertRows rows of one column vertically
// (each input sample and its three products computed once for all of them) and 4 columns of one
// row horizontally from 16-byte shared-memory reads. Each output still starts at 0 and adds its
// taps in order k = 0..N-1 with __fmul_rn/__fadd_rn, the products as in float_scale_kernel: the
// same bits.
template <class P, int N>
__host__ __device__ constexpr int float_spec_row_stride() {
    return (P::kTileW + 2 * (N / 2) + 3) / 4 * 4; // multiple of 4 floats: 16-byte reads
}
template <class P, int N>
__host__ __device__ constexpr size_t float_spec_smem_floats() {
    constexpr size_t iw = float_spec_row_stride<P, N>(), ih = P::kTileH + 2 * (N / 2);
    return 2 * ih * iw + 5 * size_t(P::kTileH) * iw + 2 * size_t(P::kTileH / 2) * iw;
}

template <int S, int BPC, int N, int ND, class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    float_scale_spec_kernel(const FloatScaleArgs a, const FloatTaps taps) {
    constexpr int TW = P::kTileW, TH = P::kTileH, NT = P::kThreads, R = P::kVertRows;
    constexpr int r = N / 2, rd = ND / 2;
    constexpr int IW = float_spec_row_stride<P, N>(), IH = TH + 2 * r;
    constexpr bool kNext = S < 3;
    extern __shared__ __align__(16) float fsm[];
    float* s_in = fsm;               // [2][IH][IW]
    float* s_v = s_in + 2 * IH * IW; // [5][TH][IW]
    float* s_d = s_v + 5 * TH * IW;  // [2][TH/2][IW]

    const int tid = threadIdx.x;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int w = a.w, h = a.h;

    // Every column of the padded rows is loaded and filtered (the 16-byte reads below cover
    // up to IW - 1; columns past TW + 2r only feed outputs outside the tile).
    float_stage_tile<S, BPC, NT>(a, x0, y0, r, IH, IW, s_in);
    __syncthreads();

    // Vertical passes (§7.2) and the vertical half of the downsampling (§7.3, even rows).
    // Input row t of the group feeds output row o with tap k = t - o: walking t upwards, every
    // output takes its taps in order.
    for (int i = tid; i < (TH / R) * IW; i += NT) {
        const int g = i / IW, c = i - g * IW;
        const float* px = s_in + g * R * IW + c;
        const float* py = px + IH * IW;
        float mx[R], my[R], xx[R], yy[R], xy[R], dx[R / 2], dy[R / 2];
#pragma unroll
        for (int o = 0; o < R; ++o) mx[o] = my[o] = xx[o] = yy[o] = xy[o] = 0.f;
#pragma unroll
        for (int o = 0; o < R / 2; ++o) dx[o] = dy[o] = 0.f;
#pragma unroll
        for (int t = 0; t < R + N - 1; ++t) {
            const float xv = px[t * IW], yv = py[t * IW];
            const float x2 = __fmul_rn(xv, xv), y2 = __fmul_rn(yv, yv), p2 = __fmul_rn(xv, yv);
#pragma unroll
            for (int o = 0; o < R; ++o) {
                const int k = t - o;
                if (k < 0 || k >= N) continue;
                const float f = taps.stat[k];
                mx[o] = __fadd_rn(mx[o], __fmul_rn(f, xv));
                my[o] = __fadd_rn(my[o], __fmul_rn(f, yv));
                xx[o] = __fadd_rn(xx[o], __fmul_rn(f, x2));
                yy[o] = __fadd_rn(yy[o], __fmul_rn(f, y2));
                xy[o] = __fadd_rn(xy[o], __fmul_rn(f, p2));
            }
            if constexpr (kNext) {
#pragma unroll
                for (int o = 0; o < R; o += 2) {
                    const int k = t - o - (r - rd); // row o + r - rd + k of the input
                    if (k < 0 || k >= ND) continue;
                    const float f = taps.down[k];
                    dx[o / 2] = __fadd_rn(dx[o / 2], __fmul_rn(f, xv));
                    dy[o / 2] = __fadd_rn(dy[o / 2], __fmul_rn(f, yv));
                }
            }
        }
#pragma unroll
        for (int o = 0; o < R; ++o) {
            const int rr = g * R + o;
            s_v[(0 * TH + rr) * IW + c] = mx[o];
            s_v[(1 * TH + rr) * IW + c] = my[o];
            s_v[(2 * TH + rr) * IW + c] = xx[o];
            s_v[(3 * TH + rr) * IW + c] = yy[o];
            s_v[(4 * TH + rr) * IW + c] = xy[o];
        }
        if constexpr (kNext) {
#pragma unroll
            for (int o = 0; o < R / 2; ++o) {
                const int m = g * (R / 2) + o;
                s_d[m * IW + c] = dx[o];
                s_d[(TH / 2 + m) * IW + c] = dy[o];
            }
        }
    }
    __syncthreads();

    // Horizontal passes and per-pixel statistics: 4 consecutive pixels of one row per thread.
    constexpr int kNV = (N + 3 + 3) / 4; // 16-byte reads per plane: columns j .. j + N + 2
    static_assert(TW - 4 + 4 * kNV <= IW, "the reads stay inside the row");
    for (int i = tid; i < TH * (TW / 4); i += NT) {
        const int rr = i / (TW / 4), j = (i - rr * (TW / 4)) * 4;
        const int gy = y0 + rr, gx = x0 + j;
        if (gy >= h || gx >= w) continue;
        float v[5][4];
#pragma unroll
        for (int q = 0; q < 5; ++q) {
            const float4* row = reinterpret_cast<const float4*>(s_v + (q * TH + rr) * IW + j);
            float in[4 * kNV];
#pragma unroll
            for (int m = 0; m < kNV; ++m) {
                const float4 t = row[m];
                in[4 * m] = t.x;
                in[4 * m + 1] = t.y;
                in[4 * m + 2] = t.z;
                in[4 * m + 3] = t.w;
            }
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                float acc = 0.f;
#pragma unroll
                for (int k = 0; k < N; ++k)
                    acc = __fadd_rn(acc, __fmul_rn(taps.stat[k], in[c + k]));
                v[q][c] = acc;
            }
        }
        float nv[4], dv[4];
#pragma unroll
        for (int c = 0; c < 4; ++c)
            float_pixel_stat(v[0][c], v[1][c], v[2][c], v[3][c], v[4][c], a.gain_limit, &nv[c],
                             &dv[c]);
        float* num = a.num + static_cast<size_t>(gy) * a.pix_pitch + gx;
        float* den = a.den + static_cast<size_t>(gy) * a.pix_pitch + gx;
        if (gx + 3 < w) { // rows start on 256-byte boundaries (pitch of 64 floats), gx % 4 == 0
            *reinterpret_cast<float4*>(num) = make_float4(nv[0], nv[1], nv[2], nv[3]);
            *reinterpret_cast<float4*>(den) = make_float4(dv[0], dv[1], dv[2], dv[3]);
        } else {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (gx + c < w) {
                    num[c] = nv[c];
                    den[c] = dv[c];
                }
        }
    }

    // Horizontal half of the downsampling: outputs 2p and 2p + 1 of a row of the next scale per
    // thread, i.e. columns j = 4p and j + 2 of the tile, taps at j + r - rd + k (and + 2).
    if constexpr (kNext) {
        constexpr int off = r - rd, base = off & ~3;
        constexpr int kND4 = (off - base + ND + 1 + 4) / 4; // 16-byte reads covering them
        static_assert(TW - 4 + base + 4 * kND4 <= IW, "the reads stay inside the row");
        const int wn = w / 2, hn = h / 2;
        for (int i = tid; i < (TH / 2) * (TW / 4); i += NT) {
            const int m = i / (TW / 4), p = i - m * (TW / 4);
            const int gy = y0 / 2 + m, gx = x0 / 2 + 2 * p;
            if (gy >= hn || gx >= wn) continue;
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const float4* row =
                    reinterpret_cast<const float4*>(s_d + (q * (TH / 2) + m) * IW + 4 * p + base);
                float in[4 * kND4];
#pragma unroll
                for (int u = 0; u < kND4; ++u) {
                    const float4 t = row[u];
                    in[4 * u] = t.x;
                    in[4 * u + 1] = t.y;
                    in[4 * u + 2] = t.z;
                    in[4 * u + 3] = t.w;
                }
                float o0 = 0.f, o1 = 0.f;
#pragma unroll
                for (int k = 0; k < ND; ++k) {
                    o0 = __fadd_rn(o0, __fmul_rn(taps.down[k], in[off - base + k]));
                    o1 = __fadd_rn(o1, __fmul_rn(taps.down[k], in[off - base + 2 + k]));
                }
                float* out = (q == 0 ? a.next_ref : a.next_dis) +
                             static_cast<size_t>(gy) * a.next_pitch + gx;
                if (gx + 1 < wn) { // next_pitch a multiple of 64 floats, gx even
                    *reinterpret_cast<float2*>(out) = make_float2(o0, o1);
                } else {
                    out[0] = o0;
                }
            }
        }
    }
}

// Row totals (§7.6): each row summed in float in column order, one lane per row. Those chains
// are sequential by definition, so the kernel's job is to keep them fed. A block owns 32
// consecutive rows of one scale: warp 0 runs the 32 row chains (num and den, interleaved) over
// chunks of kRowSumChunk columns in shared memory, while the other warps copy chunks ahead with
// cp.async (no registers held, kRowSumBuffers - 1 chunks in flight), so a step costs the
// chains' add latency rather than a global-memory latency.
struct RowSumArgs {
    const float* num[kNumScales];
    const float* den[kNumScales];
    int pitch[kNumScales];
    int w[kNumScales], h[kNumScales];
    int row_offset[kNumScales];      // where each scale's row totals start in row_num/row_den
    int group_start[kNumScales + 1]; // first 32-row group of each scale; [4] = total groups
    float* row_num;
    float* row_den;
};

constexpr int kRowSumChunk = 128;
constexpr int kRowSumBuffers = 3;
// Row stride: a multiple of 4 floats for 16-byte reads, 4 mod 32 so that the 8 lanes of each
// quarter-warp phase (lane = row) read 8 disjoint groups of 4 banks.
constexpr int kRowSumStride = kRowSumChunk + 4;
constexpr size_t kRowSumSmemBytes = sizeof(float) * kRowSumBuffers * 2 * 32 * kRowSumStride;

template <int kWarps>
__global__ void __launch_bounds__(kWarps * 32) float_row_sum_kernel(const RowSumArgs a) {
    static_assert(kWarps >= 2, "one summing warp and at least one copying warp");
    static_assert(kRowSumChunk % 32 == 0 && kRowSumStride % 4 == 0, "16-byte reads");
    constexpr int C = kRowSumChunk, CS = kRowSumStride, NB = kRowSumBuffers;
    extern __shared__ __align__(16) float row_tiles[]; // [NB][num, den][32 rows][CS]
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = blockIdx.x;
    int s = 0;
    while (s < kNumScales - 1 && group >= a.group_start[s + 1]) ++s;
    const int r0 = (group - a.group_start[s]) * 32;
    const int w = a.w[s], h = a.h[s], pitch = a.pitch[s];
    const float* num = a.num[s];
    const float* den = a.den[s];
    const int rows = min(32, h - r0), chunks = (w + C - 1) / C;

    // Copying warps: chunk k into buffer k % NB, one commit group per chunk (empty past the end,
    // so that group counting stays uniform). One 16-byte cp.async per lane: a warp moves 128
    // columns of one row per instruction. Pieces start below w, so with the row pitch a multiple
    // of 4 floats (the engine's is of 64) they stay inside the row's padding.
    static_assert(C == 128, "one row of a chunk per warp-wide 16-byte copy");
    auto copy_chunk = [&](int k) {
        if (k < chunks) {
            float* buf = row_tiles + (k % NB) * 2 * 32 * CS;
            const int c = k * C + 4 * lane;
            for (int i = warp - 1; i < 2 * rows; i += kWarps - 1) {
                const int q = i & 1, r = i >> 1;
                if (c < w)
                    __pipeline_memcpy_async(buf + (q * 32 + r) * CS + 4 * lane,
                                            (q == 0 ? num : den) +
                                                static_cast<size_t>(r0 + r) * pitch + c,
                                            4 * sizeof(float));
            }
        }
        __pipeline_commit();
    };
    if (warp > 0)
        for (int k = 0; k < NB - 1; ++k) copy_chunk(k);
    float sn = 0.f, sd = 0.f;
    for (int k = 0; k < chunks; ++k) {
        if (warp > 0) {
            copy_chunk(k + NB - 1);        // into the buffer summed in step k - 1
            __pipeline_wait_prior(NB - 1); // this thread's copies of chunk k have landed
        }
        __syncthreads(); // every thread's copies of chunk k have landed
        if (warp == 0 && lane < rows) {
            const float* tn = row_tiles + (k % NB) * 2 * 32 * CS + lane * CS;
            const float* td = tn + 32 * CS;
            const int cols = min(C, w - k * C);
            if (cols == C) {
                // Four columns per 16-byte load, the next four loaded before the current ones
                // are added: the chains then wait on the add latency, not on a load's.
                const float4* vn = reinterpret_cast<const float4*>(tn);
                const float4* vd = reinterpret_cast<const float4*>(td);
                float4 an = vn[0], ad = vd[0];
#pragma unroll 8
                for (int j = 1; j <= C / 4; ++j) {
                    const float4 bn = j < C / 4 ? vn[j] : an, bd = j < C / 4 ? vd[j] : ad;
                    sn = __fadd_rn(__fadd_rn(__fadd_rn(__fadd_rn(sn, an.x), an.y), an.z), an.w);
                    sd = __fadd_rn(__fadd_rn(__fadd_rn(__fadd_rn(sd, ad.x), ad.y), ad.z), ad.w);
                    an = bn;
                    ad = bd;
                }
            } else {
                for (int j = 0; j < cols; ++j) {
                    sn = __fadd_rn(sn, tn[j]);
                    sd = __fadd_rn(sd, td[j]);
                }
            }
        }
        __syncthreads(); // buffer k % NB may be refilled from the next step on
    }
    if (warp == 0 && lane < rows) {
        a.row_num[a.row_offset[s] + r0 + lane] = sn;
        a.row_den[a.row_offset[s] + r0 + lane] = sd;
    }
}

struct FloatFinalArgs {
    const float* row_num;
    const float* row_den;
    int row_offset[kNumScales];
    int h[kNumScales];
    float* out_num; // [4]
    float* out_den; // [4]
};

// One warp per scale: the row totals summed in float in row order. Pieces of kFinalPiece rows
// are first copied to shared memory by the whole warp (all copies in flight, one latency per
// piece), then every lane runs the same chain over them (broadcast reads, one ahead of the
// adds); lane 0 writes the totals.
constexpr int kFinalPiece = 1024;

__global__ void __launch_bounds__(128) float_final_kernel(const FloatFinalArgs a) {
    __shared__ __align__(16) float rows_n[4][kFinalPiece], rows_d[4][kFinalPiece];
    const int s = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float* rn = a.row_num + a.row_offset[s];
    const float* rd = a.row_den + a.row_offset[s];
    const int h = a.h[s];
    float sn = 0.f, sd = 0.f;
    for (int p0 = 0; p0 < h; p0 += kFinalPiece) {
        const int n = min(kFinalPiece, h - p0);
        __syncwarp();
        // Every copy of the piece in flight at once (cp.async, no registers held), then one wait.
        for (int i = lane; i < n; i += 32) {
            __pipeline_memcpy_async(&rows_n[s][i], rn + p0 + i, sizeof(float));
            __pipeline_memcpy_async(&rows_d[s][i], rd + p0 + i, sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        // Four rows per 16-byte (broadcast) read, the next four read before these are added.
        int j = 0;
        if (n >= 4) {
            const float4* vn = reinterpret_cast<const float4*>(rows_n[s]);
            const float4* vd = reinterpret_cast<const float4*>(rows_d[s]);
            const int quads = n / 4;
            float4 an = vn[0], ad = vd[0];
            for (int q = 1; q <= quads; ++q) {
                const float4 bn = q < quads ? vn[q] : an, bd = q < quads ? vd[q] : ad;
                sn = __fadd_rn(__fadd_rn(__fadd_rn(__fadd_rn(sn, an.x), an.y), an.z), an.w);
                sd = __fadd_rn(__fadd_rn(__fadd_rn(__fadd_rn(sd, ad.x), ad.y), ad.z), ad.w);
                an = bn;
                ad = bd;
            }
            j = 4 * quads;
        }
        for (; j < n; ++j) {
            sn = __fadd_rn(sn, rows_n[s][j]);
            sd = __fadd_rn(sd, rows_d[s][j]);
        }
    }
    if (lane == 0) {
        a.out_num[s] = sn;
        a.out_den[s] = sd;
    }
}

} // namespace vif::cuda
