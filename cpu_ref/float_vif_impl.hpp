// Float VIF on the CPU, docs/algorithm.md §7. Every product and sum is rounded to float in the
// order given there (the including files are built with -ffp-contract=off and without SLP
// vectorisation); the tap loops run over columns, so vectorising them keeps each pixel's own
// summation order.
//
// An implementation header, not a .cpp, because it is compiled more than once: by float_vif.cpp as
// the reference (namespace vif::cpu_ref) and by cpu_fast/float_vif.cpp once per instruction-set
// level (VIF_SCORER_NS = vif::cpu_fast::<level>, with that level's flags). The includer defines
// VIF_SCORER_NS; include it from one .cpp only.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "cpu_ref.hpp"
#include "core/pixel_math.hpp"
#include "core/vif_constants.hpp"

#if !defined(VIF_SCORER_NS)
#error "define VIF_SCORER_NS (the namespace of make_float) before including float_vif_impl.hpp"
#endif

namespace VIF_SCORER_NS {
#if defined(VIF_ISA_NS)
using cpu_ref::FrameScorer;
using cpu_ref::Plane;
#endif
namespace {

inline const float* frow(const std::vector<float>& img, int w, int i) {
    return img.data() + static_cast<ptrdiff_t>(i) * w;
}

template <typename T>
inline void pad_row(T* row, int w, int r) {
    for (int p = 1; p <= r; ++p) {
        row[r - p] = row[r + reflect101(-p, w)];
        row[r + w - 1 + p] = row[r + reflect101(w - 1 + p, w)];
    }
}

// docs/algorithm.md §7.1: samples to float, centred on 0.
template <typename In>
void convert_plane(const Plane& p, int bpc, float* out) {
    const float scale = bpc == 8 ? 1.0f : static_cast<float>(1 << (bpc - 8));
    for (int i = 0; i < p.height; ++i) {
        const In* src = reinterpret_cast<const In*>(static_cast<const uint8_t*>(p.data) +
                                                    static_cast<ptrdiff_t>(i) * p.stride);
        float* dst = out + static_cast<ptrdiff_t>(i) * p.width;
        if (bpc == 8)
            for (int j = 0; j < p.width; ++j) dst[j] = static_cast<float>(src[j]) - 128.0f;
        else
            for (int j = 0; j < p.width; ++j) dst[j] = static_cast<float>(src[j]) / scale - 128.0f;
    }
}

// docs/algorithm.md §7.5 over arrays, the form the vectoriser needs.
void log2_approx_row(const float* in, float* out, int n) {
    for (int j = 0; j < n; ++j) out[j] = log2_approx(in[j]);
}

// The five filtered planes of one row (docs/algorithm.md §7.2): vertical sums into the padded t*
// rows, then horizontal sums into the output rows. Every pixel adds its taps in order k = 0..N-1
// from 0, rounding each product and sum; loops run over columns so vectorising keeps that order.
// NT is the filter width when known at compile time (unrolled taps), 0 for any other width.
struct FilteredRows {
    float *tmx, *tmy, *txx, *tyy, *txy; // padded by N/2 on each side
    float *mx, *my, *exx, *eyy, *exy;
};

template <int NT>
// Always inlined: each of run<false> and run<true> gets its own copy, as compute() had before maps.
[[gnu::always_inline]] inline void filter_stats_row(const float* F, int n, int w,
                                                    const float* const* xr, const float* const* yr,
                                                    const FilteredRows& o) {
    const int N = NT ? NT : n, r = N / 2;
    float *tmx = o.tmx + r, *tmy = o.tmy + r, *txx = o.txx + r, *tyy = o.tyy + r, *txy = o.txy + r;
#pragma GCC ivdep
    for (int j = 0; j < w; ++j) {
        float amx = 0.0f, amy = 0.0f, axx = 0.0f, ayy = 0.0f, axy = 0.0f;
#pragma GCC unroll 17
        for (int k = 0; k < N; ++k) {
            const float xv = xr[k][j], yv = yr[k][j];
            const float xx = xv * xv, yy = yv * yv, xy = xv * yv;
            const float f = F[k];
            amx = amx + f * xv;
            amy = amy + f * yv;
            axx = axx + f * xx;
            ayy = ayy + f * yy;
            axy = axy + f * xy;
        }
        tmx[j] = amx;
        tmy[j] = amy;
        txx[j] = axx;
        tyy[j] = ayy;
        txy[j] = axy;
    }
    for (float* t : {o.tmx, o.tmy, o.txx, o.tyy, o.txy}) pad_row(t, w, r);
#pragma GCC ivdep
    for (int j = 0; j < w; ++j) {
        float amx = 0.0f, amy = 0.0f, axx = 0.0f, ayy = 0.0f, axy = 0.0f;
#pragma GCC unroll 17
        for (int k = 0; k < N; ++k) {
            const float f = F[k];
            amx = amx + f * o.tmx[j + k];
            amy = amy + f * o.tmy[j + k];
            axx = axx + f * o.txx[j + k];
            ayy = ayy + f * o.tyy[j + k];
            axy = axy + f * o.txy[j + k];
        }
        o.mx[j] = amx;
        o.my[j] = amy;
        o.exx[j] = axx;
        o.eyy[j] = ayy;
        o.exy[j] = axy;
    }
}

class FloatVif final : public FrameScorer {
public:
    FloatVif(int max_width, int max_height, int bitdepth, double gain_limit, float kernelscale);
    void compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]) override {
        run<false>(ref, dist, out, nullptr);
    }
    bool compute_maps(const Plane& ref, const Plane& dist, ScaleRaw out[4],
                      FrameMaps& maps) override {
        run<true>(ref, dist, out, &maps);
        return true;
    }

private:
    // kMaps: also keep each pixel's num and den (docs/algorithm.md §12.1). Inlined into each
    // caller, so compute() compiles to the same instructions as before maps existed.
    template <bool kMaps>
    [[gnu::always_inline]] inline void run(const Plane& ref, const Plane& dist, ScaleRaw out[4],
                                           FrameMaps* maps);

    int bitdepth_;
    float gain_limit_;
    int width_[4];
    std::vector<float> taps_[4];
    std::vector<float> img_[2][2];                            // scale images [ping-pong][ref, dist]
    std::vector<float> t_mu_x_, t_mu_y_, t_xx_, t_yy_, t_xy_; // padded vertical rows
    std::vector<float> mu_x_, mu_y_, e_xx_, e_yy_, e_xy_;     // horizontal results (one row)
    std::vector<float> num_row_, den_row_;
};

FloatVif::FloatVif(int max_width, int max_height, int bitdepth, double gain_limit,
                   float kernelscale)
    : bitdepth_(bitdepth), gain_limit_(static_cast<float>(gain_limit)) {
    int max_taps = 0;
    for (int s = 0; s < 4; ++s) {
        width_[s] = float_filter_width(s, kernelscale);
        taps_[s].resize(width_[s]);
        build_float_filter(s, kernelscale, taps_[s].data());
        max_taps = std::max(max_taps, width_[s]);
    }
    const size_t full = static_cast<size_t>(max_width) * max_height;
    for (auto& set : img_)
        for (auto& img : set) img.resize(full);
    const size_t padded = static_cast<size_t>(max_width) + max_taps;
    for (auto* v : {&t_mu_x_, &t_mu_y_, &t_xx_, &t_yy_, &t_xy_}) v->resize(padded);
    for (auto* v : {&mu_x_, &mu_y_, &e_xx_, &e_yy_, &e_xy_, &num_row_, &den_row_})
        v->resize(max_width);
}

template <bool kMaps>
inline void FloatVif::run(const Plane& ref, const Plane& dist, ScaleRaw out[4],
                          [[maybe_unused]] FrameMaps* maps) {
    int w = ref.width, h = ref.height;
    if (bitdepth_ == 8) {
        convert_plane<uint8_t>(ref, 8, img_[0][0].data());
        convert_plane<uint8_t>(dist, 8, img_[0][1].data());
    } else {
        convert_plane<uint16_t>(ref, bitdepth_, img_[0][0].data());
        convert_plane<uint16_t>(dist, bitdepth_, img_[0][1].data());
    }
    const float G = gain_limit_;

    int cur = 0;
    for (int s = 0; s < 4; ++s) {
        if (s > 0) {
            // docs/algorithm.md §7.3: low-pass the previous scale with this scale's filter, keep
            // even rows and columns.
            const float* F = taps_[s].data();
            const int N = width_[s], r = N / 2;
            const int w2 = w / 2, h2 = h / 2;
            for (int c = 0; c < 2; ++c) {
                const std::vector<float>& src = img_[cur][c];
                float* dst = img_[cur ^ 1][c].data();
                float* t = t_mu_x_.data();
                for (int i2 = 0; i2 < h2; ++i2) {
                    const int i = 2 * i2;
                    std::fill(t + r, t + r + w, 0.0f);
                    for (int k = 0; k < N; ++k) {
                        const float* x = frow(src, w, reflect101(i - r + k, h));
                        const float f = F[k];
                        for (int j = 0; j < w; ++j) t[r + j] = t[r + j] + f * x[j];
                    }
                    pad_row(t, w, r);
                    float* o = dst + static_cast<ptrdiff_t>(i2) * w2;
                    for (int j2 = 0; j2 < w2; ++j2) {
                        float a = 0.0f;
                        for (int k = 0; k < N; ++k) a = a + F[k] * t[2 * j2 + k];
                        o[j2] = a;
                    }
                }
            }
            cur ^= 1;
            w = w2;
            h = h2;
        }

        // docs/algorithm.md §7.4: the five filtered planes one row at a time, then per-pixel terms.
        const float* F = taps_[s].data();
        const int N = width_[s], r = N / 2;
        const std::vector<float>& X = img_[cur][0];
        const std::vector<float>& Y = img_[cur][1];
        float *tmx = t_mu_x_.data(), *tmy = t_mu_y_.data(), *txx = t_xx_.data(),
              *tyy = t_yy_.data(), *txy = t_xy_.data();
        float *mx = mu_x_.data(), *my = mu_y_.data(), *exx = e_xx_.data(), *eyy = e_yy_.data(),
              *exy = e_xy_.data();
        float* nrow = num_row_.data();
        float* drow = den_row_.data();
        float num_total = 0.0f, den_total = 0.0f;
        [[maybe_unused]] ScaleMap* map = nullptr;
        if constexpr (kMaps) {
            map = &maps->scale[s];
            *map = ScaleMap{};
            map->width = w;
            map->height = h;
            map->num.assign(static_cast<size_t>(w) * h, 0.0f);
            map->den.assign(static_cast<size_t>(w) * h, 0.0f);
        }
        for (int i = 0; i < h; ++i) {
            const float* xr[kMaxFloatFilterWidth];
            const float* yr[kMaxFloatFilterWidth];
            for (int k = 0; k < N; ++k) {
                const int src = reflect101(i - r + k, h);
                xr[k] = frow(X, w, src);
                yr[k] = frow(Y, w, src);
            }
            const FilteredRows rows{tmx, tmy, txx, tyy, txy, mx, my, exx, eyy, exy};
            switch (N) {
            case 17:
                filter_stats_row<17>(F, N, w, xr, yr, rows);
                break;
            case 9:
                filter_stats_row<9>(F, N, w, xr, yr, rows);
                break;
            case 5:
                filter_stats_row<5>(F, N, w, xr, yr, rows);
                break;
            case 3:
                filter_stats_row<3>(F, N, w, xr, yr, rows);
                break;
            default:
                filter_stats_row<0>(F, N, w, xr, yr, rows);
                break;
            }
            // Per-pixel terms (§7.4 steps 1-9, pixel_math.hpp, shared with the CUDA kernels):
            // arguments of the logs go to nrow/drow, the logs are taken a row at a time, then
            // the overrides of steps 8-9.
            for (int j = 0; j < w; ++j) {
                const pixel::FloatLogArgs t =
                    pixel::float_log_args(mx[j], my[j], exx[j], eyy[j], exy[j], G);
                nrow[j] = t.a;
                drow[j] = t.b;
                // Stash the pieces the overrides need in the filtered arrays, which are no
                // longer used for this row.
                mx[j] = t.sxy;
                my[j] = t.sx;
                exx[j] = t.sy;
            }
            log2_approx_row(nrow, nrow, w);
            log2_approx_row(drow, drow, w);
            float num_row = 0.0f, den_row = 0.0f;
            for (int j = 0; j < w; ++j) {
                float num, den;
                pixel::float_terms(nrow[j], drow[j], mx[j], my[j], exx[j], num, den);
                if constexpr (kMaps) {
                    const size_t p = static_cast<size_t>(i) * w + j;
                    map->num[p] = num;
                    map->den[p] = den;
                }
                num_row = num_row + num;
                den_row = den_row + den;
            }
            num_total = num_total + num_row;
            den_total = den_total + den_row;
        }
        out[s].num = num_total;
        out[s].den = den_total;
    }
}

} // namespace

std::unique_ptr<FrameScorer> make_float(int max_w, int max_h, int bpc, double gain, float ks) {
    return std::make_unique<FloatVif>(max_w, max_h, bpc, gain, ks);
}

} // namespace VIF_SCORER_NS
