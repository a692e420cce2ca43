// libFuzzer target: the CLI's option parser (tools/vif/options.cpp, parse_options), with argv
// made of the input's NUL-separated strings after "vif". Beyond "no crash": a parse that says
// "run" holds options in range, and every VIF variant it asks for either has options the library
// accepts or ones it refuses by name (gain limit / kernel scale ranges are left to vif_create).
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "options.hpp"
#include "vif/vif.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> args{"vif"};
    std::string cur;
    for (size_t i = 0; i < size && args.size() < 64; ++i) {
        if (data[i] == 0) {
            args.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(static_cast<char>(data[i]));
        }
    }
    if (!cur.empty() || size == 0) args.push_back(cur);
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);

    const vifcli::ParsedOptions parsed =
        vifcli::parse_options(static_cast<int>(args.size()), argv.data());
    using Action = vifcli::ParsedOptions::Action;
    if (parsed.action == Action::kError) {
        VIF_FUZZ_CHECK(!parsed.text.empty(), "an error without a message");
        VIF_FUZZ_CHECK(parsed.exit_code != 0, "an error with exit code 0");
        return 0;
    }
    if (parsed.action != Action::kRun) return 0;
    const vifcli::Options& o = parsed.options;
    VIF_FUZZ_CHECK(!o.reference.empty() && !o.distorted.empty(), "run without both inputs");
    VIF_FUZZ_CHECK(!o.variants.empty() && o.variants.size() <= 2, "%zu variants",
                   o.variants.size());
    VIF_FUZZ_CHECK(o.bitdepth == 0 || o.bitdepth == 8 || o.bitdepth == 10 || o.bitdepth == 12 ||
                       o.bitdepth == 16,
                   "bit depth %u", o.bitdepth);
    VIF_FUZZ_CHECK(o.width == 0 || (o.width >= 16 && o.width <= 32768), "width %u", o.width);
    VIF_FUZZ_CHECK(o.height == 0 || (o.height >= 16 && o.height <= 32768), "height %u", o.height);
    VIF_FUZZ_CHECK(o.subsample >= 1, "subsample %llu", (unsigned long long)o.subsample);
    for (const vifcli::VariantSpec& v : o.variants) {
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.variant = v.variant;
        cfg.enhn_gain_limit = v.enhn_gain_limit;
        cfg.kernelscale = v.kernelscale;
        // parse_options leaves the ranges of the gain limit and kernel scale to the library
        // (vif_create then refuses them with its message, exit 1): so a refusal here must be
        // that, and the name must be one when it is accepted.
        char name[64];
        const VifStatus st = vif_metric_name(&cfg, VIF_METRIC_SCALE0, name, sizeof name);
        VIF_FUZZ_CHECK(st == VIF_OK || st == VIF_ERROR_INVALID_ARGUMENT, "status %d", st);
        if (st != VIF_OK) {
            const std::string why = vif_last_error();
            VIF_FUZZ_CHECK(why.find("vif_enhn_gain_limit") != std::string::npos ||
                               why.find("vif_kernelscale") != std::string::npos,
                           "the CLI accepted options libvif refuses: %s", why.c_str());
        } else {
            VIF_FUZZ_CHECK(std::strstr(name, "nan") == nullptr &&
                               std::strstr(name, "inf") == nullptr,
                           "name %s", name);
        }
    }
    return 0;
}
