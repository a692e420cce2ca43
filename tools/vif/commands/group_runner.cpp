#include "commands/group_runner.hpp"

#include <fmt/format.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "batch/devices.hpp"
#include "batch/host_share.hpp"
#include "batch/open_ahead.hpp"
#include "batch/outputs.hpp"
#include "batch/progress_log.hpp"
#include "batch/run_timings.hpp"
#include "batch/summary.hpp"
#include "commands/context_cache.hpp"
#include "commands/device_plan.hpp"
#include "commands/device_startup.hpp"
#include "commands/subcommand_options.hpp"
#if defined(VIF_WITH_NVDEC)
#include "decoder_pool.hpp"
#include "device_buffer_cache.hpp"
#endif
#if defined(VIF_WITH_FFMPEG)
#include "segment_decoder.hpp"
#endif
#include "options.hpp"
#include "prefetch.hpp"

namespace vifcli {
namespace {

using vif::batch::SummaryRow;

// One line on the terminal over the whole run: "[=====>    ] 37/100 pairs, 1 failed".
class ProgressBar {
public:
    ProgressBar(bool enabled, size_t total)
        : enabled_(enabled && ::isatty(STDERR_FILENO)), total_(total) {}
    void step(bool failed) {
        std::lock_guard<std::mutex> lock(mu_);
        ++done_;
        failed_ += failed;
        draw();
    }
    void finish() {
        if (enabled_ && total_) std::fputs("\n", stderr);
    }

private:
    void draw() {
        if (!enabled_ || !total_) return;
        const int width = 30, fill = int(width * done_ / total_);
        std::string bar(size_t(fill), '=');
        if (fill < width) bar += '>' + std::string(size_t(width - fill - 1), ' ');
        std::fprintf(stderr, "\r[%s] %zu/%zu pairs%s", bar.c_str(), done_, total_,
                     failed_ ? fmt::format(", {} failed", failed_).c_str() : "");
        std::fflush(stderr);
    }
    bool enabled_;
    size_t total_, done_ = 0, failed_ = 0;
    std::mutex mu_;
};

// Test hook: VIF_TEST_KILL_AFTER=N kills the process (SIGKILL, as `kill -9` would) at the N-th
// step of its progress, the steps being "a row's output written" and "that row recorded in the
// progress log", so that tests can stop a catalogue at every moment that matters.
void progress_step() {
    static const long kill_after = [] {
        const char *v = std::getenv("VIF_TEST_KILL_AFTER");
        return v ? std::strtol(v, nullptr, 10) : 0L;
    }();
    static std::atomic<long> steps{0};
    if (kill_after > 0 && ++steps == kill_after) ::kill(::getpid(), SIGKILL);
}

// The options a row's output depends on (not the threads, workers or devices: the scores are
// the same on every one of them).
std::string options_key(const LadderSettings &s) {
    return fmt::format("format={};precision={};variant={};egl={};kernelscale={};scaler={};"
                       "backend={}",
                       format_extension(s.format), s.precision, int(s.variant.variant),
                       s.variant.enhn_gain_limit, s.variant.kernelscale,
                       vifcli::scaler_name(s.scaler), int(s.backend));
}

// Everything a row's result depends on; "" when an input cannot be identified (never reused).
std::string row_key(const RungJob &j, const std::string &ref_identity,
                    const std::string &dist_identity, const std::string &options) {
    if (ref_identity.empty() || dist_identity.empty()) return "";
    return fmt::format("reference={}@{};distorted={}@{};raw={}x{}:{}:{};output={};{}",
                       j.row.reference, ref_identity, j.row.distorted, dist_identity, j.row.width,
                       j.row.height, j.row.bitdepth, j.row.pixel_format, j.stem, options);
}

std::string list_rows(const std::vector<size_t> &rows) {
    std::string out;
    for (size_t i = 0; i < rows.size() && i < 20; ++i)
        out += (i ? ", " : "") + std::to_string(rows[i]);
    return rows.size() > 20 ? out + ", ..." : out;
}

} // namespace

bool choose_devices(const std::string &text, VifBackend backend, DeviceSet *out, std::string *err) {
    *out = DeviceSet{};
    if (const char *v = std::getenv("VIF_TEST_CPU_DEVICES"); v && *v) {
        out->cpu_standins = true;
        return vif::batch::resolve_devices(text, std::atoi(v), "stand-in", &out->devices, err);
    }
    if (backend == VIF_BACKEND_CPU) {
        if (text.empty()) return true;
        *err = "--devices needs --backend cuda or auto";
        return false;
    }
    const int found = vif_cuda_device_count();
    // By default every GPU; none (or an unusable driver) leaves the backend as it is: the
    // automatic one scores on the CPU, the CUDA one says why it cannot start.
    if (text.empty() && (found == 0 || !vif_cuda_available())) return true;
    return vif::batch::resolve_devices(text, found, "CUDA", &out->devices, err);
}

size_t default_workers(const DeviceSet &d, size_t parts) {
    if (d.devices.empty()) return 1;
    if (d.cpu_standins) return d.devices.size();
    return vif::batch::workers_for_gpus(d.devices.size(),
                                        std::max(1u, std::thread::hardware_concurrency()), parts);
}

std::string progress_log_path(const std::string &summary_path) {
    return summary_path + ".progress";
}

std::vector<std::vector<RungJob>> split_groups(const std::vector<std::vector<RungJob>> &groups,
                                               size_t most) {
    std::vector<std::vector<RungJob>> out;
    for (const auto &g : groups) {
        const size_t parts = (g.size() + most - 1) / most;
        for (size_t p = 0; p < parts; ++p) {
            // Parts of even size (65 rows: 33 and 32, not 64 and 1), in manifest order.
            const size_t begin = g.size() * p / parts, end = g.size() * (p + 1) / parts;
            out.emplace_back(g.begin() + std::ptrdiff_t(begin), g.begin() + std::ptrdiff_t(end));
        }
    }
    return out;
}

int run_groups(const std::vector<std::vector<RungJob>> &whole_groups, const LadderSettings &base,
               const DeviceSet &devices, size_t workers, const std::string &summary_path,
               const std::vector<std::string> &inputs, bool quiet) {
    const auto run_start = std::chrono::steady_clock::now();
#if defined(__GLIBC__)
    // glibc's malloc: every group makes and frees its decoders' frame pools and read-ahead
    // buffers (hundreds of KiB each); by default some come from mmap and freed heaps are
    // trimmed, each a page-table change (taking the lock every page fault of the process takes)
    // and fresh pages to fault in and zero again. Kept instead (2x H200, 1,000 compact rows:
    // CPU 38.7 s against 43.2 s on two GPUs, 2.04 s against 2.37 s). VIF_BATCH_MALLOC_TUNE=0:
    // glibc's defaults (benchmarks).
    if (const char *v = std::getenv("VIF_BATCH_MALLOC_TUNE"); !(v && std::string(v) == "0")) {
        ::mallopt(M_MMAP_THRESHOLD, 32 << 20); // (glibc's most on 64-bit hosts)
        ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
    }
#endif
    // The static FFmpeg of the NVDEC builds (scripts/ffmpeg-patches/nvdec-keep-decoders.patch)
    // keeps a cuvid decoder no longer used for the next one of the same parameters on the same
    // device where this asks: an NVDEC session's making waits for the driver, which makes them
    // one at a time for the whole host (0.12 s each with four GPUs decoding), and FFmpeg's H.264
    // decoder makes one for every input. Set before any thread of the run starts (an FFmpeg
    // without the patch ignores it; VIF_NVDEC_KEEP_DECODERS=0, benchmarks: not kept).
    if (const char *k = std::getenv("VIF_NVDEC_KEEP_DECODERS");
        !devices.devices.empty() && !devices.cpu_standins && !(k && *k))
        ::setenv("VIF_NVDEC_KEEP_DECODERS", "1", 1);
    struct rusage usage_at_start {};
    ::getrusage(RUSAGE_SELF, &usage_at_start);
    auto since_start = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    };
    // The test hook that fails a device (checked before anything is written).
    std::optional<vif::batch::DeviceFailureHook> fail_hook;
    if (const char *v = std::getenv("VIF_TEST_FAIL_DEVICE"); v && *v) {
        std::string err;
        fail_hook = vif::batch::parse_device_failure_hook(v, &err);
        if (!fail_hook) {
            std::fprintf(stderr, "vif: error: %s\n", err.c_str());
            return kExitUsage;
        }
    }
    // The queue's lock and signal (declared before the start-ups, which signal it).
    std::mutex queue_mu;
    std::condition_variable queue_cv;
    auto changed = [&] {
        std::lock_guard<std::mutex> lock(queue_mu);
        queue_cv.notify_all();
    };
    // Rows not yet taken by a worker (what a device started now would share).
    size_t total_rows = 0;
    for (const auto &g : whole_groups) total_rows += g.size();
    std::atomic<size_t> rows_left{total_rows};
    // The first device starts now, while the groups are planned and the first ones open their
    // inputs; once it is ready, as many others as the work left pays for (device_plan.hpp).
    const std::set<int> distinct(devices.devices.begin(), devices.devices.end());
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    size_t parts_in_all = 0; // (parts of VIF_MAX_DISTORTED rows, as default_workers counts)
    for (const auto &g : whole_groups)
        parts_in_all += (g.size() + VIF_MAX_DISTORTED - 1) / VIF_MAX_DISTORTED;
    // The workers that devices running get by default (--workers not given): those of as many
    // GPUs (batch/devices.hpp), so that one device left running has one device's workers.
    // (nvdec_rows: the catalogue's rows decode on NVDEC, known once the estimate is; the
    // workers a GPU follow that rule.)
    bool nvdec_rows = false;
    auto workers_for_running = [&](size_t running) {
        if (!base.workers_default) return workers;
        if (devices.cpu_standins) return running;
        return vif::batch::workers_for_gpus(running, cores, parts_in_all, nvdec_rows);
    };
    std::shared_future<WorkEstimate> estimate;
    DeviceStartup::Plan plan;
    // The host's share beside NVDEC (workers that decode on the cores the parts NVDEC would
    // have, where the rows decode on NVDEC: the estimate says): with the default workers and
    // --hwdec auto, on one or two GPUs (batch/host_share.hpp). VIF_BATCH_HOST_WORKERS=N: N
    // such workers whatever the GPUs (0: none; benchmarks).
    const char *host_workers_env = std::getenv("VIF_BATCH_HOST_WORKERS");
    // (CPU stand-in devices have no NVDEC: only where the test hook VIF_TEST_NVDEC_ROWS is set,
    // 1 saying the rows are NVDEC's, device_plan.hpp, so that the share's scheduling runs on
    // the CPU.)
    const char *test_nvdec_rows = std::getenv("VIF_TEST_NVDEC_ROWS");
    const bool host_beside = base.workers_default && base.hwdec && !base.hwdec_always &&
                             !devices.devices.empty() &&
                             (!devices.cpu_standins || (test_nvdec_rows && *test_nvdec_rows)) &&
                             !(host_workers_env && std::string(host_workers_env) == "0");
    if (distinct.size() > 1 || host_beside) {
        const bool nvdec = base.hwdec, nvdec_always = base.hwdec_always;
        // The host's decoding runs at the rate of the workers one device gets.
        const size_t host_workers = std::min(workers, workers_for_running(1));
        estimate =
            std::async(std::launch::async, [&whole_groups, nvdec, nvdec_always, host_workers] {
                return estimate_work(whole_groups, nvdec, nvdec_always, host_workers);
            }).share();
    }
    if (distinct.size() > 1) {
        plan = [estimate, &rows_left, total_rows](double first_s, size_t others, std::string *why) {
            const WorkEstimate &e = estimate.get();
            if (!e.known) {
                *why = "every device started: the work is " + e.why;
                return others;
            }
            const double share = total_rows ? double(rows_left) / double(total_rows) : 0;
            vif::batch::DeviceWork left;
            left.host_s = e.work.host_s * share;
            left.device_s = e.work.device_s * share;
            const size_t k = vif::batch::devices_that_pay(left, first_s + context_startup_seconds(),
                                                          others, why);
            *why += "; the catalogue: " + e.why;
            return k;
        };
    }
    std::optional<DeviceStartup> startup;
    if (!devices.cpu_standins && !devices.devices.empty())
        startup.emplace(devices.devices, nullptr, plan, changed);
    // Test hook: VIF_TEST_STANDIN_STARTUP=<device>:<ms>,... gives stand-in devices a start-up
    // that takes that long, so that the scheduling around start-ups runs without a GPU.
    if (const char *v = std::getenv("VIF_TEST_STANDIN_STARTUP");
        v && *v && devices.cpu_standins && !devices.devices.empty()) {
        std::map<int, int> delay_ms;
        std::istringstream in(v);
        for (std::string item; std::getline(in, item, ',');)
            if (const size_t colon = item.find(':'); colon != std::string::npos)
                delay_ms[std::atoi(item.c_str())] = std::atoi(item.c_str() + colon + 1);
        startup.emplace(
            devices.devices,
            [delay_ms](int d, std::string *) {
                const auto it = delay_ms.find(d);
                if (it != delay_ms.end())
                    std::this_thread::sleep_for(std::chrono::milliseconds(it->second));
                return true;
            },
            plan, changed);
    }
#if defined(VIF_WITH_NVDEC)
    // Rows decoded by NVDEC one after another on a GPU reuse each other's frame buffers, and
    // (HEVC) their decoders: an NVDEC session each (decoder_pool.hpp).
    if (startup) {
        keep_device_buffers(true);
        keep_decoders(true);
    }
#endif
    // The default workers a GPU on several GPUs follow what decodes the rows (batch/devices.hpp's
    // workers_for_gpus): where most sampled rows are NVDEC's (known from the estimate, made while
    // the first device starts), 8 a GPU instead of the host-decoded rows' 4.
    std::string rule_note; // for --verbose and --timings
    if (base.workers_default && distinct.size() > 1 && estimate.valid() && !devices.cpu_standins &&
        base.hwdec) {
        const WorkEstimate &e = estimate.get();
        nvdec_rows = e.nvdec_rows();
        const size_t before = workers;
        if (nvdec_rows)
            workers =
                vif::batch::workers_for_gpus(devices.devices.size(), cores, parts_in_all, true);
        rule_note = fmt::format(
            "workers by default: {} on {} GPUs ({}): {} of {} sampled rows "
            "decode on NVDEC{}",
            workers, devices.devices.size(),
            nvdec_rows ? "up to 8 a GPU, NVDEC's rows" : "up to 4 a GPU, host-decoded rows",
            e.on_nvdec, e.sampled,
            nvdec_rows && before != workers ? fmt::format(" (the host-decoded rule: {})", before)
                                            : "");
    }
    // The slots: a device each (or the settings' backend as it is).
    struct Slot {
        int device = 0;
        std::string name;    // "CUDA device 1", for the messages
        bool failed = false; // takes no more parts
        std::string why;     // the first failure
        size_t rows = 0;     // rows it scored (or found failed on their inputs)
    };
    std::vector<Slot> slots;
    auto add_slot = [&](int device, std::string name) {
        slots.emplace_back();
        slots.back().device = device;
        slots.back().name = std::move(name);
    };
    for (int d : devices.devices)
        add_slot(d,
                 fmt::format("{} {}", devices.cpu_standins ? "stand-in device" : "CUDA device", d));
    if (slots.empty()) add_slot(base.cuda_device, "the scoring backend");
    // A reference group is scored VIF_MAX_DISTORTED rows at a time at most (what one
    // vif_submit_multi call takes): the reference is decoded once per part, and the open files
    // and read-ahead buffers stay bounded whatever the manifest. With several devices, groups
    // are split further until there is a part for every device (one ladder spreads over all).
    size_t most = VIF_MAX_DISTORTED;
    auto groups = split_groups(whole_groups, most);
    while (slots.size() > 1 && groups.size() < slots.size() && most > 1) {
        most = (most + 1) / 2;
        groups = split_groups(whole_groups, most);
    }
    workers = std::max<size_t>(1, std::min(workers, groups.size()));
    // The host's share beside NVDEC: workers more, the last ones (spread over the devices as
    // the others), each waiting for the estimate before its first part; none where the parts
    // leave none for them or beyond two GPUs (batch/host_share.hpp).
    size_t nvdec_workers = workers;
    size_t host_workers = 0;
    if (host_beside) {
        host_workers =
            vif::batch::host_workers_beside_nvdec(cores, workers, groups.size(), distinct.size());
        if (host_workers_env && *host_workers_env)
            host_workers = std::min<size_t>(size_t(std::clamp(std::atoi(host_workers_env), 0, 64)),
                                            groups.size() > workers ? groups.size() - workers : 0);
        workers += host_workers;
    }
    // A worker opens its next part's inputs while its part decodes (open_ahead: the opening,
    // tenths of a second a row with NVDEC sessions made one at a time for the whole host, off
    // the critical path). VIF_BATCH_OPEN_AHEAD=0 turns it off (benchmarks).
    const bool open_ahead_on = [] {
        const char *v = std::getenv("VIF_BATCH_OPEN_AHEAD");
        return !(v && std::string(v) == "0");
    }();
    const size_t parts_open = open_ahead_on ? 2 : 1; // a worker's parts with open inputs
    // Every row of a part being scored holds its input open (and its output while it is
    // written): many workers at once get smaller parts, so that together they stay within half
    // the process's open-file limit (the rest for the libraries, the GPU runtime, the logs).
    if (struct rlimit rl;
        workers > 1 && ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        const size_t budget = size_t(rl.rlim_cur) / 2;
        if (workers * parts_open * 2 * (most + 1) > budget) {
            const size_t per_worker = budget / (2 * parts_open * workers); // files, two a row
            most = per_worker > 1 ? per_worker - 1 : 1;
            groups = split_groups(whole_groups, most);
            workers = std::max<size_t>(1, std::min(workers, groups.size()));
            nvdec_workers = std::min(nvdec_workers, workers); // (the host's share goes first)
            host_workers = workers - nvdec_workers;
        }
    }
    // What the share's workers decide on (under queue_mu): the parts NVDEC's workers hold and
    // each side's rate (batch/host_share.hpp; before both have ended a part, from the cores).
    vif::batch::ShareLedger share_ledger(workers, nvdec_workers, distinct.size(),
                                         vif::batch::share_rate_prior(cores));
    LadderSettings shared = base;
    // NVDEC rows to be scored now open before rows opened ahead (batch/open_priority.hpp).
    vif::batch::OpenPriority open_priority;
    shared.open_priority = &open_priority;
    // NVDEC rows take turns to make their sessions, the devices interleaved, so that every
    // device gets its first rows' sessions early (batch/session_turns.hpp), with several
    // devices; every row, not only each worker's first (4x H200, 2026-11-27, 64 1080p H.264
    // rows on four GPUs with kept decoders: runs of 10.58 s against 11.61 with the first rows
    // only, 13.57 with no turns). A turn covers the making of a session only (10.36 s against
    // 10.54 with a row's whole opening a turn; four turns at once instead of two: slower).
    vif::batch::SessionTurns session_turns;
    const bool turns_on = distinct.size() > 1;
    if (!devices.devices.empty())
        shared.backend = devices.cpu_standins ? VIF_BACKEND_CPU : VIF_BACKEND_CUDA;
    // NVDEC decoders per input: media/'s default (3) serves one row on a GPU; with several rows
    // on a GPU at once, their inputs already keep its engines busy, and every decoder more is an
    // NVDEC session more to open (~0.1 s each, taking the driver's locks) and its buffers.
    if (shared.nvdec_decoders == 0 && !distinct.empty()) {
        const size_t per_device = (nvdec_workers + distinct.size() - 1) / distinct.size();
        shared.nvdec_decoders = per_device >= 3 ? 1 : per_device == 2 ? 2 : 0;
    }
    // (A row NVDEC decodes that is opened when it is to be scored waits for its sessions.
    // Starting its inputs in software meanwhile, NVDEC joining, was slower in both calls that
    // measured it (4x H200, 2026-11-27: 0.84-0.95x of NVDEC alone on 1, 2 and 4 GPUs, 2-4x the
    // CPU): removed in session 9; docs/journal/2026-11-26-multigpu-sessions.md has it.)
    if (shared.threads == 0 && workers > 1 && shared.backend == VIF_BACKEND_CPU)
        shared.threads = std::max(1u, std::thread::hardware_concurrency() / unsigned(workers));
    // On GPUs, `threads` is a context's host-side staging copy threads (vif.h; automatic: up
    // to 8, half the cores, as if the context were the process's only one). Every worker's
    // context copying at once with that many put 7 x workers threads on the cores (R, raw
    // 1080p on 4 H200s: slower on 2 and 4 GPUs than on one, the CPU time growing): half the
    // cores shared among the contexts instead, 1 to 8 each.
    // (Among the workers that score: a worker's count is set when it takes its first part,
    // after the device plan where there is one, as contexts are made for it.)
    const bool copy_threads_shared =
        shared.threads == 0 && workers > 1 && shared.backend == VIF_BACKEND_CUDA;
    auto copy_threads = [](size_t scoring) {
        return unsigned(std::clamp<size_t>(
            std::max(1u, std::thread::hardware_concurrency()) / (2 * scoring), 1, 8));
    };
    if (copy_threads_shared) shared.threads = copy_threads(workers);
    // A group's reference, decoded once for several rungs, is its longest decoding: with the
    // automatic budget it gets 2 libavcodec threads where the inputs get 1 (2x H200, 1,000
    // compact rows: two GPUs 2.15 s against 2.37 s, the CPU time the same). Benchmarks:
    // VIF_BATCH_REF_THREADS=N gives it N (-1: as the other inputs).
    int ref_threads_env = -2; // not set
    if (const char *v = std::getenv("VIF_BATCH_REF_THREADS"); v && *v)
        ref_threads_env = std::clamp(std::atoi(v), -1, 64);
    // No output may be a file the command reads: checked before anything is written.
    const std::string log_path = progress_log_path(summary_path);
    std::vector<std::string> outputs = {summary_path, log_path};
    const char *ext = format_extension(base.format);
    for (const auto &g : groups)
        for (const RungJob &j : g)
            outputs.push_back(
                (std::filesystem::path(base.out_dir) / (j.stem + "." + ext)).string());
    const std::string clash = vif::batch::output_over_input(outputs, inputs);
    if (!clash.empty()) {
        std::fprintf(stderr, "vif: error: %s\n", clash.c_str());
        return kExitError;
    }
    make_dir(base.out_dir);
    vif::batch::ProgressLog log(log_path);
    // Temporary files of a run killed while writing (kill -9): ours to remove now that this run
    // holds the folder's progress log.
    vif::batch::remove_stale_temporaries(outputs);
    const std::string options = options_key(base);

    // One scoring context per worker, kept from group to group (made once, not per group).
    std::vector<std::unique_ptr<ScoringContextCache>> contexts;
    for (size_t w = 0; w < workers; ++w)
        contexts.push_back(std::make_unique<ScoringContextCache>());
    vif::batch::RunTimings timings;

    size_t total = 0;
    for (const auto &g : groups) total += g.size();
    ProgressBar bar(!quiet, total);
    std::vector<SummaryRow> rows;
    std::map<size_t, vif::batch::ProgressRecord> records; // this run's rows that are ok
    std::vector<size_t> reused;
    bool log_failed = false;
    std::mutex mu;
    // The parts to score, pulled by every worker; a failed device's unfinished rows go back to
    // its front. `in_flight`: parts being scored (a worker with nothing to pull waits for them,
    // as one may come back).
    std::deque<std::vector<RungJob>> queue(groups.begin(), groups.end());
    size_t in_flight = 0;
    // Workers scoring a part with no next part taken (queue_mu): they take their next from the
    // queue when they finish, which a part taken early would leave empty (batch/open_ahead.hpp).
    size_t scoring_bare = 0;
    // With several GPUs, the workers of the first device take their first groups before it is
    // ready (decoded while it starts, as on one GPU, where nothing waits: the others start
    // only once it is ready, so none of them could take those rows sooner); every other worker
    // waits for a device that is ready, so that a device whose start-up comes late (or that is
    // never started) holds no rows back. (Until session 8 one group only: on the 4x H200 host,
    // A10 on one GPU of four started its 7 other workers 0.1-0.2 s after one GPU alone did.)
    std::vector<std::string> reruns; // "rows 3, 4 (CUDA device 1: why)", for stderr
    // Each input identified once per run (a file named by many rows is read once for it).
    std::map<std::string, std::string> identities;
    std::mutex identities_mu;
    auto identity = [&](const std::string &path) {
        {
            std::lock_guard<std::mutex> lock(identities_mu);
            const auto it = identities.find(path);
            if (it != identities.end()) return it->second;
        }
        const std::string id = vif::batch::input_identity(path);
        std::lock_guard<std::mutex> lock(identities_mu);
        return identities.emplace(path, id).first->second;
    };
    // Where each worker scores once the plan has left devices out (batch/devices.hpp's
    // worker_slots, made once under queue_mu by the first worker that needs it): the workers of
    // a device left out join the running ones while these have fewer than their default.
    std::optional<std::vector<size_t>> assignment;
    std::vector<size_t> slot_at_end(workers);
    for (size_t w = 0; w < workers; ++w) slot_at_end[w] = w % slots.size();
    // Workers with rows to take (decoder threads); the host's share's count once they start.
    std::atomic<size_t> active_workers{nvdec_workers};
    std::atomic<size_t> host_active{0};
    std::string workers_note; // for --verbose and --timings
    auto work = [&](size_t w) {
        const size_t home = w % slots.size();
        size_t slot = home;
        LadderSettings s = shared;
        if (!devices.devices.empty()) s.cuda_device = slots[slot].device;
        s.contexts = contexts[w].get();
        // A worker of the host's share works only where the rows decode on NVDEC (the
        // estimate says), counted among the decoding workers while it takes parts.
        const bool host_share_worker = w >= nvdec_workers;
        struct Counted {
            std::atomic<size_t> *a = nullptr, *b = nullptr;
            ~Counted() {
                if (a) --*a, --*b;
            }
        } counted;
        if (host_share_worker) {
            if (!estimate.valid() || !estimate.get().nvdec_rows()) return;
            s.decode_on_host = true;
            ++active_workers;
            ++host_active;
            // Its decoding yields the cores to NVDEC's workers, whose few threads feed the engines
            // and wait on them (a thread's niceness is its own; the readers and FFmpeg's decoder
            // threads it starts inherit it). VIF_BATCH_HOST_NICE=N (benchmarks; 0: as the rest).
            int nice = 5;
            if (const char *v = std::getenv("VIF_BATCH_HOST_NICE"); v && *v)
                nice = std::clamp(std::atoi(v), 0, 19);
            if (nice > 0) ::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), nice);
            counted.a = &active_workers; // (uncounted when it ends)
            counted.b = &host_active;
        }
        const bool waits_for_startup = startup && distinct.size() > 1;
        auto move_to = [&](size_t to) {
            slot = to;
            slot_at_end[w] = to;
            if (!devices.devices.empty()) s.cuda_device = slots[slot].device;
        };
        // queue_mu held. A worker whose own device the plan left out takes its place in the
        // assignment (once): a running device's, or none (it waits, for start_rest).
        bool placed = false;
        bool copy_threads_set = false; // (s.threads, once)
        auto unplaced = [&] {
            return waits_for_startup && !placed && startup->left_out(slots[home].device);
        };
        auto place = [&] {
            if (!unplaced()) return;
            placed = true;
            if (!assignment) {
                std::vector<bool> running(slots.size());
                size_t n = 0;
                for (size_t i = 0; i < slots.size(); ++i)
                    n += running[i] = !startup->left_out(slots[i].device) && !slots[i].failed;
                assignment = vif::batch::worker_slots(workers, running, workers_for_running(n));
                size_t active = 0, lent = 0;
                for (size_t v = 0; v < workers; ++v) {
                    active += (*assignment)[v] != vif::batch::kNoSlot;
                    lent += (*assignment)[v] != vif::batch::kNoSlot &&
                            (*assignment)[v] != v % slots.size();
                }
                active_workers = std::max<size_t>(1, active);
                workers_note = fmt::format(
                    "workers: {} of {} score on the {} device{} running ({} lent by the devices "
                    "left out; {})",
                    active, workers, n, n == 1 ? "" : "s", lent,
                    base.workers_default ? "as many as that many GPUs get by default"
                                         : "every worker --workers gives");
            }
            if ((*assignment)[w] != vif::batch::kNoSlot) move_to((*assignment)[w]);
        };
        // A worker lent to another device whose device failed goes back to its own (started
        // now, start_rest); false when it is on its own already.
        auto go_home = [&] {
            if (slot == home) return false;
            move_to(home);
            return true;
        };
        // Each worker decodes a reference and its rungs at once: FFmpeg's default of a thread
        // per core for every one of them puts hundreds of threads on the cores. (The workers
        // of devices left out by the plan decode nothing: not counted.) (A floor of 2 threads
        // an input on GPUs was slower on the 2x H200 host: 1,000 compact rows 2.78 s against
        // 2.43 s with 1 on one GPU, 2.83 against 2.31 s on two, the CPU time 48.6 s against
        // 34.4 s.)
        auto decoder_threads = [&](size_t rows) {
            if (shared.decoder_threads >= 0) return shared.decoder_threads;
            // (The host's share decodes on the cores beside NVDEC's workers, who use few.)
            const size_t busy = s.decode_on_host ? size_t(host_active) : size_t(active_workers);
            return busy > 1 ? int(std::max<size_t>(1, cores / (busy * (rows + 1)))) : 0;
        };
        // The reference's threads for a part of `rows` rows decoded on `threads` an input.
        auto reference_threads = [&](size_t rows, int threads) {
            if (ref_threads_env >= -1) return ref_threads_env;
            if (shared.decoder_threads >= 0 || rows < 2 || threads < 1) return -1; // as given
            return std::max(threads, 2);
        };
        // Marks the rows of `jobs` whose output the progress log vouches for (resume); their
        // keys into *key_of.
        auto mark_reused = [&](std::vector<RungJob> &jobs, std::map<size_t, std::string> *key_of,
                               std::set<size_t> *reused_rows) {
            const std::string ref_identity = identity(jobs.front().row.reference);
            for (RungJob &j : jobs) {
                const std::string key =
                    row_key(j, ref_identity, identity(j.row.distorted), options);
                (*key_of)[j.row.row] = key;
                const vif::batch::ProgressRecord *rec = log.find(j.row.row);
                if (s.resume && rec && !key.empty() && rec->key == key && rec->row.status == "ok" &&
                    rec->output ==
                        vif::batch::content_identity(
                            (std::filesystem::path(s.out_dir) / rec->row.output).string()))
                    j.reused = rec->row, reused_rows->insert(j.row.row);
            }
        };
        // The part taken ahead: pulled from the queue once the part being scored has its
        // inputs open, its own inputs opened while that part decodes (open_ahead).
        struct Ahead {
            std::vector<RungJob> jobs;
            OpenedAheadPtr opened;
        };
        std::optional<Ahead> ahead;
        // queue_mu held: whether this worker scores a part with no next part taken. (Not the
        // host's share: it takes no part ahead, and the queue's last parts are NVDEC's anyway.)
        bool bare = false;
        auto set_bare = [&](bool b) {
            if (host_share_worker) return;
            if (b != bare) b ? ++scoring_bare : --scoring_bare;
            bare = b;
        };
        auto take_ahead = [&] {
            Ahead a;
            {
                std::lock_guard<std::mutex> lock(queue_mu);
                if (slots[slot].failed || !vif::batch::may_take_ahead(queue.size(), scoring_bare) ||
                    (waits_for_startup && !startup->ready(s.cuda_device)))
                    return;
                a.jobs = std::move(queue.front());
                queue.pop_front();
                rows_left -= a.jobs.size();
                ++in_flight;
                set_bare(false);
                share_ledger.took_ahead(w, a.jobs.size());
            }
            if (!a.jobs.empty()) {
                std::map<size_t, std::string> keys;
                std::set<size_t> reused_rows;
                mark_reused(a.jobs, &keys, &reused_rows);
                LadderSettings as = s;
                as.session_turns = turns_on ? &session_turns : nullptr;
                as.decoder_threads = decoder_threads(a.jobs.size());
                as.reference_decoder_threads = reference_threads(a.jobs.size(), as.decoder_threads);
                as.simulate_device_failure = false;
                a.opened = open_ahead(a.jobs, as);
            }
            ahead = std::move(a);
        };
        // A failed device's part taken ahead goes back to the queue (its opens are dropped).
        auto give_back_ahead = [&] {
            if (!ahead) return;
            Ahead a = std::move(*ahead);
            ahead.reset();
            a.opened.reset(); // (waits for its opens: outside the lock)
            for (RungJob &j : a.jobs) j.reused.reset();
            {
                std::lock_guard<std::mutex> lock(queue_mu);
                rows_left += a.jobs.size();
                --in_flight;
                share_ledger.dropped_ahead(w);
                if (!a.jobs.empty()) queue.push_front(std::move(a.jobs));
            }
            queue_cv.notify_all();
        };
        for (;;) {
            std::vector<RungJob> jobs;
            OpenedAheadPtr opened;
            if (ahead) {
                bool failed;
                {
                    std::lock_guard<std::mutex> lock(queue_mu);
                    failed = slots[slot].failed; // (another worker of its device failed)
                    s.simulate_device_failure = fail_hook && fail_hook->slot == slot &&
                                                slots[slot].rows >= fail_hook->after_rows;
                }
                if (failed) {
                    give_back_ahead();
                    if (go_home()) continue;
                    return;
                }
                {
                    std::lock_guard<std::mutex> lock(queue_mu);
                    set_bare(true);
                    share_ledger.began(w, ahead->jobs.size(), since_start());
                }
                jobs = std::move(ahead->jobs);
                opened = std::move(ahead->opened);
                ahead.reset();
            } else {
                std::unique_lock<std::mutex> lock(queue_mu);
                // Rows go to a device that is ready (or the first device, starting); a worker
                // whose device is not started waits for one of them (it starts when another
                // device fails) or for the end.
                // A worker whose own device is left out is placed first (another device's, or
                // none: it waits as before).
                auto usable = [&] {
                    return !waits_for_startup || startup->ready(s.cuda_device) ||
                           s.cuda_device == startup->first();
                };
                place();
                queue_cv.wait(lock, [&] {
                    return slots[slot].failed || (queue.empty() && in_flight == 0) ||
                           (!queue.empty() && usable()) || unplaced();
                });
                if (unplaced()) continue; // (placed on the next turn)
                if (slots[slot].failed && slot != home) {
                    lock.unlock();
                    go_home();
                    continue;
                }
                if (slots[slot].failed || queue.empty()) return;
                // (The host's share takes a part only where that does not make the work end
                // later, batch/host_share.hpp: else the parts left are NVDEC's, and its part is
                // done.)
                if (host_share_worker) {
                    double behind = 0;
                    for (size_t i = 1; i < queue.size(); ++i)
                        behind += vif::batch::part_inputs(queue[i].size());
                    if (!share_ledger.host_takes(vif::batch::part_inputs(queue.front().size()),
                                                 behind, since_start()))
                        return;
                }
                jobs = std::move(queue.front());
                queue.pop_front();
                rows_left -= jobs.size();
                ++in_flight;
                set_bare(true);
                share_ledger.began(w, jobs.size(), since_start());
                s.simulate_device_failure = fail_hook && fail_hook->slot == slot &&
                                            slots[slot].rows >= fail_hook->after_rows;
            }
            // A stand-in device scores only once its start-up has ended, as a GPU's first
            // context waits for the device's (tests of the scheduling around start-ups).
            if (devices.cpu_standins && startup) startup->wait(s.cuda_device);
            if (copy_threads_shared && !copy_threads_set) {
                copy_threads_set = true;
                s.threads = copy_threads(active_workers);
            }
            s.decoder_threads = decoder_threads(jobs.size());
            s.reference_decoder_threads = reference_threads(jobs.size(), s.decoder_threads);
            std::vector<SummaryRow> part;
            std::set<size_t> reported; // rows whose final summary line `done` gave
            GroupTimes times;
            s.times = &times;
            s.opened = opened.get();
            s.session_turns = turns_on ? &session_turns : nullptr;
            s.inputs_open = nullptr;
            // (The host's share opens its parts when it takes them: a host-decoded part opens in
            // tens of milliseconds, and a part it held ahead would be one NVDEC's workers could
            // not open ahead: on 4x H200, 64 1080p rows, 12.1 s against 11.0 s without the
            // share, NVDEC's workers opening 3 parts ahead instead of 16.)
            if (open_ahead_on && !host_share_worker) s.inputs_open = take_ahead;
            const double group_begin = since_start();
            bool device_failed = false; // (its time is no rate for the share's decisions)
            if (!jobs.empty()) {
                std::map<size_t, std::string> key_of;
                std::set<size_t> reused_rows;
                mark_reused(jobs, &key_of, &reused_rows);
                // A row's record: its output's identity and a line in the progress log, made
                // durable (fdatasync) outside the run's lock, so that the workers' records do
                // not wait for each other's disk writes.
                auto finished = [&](const SummaryRow &r) {
                    reported.insert(r.row);
                    part.push_back(r);
                    bar.step(r.status == "failed");
                    if (r.status != "ok") return;
                    const auto recording = std::chrono::steady_clock::now();
                    struct AddTime {
                        GroupTimes &t;
                        std::chrono::steady_clock::time_point from;
                        ~AddTime() {
                            t.record += std::chrono::duration<double>(
                                            std::chrono::steady_clock::now() - from)
                                            .count();
                        }
                    } add_time{times, recording};
                    vif::batch::ProgressRecord rec{key_of[r.row], "", r};
                    if (const vif::batch::ProgressRecord *old = log.find(r.row);
                        old && reused_rows.count(r.row)) {
                        std::lock_guard<std::mutex> lock(mu);
                        records[r.row] = *old;
                        reused.push_back(r.row);
                        return;
                    }
                    progress_step(); // the output is written, not yet recorded
                    rec.output = vif::batch::content_identity(
                        (std::filesystem::path(s.out_dir) / r.output).string());
                    if (rec.key.empty() || rec.output.empty()) return; // cannot be vouched for
                    try {
                        log.append(rec);
                    } catch (const std::exception &e) {
                        std::lock_guard<std::mutex> lock(mu);
                        if (!log_failed)
                            std::fprintf(stderr,
                                         "vif: warning: %s (a resumed run scores these rows "
                                         "again)\n",
                                         e.what());
                        log_failed = true;
                        return;
                    }
                    {
                        std::lock_guard<std::mutex> lock(mu);
                        records[r.row] = rec;
                    }
                    progress_step(); // recorded
                };
                try {
                    part = score_group(jobs, s, finished);
                } catch (const DeviceFailure &e) {
                    device_failed = true;
                    // The rows it did not finish go to the other devices.
                    std::vector<RungJob> again;
                    std::vector<size_t> numbers;
                    for (RungJob &j : jobs)
                        if (!reported.count(j.row.row)) {
                            j.reused.reset(); // decided again when it is pulled
                            numbers.push_back(j.row.row);
                            again.push_back(std::move(j));
                        }
                    {
                        std::lock_guard<std::mutex> lock(queue_mu);
                        Slot &sl = slots[slot];
                        if (!sl.failed)
                            std::fprintf(stderr, "vif: warning: %s failed after %zu rows: %s\n",
                                         sl.name.c_str(), sl.rows, e.what());
                        if (!sl.failed) sl.why = e.what();
                        sl.failed = true;
                        if (!again.empty()) {
                            reruns.push_back(fmt::format("rows {} ({} failed: {})",
                                                         list_rows(numbers), sl.name, e.what()));
                            rows_left += again.size();
                            queue.push_front(std::move(again));
                        }
                    }
                    give_back_ahead();
                    // The devices the plan left out take the rows now.
                    if (startup) startup->start_rest();
                }
            }
            {
                std::lock_guard<std::mutex> lock(mu);
                rows.insert(rows.end(), part.begin(), part.end());
            }
            if (s.timings) {
                vif::batch::GroupTiming t;
                t.slot = slot;
                t.worker = w;
                t.rows = jobs.size();
                t.begin = group_begin;
                t.end = since_start();
                t.open = times.open;
                t.context = times.context;
                t.decode_wait = times.decode_wait;
                t.score_wait = times.score_wait;
                t.record = times.record;
                t.frames = times.frames;
                t.device_path = times.device_path;
                t.opened_ahead = opened != nullptr;
                timings.add(t);
            }
            {
                std::lock_guard<std::mutex> lock(queue_mu);
                slots[slot].rows += part.size();
                --in_flight;
                set_bare(false); // (scoring nothing now)
                share_ledger.ended(w, since_start(), !device_failed);
            }
            queue_cv.notify_all();
        }
    };
    std::vector<std::thread> pool;
    try {
        for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
    } catch (const std::system_error &e) {
        // No more threads to be had: the ones started (and this one) do the work.
        std::fprintf(stderr, "vif: warning: %zu of %zu workers started (%s)\n", pool.size() + 1,
                     workers, e.what());
    }
    work(0);
    for (auto &t : pool) t.join();
    bar.finish();
    if (base.timings) {
        std::vector<vif::batch::StartupTiming> starts;
        const bool standin = devices.cpu_standins;
        if (startup)
            for (const auto &[d, rec] : startup->records())
                starts.push_back(
                    {fmt::format("{} {}", standin ? "stand-in device" : "CUDA device", d),
                     rec.seconds, rec.ready_at, rec.error, !rec.started, rec.started && !rec.done});
        std::vector<std::string> names;
        std::vector<size_t> made(slots.size(), 0);
        for (const Slot &sl : slots) names.push_back(sl.name);
        for (size_t w = 0; w < contexts.size(); ++w) made[slot_at_end[w]] += contexts[w]->made();
        for (const std::string &line : timings.lines(since_start(), starts, names, made))
            std::fprintf(stderr, "vif: %s\n", line.c_str());
        if (const std::string line = timings.workers_line(); !line.empty())
            std::fprintf(stderr, "vif: %s\n", line.c_str());
        // The process's CPU during the run: the cores it kept busy, and whether its threads
        // waited for a core (involuntary switches: more runnable threads than cores).
        struct rusage u {};
        ::getrusage(RUSAGE_SELF, &u);
        auto secs = [](const timeval &a, const timeval &b) {
            return double(a.tv_sec - b.tv_sec) + 1e-6 * double(a.tv_usec - b.tv_usec);
        };
        const double user = secs(u.ru_utime, usage_at_start.ru_utime);
        const double sys = secs(u.ru_stime, usage_at_start.ru_stime);
        const double wall = since_start();
        std::fprintf(stderr,
                     "vif: timings: the run's CPU: %.1f s (user %.1f, system %.1f), %.1f of %zu "
                     "cores busy on average; context switches: %ld involuntary, %ld voluntary\n",
                     user + sys, user, sys, wall > 0 ? (user + sys) / wall : 0.0, cores,
                     u.ru_nivcsw - usage_at_start.ru_nivcsw, u.ru_nvcsw - usage_at_start.ru_nvcsw);
        // The host's readers (decoding on the host path, where an input has one libavcodec
        // thread): reading time over their CPU time is time they waited for a core or a lock
        // while they had work.
        const ReaderTotals rt = reader_totals();
        if (rt.frames)
            std::fprintf(stderr,
                         "vif: timings: host readers: %llu frames, CPU %.2f s (%.2f ms a frame), "
                         "reading %.2f s (%.2f ms a frame, %.0f%% of it on a core)\n",
                         (unsigned long long)rt.frames, rt.cpu_seconds,
                         1e3 * rt.cpu_seconds / double(rt.frames), rt.reading_seconds,
                         1e3 * rt.reading_seconds / double(rt.frames),
                         rt.reading_seconds > 0 ? 100 * rt.cpu_seconds / rt.reading_seconds : 0.0);
        // The order in which NVDEC rows took their turns to make sessions, by device, and how
        // long the turns were waited for and held.
        if (const std::vector<int> turns = session_turns.order(); !turns.empty()) {
            std::string list;
            for (size_t i = 0; i < turns.size() && i < 48; ++i)
                list += (i ? " " : "") + std::to_string(turns[i]);
            const vif::batch::SessionTurns::Times tt = session_turns.times();
            std::fprintf(stderr,
                         "vif: timings: NVDEC sessions' turns, by device: %s%s (%zu turns); "
                         "waited %.2f s in all (%.2f s the longest), held %.2f s in all (%.3f s "
                         "each on average, %.2f s the longest)\n",
                         list.c_str(), turns.size() > 48 ? " ..." : "", turns.size(), tt.waited,
                         tt.waited_most, tt.held, tt.turns ? tt.held / double(tt.turns) : 0.0,
                         tt.held_most);
        }
#if defined(VIF_WITH_FFMPEG)
        // The segment decoders' decoders (NVDEC sessions on the device path).
        const DecoderSessionCounts dc = decoder_session_counts();
        if (dc.opened || dc.reused)
            std::fprintf(stderr,
                         "vif: timings: segment decoders: %llu opened, %llu kept from an earlier "
                         "input, %llu restarted after the first-frame probe\n",
                         (unsigned long long)dc.opened, (unsigned long long)dc.reused,
                         (unsigned long long)dc.flushed);
        if (dc.nvdec_probes)
            std::fprintf(stderr,
                         "vif: timings: NVDEC first-frame probes (an input's first session made): "
                         "%llu, %.2f s in all, %.3f s each on average, %.2f s the longest\n",
                         (unsigned long long)dc.nvdec_probes, dc.nvdec_probe_seconds,
                         dc.nvdec_probe_seconds / double(dc.nvdec_probes), dc.nvdec_probe_most);
#endif
    }
    if ((base.timings || base.verbose) && startup && !startup->plan_note().empty())
        std::fprintf(stderr, "vif: devices: %s\n", startup->plan_note().c_str());
    if ((base.timings || base.verbose) && !rule_note.empty())
        std::fprintf(stderr, "vif: devices: %s\n", rule_note.c_str());
    if ((base.timings || base.verbose) && host_workers > 0)
        std::fprintf(stderr,
                     "vif: devices: the host's share beside NVDEC: %zu worker%s more (of %zu), "
                     "decoding on the cores the parts NVDEC would have, %s\n",
                     host_workers, host_workers == 1 ? "" : "s", workers,
                     !estimate.valid() || !estimate.get().nvdec_rows()
                         ? "idle: the rows do not decode on NVDEC"
                         : fmt::format("taking a part where it ends no later than NVDEC would "
                                       "end the rest (its rate {:.2f} of NVDEC's, {})",
                                       share_ledger.host_over_nvdec(),
                                       share_ledger.measured() ? "measured" : "as assumed")
                               .c_str());
    else if ((base.timings || base.verbose) && host_beside &&
             distinct.size() > vif::batch::kShareMostGpus && estimate.valid() &&
             estimate.get().nvdec_rows())
        std::fprintf(stderr,
                     "vif: devices: the host's share beside NVDEC: none on %zu GPUs (their NVDEC "
                     "sessions, made one at a time for the host, bind, and the share's work "
                     "beside them slows their making more than it adds)\n",
                     distinct.size());
    if ((base.timings || base.verbose) && !workers_note.empty())
        std::fprintf(stderr, "vif: devices: %s\n", workers_note.c_str());
    if (slots.size() > 1) // (with one device there is no other to give them to)
        for (const std::string &r : reruns)
            std::fprintf(stderr, "vif: rows given to the other devices: %s\n", r.c_str());
    if (slots.size() > 1 && !quiet) {
        std::string spread;
        for (const Slot &sl : slots)
            spread += fmt::format("{}{}: {} rows{}", spread.empty() ? "" : ", ", sl.name, sl.rows,
                                  sl.failed                                 ? " (failed)"
                                  : startup && startup->left_out(sl.device) ? " (not started)"
                                                                            : "");
        std::fprintf(stderr, "vif: rows per device: %s\n", spread.c_str());
    }
    // Rows left when every device failed: no summary (it would look like a finished run).
    size_t unscored = 0;
    for (const auto &q : queue) unscored += q.size();
    if (unscored) {
        std::string why;
        for (const Slot &sl : slots)
            if (sl.failed) why += (why.empty() ? "" : "; ") + sl.name + ": " + sl.why;
        std::fprintf(stderr,
                     "vif: error: every device failed (%s): %zu of %zu rows not scored; no "
                     "summary written (the %zu rows scored are kept in the progress log for a "
                     "resumed run)\n",
                     why.c_str(), unscored, total, records.size());
        return kExitError; // the progress log stays as appended: it vouches for every row it did
    }
    std::sort(rows.begin(), rows.end(),
              [](const SummaryRow &a, const SummaryRow &b) { return a.row < b.row; });
    std::sort(reused.begin(), reused.end());
    for (SummaryRow &r : rows) r.manifest = base.manifest_id;
    // The failed rows first: a summary that cannot be written (a full disk) still names them.
    size_t failed = 0;
    for (const SummaryRow &r : rows) {
        failed += r.status == "failed";
        if (r.status == "failed")
            std::fprintf(stderr, "vif: error: row %zu (%s): %s\n", r.row, r.distorted.c_str(),
                         r.error.c_str());
    }
    const double writing_from = since_start();
    try {
        vif::batch::write_atomically(summary_path, vif::batch::format_summary(rows));
    } catch (const std::exception &e) {
        std::fprintf(stderr,
                     "vif: error: the summary was not written: %s (%zu of %zu rows scored; "
                     "their outputs and the progress log keep them for a resumed run)\n",
                     e.what(), rows.size() - failed, rows.size());
        return kExitError;
    }
    std::vector<vif::batch::ProgressRecord> keep;
    for (auto &[row, rec] : records) keep.push_back(rec);
    try {
        log.rewrite(keep);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: warning: %s\n", e.what());
    }
    if (base.timings)
        std::fprintf(stderr,
                     "vif: timings: after the run: the summary and the progress log written in "
                     "%.3f s\n",
                     since_start() - writing_from);
        // The callers end the process right after (leave_process's _Exit): the kept contexts go
        // with it. Sanitizer builds leave through exit() instead, so that the leak check runs.
#if !defined(__SANITIZE_ADDRESS__)
    for (auto &c : contexts) c->abandon();
#elif defined(VIF_WITH_NVDEC)
    keep_decoders(false); // (frees the kept decoders, for the leak check)
#endif
    if (!quiet) {
        std::fprintf(stderr, "vif: %zu pairs: %zu scored, %zu reused, %zu failed; %s\n",
                     rows.size(), rows.size() - failed - reused.size(), reused.size(), failed,
                     summary_path.c_str());
    }
    if (!reused.empty())
        std::fprintf(stderr,
                     "vif: reused rows (inputs, options and output unchanged since they were "
                     "scored): %s\n",
                     list_rows(reused).c_str());
    return failed ? kExitError : 0;
}

} // namespace vifcli
