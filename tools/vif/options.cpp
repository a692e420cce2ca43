#include "options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace vifcli {

namespace {

/** A usage error found while checking values: becomes ParsedOptions::kError. */
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

uint64_t parse_uint(const std::string &opt, const std::string &s, uint64_t max) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError(fmt::format("{} '{}': expected a whole number", opt, s));
    const uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (v > max) throw UsageError(fmt::format("{} {}: too large (at most {})", opt, s, max));
    return v;
}

double parse_double(const std::string &what, const std::string &s) {
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
        throw UsageError(fmt::format("{}: '{}' is not a number", what, s));
    return v;
}

bool parse_bool(const std::string &what, const std::string &s) {
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    throw UsageError(fmt::format("{}: '{}' is not true or false", what, s));
}

// One feature option (KEY=VALUE) applied to a variant. `where` names the option for messages.
void apply_feature_option(const std::string &where, const std::string &kv, VariantSpec *v,
                          bool *debug) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError(fmt::format("{} '{}': expected key=value", where, kv));
    const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (key == "vif_enhn_gain_limit" || key == "egl") {
        v->enhn_gain_limit = parse_double(where + " " + key, val);
    } else if (key == "vif_kernelscale" || key == "ks") {
        if (v->variant != VIF_VARIANT_FLOAT)
            throw UsageError(where + " vif_kernelscale applies only to the float variant "
                                     "(--variant float, --feature float_vif)");
        v->kernelscale = parse_double(where + " " + key, val);
    } else if (key == "debug") {
        *debug = parse_bool(where + " debug", val) || *debug;
    } else {
        throw UsageError(fmt::format("unknown {} '{}' (known: vif_enhn_gain_limit or egl, "
                                     "vif_kernelscale or ks, debug)",
                                     where, key));
    }
}

// libvmaf's --feature NAME[=KEY=VALUE[:KEY=VALUE...]] for NAME vif or float_vif.
VariantSpec parse_feature(const std::string &arg, bool *debug) {
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    VariantSpec v;
    if (name == "vif" || name == "integer_vif")
        v.variant = VIF_VARIANT_INTEGER;
    else if (name == "float_vif")
        v.variant = VIF_VARIANT_FLOAT;
    else
        throw UsageError(
            fmt::format("--feature '{}': libvif computes only vif and float_vif", name));
    if (eq == std::string::npos) return v;
    const std::string opts = arg.substr(eq + 1);
    size_t pos = 0;
    for (;;) {
        const size_t colon = opts.find(':', pos);
        apply_feature_option("--feature " + name + " option", opts.substr(pos, colon - pos), &v,
                             debug);
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    return v;
}

// The raw strings CLI11 fills in; checked into Options by check().
struct Raw {
    std::string reference, distorted;
    std::string width, height, pixel_format, bitdepth;
    std::string variant;
    std::vector<std::string> features, feature_options;
    std::string threads = "0";
    std::string frames, skip_ref = "0", skip_dist = "0", subsample = "1";
    std::string backend = "auto";
    std::string output;
    bool output_given = false;
    bool json = false, csv = false, xml = false;
    std::string precision;
    bool quiet = false, version = false, check_parity = false, debug_metrics = false;
    bool details = false, read_only = false, verbose = false, no_mmap = false;
    bool no_prediction = false;
    std::string hwdec = "auto", decoders = "0", cpu_decoders = "auto", decoder_threads = "0";
    std::vector<std::string> models;
    std::string map_dir, map_scales, map_frames = "all", map_format = "pgm16";
    bool map_options_given = false; ///< one of --map-scales/-frames/-format was given
};

// A comma-separated list of whole numbers, each at most `max`, sorted with repeats removed.
std::vector<uint64_t> parse_list(const std::string &opt, const std::string &s, uint64_t max) {
    std::vector<uint64_t> out;
    size_t pos = 0;
    for (;;) {
        const size_t comma = s.find(',', pos);
        out.push_back(parse_uint(opt, s.substr(pos, comma - pos), max));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

MapOptions map_options_or_usage_error(const MapArgs &r) {
    MapOptions m;
    if (r.dir.empty()) {
        if (r.others_given)
            throw UsageError("--map-scales, --map-frames and --map-format need --map DIR");
        return m;
    }
    m.dir = r.dir;
    if (!r.scales.empty()) {
        m.scales.clear();
        for (uint64_t s : parse_list("--map-scales", r.scales, VIF_NUM_SCALES - 1))
            m.scales.push_back(uint32_t(s));
    }
    const std::string &f = r.frames;
    if (f == "all") {
        m.frames = MapOptions::Frames::kAll;
    } else if (f.rfind("worst:", 0) == 0) {
        m.frames = MapOptions::Frames::kWorst;
        m.worst = parse_uint("--map-frames worst:N", f.substr(6), 1u << 20);
        if (m.worst == 0) throw UsageError("--map-frames worst:N: N must be at least 1");
    } else {
        m.frames = MapOptions::Frames::kList;
        m.list = parse_list("--map-frames (all, worst:N or a list like 0,5,9)", f, UINT64_MAX / 2);
    }
    if (r.format == "pgm16")
        m.format = MapOptions::Format::kPgm16;
    else if (r.format == "npy")
        m.format = MapOptions::Format::kNpy;
    else if (r.format == "png")
        m.format = MapOptions::Format::kPng;
    else if (r.format == "y4m")
        m.format = MapOptions::Format::kY4m;
    else
        throw UsageError(
            fmt::format("unknown --map-format '{}' (use png, pgm16, npy or y4m)", r.format));
    // A video has every frame: one heat-map frame per scored frame, beside the source.
    if (m.format == MapOptions::Format::kY4m && m.frames != MapOptions::Frames::kAll)
        throw UsageError("--map-format y4m maps every frame (a video): drop --map-frames");
    return m;
}

MapOptions check_map(const Raw &r) {
    return map_options_or_usage_error(
        MapArgs{r.map_dir, r.map_scales, r.map_frames, r.map_format, r.map_options_given});
}

Options check(const Raw &r) {
    if (!r.models.empty())
        throw UsageError("-m/--model: libvif computes VIF only, no VMAF model (drop -m, and use "
                         "--feature vif / float_vif for the VIF features)");
    Options o;
    o.reference = r.reference;
    o.distorted = r.distorted;
    if (o.reference.empty() || o.distorted.empty())
        throw UsageError("give -r/--reference and -d/--distorted (see --help)");
    if (o.reference == "-" && o.distorted == "-")
        throw UsageError("only one of the inputs can be standard input");

    const bool have_w = !r.width.empty(), have_h = !r.height.empty();
    if (have_w != have_h) throw UsageError("give both -w/--width and -h/--height");
    if (have_w) {
        const uint64_t w = parse_uint("-w/--width", r.width, 1u << 30);
        const uint64_t h = parse_uint("-h/--height", r.height, 1u << 30);
        if (w == 0 || h == 0)
            throw UsageError(
                fmt::format("-w/-h: frame size {}x{}: width and height must be > 0", w, h));
        if (w > 32768 || h > 32768)
            throw UsageError(fmt::format("-w/-h: frame size {}x{} is absurd (the limit is 32768 "
                                         "each way)",
                                         w, h));
        if (w < 16 || h < 16)
            throw UsageError(fmt::format("-w/-h: frame size {}x{} is unsupported (VIF needs at "
                                         "least 16x16)",
                                         w, h));
        o.width = uint32_t(w);
        o.height = uint32_t(h);
    }
    if (!r.pixel_format.empty()) {
        const std::string &p = r.pixel_format;
        if (p != "420" && p != "422" && p != "444" && p != "400")
            throw UsageError(
                fmt::format("unknown pixel format '{}' (use 420, 422, 444 or 400)", p));
        o.pixel_format = p;
    }
    if (!r.bitdepth.empty()) {
        const std::string &b = r.bitdepth;
        if (b != "8" && b != "10" && b != "12" && b != "16")
            throw UsageError(fmt::format("unknown bit depth '{}' (use 8, 10, 12 or 16)", b));
        o.bitdepth = uint32_t(std::stoul(b));
    }

    // Variants: --feature (libvmaf's spelling, repeatable) or --variant (one).
    bool debug = r.debug_metrics;
    if (!r.features.empty()) {
        o.variants.clear();
        for (const std::string &f : r.features) {
            VariantSpec v = parse_feature(f, &debug);
            for (const VariantSpec &seen : o.variants)
                if (seen.variant == v.variant)
                    throw UsageError(
                        fmt::format("--feature {}: given twice", f.substr(0, f.find('='))));
            o.variants.push_back(v);
        }
        if (!r.variant.empty()) {
            const VifVariant want = r.variant == "float" ? VIF_VARIANT_FLOAT : VIF_VARIANT_INTEGER;
            if (o.variants.size() != 1 || o.variants[0].variant != want)
                throw UsageError("--variant and --feature disagree: give one of them");
        }
    } else if (!r.variant.empty()) {
        if (r.variant == "integer")
            o.variants[0].variant = VIF_VARIANT_INTEGER;
        else if (r.variant == "float")
            o.variants[0].variant = VIF_VARIANT_FLOAT;
        else
            throw UsageError(
                fmt::format("unknown --variant '{}' (use integer or float)", r.variant));
    }
    for (const std::string &fo : r.feature_options)
        for (VariantSpec &v : o.variants) {
            // vif_kernelscale is refused for the integer variant only when it is the only one.
            const bool ks = fo.rfind("vif_kernelscale=", 0) == 0 || fo.rfind("ks=", 0) == 0;
            if (ks && v.variant != VIF_VARIANT_FLOAT && o.both_variants()) continue;
            apply_feature_option("--feature-option", fo, &v, &debug);
        }
    o.debug_metrics = debug;

    o.threads = uint32_t(parse_uint("--threads", r.threads, 4096));
    if (r.backend == "auto")
        o.backend = VIF_BACKEND_AUTO;
    else if (r.backend == "cpu")
        o.backend = VIF_BACKEND_CPU;
    else if (r.backend == "cuda")
        o.backend = VIF_BACKEND_CUDA;
    else
        throw UsageError(fmt::format("unknown --backend '{}' (use auto, cpu or cuda)", r.backend));
    if (r.precision.empty())
        o.precision = kPrecisionLibvmaf;
    else if (r.precision == "max")
        o.precision = kPrecisionMax;
    else
        o.precision = int(parse_uint("--precision", r.precision, 17));
    if (!r.frames.empty()) {
        o.max_frames = parse_uint("--frames", r.frames, UINT64_MAX / 2);
        if (*o.max_frames == 0) throw UsageError("--frames must be at least 1");
    }
    o.skip_ref = parse_uint("--skip-ref", r.skip_ref, UINT64_MAX / 2);
    o.skip_dist = parse_uint("--skip-dist", r.skip_dist, UINT64_MAX / 2);
    o.subsample = parse_uint("--subsample", r.subsample, UINT64_MAX / 2);
    if (o.subsample == 0) throw UsageError("--subsample must be at least 1");

    if (int(r.json) + int(r.csv) + int(r.xml) > 1)
        throw UsageError("give only one of --json, --csv and --xml");
    o.format_given = r.json || r.csv || r.xml;
    if (r.output_given && r.output.empty())
        throw UsageError("-o/--output is empty: give a file name, or - for standard output");
    o.output = r.output;
    if (r.csv)
        o.format = Format::kCsv;
    else if (r.xml)
        o.format = Format::kXml;
    else if (!r.json && o.output.size() > 4) {
        const std::string ext = o.output.substr(o.output.size() - 4);
        if (ext == ".csv") o.format = Format::kCsv;
        if (ext == ".xml") o.format = Format::kXml;
    }
    o.quiet = r.quiet;
    o.check_parity = r.check_parity;
    o.read_only = r.read_only;
    // -q silences the summary; without -o (or a format flag, which writes to stdout) nothing
    // would be written at all.
    if (o.quiet && o.output.empty() && !o.format_given && !o.check_parity && !o.read_only)
        throw UsageError("-q/--quiet without -o/--output: nothing would be written (give -o, "
                         "or --json/--csv/--xml for standard output)");
    if (o.check_parity && o.both_variants())
        throw UsageError("--check-parity takes one variant (give one --feature)");
    o.details = r.details;
    o.verbose = r.verbose;
    o.no_mmap = r.no_mmap;
    if (r.hwdec != "auto" && r.hwdec != "cuda" && r.hwdec != "none")
        throw UsageError(fmt::format("unknown --hwdec '{}' (use auto, cuda or none)", r.hwdec));
    o.hwdec = r.hwdec;
    if (o.hwdec == "cuda" && o.backend == VIF_BACKEND_CPU && !o.read_only)
        throw UsageError("--hwdec cuda needs the cuda backend (--backend cuda or auto)");
    if (o.hwdec == "cuda" && o.check_parity)
        throw UsageError("--check-parity reads the inputs on the host: use --hwdec auto or none");
    o.decoders = uint32_t(parse_uint("--decoders", r.decoders, 64));
    o.cpu_decoders =
        r.cpu_decoders == "auto" ? -1 : int(parse_uint("--cpu-decoders", r.cpu_decoders, 64));
    o.decoder_threads = uint32_t(parse_uint("--decoder-threads", r.decoder_threads, 64));
    o.map = check_map(r);
    if (o.map.enabled()) {
        // Maps come from the scoring backend, the same bits on each (docs/api.md, "Per-pixel
        // maps"); --check-parity scores twice and keeps no maps.
        if (o.check_parity) throw UsageError("--map takes no --check-parity (drop one)");
        if (o.both_variants()) throw UsageError("--map takes one variant (give one --feature)");
        if (o.read_only) throw UsageError("--map needs scoring (drop --read-only)");
        if (o.hwdec == "cuda")
            throw UsageError("--map reads the inputs on the host: drop --hwdec cuda");
    }
    return o;
}

} // namespace

ParsedOptions parse_options(int argc, const char *const *argv) {
    ParsedOptions result;
    Raw r;
    CLI::App app{"vif: Visual Information Fidelity (VIF) of a distorted video against its "
                 "reference, computed bit-exactly like libvmaf.\n"};
    app.set_help_flag("--help", "Print this help and exit");
    app.get_formatter()->column_width(40);
#if defined(VIF_WITH_FFMPEG)
    const char *const kInputKinds =
        ".y4m, raw .yuv, anything FFmpeg decodes (.mp4, .mkv, .264, ...), or - (stdin)";
#else
    const char *const kInputKinds = ".y4m, raw .yuv, or - (stdin)";
#endif
    app.add_option("-r,--reference", r.reference, std::string("Reference video: ") + kInputKinds)
        ->type_name("PATH");
    app.add_option("-d,--distorted", r.distorted, std::string("Distorted video: ") + kInputKinds)
        ->type_name("PATH");
    app.add_option("-w,--width", r.width, "Raw YUV: width in pixels")->type_name("INT");
    app.add_option("-h,--height", r.height, "Raw YUV: height in pixels")->type_name("INT");
    app.add_option("-p,--pixel-format,--pixel_format", r.pixel_format, "Raw YUV: chroma layout")
        ->type_name("{420,422,444,400}");
    app.add_option("-b,--bitdepth", r.bitdepth,
                   "Raw YUV: bits per sample (above 8: little-endian 16-bit words)")
        ->type_name("{8,10,12,16}");
    app.add_option("--variant", r.variant,
                   "integer (libvmaf 'vif', VMAF's default) or float (libvmaf 'float_vif')")
        ->type_name("{integer,float}");
    app.add_option("--feature", r.features,
                   "libvmaf's spelling, repeatable: vif or float_vif, with options as "
                   "NAME=KEY=VALUE:KEY=VALUE (e.g. vif=vif_enhn_gain_limit=1.0); both: score "
                   "both variants")
        ->type_name("NAME[=KEY=VALUE...]")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--feature-option", r.feature_options,
                   "Repeatable: vif_enhn_gain_limit (egl), vif_kernelscale (ks, float only), "
                   "debug=true; applies to every variant scored")
        ->type_name("KEY=VALUE")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--threads", r.threads, "CPU worker threads (0: one per hardware thread)")
        ->type_name("INT")
        ->capture_default_str();
    app.add_option("--frames,--frame_cnt", r.frames, "Score at most N frames")->type_name("N");
    app.add_option("--skip-ref,--frame_skip_ref", r.skip_ref, "Skip the first N reference frames")
        ->type_name("N");
    app.add_option("--skip-dist,--frame_skip_dist", r.skip_dist,
                   "Skip the first N distorted frames")
        ->type_name("N");
    app.add_option("--subsample", r.subsample, "Score every Nth frame")
        ->type_name("N")
        ->capture_default_str();
    app.add_option("--backend", r.backend, "Where to score")
        ->type_name("{auto,cpu,cuda}")
        ->capture_default_str();
    app.add_option("-o,--output", r.output,
                   "Write the scores to this file (- for stdout); without it, print a summary "
                   "(or the --json/--csv/--xml layout) on stdout")
        ->type_name("PATH");
    app.add_flag("--json", r.json, "Output in libvmaf's JSON layout (default)");
    app.add_flag("--csv", r.csv, "Output in libvmaf's CSV layout");
    app.add_flag("--xml", r.xml, "Output in libvmaf's XML layout");
    app.add_option("--precision", r.precision,
                   "Decimals of the values written, or 'max' for every bit (%.17g); default: as "
                   "libvmaf (%.6f, %.16f for tiny fractions)")
        ->type_name("{N,max}");
    app.add_flag("--debug-metrics", r.debug_metrics,
                 "Also write the combined score and the per-scale numerators and denominators");
    app.add_flag("--details", r.details,
                 "Add libvif's own block (backend, variant, inputs, percentiles) to the JSON "
                 "and XML; without it they are libvmaf's layout byte for byte");
    app.add_flag("-q,--quiet", r.quiet, "No progress bar and no summary (needs -o or a format)");
    app.add_flag("-n,--no_prediction", r.no_prediction,
                 "Accepted for libvmaf scripts: libvif computes no model");
    // libvmaf's -m/--model, hidden: accepted only to say clearly that there is no model.
    app.add_option("-m,--model", r.models)
        ->group("")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_flag("--check-parity", r.check_parity,
                 "Score with the cpu and the cuda backend and fail if they differ");
    app.add_flag("--read-only", r.read_only,
                 "Read and check the inputs (and copy each plane once, as scoring does) "
                 "without scoring; print the input speed");
    app.add_flag("--no-mmap", r.no_mmap,
                 "Read files with pread into buffers instead of mapping them (slower)");
    app.add_flag("--verbose", r.verbose,
                 "Print how long each phase took (start-up, reading, scoring, output) to stderr");
    app.add_option("--hwdec", r.hwdec,
                   "Encoded inputs: auto (NVDEC when scoring on cuda and it decodes the input, "
                   "else software), cuda (NVDEC or an error), none (software)")
        ->type_name("{auto,cuda,none}")
        ->capture_default_str();
    app.add_option("--decoders", r.decoders,
                   "NVDEC decoders an input, each on segments of its own (0: 3); with software "
                   "decoding, N > 0 decodes each encoded input on N segment decoders")
        ->capture_default_str()
        ->type_name("N");
    app.add_option("--cpu-decoders", r.cpu_decoders,
                   "With NVDEC: software decoders an input beside the NVDEC ones (auto: those "
                   "that start a long clip while CUDA starts, where the CPU is fast enough; 0: "
                   "decoding waits for NVDEC)")
        ->type_name("{N,auto}")
        ->capture_default_str();
    app.add_option("--decoder-threads", r.decoder_threads,
                   "Software decoding: libavcodec threads each input's decoder uses (0: "
                   "automatic)")
        ->capture_default_str()
        ->type_name("N");
    app.add_option("--map", r.map_dir,
                   "Write each selected frame's local VIF map (per scale) into this new or empty "
                   "folder, made complete or not at all")
        ->type_name("DIR");
    app.add_option("--map-scales", r.map_scales, "The scales mapped (default: all)")
        ->type_name("0,1,2,3");
    app.add_option("--map-frames", r.map_frames,
                   "The frames mapped: all, the N lowest combined scores, or frame numbers")
        ->type_name("{all,worst:N,LIST}")
        ->capture_default_str();
    app.add_option("--map-format", r.map_format,
                   "pgm16 (16-bit PGM, sample = value x 32768), npy (float32, exact), png "
                   "(colour, with a legend) or y4m (a heat-map video per scale)")
        ->type_name("{pgm16,npy,png,y4m}")
        ->capture_default_str();
    app.add_flag("-v,--version", r.version, "Print the version and exit (as libvmaf's -v)");

    try {
        app.parse(argc, const_cast<char **>(argv));
    } catch (const CLI::CallForHelp &) {
        result.action = ParsedOptions::Action::kHelp;
        result.text = app.help();
        result.exit_code = 0;
        return result;
    } catch (const CLI::Error &e) {
        result.action = ParsedOptions::Action::kError;
        result.text = fmt::format("{} (see --help)", e.what());
        result.exit_code = kExitUsage;
        return result;
    }
    if (r.version) {
        result.action = ParsedOptions::Action::kVersion;
        result.exit_code = 0;
        return result;
    }
    r.output_given = app.count("--output") > 0;
    r.map_options_given =
        app.count("--map-scales") + app.count("--map-frames") + app.count("--map-format") > 0;
    try {
        result.options = check(r);
    } catch (const std::exception &e) { // UsageError, or anything unforeseen: never a throw
        result.action = ParsedOptions::Action::kError;
        result.text = e.what();
        result.exit_code = kExitUsage;
        return result;
    }
    result.action = ParsedOptions::Action::kRun;
    result.exit_code = 0;
    return result;
}

void apply_variant(const VariantSpec &spec, VifConfig *cfg) {
    cfg->variant = spec.variant;
    cfg->enhn_gain_limit = spec.enhn_gain_limit;
    cfg->kernelscale = spec.kernelscale;
}

MapOptions parse_map_options(const MapArgs &args) {
    try {
        return map_options_or_usage_error(args);
    } catch (const UsageError &e) {
        throw std::invalid_argument(e.what());
    }
}

} // namespace vifcli
