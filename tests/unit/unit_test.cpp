// Unit tests of the numeric building blocks against the facts docs/algorithm.md states: the
// log table (§6.4), the filters (§5), the border rule (§4.2), the approximate log (§7.5),
// option values (§5.3), and the reference patterns with libvmaf's values (§10.1).
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "vif/vif.h"
#include "core/pixel_math.hpp"
#include "core/vif_constants.hpp"

namespace {

uint32_t crc32(const uint8_t* data, size_t n) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        crc ^= data[i];
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

TEST(LogTable, MatchesSpecChecks) {
    std::vector<uint16_t> t(vif::kLogTableSize);
    vif::build_log_table(t.data());
    auto T = [&](int i) { return t[i - vif::kLogTableFirst]; };
    EXPECT_EQ(T(32768), 30720);
    EXPECT_EQ(T(36864), 31068);
    EXPECT_EQ(T(40960), 31379);
    EXPECT_EQ(T(49152), 31918);
    EXPECT_EQ(T(65535), 32768);
    uint64_t sum = 0;
    for (uint16_t v : t) sum += v;
    EXPECT_EQ(sum, 1044032097u);
    std::vector<uint8_t> le(t.size() * 2);
    for (size_t i = 0; i < t.size(); ++i) {
        le[2 * i] = static_cast<uint8_t>(t[i] & 0xff);
        le[2 * i + 1] = static_cast<uint8_t>(t[i] >> 8);
    }
    EXPECT_EQ(crc32(le.data(), le.size()), 0x42ad4d4fu);
    // Entries where rounding in double would be one too small (docs/algorithm.md §6.4: 38 of them).
    for (int i : {33108, 45834, 64841}) {
        const double dbl = std::round(std::log2(static_cast<double>(i)) * 2048.0);
        EXPECT_EQ(T(i), static_cast<uint16_t>(dbl) + 1) << i;
    }
}

TEST(LogTable, LookupTruncatesToSixteenBits) {
    std::vector<uint16_t> t(vif::kLogTableSize);
    vif::build_log_table(t.data());
    const vif::pixel::TableLog<uint16_t> lt{t.data()};
    // L(2^17) = T[32768] + 2048 * 2; L(v) for v = 65535 * 2 + 1 uses index 65535 (truncated).
    EXPECT_EQ(vif::pixel::log_l64(lt, 1u << 17), 30720 + 2 * 2048);
    EXPECT_EQ(vif::pixel::log_l64(lt, 65535u * 2 + 1), 32768 + 2048);
    EXPECT_EQ(vif::pixel::log_l64(lt, 1ull << 40), 30720 + 25 * 2048);
    // The 32-bit form (what the kernels use for arguments below 2^32) agrees.
    EXPECT_EQ(vif::pixel::log_l32(lt, 1u << 17), 30720 + 2 * 2048);
    EXPECT_EQ(vif::pixel::log_l32(lt, 65535u * 2 + 1), 32768 + 2048);
    EXPECT_EQ(vif::pixel::log_l32(lt, 0xFFFFFFFFu), 32768 + 16 * 2048);
}

// The two-level form of T reproduces every one of the 32,768 entries of the reference table,
// and its check refuses a table whose steps are not 0 or 1.
TEST(LogTable, TwoLevelFormReproducesEveryEntry) {
    std::vector<uint16_t> t(vif::kLogTableSize);
    vif::build_log_table(t.data());
    auto two = std::make_unique<vif::pixel::LogTable2>();
    ASSERT_TRUE(vif::pixel::build_log_table2(t.data(), two.get()));
    for (int k = 0; k < vif::kLogTableSize; ++k)
        ASSERT_EQ((*two)(static_cast<uint32_t>(vif::kLogTableFirst + k)), t[k])
            << "i = " << 32768 + k;
    // Used through L(v) it gives the same values as the flat table.
    const vif::pixel::TableLog<uint16_t> flat{t.data()};
    for (uint64_t v : {uint64_t(1) << 17, uint64_t(262143), uint64_t(0xFFFFFFFFu),
                       uint64_t(1) << 40, uint64_t(123456789012345)})
        EXPECT_EQ(vif::pixel::log_l64(*two, v), vif::pixel::log_l64(flat, v)) << v;
    std::vector<uint16_t> bad = t;
    bad[1000] += 2; // a step of 2 (and then -1)
    EXPECT_FALSE(vif::pixel::build_log_table2(bad.data(), two.get()));
}

// The packed form (one 32-bit word per 16 entries, what the CUDA `p` variants read from shared
// memory) too.
TEST(LogTable, PackedFormReproducesEveryEntry) {
    std::vector<uint16_t> t(vif::kLogTableSize);
    vif::build_log_table(t.data());
    auto packed = std::make_unique<vif::pixel::LogTablePacked>();
    ASSERT_TRUE(vif::pixel::build_log_table_packed(t.data(), packed.get()));
    static_assert(sizeof(vif::pixel::LogTablePacked) == 8192, "8 KB");
    static_assert(sizeof(vif::pixel::LogTable2) == 6144, "6 KB");
    for (int k = 0; k < vif::kLogTableSize; ++k)
        ASSERT_EQ((*packed)(static_cast<uint32_t>(vif::kLogTableFirst + k)), t[k])
            << "i = " << 32768 + k;
    std::vector<uint16_t> bad = t;
    bad[1000] += 2;
    EXPECT_FALSE(vif::pixel::build_log_table_packed(bad.data(), packed.get()));
}

// The shared per-pixel maths (pixel_math.hpp), on values worked out by hand from
// docs/algorithm.md §6.3 and §6.5.
TEST(PixelMath, VarianceRoundingAndNumeratorArguments) {
    using namespace vif::pixel;
    EXPECT_EQ(mean_product(1u << 16, 1u << 16), 1u); // rs(2^32, 32)
    EXPECT_EQ(mean_product(1u << 15, 1u << 16), 1u); // rs(2^31, 32): half rounds up
    EXPECT_EQ(mean_product((1u << 15) - 1, 1u << 16), 0u);
    EXPECT_EQ(variance(10, 1u << 16, 1u << 16), 9);
    EXPECT_EQ(variance(0, 1u << 16, 1u << 16), -1); // negative variances stay signed
    // sigma_x^2 = sigma_y^2 = sigma_xy = NSQ: g = 2^17 / (2^17 + 65536e-10) just below 1,
    // sigma_v^2 = trunc(6.55e-6) = 0, g^2 sigma_x^2 = 131071.99998 -> 131071.
    NumeratorArgs a = numerator_args(131072, 131072, 131072, 100.0);
    EXPECT_EQ(a.n1, 131072u);
    EXPECT_EQ(a.n2, 131072u + 131071u);
    // The gain limit applies after sigma_v^2: g = 0.5, g^2 sigma_x^2 = 32768 exactly.
    a = numerator_args(131072, 131072, 131072, 0.5);
    EXPECT_EQ(a.n1, 131072u);
    EXPECT_EQ(a.n2, 131072u + 32768u);
    // sigma_v^2 negative (sigma_xy^2 > sigma_x^2 sigma_y^2) clamps to 0.
    EXPECT_EQ(numerator_args(131072, 1, 131072, 100.0).n1, 131072u);
    // One pixel's contribution: below NSQ only NN and DN move.
    std::vector<uint16_t> t(vif::kLogTableSize);
    vif::build_log_table(t.data());
    const TableLog<uint16_t> lt{t.data()};
    int64_t nl = 0, dl = 0, nn = 0, dn = 0;
    add_pixel(131071, 5, 3, lt, 100.0, nl, dl, nn, dn);
    add_pixel(131071, -4, 3, lt, 100.0, nl, dl, nn, dn); // sigma_y^2 clamps to 0
    EXPECT_EQ(nl, 0);
    EXPECT_EQ(dl, 0);
    EXPECT_EQ(nn, 5);
    EXPECT_EQ(dn, 2);
    // At NSQ: DL += L(2^18) - 17 * 2048 = T[32768] + 3 * 2048 - 17 * 2048; no numerator term
    // when sigma_xy <= 0.
    add_pixel(131072, 9, 0, lt, 100.0, nl, dl, nn, dn);
    EXPECT_EQ(dl, 30720 + 3 * 2048 - 17 * 2048);
    EXPECT_EQ(nl, 0);
    // With the numerator: NL += L(262143) - L(131072) = (T[65535] + 2 * 2048) - (T[32768] + 2 * 2048).
    add_pixel(131072, 131072, 131072, lt, 100.0, nl, dl, nn, dn);
    EXPECT_EQ(nl, 32768 - 30720);
}

// Float terms of §7.4: a flat pixel (sigma_x^2 < NSQ) gets num = 1 - sigma_y^2 * smax, den = 1.
TEST(PixelMath, FloatTermsOverrides) {
    using namespace vif::pixel;
    const FloatLogArgs f = float_log_args(10.0f, 10.0f, 100.5f, 101.0f, 100.25f, 100.0f);
    EXPECT_FLOAT_EQ(f.sx, 0.5f);
    EXPECT_FLOAT_EQ(f.sy, 1.0f);
    EXPECT_FLOAT_EQ(f.sxy, 0.25f);
    float num = 0, den = 0;
    float_terms(7.0f, 8.0f, f.sxy, f.sx, f.sy, num, den);
    EXPECT_EQ(den, 1.0f);
    EXPECT_EQ(num, 1.0f - 1.0f * static_cast<float>(4.0 / 65025.0));
    float_terms(7.0f, 8.0f, -1.0f, 3.0f, 1.0f, num, den); // sigma_xy < 0: num 0, den kept
    EXPECT_EQ(num, 0.0f);
    EXPECT_EQ(den, 8.0f);
}

TEST(Filters, IntegerRowsSumTo65536AndAreSymmetric) {
    for (int s = 0; s < 4; ++s) {
        const int n = vif::kIntFilterWidth[s];
        const uint16_t* c = vif::int_filter(s);
        uint32_t sum = 0;
        for (int k = 0; k < n; ++k) {
            sum += c[k];
            EXPECT_EQ(c[k], c[n - 1 - k]);
        }
        EXPECT_EQ(sum, 65536u) << "scale " << s;
    }
    EXPECT_EQ(vif::int_filter(0)[8], 7784);
    EXPECT_EQ(vif::int_filter(3)[1], 43728);
}

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

TEST(Filters, FloatTapsMatchSpecBitPatterns) {
    const uint32_t s0[] = {0x3bf453b8, 0x3c69b9d9, 0x3ccd0e7b, 0x3d24fecf, 0x3d738495,
                           0x3da4d021, 0x3dcc9a86, 0x3de8f3b3, 0x3df33fb2};
    const uint32_t s1[] = {0x3c9b77ec, 0x3d64f57b, 0x3df7a562, 0x3e44ba13, 0x3e658dc1};
    const uint32_t s2[] = {0x3d5f2f86, 0x3e7a0fea, 0x3ece2433};
    const uint32_t s3[] = {0x3e2a5f21, 0x3f2ad06f};
    const uint32_t* want[] = {s0, s1, s2, s3};
    for (int s = 0; s < 4; ++s) {
        const int n = vif::float_filter_width(s, 1.0f);
        ASSERT_EQ(n, vif::kIntFilterWidth[s]);
        float taps[vif::kMaxFloatFilterWidth];
        vif::build_float_filter(s, 1.0f, taps);
        for (int k = 0; k <= n / 2; ++k) {
            EXPECT_EQ(bits(taps[k]), want[s][k]) << "scale " << s << " tap " << k;
            EXPECT_EQ(bits(taps[n - 1 - k]), want[s][k]);
        }
    }
}

TEST(Filters, KernelScaleWidthsMatchSpecTable) {
    struct Row {
        double ks;
        int w[4];
    };
    const Row rows[] = {
        {1.0, {17, 9, 5, 3}},           {0.5, {9, 5, 3, 3}},       {1.5, {27, 15, 9, 5}},
        {2.0, {35, 19, 11, 7}},         {2.0 / 3, {13, 7, 5, 3}},  {2.4, {41, 23, 13, 9}},
        {360.0 / 97, {65, 35, 19, 13}}, {4.0 / 3, {23, 13, 7, 5}}, {3.5 / 3, {21, 11, 7, 5}},
        {3.75 / 3, {23, 13, 7, 5}},     {5.0 / 3, {29, 15, 9, 5}}, {3.0, {51, 27, 15, 9}},
        {1 / 2.25, {9, 5, 3, 3}},       {1.4746, {27, 15, 9, 5}},  {1.06667, {19, 11, 7, 5}},
        {4.25 / 3, {25, 13, 9, 5}},     {0.711111, {13, 7, 5, 3}}};
    for (const Row& r : rows) {
        EXPECT_TRUE(vif::kernelscale_accepted(r.ks)) << r.ks;
        for (int s = 0; s < 4; ++s)
            EXPECT_EQ(vif::float_filter_width(s, static_cast<float>(r.ks)), r.w[s])
                << "ks " << r.ks << " scale " << s;
    }
    EXPECT_FALSE(vif::kernelscale_accepted(1.3));
    EXPECT_FALSE(vif::kernelscale_accepted(4.0));
    EXPECT_TRUE(vif::kernelscale_accepted(1.0005)); // within 1e-3
}

TEST(Border, Reflect101) {
    EXPECT_EQ(vif::reflect101(-1, 10), 1);
    EXPECT_EQ(vif::reflect101(-8, 10), 8);
    EXPECT_EQ(vif::reflect101(10, 10), 8);
    EXPECT_EQ(vif::reflect101(17, 10), 1);
    EXPECT_EQ(vif::reflect101(0, 10), 0);
    EXPECT_EQ(vif::reflect101(9, 10), 9);
}

TEST(Log2Approx, ExactAtPowersOfTwoAndClose) {
    EXPECT_EQ(vif::log2_approx(1.0f), 0.0f);
    EXPECT_EQ(vif::log2_approx(2.0f), 1.0f);
    EXPECT_EQ(vif::log2_approx(1024.0f), 10.0f);
    for (float x : {1.1f, 1.5f, 3.0f, 77.7f, 12345.0f})
        EXPECT_NEAR(vif::log2_approx(x), std::log2(x), 2e-6f * std::log2(x) + 1e-6f) << x;
}

// docs/algorithm.md §10.1: the reproducible 176x144 patterns, with libvmaf's values.
struct Frames {
    std::vector<uint16_t> ref, dis; // 8-bit values or 10-bit values
};

Frames pattern(int frame, bool ten_bit, int w = 176, int h = 144) {
    Frames f;
    f.ref.resize(w * h);
    f.dis.resize(w * h);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const int ref = (3 * i + 5 * j + 4 * ((i * j) % 23)) % 256;
            int dis = ref;
            if (frame == 0) dis = (ref + 128) / 2;
            if (frame == 2) dis = std::min(255, ref + 2 * ((7 * i + 3 * j) % 9));
            const int k = i * w + j;
            f.ref[k] = ten_bit ? 4 * ref + ((i + j) % 4) : ref;
            f.dis[k] = ten_bit ? 4 * dis + ((i + 2 * j) % 4) : dis;
        }
    return f;
}

VifScores score(const Frames& f, int bpc, VifVariant v, int w = 176, int h = 144) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.bitdepth = bpc;
    cfg.variant = v;
    cfg.backend = VIF_BACKEND_CPU;
    cfg.threads = 1;
    VifContext* ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();
    std::vector<uint8_t> r8(f.ref.begin(), f.ref.end()), d8(f.dis.begin(), f.dis.end());
    const void* rp = bpc == 8 ? static_cast<const void*>(r8.data()) : f.ref.data();
    const void* dp = bpc == 8 ? static_cast<const void*>(d8.data()) : f.dis.data();
    const ptrdiff_t stride = w * (bpc == 8 ? 1 : 2);
    VifPicture R{rp, stride, uint32_t(w), uint32_t(h), uint32_t(bpc), 0};
    VifPicture D{dp, stride, uint32_t(w), uint32_t(h), uint32_t(bpc), 0};
    VifScores s{};
    EXPECT_EQ(vif_score(ctx, &R, &D, &s), VIF_OK) << vif_last_error();
    vif_destroy(ctx);
    return s;
}

void expect_scores(const VifScores& s, const double (&want)[4], double tol, const char* what) {
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(s.scale[k], want[k], tol) << what << " scale " << k;
}

// Integer values are given to 9 significant digits: 5e-9 relative covers that printing.
constexpr double kNineDigits = 6e-9;

TEST(SpecVectors, EightBit) {
    const VifScores f0 = score(pattern(0, false), 8, VIF_VARIANT_INTEGER);
    expect_scores(f0, {0.801786125, 0.744041741, 0.742333055, 0.748627007}, kNineDigits, "F0 int");
    EXPECT_NEAR(f0.num[0], 209080.281, 1e-3);
    EXPECT_NEAR(f0.den[0], 260768.141, 1e-3);
    EXPECT_NEAR(f0.num[3], 2371.19824, 1e-5);
    EXPECT_NEAR(f0.den[3], 3167.396, 1e-3);
    expect_scores(score(pattern(0, false), 8, VIF_VARIANT_FLOAT),
                  {0.8018035643, 0.7461691858, 0.7454312541, 0.7523204916}, 1e-10, "F0 float");
    expect_scores(score(pattern(1, false), 8, VIF_VARIANT_INTEGER), {1, 1, 1, 1}, 0, "F1 int");
    expect_scores(score(pattern(1, false), 8, VIF_VARIANT_FLOAT), {1, 1, 1, 1}, 0, "F1 float");
    expect_scores(score(pattern(2, false), 8, VIF_VARIANT_INTEGER),
                  {0.630147576, 0.996033847, 0.997678995, 0.998066723}, kNineDigits, "F2 int");
    expect_scores(score(pattern(2, false), 8, VIF_VARIANT_FLOAT),
                  {0.6301460677, 0.9961190115, 0.9978296596, 0.9982462772}, 1e-10, "F2 float");
}

TEST(SpecVectors, TenBit) {
    expect_scores(score(pattern(0, true), 10, VIF_VARIANT_INTEGER),
                  {0.793438733, 0.743890882, 0.742468774, 0.748209596}, kNineDigits, "F0");
    expect_scores(score(pattern(1, true), 10, VIF_VARIANT_INTEGER),
                  {0.98945874, 1.0000006, 0.99999851, 0.999996781}, kNineDigits, "F1");
    expect_scores(score(pattern(1, true), 10, VIF_VARIANT_FLOAT),
                  {0.9894554274, 0.9999882874, 0.9999904733, 0.9999926774}, 1e-10, "F1 float");
    expect_scores(score(pattern(2, true), 10, VIF_VARIANT_INTEGER),
                  {0.629366577, 0.995980859, 0.997667313, 0.998084128}, kNineDigits, "F2");
}

TEST(SpecVectors, OddSize) {
    const Frames f = pattern(0, false, 175, 143);
    expect_scores(score(f, 8, VIF_VARIANT_INTEGER, 175, 143),
                  {0.801705301, 0.743830204, 0.742100656, 0.747756362}, kNineDigits, "int");
    expect_scores(score(f, 8, VIF_VARIANT_FLOAT, 175, 143),
                  {0.8017512333, 0.7460096978, 0.745281002, 0.7515440009}, 1e-10, "float");
}

} // namespace
