// The `vif` command line: every option (with libvmaf's `vmaf` spellings as aliases), parsed and
// checked into Options without touching any file, printing anything or exiting, so that it can be
// tested and fuzzed on its own (parse_options). main.cpp acts on the result (pair/run_pair.hpp).
#ifndef VIF_TOOLS_OPTIONS_HPP
#define VIF_TOOLS_OPTIONS_HPP

#include <vif/vif.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vifcli {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitParity = 3;

enum class Format { kJson, kCsv, kXml };

/** Digits after the point for values; kPrecisionMax prints every bit (%.17g); kPrecisionLibvmaf
 *  prints as libvmaf does (%.6f, or %.16f for values whose fraction starts with 7+ zeros). */
constexpr int kPrecisionMax = -1;
constexpr int kPrecisionLibvmaf = -2;

/** One VIF extractor to run (libvmaf's `vif` or `float_vif` and its options). */
struct VariantSpec {
    VifVariant variant = VIF_VARIANT_INTEGER;
    double enhn_gain_limit = 100.0; ///< vif_enhn_gain_limit (libvmaf's default)
    double kernelscale = 1.0;       ///< vif_kernelscale (float only)
};

/** Sets cfg's variant and that variant's options from `spec`; the rest of cfg is left as it is
 *  (the single-pair command and the ladder configure their contexts alike). */
void apply_variant(const VariantSpec &spec, VifConfig *cfg);

/** --map: where the per-pixel local VIF maps go (docs/cli.md, "Per-pixel maps"). */
struct MapOptions {
    enum class Frames { kAll, kWorst, kList };
    enum class Format { kPgm16, kNpy, kPng, kY4m };
    std::string dir;                          ///< "" : no maps
    std::vector<uint32_t> scales{0, 1, 2, 3}; ///< --map-scales, ascending, no repeats
    Frames frames = Frames::kAll;
    uint64_t worst = 0;         ///< kWorst: how many frames (the lowest combined scores)
    std::vector<uint64_t> list; ///< kList: frame numbers (as in the output), ascending
    Format format = Format::kPgm16;
    bool enabled() const { return !dir.empty(); }
};

/** --map and its options as given on a command line (strings, unchecked). */
struct MapArgs {
    std::string dir, scales, frames = "all", format = "pgm16";
    bool others_given = false; ///< one of --map-scales/-frames/-format was given
};

/** The checked MapOptions of `args`; throws std::invalid_argument with the message for a bad
 *  value (the many-pair commands: ladder, batch). */
MapOptions parse_map_options(const MapArgs &args);

/** What the command line asked for, checked (values in range, no contradictions). */
struct Options {
    std::string reference, distorted;
    // Raw-video parameters; 0 / empty when not given.
    uint32_t width = 0, height = 0, bitdepth = 0;
    std::string pixel_format;
    /** The VIF variants to score, in output order (libvmaf's --feature order): one or both. */
    std::vector<VariantSpec> variants{VariantSpec{}};
    uint32_t threads = 0;
    std::optional<uint64_t> max_frames; ///< --frames / --frame_cnt
    uint64_t skip_ref = 0, skip_dist = 0, subsample = 1;
    VifBackend backend = VIF_BACKEND_AUTO;
    std::string output; ///< "" when not given; "-" for standard output
    Format format = Format::kJson;
    bool format_given = false; ///< --json/--csv/--xml was given
    int precision = kPrecisionLibvmaf;
    bool quiet = false, check_parity = false, debug_metrics = false, details = false;
    bool read_only = false, verbose = false, no_mmap = false;
    /** --hwdec: "auto", "cuda" or "none" (encoded inputs on NVDEC; media/hw_decode.hpp). */
    std::string hwdec = "auto";
    uint32_t decoders = 0;        ///< --decoders: NVDEC (or software segment) decoders an input
    int cpu_decoders = -1;        ///< --cpu-decoders: software decoders beside NVDEC; -1: auto
    uint32_t decoder_threads = 0; ///< --decoder-threads: libavcodec threads a software decoder
    MapOptions map;
    /** Not an option: `auto`'s estimate (run_pair) says whether CPU threads score the first
     *  frames while CUDA starts (media/decode_choice.hpp). */
    bool cpu_while_cuda_starts = true;

    bool both_variants() const { return variants.size() > 1; }
};

/** The outcome of parse_options. */
struct ParsedOptions {
    enum class Action {
        kRun,     ///< score: `options` holds the checked options
        kHelp,    ///< print `text` (the help) on standard output and exit 0
        kVersion, ///< print the version and exit 0
        kError    ///< print "vif: error: <text>" and exit with `exit_code` (a usage error)
    };
    Action action = Action::kError;
    Options options;
    std::string text;
    int exit_code = kExitUsage;
};

/**
 * Parses and checks the command line. Never prints, exits, touches a file or calls the library.
 * Safe on any argv.
 */
ParsedOptions parse_options(int argc, const char *const *argv);

} // namespace vifcli

#endif
