// Integer VIF, the reference: docs/algorithm.md §6 step by step, in plain scalar code meant to be
// read against it. Each scale is filtered whole (vertical pass into full-size images, then the
// horizontal pass), every sum in a type wide enough for its bound (§6.2), and each pixel's
// contribution is pixel::add_pixel (pixel_math.hpp, shared with the fast scorers and CUDA). No
// vector code and no instruction-set variants: the fast backend (cpu_fast/) must match these sums.
#include <vector>

#include "cpu_ref.hpp"
#include "core/pixel_math.hpp"
#include "core/vif_constants.hpp"

namespace vif::cpu_ref {
namespace {

// rs(v, s) of §6.2: rounding right shift (a shift of 0 leaves v as it is).
inline uint64_t round_shift(uint64_t v, int s) {
    return s == 0 ? v : (v + (uint64_t{1} << (s - 1))) >> s;
}

// An image of one scale: the input plane at scale 0 (bytes or 16-bit words), 16-bit words above.
struct Image {
    Plane plane;
    bool bytes = false;
    int width() const { return plane.width; }
    int height() const { return plane.height; }
    uint32_t at(int i, int j) const {
        const auto* row = static_cast<const uint8_t*>(plane.data) + i * plane.stride;
        if (bytes) return row[j];
        return reinterpret_cast<const uint16_t*>(row)[j];
    }
};

class IntegerReference final : public FrameScorer {
public:
    IntegerReference(int bitdepth, double gain_limit)
        : bitdepth_(bitdepth), gain_limit_(gain_limit), log_table_(kLogTableSize) {
        build_log_table(log_table_.data());
    }

    void compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]) override {
        run(ref, dist, out, nullptr);
    }

    bool compute_maps(const Plane& ref, const Plane& dist, ScaleRaw out[4],
                      FrameMaps& maps) override {
        run(ref, dist, out, &maps);
        return true;
    }

private:
    void run(const Plane& ref, const Plane& dist, ScaleRaw out[4], FrameMaps* maps) {
        Image x{ref, bitdepth_ == 8}, y{dist, bitdepth_ == 8};
        for (int s = 0; s < kNumScales; ++s) {
            out[s] = statistics(x, y, s, maps ? &maps->scale[s] : nullptr);
            if (s + 1 == kNumScales) break;
            // §4.4: each scale is downsampled from the previous one, never from the input.
            downsample(x, s, x_next_);
            downsample(y, s, y_next_);
            x_down_.swap(x_next_);
            y_down_.swap(y_next_);
            const int w2 = x.width() / 2, h2 = x.height() / 2;
            x = Image{Plane{x_down_.data(), w2 * 2, w2, h2}, false};
            y = Image{Plane{y_down_.data(), w2 * 2, w2, h2}, false};
        }
    }

    // §6.3 and §6.5: the four sums of one scale; with `map`, each pixel's terms as well (§12.1).
    ScaleRaw statistics(const Image& X, const Image& Y, int scale, ScaleMap* map) {
        const int w = X.width(), h = X.height();
        const int n = kIntFilterWidth[scale], r = n / 2;
        const uint16_t* c = int_filter(scale);
        const int vm = vertical_mean_shift(scale, bitdepth_);
        const int vq = vertical_sq_shift(scale, bitdepth_);
        const size_t pixels = static_cast<size_t>(w) * h;
        for (auto* v : {&v_mx_, &v_my_, &v_xx_, &v_yy_, &v_xy_}) v->resize(pixels);

        // Vertical pass: means (32-bit sums) and second moments (64-bit sums), each rounded by
        // its shift to below 2^16 and 2^32.
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) {
                uint32_t ax = 0, ay = 0;
                uint64_t bxx = 0, byy = 0, bxy = 0;
                for (int k = 0; k < n; ++k) {
                    const int row = reflect101(i - r + k, h);
                    const uint32_t x = X.at(row, j), y = Y.at(row, j);
                    ax += c[k] * x;
                    ay += c[k] * y;
                    bxx += static_cast<uint64_t>(c[k] * x) * x;
                    byy += static_cast<uint64_t>(c[k] * y) * y;
                    bxy += static_cast<uint64_t>(c[k] * x) * y;
                }
                const size_t p = static_cast<size_t>(i) * w + j;
                v_mx_[p] = static_cast<uint32_t>(round_shift(ax, vm));
                v_my_[p] = static_cast<uint32_t>(round_shift(ay, vm));
                v_xx_[p] = static_cast<uint32_t>(round_shift(bxx, vq));
                v_yy_[p] = static_cast<uint32_t>(round_shift(byy, vq));
                v_xy_[p] = static_cast<uint32_t>(round_shift(bxy, vq));
            }

        // Horizontal pass, the variances and each pixel's contribution.
        const pixel::TableLog<uint16_t> table{log_table_.data()};
        ScaleRaw sums;
        if (map) {
            *map = ScaleMap{};
            map->width = w;
            map->height = h;
            for (auto* v : {&map->nl, &map->dl, &map->nn, &map->dn}) v->assign(pixels, 0);
        }
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) {
                uint32_t mx = 0, my = 0; // 16.16 means, not shifted
                uint64_t exx = 0, eyy = 0, exy = 0;
                for (int k = 0; k < n; ++k) {
                    const size_t p = static_cast<size_t>(i) * w + reflect101(j - r + k, w);
                    mx += c[k] * v_mx_[p];
                    my += c[k] * v_my_[p];
                    exx += static_cast<uint64_t>(c[k]) * v_xx_[p];
                    eyy += static_cast<uint64_t>(c[k]) * v_yy_[p];
                    exy += static_cast<uint64_t>(c[k]) * v_xy_[p];
                }
                const int32_t sx =
                    pixel::variance(static_cast<uint32_t>(round_shift(exx, 16)), mx, mx);
                const int32_t sy =
                    pixel::variance(static_cast<uint32_t>(round_shift(eyy, 16)), my, my);
                const int32_t sxy =
                    pixel::variance(static_cast<uint32_t>(round_shift(exy, 16)), mx, my);
                if (!map) {
                    pixel::add_pixel(sx, sy, sxy, table, gain_limit_, sums.nl, sums.dl, sums.nn,
                                     sums.dn);
                    continue;
                }
                // The pixel's own terms, then added to the totals: integer addition, so the
                // totals are the same whatever the order.
                int64_t nl = 0, dl = 0, nn = 0, dn = 0;
                pixel::add_pixel(sx, sy, sxy, table, gain_limit_, nl, dl, nn, dn);
                const size_t p = static_cast<size_t>(i) * w + j;
                map->nl[p] = static_cast<int32_t>(nl);
                map->dl[p] = static_cast<int32_t>(dl);
                map->nn[p] = static_cast<int32_t>(nn);
                map->dn[p] = static_cast<int32_t>(dn);
                sums.nl += nl;
                sums.dl += dl;
                sums.nn += nn;
                sums.dn += dn;
            }
        return sums;
    }

    // §6.7: the next scale's image, with the next scale's filter and this scale's borders.
    void downsample(const Image& X, int scale, std::vector<uint16_t>& out) {
        const int w = X.width(), h = X.height();
        const int n = kIntFilterWidth[scale + 1], r = n / 2;
        const uint16_t* c = int_filter(scale + 1);
        const int vm = vertical_mean_shift(scale, bitdepth_);
        std::vector<uint32_t>& d = v_mx_; // free between statistics passes
        d.resize(static_cast<size_t>(w) * h);
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) {
                uint32_t a = 0;
                for (int k = 0; k < n; ++k) a += c[k] * X.at(reflect101(i - r + k, h), j);
                d[static_cast<size_t>(i) * w + j] = static_cast<uint32_t>(round_shift(a, vm));
            }
        const int w2 = w / 2, h2 = h / 2;
        out.resize(static_cast<size_t>(w2) * h2);
        for (int i2 = 0; i2 < h2; ++i2)
            for (int j2 = 0; j2 < w2; ++j2) {
                uint32_t a = 0;
                for (int k = 0; k < n; ++k)
                    a += c[k] * d[static_cast<size_t>(2 * i2) * w + reflect101(2 * j2 - r + k, w)];
                out[static_cast<size_t>(i2) * w2 + j2] = static_cast<uint16_t>(round_shift(a, 16));
            }
    }

    int bitdepth_;
    double gain_limit_;
    std::vector<uint16_t> log_table_; // T[32768..65535] (§6.4)
    std::vector<uint16_t> x_down_, y_down_, x_next_, y_next_;
    std::vector<uint32_t> v_mx_, v_my_, v_xx_, v_yy_, v_xy_; // vertical results of one scale
};

} // namespace

std::unique_ptr<FrameScorer> make_integer(int /*max_w*/, int /*max_h*/, int bpc, double gain) {
    return std::make_unique<IntegerReference>(bpc, gain);
}

} // namespace vif::cpu_ref
