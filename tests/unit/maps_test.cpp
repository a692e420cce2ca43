// Per-pixel VIF maps of the CPU reference (docs/algorithm.md §12): the terms of every scale sum to
// the frame's totals exactly (and the totals give libvmaf's golden values), the scores are the
// same with maps on, a frame with one blurred quadrant has its low local VIF there only, and the
// public API (VifConfig.maps, vif_receive_maps) hands out the reference's maps bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/golden_data.hpp"
#include "api/checks.hpp"
#include "core/scores.hpp"
#include "vif/vif.h"
#include "cpu_ref/cpu_ref.hpp"
#include "core/map_math.hpp"
#include "core/vif_constants.hpp"

namespace {

using vif::FrameMaps;
using vif::ScaleMap;
using vif::cpu_ref::Plane;

std::unique_ptr<vif::cpu_ref::FrameScorer> make(bool integer, int w, int h, int bpc, double gain) {
    return integer ? vif::cpu_ref::make_integer(w, h, bpc, gain)
                   : vif::cpu_ref::make_float(w, h, bpc, gain, 1.0f);
}

vif::Params params_for(bool integer, uint32_t w, uint32_t h, uint32_t bpc, double gain) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.bitdepth = bpc;
    cfg.variant = integer ? VIF_VARIANT_INTEGER : VIF_VARIANT_FLOAT;
    cfg.enhn_gain_limit = gain;
    vif::Params p;
    EXPECT_EQ(vif::params_from_config(cfg, &p), VIF_OK) << vif_last_error();
    return p;
}

bool same_bits(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Every case of testdata/, both variants, both gain limits: the map terms of each scale sum to
// the totals compute() gives (to the bit, float included, in the order of §7.6), and those totals
// give libvmaf's values from the expected CSV (integer equal, float within 1e-4).
TEST(VifMaps, TermsSumToTheFrameTotalsAndTheGoldenValues) {
    const auto cases = vif::testing::load_manifest(VIF_TESTDATA_DIR);
    ASSERT_FALSE(cases.empty()) << "no testdata manifest in " << VIF_TESTDATA_DIR;
    size_t checked = 0;
    for (const auto& c : cases)
        for (const bool integer : {true, false})
            for (const double gain : {100.0, 1.0}) {
                SCOPED_TRACE(c.name + (integer ? " integer" : " float") +
                             (gain == 1.0 ? " egl1" : ""));
                const auto expected = vif::testing::load_expected(c.expected_path());
                ASSERT_GE(expected.size(), c.frames);
                auto plain = make(integer, c.width, c.height, c.bitdepth, gain);
                auto mapped = make(integer, c.width, c.height, c.bitdepth, gain);
                const vif::Params params = params_for(integer, c.width, c.height, c.bitdepth, gain);
                const std::string pre = integer ? "integer_vif" : "vif";
                const std::string suf = gain == 1.0 ? "_egl_1" : "";
                for (uint32_t f = 0; f < c.frames; ++f) {
                    const auto ref = vif::testing::read_luma(c, c.ref_path(), f);
                    const auto dis = vif::testing::read_luma(c, c.dist_path(), f);
                    ASSERT_FALSE(ref.empty() || dis.empty());
                    const ptrdiff_t stride = c.width * c.bytes_per_sample();
                    const Plane r{ref.data(), stride, int(c.width), int(c.height)};
                    const Plane d{dis.data(), stride, int(c.width), int(c.height)};
                    vif::FrameRaw want, got;
                    FrameMaps maps;
                    plain->compute(r, d, want.scale);
                    ASSERT_TRUE(mapped->compute_maps(r, d, got.scale, maps));
                    vif::FrameRaw summed;
                    int sw = c.width, sh = c.height;
                    for (int s = 0; s < 4; ++s) {
                        const ScaleMap& m = maps.scale[s];
                        ASSERT_EQ(m.width, sw);
                        ASSERT_EQ(m.height, sh);
                        ASSERT_EQ(m.integer(), integer);
                        summed.scale[s] = vif::sum_terms(vif::view(m));
                        const vif::ScaleRaw &a = want.scale[s], &b = got.scale[s],
                                            &t = summed.scale[s];
                        if (integer) {
                            EXPECT_EQ(t.nl, a.nl) << "scale " << s;
                            EXPECT_EQ(t.dl, a.dl) << "scale " << s;
                            EXPECT_EQ(t.nn, a.nn) << "scale " << s;
                            EXPECT_EQ(t.dn, a.dn) << "scale " << s;
                            EXPECT_EQ(b.nl, a.nl) << "scale " << s;
                            EXPECT_EQ(b.dl, a.dl) << "scale " << s;
                            EXPECT_EQ(b.nn, a.nn) << "scale " << s;
                            EXPECT_EQ(b.dn, a.dn) << "scale " << s;
                        } else {
                            EXPECT_TRUE(same_bits(t.num, a.num)) << t.num << " " << a.num;
                            EXPECT_TRUE(same_bits(t.den, a.den)) << t.den << " " << a.den;
                            EXPECT_TRUE(same_bits(b.num, a.num)) << "scale " << s;
                            EXPECT_TRUE(same_bits(b.den, a.den)) << "scale " << s;
                        }
                        sw /= 2;
                        sh /= 2;
                    }
                    VifScores s;
                    summed.index = f;
                    vif::finalize_scores(params, summed, &s);
                    const auto& row = expected[f];
                    for (int k = 0; k < 4; ++k) {
                        const std::string ks = std::to_string(k);
                        const double num = row.at(pre + "_num_scale" + ks + suf);
                        const double den = row.at(pre + "_den_scale" + ks + suf);
                        const double score = row.at(pre + "_scale" + ks + suf);
                        if (integer) {
                            EXPECT_EQ(s.num[k], num) << "frame " << f << " scale " << k;
                            EXPECT_EQ(s.den[k], den) << "frame " << f << " scale " << k;
                            EXPECT_EQ(s.scale[k], score) << "frame " << f << " scale " << k;
                        } else {
                            EXPECT_NEAR(s.scale[k], score, 1e-4) << "frame " << f;
                        }
                    }
                    ++checked;
                }
            }
    EXPECT_GE(checked, 4 * cases.size());
}

// A textured 8-bit frame (seeded noise, lightly smoothed so every scale has detail).
std::vector<uint8_t> texture(int w, int h) {
    std::vector<uint8_t> noise(static_cast<size_t>(w) * h);
    uint32_t state = 12345;
    for (auto& v : noise) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<uint8_t>(32 + (state >> 24) * 3 / 4);
    }
    return noise;
}

// The frame with the box [x0, x1) x [y0, y1) blurred (3 passes of a 9x9 box mean, clipped).
std::vector<uint8_t> blur_box(const std::vector<uint8_t>& in, int w, int x0, int x1, int y0,
                              int y1) {
    std::vector<uint8_t> cur = in;
    for (int pass = 0; pass < 3; ++pass) {
        std::vector<uint8_t> next = cur;
        for (int i = y0; i < y1; ++i)
            for (int j = x0; j < x1; ++j) {
                int sum = 0, n = 0;
                for (int a = std::max(y0, i - 4); a <= std::min(y1 - 1, i + 4); ++a)
                    for (int b = std::max(x0, j - 4); b <= std::min(x1 - 1, j + 4); ++b) {
                        sum += cur[static_cast<size_t>(a) * w + b];
                        ++n;
                    }
                next[static_cast<size_t>(i) * w + j] = static_cast<uint8_t>((sum + n / 2) / n);
            }
        cur.swap(next);
    }
    return cur;
}

// A hand-built pair: the top-left quadrant blurred, the rest untouched. The local VIF map of
// scales 0 and 1 at the frame's size is low inside the quadrant and 1 (to within the
// low-variance branch's tiny deficit) everywhere farther than the filters reach from it.
TEST(VifMaps, BlurredQuadrantIsWhereTheLowValuesAre) {
    const int w = 256, h = 256, q = 128;
    const std::vector<uint8_t> ref = texture(w, h);
    const std::vector<uint8_t> dis = blur_box(ref, w, 0, q, 0, q);
    const Plane r{ref.data(), w, w, h}, d{dis.data(), w, w, h};
    for (const bool integer : {true, false}) {
        SCOPED_TRACE(integer ? "integer" : "float");
        auto scorer = make(integer, w, h, 8, 100.0);
        vif::ScaleRaw raw[4];
        FrameMaps maps;
        ASSERT_TRUE(scorer->compute_maps(r, d, raw, maps));
        for (int s = 0; s < 2; ++s) {
            const ScaleMap& m = maps.scale[s];
            const auto local = vif::local_vif(vif::view(m));
            const auto full = vif::to_frame_size(local, m.width, m.height, s, w, h);
            // How far an edit reaches in frame pixels: the scale's filters, the downsampling
            // chain and the window, rounded up.
            const int margin = 24 << s;
            double inside_sum = 0.0, inside_max = 0.0, outside_min = 2.0;
            size_t inside_n = 0;
            for (int i = 0; i < h; ++i)
                for (int j = 0; j < w; ++j) {
                    const float v = full[static_cast<size_t>(i) * w + j];
                    if (i < q - margin && j < q - margin) {
                        inside_sum += v;
                        inside_max = std::max(inside_max, double(v));
                        ++inside_n;
                    } else if (i >= q + margin || j >= q + margin) {
                        outside_min = std::min(outside_min, double(v));
                    }
                }
            ASSERT_GT(inside_n, 0u);
            std::printf("[ scale %d: inside mean %.3f max %.3f, outside min %.5f ]\n", s,
                        inside_sum / inside_n, inside_max, outside_min);
            EXPECT_LT(inside_sum / inside_n, 0.5) << "scale " << s;
            EXPECT_LT(inside_max, 0.8) << "scale " << s;
            EXPECT_GT(outside_min, 0.99) << "scale " << s;
        }
    }
}

// The frame-size mapping: nearest neighbour, the last row and column repeated for odd sizes.
TEST(VifMaps, ToFrameSizeIsNearestNeighbour) {
    const std::vector<float> m = {1, 2, 3, 4, 5, 6}; // 3 x 2
    const auto full = vif::to_frame_size(m, 3, 2, 1, 7, 5);
    ASSERT_EQ(full.size(), 35u);
    EXPECT_EQ(full[0], 1.0f);
    EXPECT_EQ(full[1], 1.0f);
    EXPECT_EQ(full[2], 2.0f);
    EXPECT_EQ(full[6], 3.0f);         // column 6 -> 3, clamped to 2
    EXPECT_EQ(full[2 * 7 + 0], 4.0f); // row 2 -> 1
    EXPECT_EQ(full[4 * 7 + 6], 6.0f); // row 4 -> 2, clamped to 1
}

// The local window: clipped at the borders, a ratio of sums (not a mean of ratios).
TEST(VifMaps, LocalVifIsTheRatioOfWindowSums) {
    ScaleMap m;
    m.width = 3;
    m.height = 1;
    m.num = {1.0f, 0.0f, 3.0f};
    m.den = {1.0f, 1.0f, 3.0f};
    const auto local = vif::local_vif(vif::view(m), 1);
    ASSERT_EQ(local.size(), 3u);
    EXPECT_FLOAT_EQ(local[0], 1.0f / 2.0f);
    EXPECT_FLOAT_EQ(local[1], 4.0f / 5.0f);
    EXPECT_FLOAT_EQ(local[2], 3.0f / 4.0f);
}

// Both variants on a map larger than the window in one direction and smaller in the other,
// against the window sums formed pixel by pixel: integer sums are exact, so the ratio is the
// §6.6 form of the window's NL, DL, NN, DN to the bit; float within rounding of the sums' order.
TEST(VifMaps, LocalVifEqualsWindowSumsFormedPixelByPixel) {
    // Wide rows too (the loops along a row run in vector lanes, the borders apart).
    for (const auto& [w, h, r] :
         {std::tuple{13, 4, 2}, std::tuple{3, 9, 2}, std::tuple{40, 31, 2}, std::tuple{7, 7, 0},
          std::tuple{131, 9, 2}, std::tuple{70, 6, 1}, std::tuple{67, 12, 3}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " r " + std::to_string(r));
        ScaleMap mi, mf;
        mi.width = mf.width = w;
        mi.height = mf.height = h;
        uint32_t seed = 12345;
        auto next = [&seed] { return seed = seed * 1103515245u + 12345u; };
        for (int p = 0; p < w * h; ++p) {
            const bool flat = next() % 3 == 0;
            mi.nl.push_back(flat ? 0 : int32_t(next() % 40000) - 8000);
            mi.dl.push_back(flat ? 0 : int32_t(next() % 60000));
            mi.nn.push_back(flat ? int32_t(next() % 3000000) : 0);
            mi.dn.push_back(flat ? 1 : 0);
            mf.num.push_back(float(next() % 1000) / 97.0f - 1.0f);
            mf.den.push_back(1.0f + float(next() % 1000) / 31.0f);
        }
        const auto li = vif::local_vif(vif::view(mi), r);
        const auto lf = vif::local_vif(vif::view(mf), r);
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) {
                int64_t nl = 0, dl = 0, nn = 0, dn = 0;
                double fn = 0, fd = 0;
                for (int a = std::max(0, i - r); a <= std::min(h - 1, i + r); ++a)
                    for (int b = std::max(0, j - r); b <= std::min(w - 1, j + r); ++b) {
                        const size_t q = size_t(a) * w + b;
                        nl += mi.nl[q];
                        dl += mi.dl[q];
                        nn += mi.nn[q];
                        dn += mi.dn[q];
                        fn += mf.num[q];
                        fd += mf.den[q];
                    }
                const double num =
                    double(nl) / 2048.0 + (double(dn) - (double(nn) / 16384.0) / 65025.0);
                const double den = double(dl) / 2048.0 + double(dn);
                const size_t p = size_t(i) * w + j;
                EXPECT_TRUE(same_bits(li[p], float(num / den))) << i << "," << j;
                EXPECT_NEAR(lf[p], fn / fd, 1e-6 * std::abs(fn / fd)) << i << "," << j;
                // Float, in the order docs/algorithm.md §12.3 gives: each column's terms over
                // the window's rows top to bottom (in double), then those sums left to right.
                double sn = 0.0, sd = 0.0;
                for (int b = std::max(0, j - r); b <= std::min(w - 1, j + r); ++b) {
                    double cn = 0.0, cd = 0.0;
                    for (int a = std::max(0, i - r); a <= std::min(h - 1, i + r); ++a) {
                        cn += mf.num[size_t(a) * w + b];
                        cd += mf.den[size_t(a) * w + b];
                    }
                    sn += cn;
                    sd += cd;
                }
                EXPECT_TRUE(same_bits(lf[p], float(sn / sd))) << "float " << i << "," << j;
            }
    }
}

// The public API with VifConfig.maps: every frame of a case (several in flight, 2 threads, and
// a two-rung vif_submit_multi) comes with maps equal bit for bit to the reference scorer's, and
// the same scores as a context without maps.
void expect_same_map(const VifScaleMap& got, const ScaleMap& want, bool integer) {
    ASSERT_EQ(got.width, uint32_t(want.width));
    ASSERT_EQ(got.height, uint32_t(want.height));
    const size_t n = want.pixels();
    if (integer) {
        ASSERT_TRUE(got.nl && got.dl && got.nn && got.dn);
        EXPECT_EQ(got.num, nullptr);
        EXPECT_EQ(std::memcmp(got.nl, want.nl.data(), n * 4), 0);
        EXPECT_EQ(std::memcmp(got.dl, want.dl.data(), n * 4), 0);
        EXPECT_EQ(std::memcmp(got.nn, want.nn.data(), n * 4), 0);
        EXPECT_EQ(std::memcmp(got.dn, want.dn.data(), n * 4), 0);
    } else {
        ASSERT_TRUE(got.num && got.den);
        EXPECT_EQ(got.nl, nullptr);
        EXPECT_EQ(std::memcmp(got.num, want.num.data(), n * 4), 0);
        EXPECT_EQ(std::memcmp(got.den, want.den.data(), n * 4), 0);
    }
}

VifContext* create_context(bool integer, const vif::testing::GoldenCase& c, uint32_t maps) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = c.width;
    cfg.max_height = c.height;
    cfg.bitdepth = c.bitdepth;
    cfg.variant = integer ? VIF_VARIANT_INTEGER : VIF_VARIANT_FLOAT;
    cfg.threads = 2;
    cfg.queue_depth = 8; // every pair of the test in flight at once
    cfg.maps = maps;
    cfg.backend = VIF_BACKEND_CPU; // the CUDA backend's maps: tests/parity/maps_parity_test.cpp
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    return ctx;
}

TEST(VifMapsApi, ReceivedMapsEqualTheReferenceBitForBit) {
    const auto cases = vif::testing::load_manifest(VIF_TESTDATA_DIR);
    const auto it = std::find_if(cases.begin(), cases.end(), [](const auto& c) {
        return c.name == "foreman_176x144_8b_crf45"; // 3 frames
    });
    ASSERT_NE(it, cases.end());
    const auto& c = *it;
    for (const bool integer : {true, false}) {
        SCOPED_TRACE(integer ? "integer" : "float");
        VifContext* with = create_context(integer, c, 1);
        VifContext* without = create_context(integer, c, 0);
        ASSERT_TRUE(with && without);
        EXPECT_STREQ(vif_backend_name(with), "cpu");
        auto oracle = make(integer, c.width, c.height, c.bitdepth, 100.0);
        std::vector<std::vector<uint8_t>> refs, dists;
        for (uint32_t f = 0; f < c.frames; ++f) {
            refs.push_back(vif::testing::read_luma(c, c.ref_path(), f));
            dists.push_back(vif::testing::read_luma(c, c.dist_path(), f));
        }
        const ptrdiff_t stride = c.width * c.bytes_per_sample();
        auto pic = [&](const std::vector<uint8_t>& p) {
            return VifPicture{p.data(), stride, c.width, c.height, c.bitdepth, 0};
        };
        // The frames one by one (all in flight), then frame 0 against the distorted frames 0
        // and 1 as one multi submission.
        std::vector<std::pair<size_t, size_t>> pairs;
        for (uint32_t f = 0; f < c.frames; ++f) {
            const VifPicture r = pic(refs[f]), d = pic(dists[f]);
            ASSERT_EQ(vif_submit(with, &r, &d, nullptr), VIF_OK) << vif_last_error();
            ASSERT_EQ(vif_submit(without, &r, &d, nullptr), VIF_OK) << vif_last_error();
            pairs.push_back({f, f});
        }
        const VifPicture r0 = pic(refs[0]), d0 = pic(dists[0]), d1 = pic(dists[1]);
        const VifPicture* multi[2] = {&d0, &d1};
        ASSERT_EQ(vif_submit_multi(with, &r0, multi, 2, nullptr), VIF_OK) << vif_last_error();
        ASSERT_EQ(vif_submit_multi(without, &r0, multi, 2, nullptr), VIF_OK) << vif_last_error();
        pairs.push_back({0, 0});
        pairs.push_back({0, 1});
        for (size_t k = 0; k < pairs.size(); ++k) {
            VifScores got, plain;
            VifMaps maps;
            ASSERT_EQ(vif_receive_maps(with, &got, &maps, 1), VIF_OK) << vif_last_error();
            ASSERT_EQ(vif_receive(without, &plain, 1), VIF_OK) << vif_last_error();
            EXPECT_EQ(maps.frame_index, k);
            EXPECT_EQ(got.frame_index, k);
            EXPECT_EQ(std::memcmp(got.num, plain.num, sizeof got.num), 0) << "pair " << k;
            EXPECT_EQ(std::memcmp(got.den, plain.den, sizeof got.den), 0) << "pair " << k;
            const Plane pr{refs[pairs[k].first].data(), stride, int(c.width), int(c.height)};
            const Plane pd{dists[pairs[k].second].data(), stride, int(c.width), int(c.height)};
            vif::ScaleRaw raw[4];
            FrameMaps want;
            ASSERT_TRUE(oracle->compute_maps(pr, pd, raw, want));
            for (int s = 0; s < 4; ++s) {
                expect_same_map(maps.scale[s], want.scale[s], integer);
                // The public local map is §12.3's, bit for bit.
                const std::vector<float> local = vif::local_vif(vif::view(want.scale[s]));
                std::vector<float> got_local(local.size(), -1.0f);
                ASSERT_EQ(vif_local_map(&maps.scale[s], got_local.data()), VIF_OK);
                EXPECT_EQ(std::memcmp(got_local.data(), local.data(), local.size() * 4), 0);
            }
        }
        vif_destroy(with);
        vif_destroy(without);
    }
}

TEST(VifMapsApi, BadUseIsRefused) {
    const auto cases = vif::testing::load_manifest(VIF_TESTDATA_DIR);
    ASSERT_FALSE(cases.empty());
    const auto& c = cases[0];
    // maps above 1
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = c.width;
    cfg.max_height = c.height;
    cfg.maps = 2;
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("maps"), std::string::npos);
    EXPECT_EQ(ctx, nullptr);
    // vif_receive_maps on a context without maps: refused, and the frame is still there.
    VifContext* plain = create_context(true, c, 0);
    ASSERT_TRUE(plain);
    const auto ref = vif::testing::read_luma(c, c.ref_path(), 0);
    const VifPicture r{ref.data(), ptrdiff_t(c.width), c.width, c.height, 8, 0};
    ASSERT_EQ(vif_submit(plain, &r, &r, nullptr), VIF_OK);
    VifScores s;
    VifMaps m;
    EXPECT_EQ(vif_receive_maps(plain, &s, &m, 1), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("without maps"), std::string::npos);
    EXPECT_EQ(vif_pending(plain), 1u);
    EXPECT_EQ(vif_receive_maps(plain, &s, nullptr, 1), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_receive(plain, &s, 1), VIF_OK);
    vif_destroy(plain);
    // vif_local_map: NULLs, a zero size, no arrays.
    float out[16 * 16];
    VifScaleMap none{};
    none.width = none.height = 16;
    EXPECT_EQ(vif_local_map(nullptr, out), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_local_map(&none, nullptr), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vif_local_map(&none, out), VIF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(vif_last_error()).find("neither"), std::string::npos);
    std::vector<float> num(256, 1.0f), den(256, 2.0f);
    none.num = num.data();
    none.den = den.data();
    EXPECT_EQ(vif_local_map(&none, out), VIF_OK);
    EXPECT_EQ(out[0], 0.5f);
    none.width = 0;
    EXPECT_EQ(vif_local_map(&none, out), VIF_ERROR_INVALID_ARGUMENT);
}

} // namespace
