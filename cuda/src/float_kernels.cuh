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
// The filter width is a run-time value (3..65 taps, §5.3), so these kernels do not unroll
// over taps; the float path is the compatibility path, not the speed target.
#pragma once

#include <cstdint>

#include "device_helpers.cuh"

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

    for (int i = tid; i < ih * iw; i += NT) {
        const int rr = i / iw, c = i - rr * iw;
        const int gy = reflect_clamp(y0 - r + rr, h), gx = reflect_clamp(x0 - r + c, w);
        s_in[i] = float_load<S, BPC>(a.ref, a.ref_pitch, gy, gx, a.ref_shift);
        s_in[ih * iw + i] = float_load<S, BPC>(a.dis, a.dis_pitch, gy, gx, a.dis_shift);
    }
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

// Row totals: one warp per 32 consecutive rows of one scale, one lane per row, each row summed
// in float in column order (§7.6). Chunks of 32x32 go through shared memory so that the
// global loads stay coalesced.
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

template <int kWarps>
__global__ void __launch_bounds__(kWarps * 32) float_row_sum_kernel(const RowSumArgs a) {
    __shared__ float tile[kWarps][2][32][33];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = blockIdx.x * kWarps + warp;
    if (group >= a.group_start[kNumScales]) return;
    int s = 0;
    while (s < kNumScales - 1 && group >= a.group_start[s + 1]) ++s;
    const int r0 = (group - a.group_start[s]) * 32;
    const int w = a.w[s], h = a.h[s], pitch = a.pitch[s];
    const float* num = a.num[s];
    const float* den = a.den[s];
    float sn = 0.f, sd = 0.f;
    for (int c0 = 0; c0 < w; c0 += 32) {
        const int c = c0 + lane;
        for (int rr = 0; rr < 32; ++rr) {
            const int row = r0 + rr;
            const bool ok = row < h && c < w;
            tile[warp][0][rr][lane] = ok ? __ldg(num + static_cast<size_t>(row) * pitch + c) : 0.f;
            tile[warp][1][rr][lane] = ok ? __ldg(den + static_cast<size_t>(row) * pitch + c) : 0.f;
        }
        __syncwarp();
        const int cols = min(32, w - c0);
        for (int j = 0; j < cols; ++j) {
            sn = __fadd_rn(sn, tile[warp][0][lane][j]);
            sd = __fadd_rn(sd, tile[warp][1][lane][j]);
        }
        __syncwarp();
    }
    if (r0 + lane < h) {
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

// One warp per scale: the row totals summed in row order by every lane (same value), lane 0
// writes. Loads go 32 rows at a time; the sum itself is one sequential float chain.
__global__ void __launch_bounds__(128) float_final_kernel(const FloatFinalArgs a) {
    const int s = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float* rn = a.row_num + a.row_offset[s];
    const float* rd = a.row_den + a.row_offset[s];
    const int h = a.h[s];
    float sn = 0.f, sd = 0.f;
    for (int r0 = 0; r0 < h; r0 += 32) {
        const float vn = r0 + lane < h ? rn[r0 + lane] : 0.f;
        const float vd = r0 + lane < h ? rd[r0 + lane] : 0.f;
        const int cnt = min(32, h - r0);
        for (int j = 0; j < cnt; ++j) {
            sn = __fadd_rn(sn, __shfl_sync(0xffffffffu, vn, j));
            sd = __fadd_rn(sd, __shfl_sync(0xffffffffu, vd, j));
        }
    }
    if (lane == 0) {
        a.out_num[s] = sn;
        a.out_den[s] = sd;
    }
}

} // namespace vif::cuda
