// Integer VIF on the CPU, spec section 5. Rows are streamed: for each output row the vertical
// pass fills padded row buffers, the horizontal pass filters them, and the per-pixel statistics
// are accumulated at once, so the working set stays in L1/L2 whatever the frame size.
//
// The loops are written for the auto-vectoriser: filter widths are template parameters so the
// tap loops unroll fully, and the per-pixel contribution is computed branch-free over a row.
#include <algorithm>
#include <cstring>

#include "cpu_ref.hpp"
#include "vif_constants.hpp"

namespace vif::cpu_ref {
namespace {

// Rounding shift rs(v, n) of the spec; n == 0 leaves v unchanged.
template <typename T>
inline T round_shift(T v, int n) {
    return n == 0 ? v : static_cast<T>((v + (static_cast<T>(1) << (n - 1))) >> n);
}

// Fills the r padding entries on both sides of a row of w values stored at row[r .. r+w-1],
// mirroring about the edge samples (reflect-101).
template <typename T>
inline void pad_row(T* row, int w, int r) {
    for (int p = 1; p <= r; ++p) {
        row[r - p] = row[r + reflect101(-p, w)];
        row[r + w - 1 + p] = row[r + reflect101(w - 1 + p, w)];
    }
}

inline const uint8_t* row_ptr(const Plane& p, int i) {
    return static_cast<const uint8_t*>(p.data) + static_cast<ptrdiff_t>(i) * p.stride;
}

// Vertical pass of the statistics (spec section 5.3) for one output row. Wide is uint32_t where
// every second-moment sum fits 32 bits (8-bit samples at scale 0), uint64_t otherwise.
template <int N, typename In, typename Wide>
void vertical_stats_row(const Plane& X, const Plane& Y, int i, const uint16_t* c, int mean_shift,
                        int sq_shift, uint32_t* mu_x, uint32_t* mu_y, uint32_t* xx, uint32_t* yy,
                        uint32_t* xy) {
    constexpr int r = N / 2;
    const In* px[N];
    const In* py[N];
    for (int k = 0; k < N; ++k) {
        const int src = reflect101(i - r + k, X.height);
        px[k] = reinterpret_cast<const In*>(row_ptr(X, src));
        py[k] = reinterpret_cast<const In*>(row_ptr(Y, src));
    }
    const int w = X.width;
    const uint32_t mean_round = mean_shift ? 1u << (mean_shift - 1) : 0u;
    const Wide sq_round = sq_shift ? static_cast<Wide>(1) << (sq_shift - 1) : 0;
    for (int j = 0; j < w; ++j) {
        uint32_t ax = 0, ay = 0;
        Wide bxx = 0, byy = 0, bxy = 0;
        for (int k = 0; k < N; ++k) {
            const uint32_t x = px[k][j], y = py[k][j];
            const uint32_t cx = c[k] * x, cy = c[k] * y;
            ax += cx;
            ay += cy;
            bxx += static_cast<Wide>(cx) * x;
            byy += static_cast<Wide>(cy) * y;
            bxy += static_cast<Wide>(cx) * y;
        }
        mu_x[j] = (ax + mean_round) >> mean_shift;
        mu_y[j] = (ay + mean_round) >> mean_shift;
        xx[j] = static_cast<uint32_t>((bxx + sq_round) >> sq_shift);
        yy[j] = static_cast<uint32_t>((byy + sq_round) >> sq_shift);
        xy[j] = static_cast<uint32_t>((bxy + sq_round) >> sq_shift);
    }
}

// Horizontal pass (spec section 5.3) over padded rows, then the variances as signed 32-bit.
template <int N>
void horizontal_stats_row(int w, const uint16_t* c, const uint32_t* mu_x, const uint32_t* mu_y,
                          const uint32_t* xx, const uint32_t* yy, const uint32_t* xy,
                          int32_t* sig_x, int32_t* sig_y, int32_t* sig_xy) {
    for (int j = 0; j < w; ++j) {
        uint32_t mx = 0, my = 0;
        uint64_t exx = 0, eyy = 0, exy = 0;
        for (int k = 0; k < N; ++k) {
            mx += c[k] * mu_x[j + k];
            my += c[k] * mu_y[j + k];
            exx += static_cast<uint64_t>(c[k]) * xx[j + k];
            eyy += static_cast<uint64_t>(c[k]) * yy[j + k];
            exy += static_cast<uint64_t>(c[k]) * xy[j + k];
        }
        const uint32_t mxx = static_cast<uint32_t>((static_cast<uint64_t>(mx) * mx + 0x80000000ull) >> 32);
        const uint32_t myy = static_cast<uint32_t>((static_cast<uint64_t>(my) * my + 0x80000000ull) >> 32);
        const uint32_t mxy = static_cast<uint32_t>((static_cast<uint64_t>(mx) * my + 0x80000000ull) >> 32);
        const uint32_t ex = static_cast<uint32_t>((exx + 0x8000) >> 16);
        const uint32_t ey = static_cast<uint32_t>((eyy + 0x8000) >> 16);
        const uint32_t exy32 = static_cast<uint32_t>((exy + 0x8000) >> 16);
        sig_x[j] = static_cast<int32_t>(ex - mxx);
        sig_y[j] = static_cast<int32_t>(ey - myy);
        sig_xy[j] = static_cast<int32_t>(exy32 - mxy);
    }
}

inline int64_t log2_fixed(const uint32_t* table, uint64_t v) {
    const int k = 48 - __builtin_clzll(v);  // (63 - clz) - 15
    return static_cast<int64_t>(table[(v >> k) - kLogTableFirst]) + 2048 * k;
}

// Per-pixel contribution, spec section 5.5, accumulated into acc.
void accumulate_row(int w, const int32_t* sig_x, const int32_t* sig_y, const int32_t* sig_xy,
                    const uint32_t* table, double gain_limit, ScaleRaw& acc) {
    const double eps = 65536 * 1.0e-10;
    int64_t nl = 0, dl = 0, nn = 0, dn = 0;
    for (int j = 0; j < w; ++j) {
        const int32_t sx = sig_x[j];
        const int32_t sy = std::max(sig_y[j], 0);
        const int32_t sxy = sig_xy[j];
        if (sx >= static_cast<int32_t>(kNsq)) {
            dl += log2_fixed(table, static_cast<uint64_t>(sx) + kNsq) - 17 * 2048;
            if (sxy > 0 && sy > 0) {
                double g = sxy / (sx + eps);
                const double t = sy - g * sxy;
                const int32_t sv = t < 0.0 ? 0 : static_cast<int32_t>(t);
                g = std::min(g, gain_limit);
                const int64_t n1 = static_cast<int64_t>(sv) + kNsq;
                const int64_t n2 = static_cast<int64_t>((g * g) * sx) + n1;
                nl += log2_fixed(table, static_cast<uint64_t>(n2)) -
                      log2_fixed(table, static_cast<uint64_t>(n1));
            }
        } else {
            nn += sy;
            dn += 1;
        }
    }
    acc.nl += nl;
    acc.dl += dl;
    acc.nn += nn;
    acc.dn += dn;
}

// Downsampling (spec section 5.7) of one plane to the next scale: only even rows and columns
// of the filtered image are computed.
template <int N, typename In>
void downsample(const Plane& src, int scale, int bpc, uint32_t* row, uint16_t* dst) {
    constexpr int r = N / 2;
    const uint16_t* c = int_filter(scale + 1);
    const int shift = vertical_mean_shift(scale, bpc);
    const uint32_t round = 1u << (shift - 1);
    const int w = src.width, h = src.height;
    const int w2 = w / 2, h2 = h / 2;
    for (int i2 = 0; i2 < h2; ++i2) {
        const int i = 2 * i2;
        const In* p[N];
        for (int k = 0; k < N; ++k)
            p[k] = reinterpret_cast<const In*>(row_ptr(src, reflect101(i - r + k, h)));
        for (int j = 0; j < w; ++j) {
            uint32_t a = 0;
            for (int k = 0; k < N; ++k) a += c[k] * static_cast<uint32_t>(p[k][j]);
            row[r + j] = (a + round) >> shift;
        }
        pad_row(row, w, r);
        uint16_t* out = dst + static_cast<ptrdiff_t>(i2) * w2;
        for (int j2 = 0; j2 < w2; ++j2) {
            uint32_t a = 0;
            for (int k = 0; k < N; ++k) a += c[k] * row[2 * j2 + k];
            out[j2] = static_cast<uint16_t>((a + 0x8000) >> 16);
        }
    }
}

}  // namespace

IntegerVif::IntegerVif(int max_width, int max_height, int bitdepth, double gain_limit)
    : bitdepth_(bitdepth), gain_limit_(gain_limit), log_table_(kLogTableSize) {
    std::vector<uint16_t> t(kLogTableSize);
    build_log_table(t.data());
    std::copy(t.begin(), t.end(), log_table_.begin());
    const size_t half = static_cast<size_t>(max_width / 2) * (max_height / 2);
    for (auto& set : down_)
        for (auto& img : set) img.resize(std::max<size_t>(half, 1));
    const size_t padded = static_cast<size_t>(max_width) + 2 * 8;
    for (auto* v : {&v_mu_x_, &v_mu_y_, &v_xx_, &v_yy_, &v_xy_, &d_row_x_}) v->resize(padded);
    for (auto* v : {&sig_x_, &sig_y_, &sig_xy_}) v->resize(max_width);
}

template <int N, typename In>
static void stats_scale(const Plane& X, const Plane& Y, int scale, int bpc, double gain_limit,
                        const uint32_t* table, uint32_t* mu_x, uint32_t* mu_y, uint32_t* xx,
                        uint32_t* yy, uint32_t* xy, int32_t* sx, int32_t* sy, int32_t* sxy,
                        ScaleRaw& acc) {
    constexpr int r = N / 2;
    const uint16_t* c = int_filter(scale);
    const int ms = vertical_mean_shift(scale, bpc), qs = vertical_sq_shift(scale, bpc);
    const int w = X.width;
    const bool narrow = sizeof(In) == 1 && scale == 0;  // all sums fit 32 bits (section 5.3)
    for (int i = 0; i < X.height; ++i) {
        if (narrow)
            vertical_stats_row<N, In, uint32_t>(X, Y, i, c, ms, qs, mu_x + r, mu_y + r, xx + r,
                                                yy + r, xy + r);
        else
            vertical_stats_row<N, In, uint64_t>(X, Y, i, c, ms, qs, mu_x + r, mu_y + r, xx + r,
                                                yy + r, xy + r);
        for (uint32_t* row : {mu_x, mu_y, xx, yy, xy}) pad_row(row, w, r);
        horizontal_stats_row<N>(w, c, mu_x, mu_y, xx, yy, xy, sx, sy, sxy);
        accumulate_row(w, sx, sy, sxy, table, gain_limit, acc);
    }
}

void IntegerVif::compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]) {
    for (int s = 0; s < kNumScales; ++s) out[s] = ScaleRaw{};
    Plane X = ref, Y = dist;
    const uint32_t* table = log_table_.data();
    uint32_t *mx = v_mu_x_.data(), *my = v_mu_y_.data(), *xx = v_xx_.data(), *yy = v_yy_.data(),
             *xy = v_xy_.data();
    int32_t *sx = sig_x_.data(), *sy = sig_y_.data(), *sxy = sig_xy_.data();

    for (int s = 0; s < kNumScales; ++s) {
        const bool bytes = (s == 0 && bitdepth_ == 8);
        switch (s) {
            case 0:
                if (bytes)
                    stats_scale<17, uint8_t>(X, Y, 0, bitdepth_, gain_limit_, table, mx, my, xx,
                                             yy, xy, sx, sy, sxy, out[0]);
                else
                    stats_scale<17, uint16_t>(X, Y, 0, bitdepth_, gain_limit_, table, mx, my, xx,
                                              yy, xy, sx, sy, sxy, out[0]);
                break;
            case 1:
                stats_scale<9, uint16_t>(X, Y, 1, bitdepth_, gain_limit_, table, mx, my, xx, yy,
                                         xy, sx, sy, sxy, out[1]);
                break;
            case 2:
                stats_scale<5, uint16_t>(X, Y, 2, bitdepth_, gain_limit_, table, mx, my, xx, yy,
                                         xy, sx, sy, sxy, out[2]);
                break;
            default:
                stats_scale<3, uint16_t>(X, Y, 3, bitdepth_, gain_limit_, table, mx, my, xx, yy,
                                         xy, sx, sy, sxy, out[3]);
                break;
        }
        if (s == kNumScales - 1) break;

        // Next scale's images, from this scale's (section 3: strictly chained).
        uint16_t* dx = down_[s & 1][0].data();
        uint16_t* dy = down_[s & 1][1].data();
        uint32_t* row = d_row_x_.data();
        switch (s) {
            case 0:
                if (bytes) {
                    downsample<9, uint8_t>(X, 0, bitdepth_, row, dx);
                    downsample<9, uint8_t>(Y, 0, bitdepth_, row, dy);
                } else {
                    downsample<9, uint16_t>(X, 0, bitdepth_, row, dx);
                    downsample<9, uint16_t>(Y, 0, bitdepth_, row, dy);
                }
                break;
            case 1:
                downsample<5, uint16_t>(X, 1, bitdepth_, row, dx);
                downsample<5, uint16_t>(Y, 1, bitdepth_, row, dy);
                break;
            default:
                downsample<3, uint16_t>(X, 2, bitdepth_, row, dx);
                downsample<3, uint16_t>(Y, 2, bitdepth_, row, dy);
                break;
        }
        const int w2 = X.width / 2, h2 = X.height / 2;
        X = Plane{dx, static_cast<ptrdiff_t>(w2) * 2, w2, h2};
        Y = Plane{dy, static_cast<ptrdiff_t>(w2) * 2, w2, h2};
    }
}

}  // namespace vif::cpu_ref
