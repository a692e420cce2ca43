// The fast CPU scorers (cpu_fast/) are built once per x86-64 level (cpu_fast/dispatch.cpp picks
// one at run time; docs/decisions/0001) and must give the bits of the plain reference scorers
// (cpu_ref/), the oracle. This test runs the reference and every level the CPU supports on the
// same frames and requires identical raw sums: integer NL/DL/NN/DN and float num/den, bit for
// bit. Inputs are random frames with the worst cases of docs/algorithm.md: flat blocks
// (low-variance branch), saturated areas, checkerboards, noise, odd sizes and the smallest size,
// at every bit depth and both gain limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu_fast/cpu_fast.hpp"
#include "cpu_ref/cpu_ref.hpp"

namespace {

using vif::ScaleRaw;
using vif::cpu_ref::FrameScorer; // the interface of both the reference and the fast scorers
using vif::cpu_ref::Plane;

struct Level {
    const char* name;
    bool supported;
    std::unique_ptr<FrameScorer> (*make_integer)(int, int, int, double);
    std::unique_ptr<FrameScorer> (*make_float)(int, int, int, double, float);
};

// The reference first: every other entry is compared with it.
std::vector<Level> levels() {
    std::vector<Level> out = {
        {"reference", true, vif::cpu_ref::make_integer, vif::cpu_ref::make_float},
        {"base", true, vif::cpu_fast::base::make_integer, vif::cpu_fast::base::make_float}};
#if defined(__x86_64__)
    __builtin_cpu_init();
    out.push_back({"avx2", __builtin_cpu_supports("x86-64-v3") != 0,
                   vif::cpu_fast::v3::make_integer, vif::cpu_fast::v3::make_float});
    out.push_back({"avx512", __builtin_cpu_supports("x86-64-v4") != 0,
                   vif::cpu_fast::v4::make_integer, vif::cpu_fast::v4::make_float});
#endif
    return out;
}

// A frame made of regions: smooth gradient with noise, flat blocks, a saturated band, a
// checkerboard; the distorted frame adds noise, a gain, or zeroes parts of it.
std::vector<uint16_t> make_frame(int w, int h, int bpc, uint32_t seed, bool distorted) {
    const int maxv = (1 << bpc) - 1;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-maxv / 40 - 1, maxv / 40 + 1);
    std::vector<uint16_t> f(size_t(w) * h);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            int v;
            const int region = ((i / 24) * 7 + (j / 24)) % 5;
            if (region == 0)
                v = maxv / 3; // flat
            else if (region == 1)
                v = maxv; // saturated
            else if (region == 2)
                v = ((i + j) & 1) ? maxv : 0; // checkerboard
            else
                v = (i * 37 + j * 11) % (maxv + 1) / 2 + noise(rng) + maxv / 4; // texture
            if (distorted) {
                if (region == 3)
                    v = v * 5 / 4; // gain above 1
                else if (region == 4)
                    v += noise(rng) * 3;
                else if (region == 0 && (i + j) % 7 == 0)
                    v += 1;
            }
            f[size_t(i) * w + j] = static_cast<uint16_t>(std::clamp(v, 0, maxv));
        }
    return f;
}

struct Case {
    int w, h, bpc;
    double gain;
};

// Bit-for-bit equality of two float arrays (integer maps leave them empty: no memcmp on null).
bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
    return x.size() == y.size() &&
           (x.empty() || std::memcmp(x.data(), y.data(), sizeof(float) * x.size()) == 0);
}

TEST(IsaLevels, SameRawSumsOnEveryLevel) {
    const std::vector<Level> all = levels();
    const Case cases[] = {{16, 16, 8, 100},   {97, 61, 8, 100},  {176, 144, 8, 1},
                          {331, 190, 8, 100}, {96, 80, 10, 100}, {131, 67, 10, 1},
                          {120, 72, 12, 100}, {75, 41, 16, 100}, {200, 120, 16, 1}};
    int compared = 0;
    for (const Case& c : cases) {
        const auto ref16 = make_frame(c.w, c.h, c.bpc, 7 + c.w, false);
        const auto dis16 = make_frame(c.w, c.h, c.bpc, 7 + c.w, true);
        std::vector<uint8_t> ref8(ref16.begin(), ref16.end()), dis8(dis16.begin(), dis16.end());
        const bool bytes = c.bpc == 8;
        const Plane ref{bytes ? static_cast<const void*>(ref8.data()) : ref16.data(),
                        c.w * (bytes ? 1 : 2), c.w, c.h};
        const Plane dis{bytes ? static_cast<const void*>(dis8.data()) : dis16.data(),
                        c.w * (bytes ? 1 : 2), c.w, c.h};
        for (bool integer : {true, false}) {
            ScaleRaw first[4];
            const char* first_name = nullptr;
            for (const Level& l : all) {
                if (!l.supported) continue;
                auto scorer = integer ? l.make_integer(c.w, c.h, c.bpc, c.gain)
                                      : l.make_float(c.w, c.h, c.bpc, c.gain, 1.0f);
                ScaleRaw out[4];
                scorer->compute(ref, dis, out);
                if (!first_name) {
                    std::memcpy(first, out, sizeof out);
                    first_name = l.name;
                    // The frames must reach both branches, or the comparison proves little.
                    if (integer && c.w >= 64) { // 16x16 is one flat region
                        EXPECT_GT(out[0].dn, 0) << "no low-variance pixels";
                        EXPECT_GT(out[0].nl, 0) << "no log-domain pixels";
                    }
                    continue;
                }
                const std::string what =
                    std::string(integer ? "integer " : "float ") + std::to_string(c.w) + "x" +
                    std::to_string(c.h) + " " + std::to_string(c.bpc) + "-bit egl " +
                    std::to_string(c.gain) + ": " + l.name + " vs " + first_name;
                for (int s = 0; s < 4; ++s) {
                    EXPECT_EQ(out[s].nl, first[s].nl) << what << " scale " << s;
                    EXPECT_EQ(out[s].dl, first[s].dl) << what << " scale " << s;
                    EXPECT_EQ(out[s].nn, first[s].nn) << what << " scale " << s;
                    EXPECT_EQ(out[s].dn, first[s].dn) << what << " scale " << s;
                    EXPECT_EQ(std::memcmp(&out[s].num, &first[s].num, 4), 0)
                        << what << " scale " << s;
                    EXPECT_EQ(std::memcmp(&out[s].den, &first[s].den, 4), 0)
                        << what << " scale " << s;
                }
                ++compared;
            }
        }
    }
    EXPECT_GT(compared, 0);
}

// A ladder (compute_multi: the fast scorers keep the reference's statistics once and add each
// rung's) gives the same raw sums as scoring each pair alone, on every level and every bit depth.
TEST(IsaLevels, LadderEqualsSeparatePairsOnEveryLevel) {
    const Case cases[] = {{16, 16, 8, 100}, {97, 61, 8, 100},   {331, 190, 8, 1},
                          {131, 67, 10, 1}, {120, 72, 12, 100}, {75, 41, 16, 100}};
    for (const Level& l : levels()) {
        if (!l.supported) continue;
        for (const Case& c : cases) {
            const bool bytes = c.bpc == 8;
            std::vector<std::vector<uint16_t>> f16 = {
                make_frame(c.w, c.h, c.bpc, 3, false), make_frame(c.w, c.h, c.bpc, 3, true),
                make_frame(c.w, c.h, c.bpc, 9, true), make_frame(c.w, c.h, c.bpc, 3, false)};
            std::vector<std::vector<uint8_t>> f8;
            for (const auto& f : f16) f8.emplace_back(f.begin(), f.end());
            std::vector<Plane> p;
            for (size_t k = 0; k < f16.size(); ++k)
                p.push_back({bytes ? static_cast<const void*>(f8[k].data()) : f16[k].data(),
                             c.w * (bytes ? 1 : 2), c.w, c.h});
            for (bool integer : {true, false}) {
                auto scorer = integer ? l.make_integer(c.w, c.h, c.bpc, c.gain)
                                      : l.make_float(c.w, c.h, c.bpc, c.gain, 1.0f);
                ScaleRaw ladder[3][4], alone[4];
                scorer->compute_multi(p[0], p.data() + 1, 3, ladder);
                for (int k = 0; k < 3; ++k) {
                    scorer->compute(p[0], p[size_t(k) + 1], alone);
                    for (int s = 0; s < 4; ++s) {
                        const std::string what = std::string(l.name) +
                                                 (integer ? " integer " : " float ") +
                                                 std::to_string(c.w) + "x" + std::to_string(c.h) +
                                                 " " + std::to_string(c.bpc) + "-bit rung " +
                                                 std::to_string(k) + " scale " + std::to_string(s);
                        EXPECT_EQ(ladder[k][s].nl, alone[s].nl) << what;
                        EXPECT_EQ(ladder[k][s].dl, alone[s].dl) << what;
                        EXPECT_EQ(ladder[k][s].nn, alone[s].nn) << what;
                        EXPECT_EQ(ladder[k][s].dn, alone[s].dn) << what;
                        EXPECT_EQ(std::memcmp(&ladder[k][s].num, &alone[s].num, 4), 0) << what;
                        EXPECT_EQ(std::memcmp(&ladder[k][s].den, &alone[s].den, 4), 0) << what;
                    }
                }
            }
        }
    }
}

// Per-pixel maps (docs/algorithm.md §12.1): every level's compute_maps gives the reference's terms
// of every pixel and scale, bit for bit, and compute()'s totals. Widths around the AVX-512
// blocks of 32 columns (whose horizontal pass stores even columns first) and their tails; a
// scorer reused for a smaller frame after a larger one (maps keep their storage).
TEST(IsaLevels, MapsEqualTheReferenceOnEveryLevel) {
    const Case cases[] = {{16, 16, 8, 100},   {97, 61, 8, 100},  {128, 40, 8, 1},
                          {331, 190, 8, 100}, {96, 80, 10, 100}, {131, 67, 10, 1},
                          {120, 72, 12, 100}, {75, 41, 16, 100}, {200, 120, 16, 1}};
    const std::vector<Level> all = levels();
    size_t compared = 0;
    for (bool integer : {true, false})
        for (const Case& c : cases) {
            const auto ref16 = make_frame(c.w, c.h, c.bpc, 5 + c.h, false);
            const auto dis16 = make_frame(c.w, c.h, c.bpc, 5 + c.h, true);
            std::vector<uint8_t> ref8(ref16.begin(), ref16.end()), dis8(dis16.begin(), dis16.end());
            const bool bytes = c.bpc == 8;
            const Plane ref{bytes ? static_cast<const void*>(ref8.data()) : ref16.data(),
                            c.w * (bytes ? 1 : 2), c.w, c.h};
            const Plane dis{bytes ? static_cast<const void*>(dis8.data()) : dis16.data(),
                            c.w * (bytes ? 1 : 2), c.w, c.h};
            vif::FrameMaps want;
            ScaleRaw want_raw[4];
            ASSERT_TRUE((integer ? vif::cpu_ref::make_integer(c.w, c.h, c.bpc, c.gain)
                                 : vif::cpu_ref::make_float(c.w, c.h, c.bpc, c.gain, 1.0f))
                            ->compute_maps(ref, dis, want_raw, want));
            for (const Level& l : all) {
                if (!l.supported || std::string(l.name) == "reference") continue;
                // Sized for a larger frame, and a larger frame's maps first, then this one's.
                const int bw = c.w + 40, bh = c.h + 24;
                auto scorer = integer ? l.make_integer(bw, bh, c.bpc, c.gain)
                                      : l.make_float(bw, bh, c.bpc, c.gain, 1.0f);
                const auto big16 = make_frame(bw, bh, c.bpc, 2, false);
                const std::vector<uint8_t> big8(big16.begin(), big16.end());
                const Plane big{bytes ? static_cast<const void*>(big8.data()) : big16.data(),
                                bw * (bytes ? 1 : 2), bw, bh};
                vif::FrameMaps got;
                ScaleRaw got_raw[4], plain[4];
                ASSERT_TRUE(scorer->compute_maps(big, big, got_raw, got));
                ASSERT_TRUE(scorer->compute_maps(ref, dis, got_raw, got));
                scorer->compute(ref, dis, plain);
                for (int s = 0; s < 4; ++s) {
                    const std::string what =
                        std::string(l.name) + (integer ? " integer " : " float ") +
                        std::to_string(c.w) + "x" + std::to_string(c.h) + " " +
                        std::to_string(c.bpc) + "-bit scale " + std::to_string(s);
                    const vif::ScaleMap &a = want.scale[s], &b = got.scale[s];
                    ASSERT_EQ(b.width, a.width) << what;
                    ASSERT_EQ(b.height, a.height) << what;
                    ASSERT_EQ(b.integer(), integer) << what;
                    EXPECT_EQ(b.nl, a.nl) << what;
                    EXPECT_EQ(b.dl, a.dl) << what;
                    EXPECT_EQ(b.nn, a.nn) << what;
                    EXPECT_EQ(b.dn, a.dn) << what;
                    ASSERT_EQ(b.num.size(), a.num.size()) << what;
                    ASSERT_EQ(b.den.size(), a.den.size()) << what;
                    EXPECT_TRUE(same_bits(b.num, a.num)) << what;
                    EXPECT_TRUE(same_bits(b.den, a.den)) << what;
                    EXPECT_EQ(got_raw[s].nl, plain[s].nl) << what;
                    EXPECT_EQ(got_raw[s].dl, plain[s].dl) << what;
                    EXPECT_EQ(got_raw[s].nn, plain[s].nn) << what;
                    EXPECT_EQ(got_raw[s].dn, plain[s].dn) << what;
                    EXPECT_EQ(std::memcmp(&got_raw[s].num, &plain[s].num, 4), 0) << what;
                    EXPECT_EQ(std::memcmp(&got_raw[s].den, &plain[s].den, 4), 0) << what;
                }
                ++compared;
            }
        }
    EXPECT_GT(compared, 0u);
}

} // namespace
