#include "commands/subcommand_options.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "luma_scaler.hpp"
#include "batch/outputs.hpp"

namespace vifcli {

void add_common(CLI::App &app, CommonOptions &c) {
    app.add_option("--backend", c.backend, "cpu, cuda or auto")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
    app.add_option("--scaler", c.scaler,
                   "Kernel for rungs of another size, as FFmpeg's scale filter (libswscale)")
        ->check(CLI::IsMember({"bicubic", "lanczos", "bilinear"}));
    app.add_option("--variant", c.variant, "integer (libvmaf's vif) or float (float_vif)")
        ->check(CLI::IsMember({"integer", "float"}));
    app.add_option("--threads", c.threads, "CPU worker threads per scoring context (0: all)");
    app.add_flag("--json", c.json, "Per-pair outputs as JSON (the default)");
    app.add_flag("--csv", c.csv, "Per-pair outputs as CSV");
    app.add_flag("--xml", c.xml, "Per-pair outputs as XML");
    app.add_option("--precision", c.precision,
                   "Digits after the point in the per-pair outputs, or max (every bit); "
                   "default: libvmaf's");
    app.add_flag("-q,--quiet", c.quiet, "No progress bar");
    app.add_flag("-v,--verbose", c.verbose, "Say more");
    app.add_option("--map", c.map.dir,
                   "Write each pair's local VIF maps into DIR/<its output name>/")
        ->type_name("DIR");
    app.add_option("--map-scales", c.map.scales, "The scales mapped (default: all)")
        ->type_name("0,1,2,3");
    app.add_option("--map-frames", c.map.frames,
                   "The frames mapped: all, the N lowest combined scores, or frame numbers")
        ->type_name("{all,worst:N,LIST}");
    app.add_option("--map-format", c.map.format, "pgm16, npy, png or y4m")
        ->type_name("{pgm16,npy,png,y4m}");
}

LadderSettings settings_from(const CommonOptions &c, const std::string &out_dir) {
    LadderSettings s;
    s.out_dir = out_dir;
    if (int(c.json) + int(c.csv) + int(c.xml) > 1)
        throw std::invalid_argument("give only one of --json, --csv and --xml");
    s.format = c.csv ? Format::kCsv : c.xml ? Format::kXml : Format::kJson;
    if (c.precision == "max") {
        s.precision = kPrecisionMax;
    } else if (!c.precision.empty()) {
        char *end = nullptr;
        const long p = std::strtol(c.precision.c_str(), &end, 10);
        if (*end || p < 0 || p > 17)
            throw std::invalid_argument("--precision '" + c.precision + "': 0 to 17, or max");
        s.precision = int(p);
    }
    s.backend = c.backend == "cpu"    ? VIF_BACKEND_CPU
                : c.backend == "cuda" ? VIF_BACKEND_CUDA
                                      : VIF_BACKEND_AUTO;
    s.variant.variant = c.variant == "float" ? VIF_VARIANT_FLOAT : VIF_VARIANT_INTEGER;
    s.threads = c.threads;
    // More workers than cores only adds buffers and switching (64 on 2 cores: 4.5x slower and
    // 2 GB): clamped, with a note.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (s.threads > cores) {
        std::fprintf(stderr, "vif: note: --threads %u is more than the %u cores: using %u\n",
                     s.threads, cores, cores);
        s.threads = cores;
    }
    vifcli::parse_scaler(c.scaler, &s.scaler);
    s.verbose = c.verbose;
    MapArgs m = c.map;
    m.others_given = m.scales.size() || m.frames != "all" || m.format != "pgm16";
    s.map = parse_map_options(m);
    return s;
}

int parse_subcommand(CLI::App &app, int argc, const char *const *argv) {
    install_subcommand_signal_handlers();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    } catch (const CLI::ParseError &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitUsage;
    }
    return -1;
}

namespace {
// Interrupted: no temporary file is left behind (the progress log and the finished outputs are
// complete files; a resumed run picks up from them).
void on_signal(int sig) {
    vif::batch::remove_pending_temporaries_signal_safe();
    static const char msg[] = "\nvif: interrupted\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(128 + sig);
}
} // namespace

void install_subcommand_signal_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

int leave_process(int code) {
    if (std::fflush(nullptr) != 0 && code == 0) {
        std::fprintf(stderr, "vif: error: cannot write to standard output\n");
        code = kExitError;
    }
#if defined(__SANITIZE_ADDRESS__)
    return code;
#else
    std::_Exit(code);
#endif
}

void make_dir(const std::string &dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw std::runtime_error(fmt::format("cannot create the output folder '{}': {}", dir,
                                             ec ? ec.message() : "not a folder"));
}

} // namespace vifcli
