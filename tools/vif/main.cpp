// vif: score a reference/distorted pair of videos with libvif, libvmaf-compatible output.
#include "frame_source.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "hw_decode.hpp"
#endif
#if defined(VIF_WITH_NVDEC)
#include "device_pairs.hpp"
#endif
#include "output_file.hpp"
#include "prefetch.hpp"
#include "report.hpp"

#include <vif/vif.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace vifcli {
namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitParity = 3;

// SIGINT/SIGTERM: remove the temporary output file and leave at once (the library may be busy
// inside a call; nothing else needs cleaning up).
void on_signal(int sig) {
    remove_pending_outputs_signal_safe();
    static const char msg[] = "\nvif: interrupted\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(128 + sig);
}

// SIGBUS: a mapped input file shrank under us (truncated by another process while being read).
void on_sigbus(int) {
    remove_pending_outputs_signal_safe();
    static const char msg[] =
        "\nvif: error: an input file shrank while it was being read (SIGBUS)\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(1);
}

/** A one-line failure: printed as "vif: error: <message>". */
struct Failure {
    std::string message;
    int code = kExitError;
};

// ---- Start-up timing (--verbose) and CUDA warm-up -------------------------------------------

/** Phase times since main() began, printed by --verbose. */
class Timeline {
public:
    void enable() { on_ = true; }
    void mark(const char *what) {
        if (on_) marks_.emplace_back(what, std::chrono::steady_clock::now());
    }
    void print() const {
        if (!on_) return;
        std::fprintf(stderr, "vif: timing: %-36s %9.1f ms (kernel's count, 10 ms steps)\n",
                     "process start to main()", process_age_ms_);
        auto prev = start_;
        for (const auto &[what, t] : marks_) {
            std::fprintf(stderr, "vif: timing: %-36s %9.1f ms  (at %.1f ms)\n", what.c_str(),
                         ms(t - prev), ms(t - start_));
            prev = t;
        }
        timespec ts{};
        clock_gettime(CLOCK_REALTIME, &ts);
        std::fprintf(stderr, "vif: timing: leaving main() at %lld.%09ld (wall clock)\n",
                     (long long)ts.tv_sec, ts.tv_nsec);
    }

private:
    static double ms(std::chrono::steady_clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    }
    static double process_age() {
        // /proc/self/stat field 22: start time in clock ticks after boot; /proc/uptime: now.
        FILE *f = std::fopen("/proc/self/stat", "r");
        if (!f) return 0;
        char buf[1024];
        size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        std::fclose(f);
        buf[n] = 0;
        const char *p = std::strrchr(buf, ')');
        unsigned long long start = 0;
        for (int field = 2; p && *p && field < 22; ++p)
            if (*p == ' ') ++field;
        if (p) start = std::strtoull(p, nullptr, 10);
        double up = 0;
        if (FILE *u = std::fopen("/proc/uptime", "r")) {
            if (std::fscanf(u, "%lf", &up) != 1) up = 0;
            std::fclose(u);
        }
        const double age = up - double(start) / double(sysconf(_SC_CLK_TCK));
        return age > 0 ? age * 1000 : 0;
    }
    bool on_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    double process_age_ms_ = process_age();
    std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> marks_;
};

Timeline g_timeline;

/**
 * CUDA's one-time start-up (driver and device context, 0.1-0.3 s) on a thread of its own, so
 * that it overlaps opening and checking the inputs; the scoring contexts are created after it.
 */
class CudaWarmup {
public:
    void start() {
        started_ = true;
        thread_ = std::thread([this] {
            status_ = vif_cuda_prepare(0);
            if (status_ != VIF_OK) message_ = vif_last_error();
            done_.store(true, std::memory_order_release);
        });
    }
    /** Whether a start-up was asked for and has not finished yet (never blocks). */
    bool running() const { return started_ && !done_.load(std::memory_order_acquire); }
    /** Waits for the start-up; VIF_OK when a GPU is ready (or no start-up was asked for). */
    VifStatus wait() {
        if (thread_.joinable()) thread_.join();
        return status_;
    }
    const std::string &message() const { return message_; }
    ~CudaWarmup() {
        if (thread_.joinable()) thread_.join();
    }

private:
    std::thread thread_;
    bool started_ = false;
    std::atomic<bool> done_{false};
    VifStatus status_ = VIF_OK;
    std::string message_;
};

struct Options {
    std::string reference, distorted;
    std::string width, height, pixel_format, bitdepth;
    std::string variant = "integer";
    std::vector<std::string> feature_options;
    std::string threads = "0";
    std::string frames, skip_ref = "0", skip_dist = "0", subsample = "1";
    std::string backend = "auto";
    std::string output;
    bool json = false, csv = false, xml = false;
    std::string precision = "6";
    bool quiet = false, version = false, check_parity = false, debug_metrics = false;
    bool read_only = false;
    bool verbose = false;
    bool no_mmap = false;
    std::string hwdec = "auto";
    std::string decoders = "0";
    std::string cpu_decoders = "auto";
};

uint64_t parse_uint(const std::string &opt, const std::string &s, uint64_t max) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        throw Failure{fmt::format("{} '{}': expected a whole number", opt, s), kExitUsage};
    uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (v > max)
        throw Failure{fmt::format("{} {}: too large (at most {})", opt, s, max), kExitUsage};
    return v;
}

double parse_double(const std::string &what, const std::string &s) {
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
        throw Failure{fmt::format("{}: '{}' is not a number", what, s), kExitUsage};
    return v;
}

std::string vif_error(const char *what, VifStatus st) {
    const char *msg = vif_last_error();
    return fmt::format("{}: {}{}{}", what, vif_status_string(st), msg && *msg ? ": " : "",
                       msg ? msg : "");
}

// ---- Progress ------------------------------------------------------------------------------

class Progress {
public:
    Progress(bool enabled, std::optional<uint64_t> total) : on_(enabled), total_(total) {}
    void update(uint64_t done, bool force = false) {
        if (!on_) return;
        auto now = std::chrono::steady_clock::now();
        if (!force && now - last_ < std::chrono::milliseconds(100)) return;
        last_ = now;
        double s = std::chrono::duration<double>(now - start_).count();
        double fps = s > 0 ? double(done) / s : 0;
        if (total_ && *total_ > 0) {
            const int width = 30;
            int fill = int(double(width) * double(std::min(done, *total_)) / double(*total_));
            std::fprintf(stderr, "\r[%s%s] %llu/%llu frames  %.1f fps ",
                         std::string(size_t(fill), '#').c_str(),
                         std::string(size_t(width - fill), '.').c_str(),
                         (unsigned long long)done, (unsigned long long)*total_, fps);
        } else {
            std::fprintf(stderr, "\r%llu frames  %.1f fps ", (unsigned long long)done, fps);
        }
        std::fflush(stderr);
        shown_ = true;
    }
    void finish() {
        if (on_ && shown_) {
            std::fprintf(stderr, "\r\033[K");
            std::fflush(stderr);
        }
    }

private:
    bool on_;
    std::optional<uint64_t> total_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
};

// ---- Scoring contexts ----------------------------------------------------------------------

struct Scorer {
    VifContext *ctx = nullptr;
    std::string backend;
    std::vector<VifScores> scores;
    ~Scorer() { vif_destroy(ctx); }

    void create(VifConfig cfg, VifBackend b) {
        cfg.backend = b;
        VifStatus st = vif_create(&ctx, &cfg);
        if (st == VIF_ERROR_NO_DEVICE)
            throw Failure{vif_error("backend cuda: no usable GPU", st)};
        if (st != VIF_OK) throw Failure{vif_error("cannot create the VIF context", st)};
        backend = vif_backend_name(ctx);
    }
    void submit(const VifPicture &ref, const VifPicture &dist) {
        for (;;) {
            VifStatus st = vif_submit(ctx, &ref, &dist, nullptr);
            if (st == VIF_OK) return;
            if (st != VIF_AGAIN) throw Failure{vif_error("scoring failed", st)};
            // The queue is full of scores waiting for us: take the oldest, then retry.
            VifScores s;
            st = vif_receive(ctx, &s, 1);
            if (st != VIF_OK) throw Failure{vif_error("scoring failed", st)};
            scores.push_back(s);
        }
    }
    void drain(bool block) {
        for (;;) {
            VifScores s;
            VifStatus st = vif_receive(ctx, &s, block ? 1 : 0);
            if (st == VIF_AGAIN) return;
            if (st != VIF_OK) throw Failure{vif_error("scoring failed", st)};
            scores.push_back(s);
        }
    }
};

// ---- Parity --------------------------------------------------------------------------------

bool check_parity(const VifConfig &cfg, const std::vector<VifScores> &cpu,
                  const std::vector<VifScores> &gpu, const std::vector<uint64_t> &frame_nums) {
    const bool integer = cfg.variant == VIF_VARIANT_INTEGER;
    bool ok = cpu.size() == gpu.size();
    std::fprintf(stderr, "parity: %zu frames, cpu against cuda (%s)\n", cpu.size(),
                 integer ? "integer: must be identical"
                         : "float: |diff| <= 1e-4, relative for num/den");
    std::fprintf(stderr, "%-28s %-24s %s\n", "metric", "largest |cpu - cuda|", "at frame");
    for (int m = 0; m < VIF_METRIC_COUNT; ++m) {
        char name[64];
        vif_metric_name(&cfg, VifMetric(m), name, sizeof name);
        double worst = 0;
        uint64_t at = 0;
        bool bad = false;
        for (size_t i = 0; i < std::min(cpu.size(), gpu.size()); ++i) {
            double a = vif_metric_value(&cpu[i], VifMetric(m));
            double b = vif_metric_value(&gpu[i], VifMetric(m));
            if (std::isnan(a) && std::isnan(b)) continue;
            double d = std::isnan(a) || std::isnan(b) ? INFINITY : std::fabs(a - b);
            if (d > worst || (std::isnan(d))) {
                worst = d;
                at = frame_nums[i];
            }
            const bool is_score = m <= VIF_METRIC_COMBINED;
            double tol = integer ? 0.0 : (is_score ? 1e-4 : 1e-4 * std::max(1.0, std::fabs(a)));
            if (!(d <= tol)) bad = true;
        }
        ok = ok && !bad;
        std::fprintf(stderr, "%-28s %-24.17g %llu%s\n", name, worst, (unsigned long long)at,
                     bad ? "  MISMATCH" : "");
    }
    std::fprintf(stderr, "parity: %s\n", ok ? "PASSED" : "FAILED");
    return ok;
}

// ---- The run -------------------------------------------------------------------------------

/** Fills in the rest of the report, writes it (or the summary); the exit code. */
int write_report(const Options &o, const VifConfig &cfg, Report r, std::optional<OutputFile> &out,
                 Format format, int precision, const std::vector<VifScores> *parity_scores) {
    r.version = vif_version();
    r.variant = o.variant;
    r.reference = o.reference;
    r.distorted = o.distorted;
    r.subsample = parse_uint("--subsample", o.subsample, UINT64_MAX / 2);
    const int nmetrics = o.debug_metrics ? VIF_METRIC_COUNT : VIF_METRIC_SCALE3 + 1;
    for (int m = 0; m < nmetrics; ++m) {
        char name[64];
        VifStatus st = vif_metric_name(&cfg, VifMetric(m), name, sizeof name);
        if (st != VIF_OK) throw Failure{vif_error("metric name", st)};
        r.keys.emplace_back(name);
        r.metrics.push_back(VifMetric(m));
    }
    int code = 0;
    if (parity_scores && !check_parity(cfg, r.scores, *parity_scores, r.frame_nums))
        code = kExitParity;
    try {
        if (out)
            out->commit(render(r, format, precision));
        else if (!o.quiet)
            std::fputs(render_summary(r, precision == kPrecisionMax ? 6 : precision).c_str(),
                       stdout);
    } catch (const OutputError &e) {
        throw Failure{e.what()};
    }
    g_timeline.mark("output written");
    return code;
}


/** Set when the process may end without freeing what it used (see leave_without_teardown). */
bool g_leave_now = false;

#if defined(VIF_WITH_FFMPEG)
/**
 * The output is written: tearing down NVDEC sessions, device buffers and the CUDA context takes
 * 0.1-0.3 s that the process exit does for free, so leave them to it (main() ends the process
 * with _Exit when g_leave_now is set).
 */
template <typename Scorer_, typename Pf>
void leave_without_teardown(HwDecodeInputs &hw, Scorer_ &scorer, Pf &rpf, Pf &dpf) {
    (void)hw.ref_decoder.release();
    (void)hw.dist_decoder.release();
    (void)rpf.release();
    (void)dpf.release();
    (void)hw.ref_source.release();
    (void)hw.dist_source.release();
    scorer.ctx = nullptr;
    g_leave_now = true;
}

/** --hwdec: scores pairs decoded by NVDEC on the GPU (device_pairs.hpp). */
int run_on_device(const Options &o, VifConfig cfg, HwDecodeInputs &hw, const SourceRequest &rq,
                  const SourceRequest &dq, std::optional<OutputFile> &out, Format format,
                  int precision, std::optional<uint64_t> max_frames, uint64_t skip_ref,
                  uint64_t skip_dist, uint64_t subsample) {
#if !defined(VIF_WITH_NVDEC)
    (void)o, (void)cfg, (void)hw, (void)rq, (void)dq, (void)out, (void)format, (void)precision;
    (void)max_frames, (void)skip_ref, (void)skip_dist, (void)subsample;
    throw Failure{"--hwdec: this build has no NVDEC support"};
#else
    auto info_of = [](SegmentDecoder *d, FrameSource *s) {
        if (s) return s->info();
        VideoInfo v;
        v.width = d->width();
        v.height = d->height();
        v.bitdepth = d->bitdepth();
        v.format = d->description();
        return v;
    };
    DeviceInput ri, di;
    ri.decoder = hw.ref_decoder.get();
    di.decoder = hw.dist_decoder.get();
    ri.info = info_of(ri.decoder, hw.ref_source.get());
    di.info = info_of(di.decoder, hw.dist_source.get());
    ri.name = rq.label + " '" + rq.path + "'";
    di.name = dq.label + " '" + dq.path + "'";
    if (ri.info.width != di.info.width || ri.info.height != di.info.height)
        throw Failure{fmt::format("the reference is {}x{} but the distorted is {}x{}",
                                  ri.info.width, ri.info.height, di.info.width, di.info.height)};
    if (ri.info.bitdepth != di.info.bitdepth)
        throw Failure{fmt::format("the reference is {}-bit but the distorted is {}-bit",
                                  ri.info.bitdepth, di.info.bitdepth)};
    // A host input (raw/Y4M) applies skip and subsample in its prefetcher, as on the host path;
    // a decoder input drops its skip first and the loop applies the subsample.
    const bool mixed = hw.ref_source || hw.dist_source;
    std::unique_ptr<Prefetcher> rpf, dpf;
    auto host_plan = [&](uint64_t skip, const char *opt) {
        ReadPlan p;
        p.skip = skip;
        p.skip_option = opt;
        p.subsample = subsample;
        if (max_frames) p.max_delivered = *max_frames;
        return p;
    };
    if (hw.ref_source)
        rpf = std::make_unique<Prefetcher>(*hw.ref_source, ri.name, host_plan(skip_ref, "--skip-ref"), 8);
    else
        ri.skip = skip_ref;
    if (hw.dist_source)
        dpf = std::make_unique<Prefetcher>(*hw.dist_source, di.name, host_plan(skip_dist, "--skip-dist"), 8);
    else
        di.skip = skip_dist;
    ri.prefetcher = rpf.get();
    di.prefetcher = dpf.get();
    if (mixed && subsample > 1 && (ri.decoder || di.decoder))
        throw Failure{"--subsample with one encoded and one raw input needs --hwdec none",
                      kExitUsage};
    cfg.max_width = ri.info.width;
    cfg.max_height = ri.info.height;
    cfg.bitdepth = ri.info.bitdepth;
    g_timeline.mark("inputs opened (hwdec)");
    Scorer scorer;
    if (!o.read_only) {
        scorer.create(cfg, VIF_BACKEND_CUDA);
        g_timeline.mark("scoring context created");
    }
    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    Progress progress(show_progress, std::nullopt);
    auto on_progress = [](uint64_t done, void *arg) { static_cast<Progress *>(arg)->update(done); };
    const auto t0 = std::chrono::steady_clock::now();
    DeviceRunResult res;
    try {
        res = run_device_pairs(o.read_only ? nullptr : scorer.ctx, cfg.cuda_device, ri, di,
                               mixed ? 1 : subsample,
                               max_frames ? *max_frames : UINT64_MAX, on_progress, &progress);
    } catch (const InputError &e) {
        throw Failure{e.what()};
    } catch (const std::runtime_error &e) {
        throw Failure{e.what()};
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g_timeline.mark("all frames decoded and scored");
    progress.update(res.submitted, true);
    progress.finish();
    if (res.submitted == 0) throw Failure{"no frames to score"};
    if (!res.short_input.empty())
        std::fprintf(stderr,
                     "vif: warning: different frame counts: the %s ended after %llu frames but "
                     "the %s has more; scored the %llu common frames\n",
                     res.short_input.c_str(), (unsigned long long)res.short_frames,
                     res.short_input == "reference" ? "distorted" : "reference",
                     (unsigned long long)res.short_frames);
    if (o.verbose) {
        if (ri.decoder)
            std::fprintf(stderr, "vif: hwdec: reference: %llu segments\n",
                         (unsigned long long)ri.decoder->segments());
        if (di.decoder)
            std::fprintf(stderr, "vif: hwdec: distorted: %llu segments\n",
                         (unsigned long long)di.decoder->segments());
    }
    if (o.read_only) {
        std::printf("decoded %llu frame pairs (%s) in %.3f s: %.1f fps\n",
                    (unsigned long long)res.submitted,
                    ri.decoder ? ri.info.format.c_str() : di.info.format.c_str(), secs,
                    double(res.submitted) / secs);
        leave_without_teardown(hw, scorer, rpf, dpf);
        return 0;
    }
    if (res.scores.size() != res.submitted)
        throw Failure{fmt::format("internal error: {} frames submitted, {} scored", res.submitted,
                                  res.scores.size())};
    Report r;
    r.fps = secs > 0 ? double(res.submitted) / secs : 0;
    r.width = ri.info.width;
    r.height = ri.info.height;
    r.bitdepth = ri.info.bitdepth;
    r.backend = scorer.backend;
    r.frame_nums = std::move(res.frame_nums);
    r.scores = std::move(res.scores);
    const int code = write_report(o, cfg, std::move(r), out, format, precision, nullptr);
    leave_without_teardown(hw, scorer, rpf, dpf);
    return code;
#endif
}
#endif

int run(const Options &o, CudaWarmup &warmup) {
    // Validate everything cheap before touching the inputs.
    SourceRequest rq, dq;
    rq.path = o.reference;
    rq.label = "reference";
    dq.path = o.distorted;
    dq.label = "distorted";
    rq.allow_mapping = dq.allow_mapping = !o.no_mmap;
    const bool have_w = !o.width.empty(), have_h = !o.height.empty();
    if (have_w != have_h)
        throw Failure{fmt::format("give both -w/--width and -h/--height"), kExitUsage};
    if (have_w) {
        uint64_t w = parse_uint("-w/--width", o.width, 1u << 30);
        uint64_t h = parse_uint("-h/--height", o.height, 1u << 30);
        try {
            check_frame_size("-w/-h", w, h);
        } catch (const InputError &e) {
            throw Failure{e.what(), kExitUsage};
        }
        rq.width = dq.width = uint32_t(w);
        rq.height = dq.height = uint32_t(h);
    }
    if (!o.pixel_format.empty()) {
        const std::string &p = o.pixel_format;
        if (p != "420" && p != "422" && p != "444" && p != "400")
            throw Failure{fmt::format("unknown pixel format '{}' (use 420, 422, 444 or 400)", p),
                          kExitUsage};
        rq.pixel_format = dq.pixel_format = p;
    }
    if (!o.bitdepth.empty()) {
        uint64_t b = 0;
        try {
            b = parse_uint("-b/--bitdepth", o.bitdepth, 64);
        } catch (const Failure &) {
        }
        if (!supported_bitdepth(uint32_t(b)))
            throw Failure{fmt::format("unknown bit depth '{}' (use 8, 10, 12 or 16)", o.bitdepth),
                          kExitUsage};
        rq.bitdepth = dq.bitdepth = uint32_t(b);
    }

    VifConfig cfg;
    vif_default_config(&cfg);
    if (o.variant == "integer")
        cfg.variant = VIF_VARIANT_INTEGER;
    else if (o.variant == "float")
        cfg.variant = VIF_VARIANT_FLOAT;
    else
        throw Failure{fmt::format("unknown --variant '{}' (use integer or float)", o.variant),
                      kExitUsage};
    for (const std::string &fo : o.feature_options) {
        size_t eq = fo.find('=');
        if (eq == std::string::npos || eq == 0)
            throw Failure{fmt::format("--feature-option '{}': expected key=value", fo),
                          kExitUsage};
        std::string key = fo.substr(0, eq), val = fo.substr(eq + 1);
        if (key == "vif_enhn_gain_limit" || key == "egl") {
            cfg.enhn_gain_limit = parse_double("--feature-option " + key, val);
        } else if (key == "vif_kernelscale" || key == "ks") {
            if (cfg.variant != VIF_VARIANT_FLOAT)
                throw Failure{"--feature-option vif_kernelscale applies only to --variant float",
                              kExitUsage};
            cfg.kernelscale = parse_double("--feature-option " + key, val);
        } else {
            throw Failure{fmt::format("unknown --feature-option '{}' (known: vif_enhn_gain_limit "
                                      "or egl, vif_kernelscale or ks)", key),
                          kExitUsage};
        }
    }
    cfg.threads = uint32_t(parse_uint("--threads", o.threads, 4096));
    VifBackend backend;
    if (o.backend == "auto")
        backend = VIF_BACKEND_AUTO;
    else if (o.backend == "cpu")
        backend = VIF_BACKEND_CPU;
    else if (o.backend == "cuda")
        backend = VIF_BACKEND_CUDA;
    else
        throw Failure{fmt::format("unknown --backend '{}' (use auto, cpu or cuda)", o.backend),
                      kExitUsage};
    int precision = 6;
    if (o.precision == "max")
        precision = kPrecisionMax;
    else
        precision = int(parse_uint("--precision", o.precision, 17));
    std::optional<uint64_t> max_frames;
    if (!o.frames.empty()) {
        max_frames = parse_uint("--frames", o.frames, UINT64_MAX / 2);
        if (*max_frames == 0) throw Failure{"--frames must be at least 1", kExitUsage};
    }
    const uint64_t skip_ref = parse_uint("--skip-ref", o.skip_ref, UINT64_MAX / 2);
    const uint64_t skip_dist = parse_uint("--skip-dist", o.skip_dist, UINT64_MAX / 2);
    const uint64_t subsample = parse_uint("--subsample", o.subsample, UINT64_MAX / 2);
    if (subsample == 0) throw Failure{"--subsample must be at least 1", kExitUsage};
    Format format = Format::kJson;
    if (int(o.json) + int(o.csv) + int(o.xml) > 1)
        throw Failure{"give only one of --json, --csv and --xml", kExitUsage};
    if (o.csv)
        format = Format::kCsv;
    else if (o.xml)
        format = Format::kXml;
    else if (!o.json && o.output.size() > 4) {
        std::string ext = o.output.substr(o.output.size() - 4);
        if (ext == ".csv") format = Format::kCsv;
        if (ext == ".xml") format = Format::kXml;
    }
    // Whether a GPU is there is known once the warm-up (started in main) is done: see below.
    if (o.reference == "-" && o.distorted == "-")
        throw Failure{"only one of the inputs can be standard input", kExitUsage};

    // The output file first: an unwritable path fails now, not after the scoring.
    std::optional<OutputFile> out;
    if (!o.output.empty() && !o.read_only) {
        try {
            out.emplace(o.output);
        } catch (const OutputError &e) {
            throw Failure{e.what()};
        }
    }

#if defined(VIF_WITH_FFMPEG)
    // --hwdec: encoded inputs decoded by NVDEC go to the device path (device_pairs.hpp).
    if (!o.check_parity) {
        HwDecodeRequest hr;
        const auto mode = parse_hwdec(o.hwdec);
        if (!mode)
            throw Failure{fmt::format("unknown --hwdec '{}' (use auto, cuda or none)", o.hwdec),
                          kExitUsage};
        hr.mode = *mode;
        if (hr.mode == HwDecode::kCuda && backend == VIF_BACKEND_CPU && !o.read_only)
            throw Failure{"--hwdec cuda needs the cuda backend (--backend cuda or auto)",
                          kExitUsage};
        hr.decoders = unsigned(parse_uint("--decoders", o.decoders, 64));
        hr.cpu_decoders =
            o.cpu_decoders == "auto" ? -1 : int(parse_uint("--cpu-decoders", o.cpu_decoders, 64));
        hr.verbose = o.verbose;
        hr.cuda_device = cfg.cuda_device;
        hr.host_only = (backend == VIF_BACKEND_CPU && !o.read_only) ||
                       (o.read_only && hr.mode != HwDecode::kCuda);
        hr.gpu_ready = [&](std::string *why) {
            if (backend == VIF_BACKEND_CPU && !o.read_only) {
                *why = "--backend cpu";
                return false;
            }
            if (o.read_only && hr.mode != HwDecode::kCuda) {
                *why = "--read-only decodes on the GPU only with --hwdec cuda";
                return false;
            }
            const VifStatus st = warmup.wait();
            g_timeline.mark("waited for the CUDA start-up");
            if (st != VIF_OK) *why = "no usable GPU (" + warmup.message() + ")";
            return st == VIF_OK;
        };
        std::optional<HwDecodeInputs> hw;
        try {
            hw = open_hw_decode(hr, rq, dq);
        } catch (const HwDecodeError &e) {
            throw Failure{e.message};
        } catch (const InputError &e) {
            throw Failure{e.what()};
        }
        if (hw)
            return run_on_device(o, cfg, *hw, rq, dq, out, format, precision, max_frames,
                                 skip_ref, skip_dist, subsample);
    }
#endif
    std::unique_ptr<FrameSource> ref, dist;
    // --decoders N on the host path: software decoding in segments (see hw_decode.hpp).
    auto open_input = [&](const SourceRequest &q) -> std::unique_ptr<FrameSource> {
#if defined(VIF_WITH_FFMPEG)
        const unsigned n = unsigned(parse_uint("--decoders", o.decoders, 64));
        if (n) {
            const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
            if (auto s = open_segmented_source(q, n, std::max(1u, cores / (2 * n)))) return s;
        }
#endif
        return open_frame_source(q);
    };
    try {
        ref = open_input(rq);
        dist = open_input(dq);
    } catch (const InputError &e) {
        throw Failure{e.what()};
    }
    const VideoInfo &ri = ref->info(), &di = dist->info();
    const std::string rname = o.reference == "-" ? "reference (stdin)"
                                                 : fmt::format("reference '{}'", o.reference);
    const std::string dname = o.distorted == "-" ? "distorted (stdin)"
                                                 : fmt::format("distorted '{}'", o.distorted);
    if (ri.width != di.width || ri.height != di.height)
        throw Failure{fmt::format("the reference is {}x{} but the distorted is {}x{}", ri.width,
                                  ri.height, di.width, di.height)};
    if (ri.bitdepth != di.bitdepth)
        throw Failure{fmt::format("the reference is {}-bit but the distorted is {}-bit",
                                  ri.bitdepth, di.bitdepth)};

    // Frame counts: score the common frames; say so when they differ.
    ReadPlan rp, dp;
    rp.skip = skip_ref;
    rp.skip_option = "--skip-ref";
    dp.skip = skip_dist;
    dp.skip_option = "--skip-dist";
    rp.subsample = dp.subsample = subsample;
    if (max_frames) rp.max_delivered = dp.max_delivered = *max_frames;
    bool count_warned = false;
    std::optional<uint64_t> expected;
    if (ri.frames && skip_ref >= *ri.frames && *ri.frames > 0)
        throw Failure{fmt::format("--skip-ref {} skips past the end of the {} ({} frames)",
                                  skip_ref, rname, *ri.frames)};
    if (di.frames && skip_dist >= *di.frames && *di.frames > 0)
        throw Failure{fmt::format("--skip-dist {} skips past the end of the {} ({} frames)",
                                  skip_dist, dname, *di.frames)};
    if (ri.frames && di.frames) {
        uint64_t a = *ri.frames - std::min(skip_ref, *ri.frames);
        uint64_t b = *di.frames - std::min(skip_dist, *di.frames);
        uint64_t common = std::min(a, b);
        if (a != b) {
            std::fprintf(stderr,
                         "vif: warning: different frame counts: the reference has %llu frames "
                         "and the distorted %llu%s; scoring the %llu common frames\n",
                         (unsigned long long)a, (unsigned long long)b,
                         (skip_ref || skip_dist) ? " (after the skips)" : "",
                         (unsigned long long)common);
            count_warned = true;
        }
        rp.max_pairs = dp.max_pairs = common;
        uint64_t n = (common + subsample - 1) / subsample;
        expected = max_frames ? std::min(n, *max_frames) : n;
    }

    cfg.max_width = ri.width;
    cfg.max_height = ri.height;
    cfg.bitdepth = ri.bitdepth;

    g_timeline.mark("inputs opened");
    if (!o.read_only && (o.check_parity || backend == VIF_BACKEND_CUDA)) {
        const VifStatus st = warmup.wait();
        g_timeline.mark("waited for the CUDA start-up");
        if (st != VIF_OK) {
            const std::string why = warmup.message().empty() ? "" : " (" + warmup.message() + ")";
            throw Failure{o.check_parity
                              ? "--check-parity needs the cuda backend: this build has no CUDA "
                                "backend or no usable GPU was found" + why
                              : "--backend cuda: this build has no CUDA backend or no usable GPU "
                                "was found" + why};
        }
    }
    // --backend auto while CUDA is still starting: score on the CPU at once and hand the frames
    // over to the GPU as soon as it is ready (both give the same bits: the parity gate). Short
    // clips are then done before CUDA's 0.2-0.3 s start-up is.
    const bool hand_over = !o.read_only && !o.check_parity && backend == VIF_BACKEND_AUTO &&
                           warmup.running();

    Scorer primary, secondary, gpu;
    bool handed_over = false;
    if (!o.read_only) {
        if (o.check_parity) {
            primary.create(cfg, VIF_BACKEND_CPU);
            secondary.create(cfg, VIF_BACKEND_CUDA);
        } else if (hand_over) {
            primary.create(cfg, VIF_BACKEND_CPU);
        } else {
            if (backend == VIF_BACKEND_AUTO) warmup.wait();  // done already: no wait
            primary.create(cfg, backend);
        }
        g_timeline.mark("scoring contexts created");
        if (expected) {
            primary.scores.reserve(size_t(*expected));
            if (o.check_parity) secondary.scores.reserve(size_t(*expected));
        }
    }

    // Reader threads: a few frames ahead, about 64 MiB of buffers per input at most.
    const size_t slots = std::clamp<size_t>((64u << 20) / std::max<size_t>(ri.luma_bytes(), 1),
                                            3, 16);
    Prefetcher rpf(*ref, rname, rp, slots), dpf(*dist, dname, dp, slots);

    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    Progress progress(show_progress, expected);
    std::vector<uint64_t> frame_nums;
    if (expected) frame_nums.reserve(size_t(*expected));
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t submitted = 0;
    std::vector<uint8_t> scratch(o.read_only ? ri.luma_bytes() + di.luma_bytes() : 0);
    VifPicture rpic{nullptr, ptrdiff_t(ri.row_bytes()), ri.width, ri.height, ri.bitdepth,
                    ri.picture_flags};
    VifPicture dpic{nullptr, ptrdiff_t(di.row_bytes()), di.width, di.height, di.bitdepth,
                    di.picture_flags};
    for (;;) {
        Prefetcher::Frame fa, fb;
        auto sa = rpf.next(&fa);
        auto sb = dpf.next(&fb);
        if (sa == Prefetcher::Status::kFrame && sb == Prefetcher::Status::kFrame) {
            if (hand_over && !handed_over && !warmup.running()) {
                handed_over = true;  // asked once, whatever the outcome
                if (warmup.wait() == VIF_OK) {
                    try {
                        gpu.create(cfg, VIF_BACKEND_CUDA);
                        gpu.scores.reserve(expected ? size_t(*expected) : 0);
                        g_timeline.mark("GPU ready: frames from here on go to cuda");
                    } catch (const Failure &f) {
                        if (o.verbose)
                            std::fprintf(stderr, "vif: staying on the cpu: %s\n", f.message.c_str());
                    }
                }
            }
            if (!o.read_only) {
                rpic.data = fa.data;
                dpic.data = fb.data;
                (gpu.ctx ? gpu : primary).submit(rpic, dpic);
                if (o.check_parity) secondary.submit(rpic, dpic);
            } else {
                // Stand in for vif_submit's copy, so that the speed is that of real input.
                std::memcpy(scratch.data(), fa.data, ri.luma_bytes());
                std::memcpy(scratch.data() + ri.luma_bytes(), fb.data, di.luma_bytes());
            }
            frame_nums.push_back(fa.pair);
            rpf.release();
            dpf.release();
            ++submitted;
            if (submitted == 1) g_timeline.mark("first frame pair read and submitted");
            if (!o.read_only) {
                primary.drain(false);
                if (o.check_parity) secondary.drain(false);
                if (gpu.ctx) gpu.drain(false);
            }
            progress.update(o.read_only ? submitted : primary.scores.size() + gpu.scores.size());
            continue;
        }
        if (sa == Prefetcher::Status::kError) throw Failure{rpf.error()};
        if (sb == Prefetcher::Status::kError) throw Failure{dpf.error()};
        if (sa != sb && !count_warned) {
            const bool ref_short = sa == Prefetcher::Status::kEnd;
            std::fprintf(stderr,
                         "vif: warning: different frame counts: the %s ended after %llu frames "
                         "but the %s has more; scored the %llu common frames\n",
                         ref_short ? "reference" : "distorted",
                         (unsigned long long)((ref_short ? skip_ref : skip_dist) +
                                              (submitted ? frame_nums.back() + 1 : 0)),
                         ref_short ? "distorted" : "reference",
                         (unsigned long long)(submitted ? frame_nums.back() + 1 : 0));
        }
        break;
    }
    rpf.stop();
    dpf.stop();
    if (!o.read_only) {
        primary.drain(true);
        if (o.check_parity) secondary.drain(true);
        if (gpu.ctx) gpu.drain(true);
    }
    // Frames scored on the CPU before the hand-over come first: submission order is kept.
    const size_t cpu_frames = gpu.ctx ? primary.scores.size() : 0;
    if (gpu.ctx) {
        primary.scores.insert(primary.scores.end(), gpu.scores.begin(), gpu.scores.end());
        if (o.verbose)
            std::fprintf(stderr, "vif: %zu frames on the cpu while CUDA started, %zu on cuda\n",
                         cpu_frames, gpu.scores.size());
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g_timeline.mark("all frames scored");
    progress.update(o.read_only ? submitted : primary.scores.size(), true);
    progress.finish();
    if (submitted == 0) throw Failure{"no frames to score"};

    if (o.read_only) {
        double mb = double(submitted) * double(ri.luma_bytes() + di.luma_bytes()) / 1e6;
        std::printf("read %llu frame pairs (luma only, %s) in %.3f s: %.1f fps, %.1f MB/s\n",
                    (unsigned long long)submitted, rpf.mapped() ? "mapped" : "pread", secs,
                    double(submitted) / secs, mb / secs);
        return 0;
    }
    if (primary.scores.size() != submitted)
        throw Failure{fmt::format("internal error: {} frames submitted, {} scored", submitted,
                                  primary.scores.size())};

    Report r;
    r.fps = secs > 0 ? double(submitted) / secs : 0;
    r.width = ri.width;
    r.height = ri.height;
    r.bitdepth = ri.bitdepth;
    r.backend = !gpu.ctx ? primary.backend : cpu_frames ? "cpu+cuda" : "cuda";
    r.frame_nums = std::move(frame_nums);
    r.scores = std::move(primary.scores);
    return write_report(o, cfg, std::move(r), out, format, precision,
                        o.check_parity ? &secondary.scores : nullptr);
}


} // namespace
} // namespace vifcli

int main(int argc, char **argv) {
    using namespace vifcli;
    Options o;
    CLI::App app{"vif: Visual Information Fidelity (VIF) of a distorted video against its "
                 "reference, computed bit-exactly like libvmaf.\n"};
    app.set_help_flag("--help", "Print this help and exit");
    app.get_formatter()->column_width(34);
#if defined(VIF_WITH_FFMPEG)
    const char* const kInputKinds = ".y4m, raw .yuv, anything FFmpeg decodes (.mp4, .mkv, .264, ...), or - (stdin)";
#else
    const char* const kInputKinds = ".y4m, raw .yuv, or - (stdin)";
#endif
    app.add_option("-r,--reference", o.reference, std::string("Reference video: ") + kInputKinds);
    app.add_option("-d,--distorted", o.distorted, std::string("Distorted video: ") + kInputKinds);
    app.add_option("-w,--width", o.width, "Raw YUV: width in pixels");
    app.add_option("-h,--height", o.height, "Raw YUV: height in pixels");
    app.add_option("-p,--pixel-format", o.pixel_format, "Raw YUV: 420, 422, 444 or 400");
    app.add_option("-b,--bitdepth", o.bitdepth,
                   "Raw YUV: 8, 10, 12 or 16 (above 8: little-endian 16-bit words)");
    app.add_option("--variant", o.variant, "integer (libvmaf 'vif', VMAF's default) or float "
                                           "(libvmaf 'float_vif')")
        ->capture_default_str();
    app.add_option("--feature-option", o.feature_options,
                   "key=value, repeatable: vif_enhn_gain_limit (egl), vif_kernelscale (ks)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--threads", o.threads, "CPU worker threads (0: one per hardware thread)")
        ->capture_default_str();
    app.add_option("--frames", o.frames, "Score at most N frames");
    app.add_option("--skip-ref", o.skip_ref, "Skip the first N reference frames");
    app.add_option("--skip-dist", o.skip_dist, "Skip the first N distorted frames");
    app.add_option("--subsample", o.subsample, "Score every Nth frame")->capture_default_str();
    app.add_option("--backend", o.backend, "auto, cpu or cuda")->capture_default_str();
    app.add_option("-o,--output", o.output, "Write the scores to this file (- for stdout); "
                                            "without it, print a summary");
    app.add_flag("--json", o.json, "Output in libvmaf's JSON layout (default)");
    app.add_flag("--csv", o.csv, "Output in libvmaf's CSV layout");
    app.add_flag("--xml", o.xml, "Output in libvmaf's XML layout");
    app.add_option("--precision", o.precision,
                   "Decimals of the values written, or 'max' for every bit (%.17g)")
        ->capture_default_str();
    app.add_flag("--debug-metrics", o.debug_metrics,
                 "Also write the combined score and the per-scale numerators and denominators");
    app.add_flag("-q,--quiet", o.quiet, "No progress bar and no summary");
    app.add_flag("--check-parity", o.check_parity,
                 "Score with the cpu and the cuda backend and fail if they differ");
    app.add_flag("--read-only", o.read_only,
                 "Read and check the inputs (and copy each plane once, as scoring does) "
                 "without scoring; print the input speed");
    app.add_flag("--no-mmap", o.no_mmap,
                 "Read files with pread into buffers instead of mapping them (slower)");
    app.add_flag("-v,--verbose", o.verbose,
                 "Print how long each phase took (start-up, reading, scoring, output) to stderr");
    app.add_option("--hwdec", o.hwdec,
                   "Decode encoded inputs on the GPU: auto (NVDEC when scoring on cuda and it "
                   "decodes the input), cuda (NVDEC or an error) or none")
        ->capture_default_str();
    app.add_option("--decoders", o.decoders,
                   "--hwdec: NVDEC decoders per input, each on its own segments (0: automatic)")
        ->capture_default_str();
    app.add_option("--cpu-decoders", o.cpu_decoders,
                   "--hwdec: software decoders per input beside the NVDEC ones, on segments of "
                   "their own (auto: none)")
        ->capture_default_str();
    app.add_flag("--version", o.version, "Print the version and exit");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        std::fprintf(stderr, "vif: error: %s (see --help)\n", e.what());
        return kExitUsage;
    }
    if (o.version) {
        std::printf("vif %s (libvif, cuda %s)\n", vif_version(),
                    vif_cuda_available() ? "available" : "not available");
        return 0;
    }
    if (o.reference.empty() || o.distorted.empty()) {
        std::fprintf(stderr, "vif: error: give -r/--reference and -d/--distorted (see --help)\n");
        return kExitUsage;
    }

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    struct sigaction sb {};
    sb.sa_handler = on_sigbus;
    sigemptyset(&sb.sa_mask);
    sigaction(SIGBUS, &sb, nullptr);

    if (o.verbose) g_timeline.enable();
    g_timeline.mark("options parsed");
    // CUDA's start-up overlaps opening the inputs (see CudaWarmup); not for cpu or read-only runs.
    CudaWarmup warmup;
    if ((!o.read_only && (o.check_parity || o.backend == "cuda" || o.backend == "auto")) ||
        (o.read_only && o.hwdec == "cuda"))
        warmup.start();

    int code = kExitError;
    try {
        code = run(o, warmup);
        g_timeline.mark("scoring contexts destroyed");
        g_timeline.print();
    } catch (const Failure &f) {
        if (::isatty(STDERR_FILENO)) std::fputs("\r\033[K", stderr); // over the progress bar
        std::fprintf(stderr, "vif: error: %s\n", f.message.c_str());
        code = f.code;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        code = kExitError;
    }
    if (g_leave_now) { // --hwdec: see leave_without_teardown
        std::fflush(nullptr);
        std::_Exit(code);
    }
    if (warmup.running()) {
        // Done (everything scored on the CPU, or failed) before CUDA finished starting: the
        // output is complete and closed or removed, so leave without waiting for a GPU we did
        // not use.
        std::fflush(nullptr);
        std::_Exit(code);
    }
    return code;
}
