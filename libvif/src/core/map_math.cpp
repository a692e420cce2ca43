// Per-pixel VIF maps: sums of the terms, the local VIF map and its frame-size form
// (docs/algorithm.md §12).
#include "core/map_math.hpp"

#include <algorithm>

namespace vif {

TermsView view(const ScaleMap& m) {
    TermsView v;
    v.width = m.width;
    v.height = m.height;
    if (m.integer()) {
        v.nl = m.nl.data();
        v.dl = m.dl.data();
        v.nn = m.nn.data();
        v.dn = m.dn.data();
    } else {
        v.num = m.num.data();
        v.den = m.den.data();
    }
    return v;
}

ScaleRaw sum_terms(const TermsView& m) {
    ScaleRaw r;
    if (m.integer()) {
        for (size_t p = 0; p < m.pixels(); ++p) {
            r.nl += m.nl[p];
            r.dl += m.dl[p];
            r.nn += m.nn[p];
            r.dn += m.dn[p];
        }
        return r;
    }
    for (int i = 0; i < m.height; ++i) {
        float num_row = 0.0f, den_row = 0.0f;
        const size_t row = static_cast<size_t>(i) * m.width;
        for (int j = 0; j < m.width; ++j) {
            num_row = num_row + m.num[row + j];
            den_row = den_row + m.den[row + j];
        }
        r.num = r.num + num_row;
        r.den = r.den + den_row;
    }
    return r;
}

double pixel_num(const TermsView& m, size_t p) {
    if (!m.integer()) return m.num[p];
    return m.nl[p] / 2048.0 + (m.dn[p] - (m.nn[p] / 16384.0) / 65025.0);
}

double pixel_den(const TermsView& m, size_t p) {
    if (!m.integer()) return m.den[p];
    return m.dl[p] / 2048.0 + m.dn[p];
}

namespace {

// Rows [i - r, i + r] and columns [j - r, j + r] clipped to the scale: the window of (i, j).
struct Span {
    int first, last;
};
inline Span window(int centre, int r, int size) {
    return {std::max(0, centre - r), std::min(size - 1, centre + r)};
}

// Every pixel's den is at least about 1 (§12.3); a window whose den is not positive (empty
// maps only) reads 1. Applied after the row's divisions, which run unconditionally: a division
// chosen per pixel is not vectorised (GCC does not if-convert what may raise a floating-point
// exception).
inline void not_positive_to_one(const double* den, float* out, int w) {
    for (int j = 0; j < w; ++j)
        if (!(den[j] > 0.0)) out[j] = 1.0f;
}

// One pixel's local VIF from its window's four integer sums, as §6.6 forms a scale's num and
// den from its totals (in double, not rounded to float); den is kept for the guard.
[[gnu::always_inline]] inline float integer_ratio(int64_t nl, int64_t dl, int64_t nn, int64_t dn,
                                                  double* den) {
    const double num = static_cast<double>(nl) / 2048.0 +
                       (static_cast<double>(dn) - (static_cast<double>(nn) / 16384.0) / 65025.0);
    *den = static_cast<double>(dl) / 2048.0 + static_cast<double>(dn);
    return static_cast<float>(num / *den);
}

// The pixels [first, end) of a row whose window lies inside it, from the column sums c[0..3]
// (NL, DL, NN, DN over the window's rows): each window's sums and ratio in registers, the
// pixels side by side (R known here: the loops over the window unroll, the one along the row
// vectorises).
template <int R>
[[gnu::always_inline]] inline void integer_row_inside(const int64_t* const c[4], int first, int end,
                                                      float* o, double* den) {
    for (int j = first; j < end; ++j) {
        int64_t s[4];
        for (int k = 0; k < 4; ++k) {
            int64_t v = 0;
            for (int d = -R; d <= R; ++d) v += c[k][j + d];
            s[k] = v;
        }
        o[j] = integer_ratio(s[0], s[1], s[2], s[3], den + j);
    }
}

// The same for any radius and for the pixels whose window the row's ends clip.
inline void integer_row_any(const int64_t* const c[4], int r, int w, int first, int end, float* o,
                            double* den) {
    for (int j = first; j < end; ++j) {
        const Span cols = window(j, r, w);
        int64_t s[4] = {0, 0, 0, 0};
        for (int k = 0; k < 4; ++k)
            for (int b = cols.first; b <= cols.last; ++b) s[k] += c[k][b];
        o[j] = integer_ratio(s[0], s[1], s[2], s[3], den + j);
    }
}

// Integer terms: the window's four sums are exact int64 sums, so they can be formed in any order:
// each column's sum over the window's rows slides down the map (a row in, a row out), and along
// a row each pixel adds the 2r + 1 column sums around it. The radius in use (and 1 and 3) has a
// loop of its own whose window sums stay in registers and which vectorises; a prefix sum along
// the row (one serial addition a pixel) and then the window sums in a separate pass took about
// 10 ns a pixel at 1080p. x86-64 GCC builds also compile an AVX-512 copy (int64 adds and
// to-double conversions and divisions eight at a time) picked at run time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void local_integer(const TermsView& m, int r, float* out) {
    const int w = m.width, h = m.height;
    const int32_t* term[4] = {m.nl, m.dl, m.nn, m.dn};
    const size_t n = static_cast<size_t>(w);
    std::vector<int64_t> col(4 * n, 0);
    std::vector<double> den_row(n);
    const int64_t* const c[4] = {col.data(), col.data() + n, col.data() + 2 * n,
                                 col.data() + 3 * n};
    for (int i = 0; i < std::min(r, h); ++i)
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < w; ++j) col[k * n + j] += term[k][static_cast<size_t>(i) * w + j];
    // Columns whose window lies inside the row: [r, w - r).
    const int inner_first = std::min(r, w), inner_end = std::max(inner_first, w - r);
    for (int i = 0; i < h; ++i) {
        for (int k = 0; k < 4; ++k) {
            int64_t* ck = col.data() + k * n;
            if (i + r < h) {
                const int32_t* t = term[k] + static_cast<size_t>(i + r) * w;
                for (int j = 0; j < w; ++j) ck[j] += t[j];
            }
            if (i - r - 1 >= 0) {
                const int32_t* t = term[k] + static_cast<size_t>(i - r - 1) * w;
                for (int j = 0; j < w; ++j) ck[j] -= t[j];
            }
        }
        float* o = out + static_cast<size_t>(i) * w;
        double* dr = den_row.data();
        integer_row_any(c, r, w, 0, inner_first, o, dr);
        switch (r) {
        case 1:
            integer_row_inside<1>(c, inner_first, inner_end, o, dr);
            break;
        case 2:
            integer_row_inside<2>(c, inner_first, inner_end, o, dr);
            break;
        case 3:
            integer_row_inside<3>(c, inner_first, inner_end, o, dr);
            break;
        default:
            integer_row_any(c, r, w, inner_first, inner_end, o, dr);
            break;
        }
        integer_row_any(c, r, w, inner_end, w, o, dr);
        not_positive_to_one(dr, o, w);
    }
}

// Float terms: sums in double in a fixed order, separably: each column's terms over the window's
// rows top to bottom, then those column sums left to right. The loops run along the row (each
// pixel's additions in that order, the pixels side by side), so they vectorise (an AVX-512 copy
// too, as for local_integer).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void local_float(const TermsView& m, int r, float* out) {
    const int w = m.width, h = m.height;
    const size_t n = static_cast<size_t>(w);
    std::vector<double> cnum(n), cden(n), snum(n), sden(n);
    const int inner_first = std::min(r, w), inner_end = std::max(inner_first, w - r);
    for (int i = 0; i < h; ++i) {
        const Span rows = window(i, r, h);
        std::fill(cnum.begin(), cnum.end(), 0.0);
        std::fill(cden.begin(), cden.end(), 0.0);
        for (int a = rows.first; a <= rows.last; ++a) {
            const float* num = m.num + static_cast<size_t>(a) * w;
            const float* den = m.den + static_cast<size_t>(a) * w;
            for (int j = 0; j < w; ++j) {
                cnum[j] += num[j];
                cden[j] += den[j];
            }
        }
        for (int j = inner_first; j < inner_end; ++j) {
            snum[j] = 0.0 + cnum[j - r];
            sden[j] = 0.0 + cden[j - r];
        }
        for (int d = 1; d <= 2 * r; ++d)
            for (int j = inner_first; j < inner_end; ++j) {
                snum[j] += cnum[j - r + d];
                sden[j] += cden[j - r + d];
            }
        for (int j = 0; j < w; ++j) {
            if (j == inner_first) j = inner_end;
            if (j >= w) break;
            const Span cols = window(j, r, w);
            double sn = 0.0, sd = 0.0;
            for (int b = cols.first; b <= cols.last; ++b) {
                sn += cnum[b];
                sd += cden[b];
            }
            snum[j] = sn;
            sden[j] = sd;
        }
        float* o = out + static_cast<size_t>(i) * w;
        for (int j = 0; j < w; ++j) o[j] = static_cast<float>(snum[j] / sden[j]);
        not_positive_to_one(sden.data(), o, w);
    }
}

} // namespace

void local_vif(const TermsView& m, float* out, int radius) {
    if (m.integer())
        local_integer(m, radius, out);
    else
        local_float(m, radius, out);
}

std::vector<float> local_vif(const TermsView& m, int radius) {
    std::vector<float> out(m.pixels());
    local_vif(m, out.data(), radius);
    return out;
}

std::vector<float> to_frame_size(const std::vector<float>& map, int map_w, int map_h, int scale,
                                 int frame_w, int frame_h) {
    std::vector<float> out(static_cast<size_t>(frame_w) * frame_h);
    for (int i = 0; i < frame_h; ++i) {
        const int si = std::min(i >> scale, map_h - 1);
        for (int j = 0; j < frame_w; ++j) {
            const int sj = std::min(j >> scale, map_w - 1);
            out[static_cast<size_t>(i) * frame_w + j] = map[static_cast<size_t>(si) * map_w + sj];
        }
    }
    return out;
}

} // namespace vif
