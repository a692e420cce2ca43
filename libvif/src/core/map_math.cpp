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

std::vector<float> local_vif(const TermsView& m, int radius) {
    const int w = m.width, h = m.height;
    std::vector<double> num(m.pixels()), den(m.pixels());
    for (size_t p = 0; p < m.pixels(); ++p) {
        num[p] = pixel_num(m, p);
        den[p] = pixel_den(m, p);
    }
    std::vector<float> out(m.pixels());
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            double sn = 0.0, sd = 0.0;
            for (int a = std::max(0, i - radius); a <= std::min(h - 1, i + radius); ++a)
                for (int b = std::max(0, j - radius); b <= std::min(w - 1, j + radius); ++b) {
                    const size_t q = static_cast<size_t>(a) * w + b;
                    sn += num[q];
                    sd += den[q];
                }
            // Every pixel's den is at least about 1 (§12.3); the guard is for empty maps only.
            out[static_cast<size_t>(i) * w + j] = sd > 0.0 ? static_cast<float>(sn / sd) : 1.0f;
        }
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
