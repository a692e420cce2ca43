// vif: score a reference/distorted pair of videos with libvif, libvmaf-compatible output.
#include "commands/batch_commands.hpp"
#include "frame_source.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "hw_decode.hpp"
#endif
#if defined(VIF_WITH_NVDEC)
#include "device_pairs.hpp"
#endif
#include "options.hpp"
#include "output_file.hpp"
#include "prefetch.hpp"
#include "report.hpp"

#include <vif/vif.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
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

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace vifcli {
namespace {

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
                         std::string(size_t(width - fill), '.').c_str(), (unsigned long long)done,
                         (unsigned long long)*total_, fps);
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
        if (st == VIF_ERROR_NO_DEVICE) throw Failure{vif_error("backend cuda: no usable GPU", st)};
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

// ---- Standard streams ----------------------------------------------------------------------

/** Which of stdin, stdout and stderr were closed when vif started (`<&-`, `>&-`). */
struct StdStreams {
    bool closed[3] = {false, false, false};
};

/**
 * Opens /dev/null onto fds 0, 1 and 2 where they are closed, before anything else is opened, so
 * that no input or output file can land on them and be read or written as if it were standard
 * input or output; remembers which were closed so that `-` can be refused.
 */
StdStreams guard_std_streams() {
    StdStreams s;
    for (int fd = 0; fd < 3; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        s.closed[fd] = true;
        const int n = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (n >= 0 && n != fd) {
            ::dup2(n, fd);
            ::close(n);
        }
    }
    return s;
}

/** Whether `path` names standard input (or output, fd 1) however it is spelt. */
bool names_std_fd(const std::string &path, int fd) {
    if (fd == 0 && path == "-") return true;
    static const char *const kStdin[] = {"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"};
    static const char *const kStdout[] = {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
    for (const char *p : fd == 0 ? kStdin : kStdout)
        if (path == p) return true;
    return false;
}

// ---- The run -------------------------------------------------------------------------------

/** One VIF variant being scored: its configuration and its contexts. */
struct VariantRun {
    VifConfig cfg;
    Scorer primary;   ///< the backend asked for (or the CPU until the hand-over)
    Scorer secondary; ///< --check-parity: the cuda backend
    Scorer gpu;       ///< --backend auto: the GPU, once CUDA has started
};

/** Builds the report from every variant's scores, writes it (or the summary); the exit code. */
int write_report(const Options &o, std::vector<std::unique_ptr<VariantRun>> &variants,
                 std::vector<uint64_t> frame_nums, double fps, const VideoInfo &ri,
                 const std::string &backend, std::optional<OutputFile> &out) {
    Report r;
    r.version = vif_version();
    r.fps = fps;
    r.width = ri.width;
    r.height = ri.height;
    r.bitdepth = ri.bitdepth;
    r.backend = backend;
    r.reference = o.reference;
    r.distorted = o.distorted;
    r.subsample = o.subsample;
    r.details = o.details;
    const int nmetrics = o.debug_metrics ? VIF_METRIC_COUNT : VIF_METRIC_SCALE3 + 1;
    for (auto &v : variants) {
        const char *vname = v->cfg.variant == VIF_VARIANT_INTEGER ? "integer" : "float";
        r.variant += (r.variant.empty() ? "" : "+") + std::string(vname);
        for (int m = 0; m < nmetrics; ++m) {
            char name[64];
            VifStatus st = vif_metric_name(&v->cfg, VifMetric(m), name, sizeof name);
            if (st != VIF_OK) throw Failure{vif_error("metric name", st)};
            r.keys.emplace_back(name);
            std::vector<double> column(v->primary.scores.size());
            for (size_t i = 0; i < column.size(); ++i)
                column[i] = vif_metric_value(&v->primary.scores[i], VifMetric(m));
            r.columns.push_back(std::move(column));
        }
    }
    r.frame_nums = std::move(frame_nums);

    int code = 0;
    if (o.check_parity && !check_parity(variants[0]->cfg, variants[0]->primary.scores,
                                        variants[0]->secondary.scores, r.frame_nums))
        code = kExitParity;

    try {
        if (out) {
            out->commit(render(r, o.format, o.precision));
        } else if (!o.quiet) {
            const std::string text = render_summary(r, o.precision);
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
                std::fflush(stdout) != 0)
                throw OutputError(fmt::format("cannot write the summary to standard output: {}",
                                              std::strerror(errno)));
        }
    } catch (const OutputError &e) {
        throw Failure{e.what()};
    }
    g_timeline.mark("output written");
    return code;
}

/** The scoring contexts of the variants asked for, sized for `ri`, not yet created. */
std::vector<std::unique_ptr<VariantRun>> make_variants(const Options &o, const VideoInfo &ri,
                                                       std::optional<uint64_t> expected) {
    std::vector<std::unique_ptr<VariantRun>> variants;
    for (const VariantSpec &spec : o.variants) {
        auto v = std::make_unique<VariantRun>();
        vif_default_config(&v->cfg);
        v->cfg.variant = spec.variant;
        v->cfg.enhn_gain_limit = spec.enhn_gain_limit;
        v->cfg.kernelscale = spec.kernelscale;
        v->cfg.threads = o.threads;
        // No more CPU workers (each with frame-sized scratch) than there are frames to score.
        if (v->cfg.threads == 0 && expected)
            v->cfg.threads = uint32_t(std::clamp<uint64_t>(
                *expected, 1, std::max(1u, std::thread::hardware_concurrency())));
        v->cfg.max_width = ri.width;
        v->cfg.max_height = ri.height;
        v->cfg.bitdepth = ri.bitdepth;
        variants.push_back(std::move(v));
    }
    return variants;
}

/** Set when the process may end without freeing what it used (see leave_without_teardown). */
bool g_leave_now = false;

#if defined(VIF_WITH_FFMPEG)
/**
 * The output is written: tearing down NVDEC sessions, device buffers and the CUDA contexts takes
 * 0.1-0.3 s that the process exit does for free, so leave them to it (main() then ends the
 * process with _Exit).
 */
void leave_without_teardown(HwDecodeInputs &hw, std::vector<std::unique_ptr<VariantRun>> &variants,
                            std::unique_ptr<Prefetcher> &rpf, std::unique_ptr<Prefetcher> &dpf) {
    (void)hw.ref_decoder.release();
    (void)hw.dist_decoder.release();
    (void)rpf.release();
    (void)dpf.release();
    (void)hw.ref_source.release();
    (void)hw.dist_source.release();
    for (auto &v : variants) v->primary.ctx = nullptr;
    g_leave_now = true;
}

/** --hwdec: scores pairs decoded by NVDEC on the GPU (device_pairs.hpp). */
int run_on_device(const Options &o, HwDecodeInputs &hw, const SourceRequest &rq,
                  const SourceRequest &dq, std::optional<OutputFile> &out) {
#if !defined(VIF_WITH_NVDEC)
    (void)o, (void)hw, (void)rq, (void)dq, (void)out;
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
    if (mixed && o.subsample > 1)
        throw Failure{"--subsample with one encoded and one raw input needs --hwdec none",
                      kExitUsage};
    std::unique_ptr<Prefetcher> rpf, dpf;
    auto host_plan = [&](uint64_t skip, const char *opt) {
        ReadPlan p;
        p.skip = skip;
        p.skip_option = opt;
        if (o.max_frames) p.max_delivered = *o.max_frames;
        return p;
    };
    if (hw.ref_source)
        rpf = std::make_unique<Prefetcher>(*hw.ref_source, ri.name,
                                           host_plan(o.skip_ref, "--skip-ref"), 8);
    else
        ri.skip = o.skip_ref;
    if (hw.dist_source)
        dpf = std::make_unique<Prefetcher>(*hw.dist_source, di.name,
                                           host_plan(o.skip_dist, "--skip-dist"), 8);
    else
        di.skip = o.skip_dist;
    ri.prefetcher = rpf.get();
    di.prefetcher = dpf.get();
    g_timeline.mark("inputs opened (hwdec)");
    auto variants = make_variants(o, ri.info, std::nullopt);
    std::vector<VifContext *> ctxs;
    if (!o.read_only) {
        for (auto &v : variants) {
            v->primary.create(v->cfg, VIF_BACKEND_CUDA);
            ctxs.push_back(v->primary.ctx);
        }
        g_timeline.mark("scoring contexts created");
    }
    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    Progress progress(show_progress, std::nullopt);
    auto on_progress = [](uint64_t done, void *arg) { static_cast<Progress *>(arg)->update(done); };
    const auto t0 = std::chrono::steady_clock::now();
    DeviceRunResult res;
    try {
        res = run_device_pairs(ctxs, int(variants[0]->cfg.cuda_device), ri, di, o.subsample,
                               o.max_frames ? *o.max_frames : UINT64_MAX, on_progress, &progress);
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
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            throw Failure{fmt::format("cannot write to standard output: {}", std::strerror(errno))};
        leave_without_teardown(hw, variants, rpf, dpf);
        return 0;
    }
    for (size_t c = 0; c < variants.size(); ++c) {
        if (res.scores[c].size() != res.submitted)
            throw Failure{fmt::format("internal error: {} frames submitted, {} scored",
                                      res.submitted, res.scores[c].size())};
        variants[c]->primary.scores = std::move(res.scores[c]);
    }
    const int code = write_report(o, variants, std::move(res.frame_nums),
                                  secs > 0 ? double(res.submitted) / secs : 0, ri.info,
                                  variants[0]->primary.backend, out);
    leave_without_teardown(hw, variants, rpf, dpf);
    return code;
#endif
}
#endif

int run(const Options &o, CudaWarmup &warmup, const StdStreams &streams) {
    SourceRequest rq, dq;
    rq.path = o.reference;
    rq.label = "reference";
    dq.path = o.distorted;
    dq.label = "distorted";
    rq.allow_mapping = dq.allow_mapping = !o.no_mmap;
    rq.width = dq.width = o.width;
    rq.height = dq.height = o.height;
    rq.pixel_format = dq.pixel_format = o.pixel_format;
    rq.bitdepth = dq.bitdepth = o.bitdepth;
    const bool verbose = o.verbose;
    rq.verbose = dq.verbose = verbose;

    for (const SourceRequest *q : {&rq, &dq})
        if (streams.closed[0] && names_std_fd(q->path, 0))
            throw Failure{fmt::format("the {} is standard input ('{}'), but standard input is "
                                      "closed",
                                      q->label, q->path)};
    // Where the scores go: a file, or standard output (-o -, a format flag without -o, or the
    // summary).
    const bool to_stdout =
        !o.read_only && (o.output.empty() || names_std_fd(o.output, 1) || o.output == "-");
    const bool anything_to_stdout = to_stdout && (!o.output.empty() || o.format_given || !o.quiet);
    if (anything_to_stdout && streams.closed[1])
        throw Failure{"standard output is closed: give -o FILE"};

    // The output file first: an unwritable path fails now, not after the scoring.
    std::optional<OutputFile> out;
    if (!o.read_only && (!o.output.empty() || o.format_given)) {
        try {
            out.emplace(o.output.empty() ? std::string("-") : o.output,
                        std::vector<std::string>{o.reference, o.distorted});
        } catch (const OutputError &e) {
            throw Failure{e.what()};
        }
    }

#if defined(VIF_WITH_FFMPEG)
    // --hwdec: encoded inputs that NVDEC decodes go to the device path (device_pairs.hpp).
    if (!o.check_parity) {
        HwDecodeRequest hr;
        hr.mode = *parse_hwdec(o.hwdec); // checked by parse_options
        hr.decoders = o.decoders;
        hr.cpu_decoders = o.cpu_decoders;
        hr.verbose = verbose;
        hr.host_only = (o.backend == VIF_BACKEND_CPU && !o.read_only) ||
                       (o.read_only && hr.mode != HwDecode::kCuda);
        hr.gpu_ready = [&](std::string *why) {
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
        if (hw) return run_on_device(o, *hw, rq, dq, out);
    }
#endif
    // --decoders N on the host path: software decoding in segments (see hw_decode.hpp).
    auto open_input = [&](const SourceRequest &q) -> std::unique_ptr<FrameSource> {
#if defined(VIF_WITH_FFMPEG)
        if (o.decoders) {
            const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
            if (auto src =
                    open_segmented_source(q, o.decoders, std::max(1u, cores / (2 * o.decoders))))
                return src;
        }
#endif
        return open_frame_source(q);
    };
    std::unique_ptr<FrameSource> ref, dist;
    try {
        ref = open_input(rq);
        dist = open_input(dq);
    } catch (const InputError &e) {
        throw Failure{e.what()};
    }
    const VideoInfo &ri = ref->info(), &di = dist->info();
    const std::string rname =
        o.reference == "-" ? "reference (stdin)" : fmt::format("reference '{}'", o.reference);
    const std::string dname =
        o.distorted == "-" ? "distorted (stdin)" : fmt::format("distorted '{}'", o.distorted);
    if (ri.width != di.width || ri.height != di.height)
        throw Failure{fmt::format("the reference is {}x{} but the distorted is {}x{}", ri.width,
                                  ri.height, di.width, di.height)};
    if (ri.bitdepth != di.bitdepth)
        throw Failure{fmt::format("the reference is {}-bit but the distorted is {}-bit",
                                  ri.bitdepth, di.bitdepth)};

    // Frame counts: score the common frames; say so when they differ.
    const uint64_t skip_ref = o.skip_ref, skip_dist = o.skip_dist, subsample = o.subsample;
    ReadPlan rp, dp;
    rp.skip = skip_ref;
    rp.skip_option = "--skip-ref";
    dp.skip = skip_dist;
    dp.skip_option = "--skip-dist";
    rp.subsample = dp.subsample = subsample;
    if (o.max_frames) rp.max_delivered = dp.max_delivered = *o.max_frames;
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
        expected = o.max_frames ? std::min(n, *o.max_frames) : n;
    }

    // Reader threads: a few frames ahead, about 64 MiB of buffers per input at most (allocated
    // as they fill).
    const size_t slots =
        std::clamp<size_t>((64u << 20) / std::max<size_t>(ri.luma_bytes(), 1), 3, 16);
    Prefetcher rpf(*ref, rname, rp, slots), dpf(*dist, dname, dp, slots);
    g_timeline.mark("inputs opened");

    // The scoring contexts are sized to the frame and to the worker threads; create them only
    // once the first frame of each input has been read, so that a header announcing a huge
    // frame that the input does not hold fails here, before any of that memory is allocated.
    {
        Prefetcher::Frame first;
        if (rpf.next(&first) == Prefetcher::Status::kError) throw Failure{rpf.error()};
        if (dpf.next(&first) == Prefetcher::Status::kError) throw Failure{dpf.error()};
    }
    g_timeline.mark("first frames read");

    const VifBackend backend = o.backend;
    auto variants = make_variants(o, ri, expected);

    if (!o.read_only && (o.check_parity || backend == VIF_BACKEND_CUDA)) {
        const VifStatus st = warmup.wait();
        g_timeline.mark("waited for the CUDA start-up");
        if (st != VIF_OK) {
            const std::string why = warmup.message().empty() ? "" : " (" + warmup.message() + ")";
            throw Failure{o.check_parity
                              ? "--check-parity needs the cuda backend: this build has no CUDA "
                                "backend or no usable GPU was found" +
                                    why
                              : "--backend cuda: this build has no CUDA backend or no usable GPU "
                                "was found" +
                                    why};
        }
    }
    // --backend auto while CUDA is still starting: score on the CPU at once and hand the frames
    // over to the GPU as soon as it is ready (both give the same bits: the parity gate). Short
    // clips are then done before CUDA's 0.2-0.3 s start-up is.
    const bool hand_over =
        !o.read_only && !o.check_parity && backend == VIF_BACKEND_AUTO && warmup.running();

    bool handed_over = false;
    if (!o.read_only) {
        for (auto &v : variants) {
            if (o.check_parity) {
                v->primary.create(v->cfg, VIF_BACKEND_CPU);
                v->secondary.create(v->cfg, VIF_BACKEND_CUDA);
            } else if (hand_over) {
                v->primary.create(v->cfg, VIF_BACKEND_CPU);
            } else {
                if (backend == VIF_BACKEND_AUTO) warmup.wait(); // done already: no wait
                v->primary.create(v->cfg, backend);
            }
            if (expected) {
                v->primary.scores.reserve(size_t(*expected));
                if (o.check_parity) v->secondary.scores.reserve(size_t(*expected));
            }
        }
        g_timeline.mark("scoring contexts created");
    }

    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    Progress progress(show_progress, expected);
    std::vector<uint64_t> frame_nums;
    if (expected) frame_nums.reserve(size_t(*expected));
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t submitted = 0;
    std::vector<uint8_t> scratch(o.read_only ? ri.luma_bytes() + di.luma_bytes() : 0);
    VifPicture rpic{nullptr,     ptrdiff_t(ri.row_bytes()), ri.width, ri.height,
                    ri.bitdepth, ri.picture_flags};
    VifPicture dpic{nullptr,     ptrdiff_t(di.row_bytes()), di.width, di.height,
                    di.bitdepth, di.picture_flags};
    auto scored = [&] {
        return variants[0]->primary.scores.size() + variants[0]->gpu.scores.size();
    };
    for (;;) {
        Prefetcher::Frame fa, fb;
        auto sa = rpf.next(&fa);
        auto sb = dpf.next(&fb);
        if (sa == Prefetcher::Status::kFrame && sb == Prefetcher::Status::kFrame) {
            if (hand_over && !handed_over && !warmup.running()) {
                handed_over = true; // asked once, whatever the outcome
                if (warmup.wait() == VIF_OK) {
                    try {
                        for (auto &v : variants) {
                            v->gpu.create(v->cfg, VIF_BACKEND_CUDA);
                            v->gpu.scores.reserve(expected ? size_t(*expected) : 0);
                        }
                        g_timeline.mark("GPU ready: frames from here on go to cuda");
                    } catch (const Failure &f) {
                        for (auto &v : variants) { // all on the cpu, or none (nothing sent yet)
                            vif_destroy(v->gpu.ctx);
                            v->gpu.ctx = nullptr;
                        }
                        if (verbose)
                            std::fprintf(stderr, "vif: staying on the cpu: %s\n",
                                         f.message.c_str());
                    }
                }
            }
            if (!o.read_only) {
                rpic.data = fa.data;
                dpic.data = fb.data;
                for (auto &v : variants) {
                    (v->gpu.ctx ? v->gpu : v->primary).submit(rpic, dpic);
                    if (o.check_parity) v->secondary.submit(rpic, dpic);
                }
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
            if (!o.read_only)
                for (auto &v : variants) {
                    v->primary.drain(false);
                    if (o.check_parity) v->secondary.drain(false);
                    if (v->gpu.ctx) v->gpu.drain(false);
                }
            progress.update(o.read_only ? submitted : scored());
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
    if (!o.read_only)
        for (auto &v : variants) {
            v->primary.drain(true);
            if (o.check_parity) v->secondary.drain(true);
            if (v->gpu.ctx) v->gpu.drain(true);
        }
    // Frames scored on the CPU before the hand-over come first: submission order is kept.
    const bool on_gpu = variants[0]->gpu.ctx != nullptr;
    const size_t cpu_frames = on_gpu ? variants[0]->primary.scores.size() : 0;
    if (on_gpu) {
        if (verbose)
            std::fprintf(stderr, "vif: %zu frames on the cpu while CUDA started, %zu on cuda\n",
                         cpu_frames, variants[0]->gpu.scores.size());
        for (auto &v : variants)
            v->primary.scores.insert(v->primary.scores.end(), v->gpu.scores.begin(),
                                     v->gpu.scores.end());
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g_timeline.mark("all frames scored");
    progress.update(o.read_only ? submitted : variants[0]->primary.scores.size(), true);
    progress.finish();
    if (submitted == 0) throw Failure{"no frames to score"};

    if (o.read_only) {
        double mb = double(submitted) * double(ri.luma_bytes() + di.luma_bytes()) / 1e6;
        std::printf("read %llu frame pairs (luma only, %s) in %.3f s: %.1f fps, %.1f MB/s\n",
                    (unsigned long long)submitted, rpf.mapped() ? "mapped" : "pread", secs,
                    double(submitted) / secs, mb / secs);
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            throw Failure{fmt::format("cannot write to standard output: {}", std::strerror(errno))};
        return 0;
    }
    for (auto &v : variants)
        if (v->primary.scores.size() != submitted)
            throw Failure{fmt::format("internal error: {} frames submitted, {} scored", submitted,
                                      v->primary.scores.size())};

    return write_report(o, variants, std::move(frame_nums), secs > 0 ? double(submitted) / secs : 0,
                        ri,
                        !on_gpu      ? variants[0]->primary.backend
                        : cpu_frames ? "cpu+cuda"
                                     : "cuda",
                        out);
}

} // namespace
} // namespace vifcli

int main(int argc, char **argv) {
    using namespace vifcli;
    // Before anything is opened: no file may land on a closed fd 0, 1 or 2.
    const StdStreams streams = guard_std_streams();

    // Many-pair subcommands (commands/batch_commands.hpp) have options of their own.
    if (argc > 1 && std::strcmp(argv[1], "batch") == 0) return batch_main(argc, argv);
    if (argc > 1 && std::strcmp(argv[1], "merge") == 0) return merge_main(argc, argv);
    if (is_ladder_command_line(argc, argv)) return ladder_main(argc, argv);

    ParsedOptions parsed = parse_options(argc, argv);
    switch (parsed.action) {
    case ParsedOptions::Action::kHelp:
        std::fputs(parsed.text.c_str(), stdout);
        return std::fflush(stdout) == 0 ? 0 : kExitError;
    case ParsedOptions::Action::kVersion:
        std::printf("vif %s (libvif, cuda %s)\n", vif_version(),
                    vif_cuda_available() ? "available" : "not available");
        return std::fflush(stdout) == 0 ? 0 : kExitError;
    case ParsedOptions::Action::kError:
        std::fprintf(stderr, "vif: error: %s\n", parsed.text.c_str());
        return parsed.exit_code;
    case ParsedOptions::Action::kRun:
        break;
    }
    const Options &o = parsed.options;

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    struct sigaction sb {};
    sb.sa_handler = on_sigbus;
    sigemptyset(&sb.sa_mask);
    sigaction(SIGBUS, &sb, nullptr);
    // A reader of our output that went away (a closed pipe): an error from write(), not a kill.
    signal(SIGPIPE, SIG_IGN);

    if (o.verbose) g_timeline.enable();
    g_timeline.mark("options parsed");
    // CUDA's start-up overlaps opening the inputs (see CudaWarmup); not for cpu or read-only runs.
    CudaWarmup warmup;
    if ((!o.read_only &&
         (o.check_parity || o.backend == VIF_BACKEND_CUDA || o.backend == VIF_BACKEND_AUTO)) ||
        (o.read_only && o.hwdec == "cuda"))
        warmup.start();

    int code = kExitError;
    try {
        code = run(o, warmup, streams);
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
