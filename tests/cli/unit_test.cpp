// The CLI's pieces without running it: libvmaf's number rule and the option parser (libvmaf's
// spellings, usage errors); the escaping of file names is tested with the log
// (tests/api/log_test.cpp). Expected strings
// are written out by hand from the rule libvmaf applies (libvmaf/src/output.c: %.6f unless the
// fractional part needs more than six multiplications by ten to reach 1, then %.16f) and from
// libvmaf's own printed values, never produced by the code under test.
#include "options.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

using namespace vifcli;

namespace {

std::string lv(double v) {
    return format_value(v, kPrecisionLibvmaf);
}

TEST(LibvmafNumbers, SixDecimalsForOrdinaryValues) {
    EXPECT_EQ(lv(0.357244), "0.357244");
    EXPECT_EQ(lv(1.0), "1.000000");
    EXPECT_EQ(lv(0.0), "0.000000");
    EXPECT_EQ(lv(0.9079999999), "0.908000");
    EXPECT_EQ(lv(12.5), "12.500000");
    // Fractions reaching 1 within six steps of x10 (1e-6 and up) keep %.6f.
    EXPECT_EQ(lv(0.0000015), "0.000002");
    EXPECT_EQ(lv(0.00012), "0.000120");
}

TEST(LibvmafNumbers, SixteenDecimalsForTinyFractions) {
    // The examples: libvmaf prints these, libvif printed 2.70186e-08 and 0.000001.
    EXPECT_EQ(lv(0.0000000270185687), "0.0000000270185687");
    EXPECT_EQ(lv(0.0000008855523106), "0.0000008855523106");
    // The fractional part counts, not the value: a whole part does not change the choice.
    EXPECT_EQ(lv(1.0000000270185687), "1.0000000270185687");
    EXPECT_EQ(lv(3.0000004), "3.0000003999999998");
    EXPECT_EQ(lv(1e-300), "0.0000000000000000");
}

TEST(LibvmafNumbers, NegativeAndNonFiniteKeepSixDecimals) {
    // libvmaf counts no zeros for a negative value: %.6f, even when tiny.
    EXPECT_EQ(lv(-0.0000000270185687), "-0.000000");
    EXPECT_EQ(lv(-0.5), "-0.500000");
    EXPECT_EQ(lv(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(lv(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(LibvmafNumbers, ExplicitPrecisionOverrides) {
    EXPECT_EQ(format_value(0.0000000270185687, 6), "2.70186e-08");
    EXPECT_EQ(format_value(0.357244123, 3), "0.357");
    EXPECT_EQ(format_value(0.1, kPrecisionMax), "0.10000000000000001");
}

ParsedOptions parse(std::vector<std::string> args) {
    args.insert(args.begin(), "vif");
    std::vector<const char *> argv;
    for (const auto &a : args) argv.push_back(a.c_str());
    return parse_options(int(argv.size()), argv.data());
}

const std::vector<std::string> kInputs = {"-r", "a.yuv", "-d", "b.yuv"};

std::vector<std::string> with(std::vector<std::string> extra) {
    std::vector<std::string> a = kInputs;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

TEST(Options, LibvmafSpellings) {
    auto p = parse(with({"--pixel_format",
                         "420",
                         "-w",
                         "64",
                         "-h",
                         "32",
                         "-b",
                         "10",
                         "--frame_cnt",
                         "7",
                         "--frame_skip_ref",
                         "2",
                         "--frame_skip_dist",
                         "3",
                         "--subsample",
                         "2",
                         "--threads",
                         "4",
                         "-n",
                         "--no_prediction",
                         "--feature",
                         "vif=vif_enhn_gain_limit=1.0",
                         "--json",
                         "-o",
                         "x.json",
                         "-q"}));
    ASSERT_EQ(p.action, ParsedOptions::Action::kRun) << p.text;
    const Options &o = p.options;
    EXPECT_EQ(o.pixel_format, "420");
    EXPECT_EQ(o.width, 64u);
    EXPECT_EQ(o.height, 32u);
    EXPECT_EQ(o.bitdepth, 10u);
    EXPECT_EQ(o.max_frames.value_or(0), 7u);
    EXPECT_EQ(o.skip_ref, 2u);
    EXPECT_EQ(o.skip_dist, 3u);
    EXPECT_EQ(o.subsample, 2u);
    EXPECT_EQ(o.threads, 4u);
    ASSERT_EQ(o.variants.size(), 1u);
    EXPECT_EQ(o.variants[0].variant, VIF_VARIANT_INTEGER);
    EXPECT_EQ(o.variants[0].enhn_gain_limit, 1.0);
    EXPECT_EQ(o.format, Format::kJson);
    EXPECT_EQ(o.output, "x.json");
    EXPECT_TRUE(o.quiet);
}

TEST(Options, BothFeaturesInLibvmafOrder) {
    auto p = parse(with({"--feature", "float_vif=vif_kernelscale=0.5:vif_enhn_gain_limit=1",
                         "--feature", "vif", "--xml"}));
    ASSERT_EQ(p.action, ParsedOptions::Action::kRun) << p.text;
    ASSERT_EQ(p.options.variants.size(), 2u);
    EXPECT_EQ(p.options.variants[0].variant, VIF_VARIANT_FLOAT);
    EXPECT_EQ(p.options.variants[0].kernelscale, 0.5);
    EXPECT_EQ(p.options.variants[0].enhn_gain_limit, 1.0);
    EXPECT_EQ(p.options.variants[1].variant, VIF_VARIANT_INTEGER);
    EXPECT_EQ(p.options.variants[1].enhn_gain_limit, 100.0);
    EXPECT_EQ(p.options.format, Format::kXml);
    EXPECT_TRUE(p.options.output.empty()); // --xml without -o: standard output
}

TEST(Options, VersionIsMinusV) {
    EXPECT_EQ(parse({"-v"}).action, ParsedOptions::Action::kVersion);
    EXPECT_EQ(parse({"--version"}).action, ParsedOptions::Action::kVersion);
    auto p = parse(with({"--verbose", "-o", "x.json"}));
    ASSERT_EQ(p.action, ParsedOptions::Action::kRun) << p.text;
    EXPECT_TRUE(p.options.verbose);
}

TEST(Options, HelpShowsTypesAndChoices) {
    auto p = parse({"--help"});
    ASSERT_EQ(p.action, ParsedOptions::Action::kHelp);
    EXPECT_EQ(p.text.find("TEXT"), std::string::npos) << p.text;
    for (const char *want :
         {"{420,422,444,400}", "{8,10,12,16}", "{integer,float}", "{auto,cpu,cuda}",
          "{auto,cuda,none}", "INT", "PATH", "--pixel_format", "--frame_cnt", "--no_prediction"})
        EXPECT_NE(p.text.find(want), std::string::npos) << want;
}

TEST(Options, UsageErrors) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {with({"-q"}), "nothing would be written"},
        {with({"-o", ""}), "empty"},
        {with({"--json", "--xml"}), "only one"},
        {with({"--feature", "adm"}), "adm"},
        {with({"--feature", "vif", "--feature", "vif"}), "twice"},
        {with({"--feature", "vif=vif_enhn_gain_limit"}), "key=value"},
        {with({"--feature", "vif=vif_kernelscale=2"}), "float"},
        {with({"--feature", "vif=bogus=1"}), "bogus"},
        {with({"--feature", "vif", "--variant", "float"}), "disagree"},
        {with({"-w", "64"}), "-h"},
        {with({"-m", "version=vmaf_v0.6.1"}), "no VMAF model"},
        {with({"-p", "411"}), "411"},
        {with({"-b", "9"}), "9"},
        {with({"--frame_cnt", "0"}), "--frames"},
        {{"-r", "-", "-d", "-"}, "standard input"},
        {{"-r", "a.yuv"}, "--distorted"},
        {with({"--hwdec", "vaapi"}), "unknown --hwdec 'vaapi'"},
        {with({"--hwdec", "cuda", "--backend", "cpu"}), "--hwdec cuda needs the cuda backend"},
        {with({"--hwdec", "cuda", "--check-parity"}), "--check-parity"},
        {with({"--decoders", "65"}), "--decoders"},
        {with({"--cpu-decoders", "x"}), "--cpu-decoders"},
        {with({"--decoder-threads", "65"}), "--decoder-threads"},
        {with({"--decoder-threads", "-1"}), "--decoder-threads"},
    };
    for (const auto &[args, needle] : cases) {
        auto p = parse(args);
        EXPECT_EQ(p.action, ParsedOptions::Action::kError) << needle;
        EXPECT_EQ(p.exit_code, kExitUsage) << needle;
        EXPECT_NE(p.text.find(needle), std::string::npos) << p.text;
    }
    // -q is fine where something is written: a file, a format on stdout, the parity check.
    EXPECT_EQ(parse(with({"-q", "-o", "x.json"})).action, ParsedOptions::Action::kRun);
    EXPECT_EQ(parse(with({"-q", "--csv"})).action, ParsedOptions::Action::kRun);
    EXPECT_EQ(parse(with({"-q", "--check-parity"})).action, ParsedOptions::Action::kRun);
    // --hwdec's values; cuda with --backend cpu is fine for a decode-only run.
    auto h = parse(with({"--hwdec", "none", "--decoders", "4", "--cpu-decoders", "2", "-o", "x"}));
    ASSERT_EQ(h.action, ParsedOptions::Action::kRun) << h.text;
    EXPECT_EQ(h.options.hwdec, "none");
    EXPECT_EQ(h.options.decoders, 4u);
    EXPECT_EQ(h.options.cpu_decoders, 2);
    EXPECT_EQ(parse(with({"-o", "x"})).options.hwdec, "auto");
    EXPECT_EQ(parse(with({"-o", "x"})).options.cpu_decoders, -1);
    EXPECT_EQ(parse(with({"-o", "x"})).options.decoder_threads, 0u);
    EXPECT_EQ(parse(with({"--decoder-threads", "3", "-o", "x"})).options.decoder_threads, 3u);
    EXPECT_EQ(parse(with({"--hwdec", "cuda", "--backend", "cpu", "--read-only"})).action,
              ParsedOptions::Action::kRun);
}

} // namespace
