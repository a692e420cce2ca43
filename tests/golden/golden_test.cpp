// Golden tests: every case of testdata/ (and of the full set when present, the 1080p pair
// included) scored through the public API (the CPU backend's fast scorers, cpu_fast/), against
// libvmaf's values from the expected CSVs; the repository's cases also through the plain
// reference scorers (cpu_ref/, Params::cpu.reference). Integer VIF must be equal to the bit;
// float VIF within 1e-4 per frame and scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "common/golden_data.hpp"
#include "api/checks.hpp"
#include "core/scores.hpp"
#include "vif/vif.h"

namespace {

using vif::testing::GoldenCase;

struct Variant {
    const char* name;
    VifVariant variant;
    double gain_limit;
    const char* suffix; // column suffix in the expected CSVs
};

const Variant kVariants[] = {
    {"integer", VIF_VARIANT_INTEGER, 100.0, ""},
    {"integer_egl1", VIF_VARIANT_INTEGER, 1.0, "_egl_1"},
    {"float", VIF_VARIANT_FLOAT, 100.0, ""},
    {"float_egl1", VIF_VARIANT_FLOAT, 1.0, "_egl_1"},
};

struct Param {
    GoldenCase c;
    Variant v;
    std::string source;
    bool reference = false; // the reference scorers of cpu_ref/ instead of the public API
};

// Short names in test listings instead of gtest's byte dump.
void PrintTo(const Param& p, std::ostream* os) {
    *os << p.source << "/" << p.c.name << "/" << p.v.name << (p.reference ? "/reference" : "");
}

std::vector<Param> all_params() {
    std::vector<Param> out;
    for (const char* src : {"repo", "shared"}) {
        const std::string dir =
            std::string(src) == "repo" ? VIF_TESTDATA_DIR : VIF_SHARED_TESTDATA_DIR;
        for (const GoldenCase& c : vif::testing::load_manifest(dir))
            for (const Variant& v : kVariants) {
                out.push_back({c, v, src, false});
                // The reference is slow: the repository's (small) cases only.
                if (std::string(src) == "repo") out.push_back({c, v, src, true});
            }
    }
    return out;
}

// Scores every frame of a case through the public API, several frames in flight.
void score_public_api(const GoldenCase& c, const VifConfig& cfg, std::vector<VifScores>& got) {
    VifContext* ctx = nullptr;
    ASSERT_EQ(vif_create(&ctx, &cfg), VIF_OK) << vif_last_error();

    // Keep several frames in flight: submit until the queue is full, then receive one.
    auto receive_one = [&] {
        VifScores s;
        ASSERT_EQ(vif_receive(ctx, &s, 1), VIF_OK) << vif_last_error();
        got.push_back(s);
    };
    for (uint32_t f = 0; f < c.frames; ++f) {
        const auto ref = vif::testing::read_luma(c, c.ref_path(), f);
        const auto dis = vif::testing::read_luma(c, c.dist_path(), f);
        ASSERT_FALSE(ref.empty() || dis.empty()) << "cannot read frame " << f;
        const ptrdiff_t stride = static_cast<ptrdiff_t>(c.width * c.bytes_per_sample());
        VifPicture r{ref.data(), stride, c.width, c.height, c.bitdepth, 0};
        VifPicture d{dis.data(), stride, c.width, c.height, c.bitdepth, 0};
        uint64_t idx = 0;
        VifStatus st;
        while ((st = vif_submit(ctx, &r, &d, &idx)) == VIF_AGAIN) receive_one();
        ASSERT_EQ(st, VIF_OK) << vif_last_error();
        EXPECT_EQ(idx, f);
    }
    while (got.size() < c.frames) receive_one();

    VifScores extra;
    EXPECT_EQ(vif_receive(ctx, &extra, 1), VIF_AGAIN);
    vif_destroy(ctx);
}

// Scores every frame of a case with the CPU backend running the reference scorers.
void score_reference(const GoldenCase& c, const VifConfig& cfg, std::vector<VifScores>& got) {
    vif::Params params;
    ASSERT_EQ(vif::params_from_config(cfg, &params), VIF_OK) << vif_last_error();
    params.cpu.reference = true;
    vif::Status err;
    std::unique_ptr<vif::Backend> backend = vif::create_cpu_backend(params, &err);
    ASSERT_TRUE(backend) << err.message;
    for (uint32_t f = 0; f < c.frames; ++f) {
        const auto ref = vif::testing::read_luma(c, c.ref_path(), f);
        const auto dis = vif::testing::read_luma(c, c.dist_path(), f);
        ASSERT_FALSE(ref.empty() || dis.empty()) << "cannot read frame " << f;
        const ptrdiff_t stride = static_cast<ptrdiff_t>(c.width * c.bytes_per_sample());
        const vif::HostPlane r{ref.data(), stride, c.width, c.height, false};
        const vif::HostPlane d{dis.data(), stride, c.width, c.height, false};
        const vif::Status st = backend->submit(r, d, f);
        ASSERT_EQ(st.status, VIF_OK) << st.message;
        vif::FrameRaw raw;
        const vif::Status rs = backend->receive(&raw, true);
        ASSERT_EQ(rs.status, VIF_OK) << rs.message;
        ASSERT_EQ(raw.index, f);
        VifScores s;
        vif::finalize_scores(params, raw, &s);
        got.push_back(s);
    }
}

class Golden : public ::testing::TestWithParam<Param> {};

TEST_P(Golden, MatchesLibvmaf) {
    const Param& p = GetParam();
    const GoldenCase& c = p.c;
    const auto expected = vif::testing::load_expected(c.expected_path());
    ASSERT_GE(expected.size(), c.frames) << "expected CSV has too few rows: " << c.expected_path();

    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = c.width;
    cfg.max_height = c.height;
    cfg.bitdepth = c.bitdepth;
    cfg.variant = p.v.variant;
    cfg.enhn_gain_limit = p.v.gain_limit;
    cfg.backend = VIF_BACKEND_CPU;
    cfg.threads = 2;
    std::vector<VifScores> got;
    if (p.reference)
        score_reference(c, cfg, got);
    else
        score_public_api(c, cfg, got);
    if (HasFatalFailure()) return;
    ASSERT_EQ(got.size(), c.frames);

    const bool integer = p.v.variant == VIF_VARIANT_INTEGER;
    const std::string pre = integer ? "integer_vif" : "vif";
    const std::string suf = p.v.suffix;
    double max_diff = 0.0;
    for (uint32_t f = 0; f < c.frames; ++f) {
        const VifScores& s = got[f];
        ASSERT_EQ(s.frame_index, f);
        const auto& row = expected[f];
        for (int k = 0; k < 4; ++k) {
            const std::string ks = std::to_string(k);
            const double want_score = row.at(pre + "_scale" + ks + suf);
            const double want_num = row.at(pre + "_num_scale" + ks + suf);
            const double want_den = row.at(pre + "_den_scale" + ks + suf);
            if (integer) {
                EXPECT_EQ(s.scale[k], want_score) << "frame " << f << " scale " << k;
                EXPECT_EQ(s.num[k], want_num) << "frame " << f << " scale " << k;
                EXPECT_EQ(s.den[k], want_den) << "frame " << f << " scale " << k;
            } else {
                EXPECT_NEAR(s.scale[k], want_score, 1e-4) << "frame " << f << " scale " << k;
                max_diff = std::max(max_diff, std::fabs(s.scale[k] - want_score));
            }
        }
        const double want_combined = row.at(pre + suf);
        if (integer) {
            EXPECT_EQ(s.combined, want_combined) << "frame " << f;
            EXPECT_EQ(s.num_sum, row.at(pre + "_num" + suf)) << "frame " << f;
            EXPECT_EQ(s.den_sum, row.at(pre + "_den" + suf)) << "frame " << f;
        } else {
            EXPECT_NEAR(s.combined, want_combined, 1e-4) << "frame " << f;
        }
    }
    if (!integer) {
        RecordProperty("max_abs_diff", std::to_string(max_diff));
        std::printf("[ max |float - libvmaf| over %u frames: %.3g ]\n", c.frames, max_diff);
    }
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
    std::string n = info.param.source + "_" + info.param.c.name + "_" + info.param.v.name +
                    (info.param.reference ? "_reference" : "");
    std::replace_if(
        n.begin(), n.end(), [](char ch) { return !std::isalnum((unsigned char)ch); }, '_');
    return n;
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(all_params()), param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

// The full data set (longer clips, the 1080p pair) is optional: say so when it is absent.
TEST(GoldenData, FullSet) {
    const auto cases = vif::testing::load_manifest(VIF_SHARED_TESTDATA_DIR);
    if (cases.empty())
        GTEST_SKIP() << "the full data set is not at " VIF_SHARED_TESTDATA_DIR
                        " (optional): only the repository's cases were scored";
    EXPECT_EQ(cases.size(), 20u) << "the full set lists 20 cases, the 1080p pair included";
}

TEST(GoldenData, RepoCopyIsPresent) {
    EXPECT_EQ(vif::testing::load_manifest(VIF_TESTDATA_DIR).size(), 19u)
        << "testdata/MANIFEST.csv should list the 19 small cases";
}

} // namespace
