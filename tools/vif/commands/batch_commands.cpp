#include "commands/batch_commands.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "batch/manifest.hpp"
#include "batch/outputs.hpp"
#include "batch/shard.hpp"
#include "batch/summary.hpp"
#include "commands/ladder_run.hpp"

namespace vifcli {
namespace {

namespace fs = std::filesystem;
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

struct CommonOptions {
    std::string backend = "auto", scaler = "bicubic", variant = "integer", precision;
    uint32_t threads = 0;
    bool json = false, csv = false, xml = false, quiet = false, verbose = false;
};

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
    vif::batch::parse_scaler(c.scaler, &s.scaler);
    s.verbose = c.verbose;
    return s;
}

int parse(CLI::App &app, int argc, const char *const *argv) {
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

// Runs a subcommand once its options are parsed: its exit code, or one "vif: error:" line and
// kExitUsage for a bad option value (std::invalid_argument), kExitError for anything else.
template <typename Body>
int exit_code_of(Body &&body) {
    try {
        return body();
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitError;
    }
}

void make_dir(const std::string &dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw std::runtime_error(fmt::format("cannot create the output folder '{}': {}", dir,
                                             ec ? ec.message() : "not a folder"));
}

// Rows skipped because their output exists keep the scores of the earlier run's summary.
void carry_over(std::vector<SummaryRow> &rows, const std::string &summary_path) {
    std::ifstream in(summary_path, std::ios::binary);
    if (!in) return;
    std::map<size_t, SummaryRow> old;
    try {
        for (SummaryRow &r : vif::batch::parse_summary(in, summary_path)) old[r.row] = r;
    } catch (const std::exception &) {
        return; // not ours or damaged: the skipped rows just say "skipped"
    }
    for (SummaryRow &r : rows) {
        if (r.status != "skipped") continue;
        auto it = old.find(r.row);
        if (it != old.end() && it->second.status == "ok" && it->second.output == r.output &&
            it->second.distorted == r.distorted) {
            r = it->second; // the earlier run's scores; its output file is untouched
            r.status = "skipped";
            r.error = "complete output already there";
        }
    }
}

// Runs the groups on `workers` scoring contexts at once (each a thread pulling groups), writes
// the summary and returns the exit code.
int run_groups(const std::vector<std::vector<RungJob>> &groups, const LadderSettings &base,
               const std::vector<int> &devices, size_t workers, const std::string &summary_path,
               bool quiet) {
    size_t total = 0;
    for (const auto &g : groups) total += g.size();
    ProgressBar bar(!quiet, total);
    std::vector<SummaryRow> rows;
    std::mutex mu;
    std::atomic<size_t> next{0};
    auto work = [&](size_t w) {
        LadderSettings s = base;
        if (!devices.empty()) s.cuda_device = devices[w % devices.size()];
        for (size_t g; (g = next++) < groups.size();) {
            auto part = score_group(groups[g], s, [&] { bar.step(false); });
            std::lock_guard<std::mutex> lock(mu);
            rows.insert(rows.end(), part.begin(), part.end());
        }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto &t : pool) t.join();
    bar.finish();
    std::sort(rows.begin(), rows.end(),
              [](const SummaryRow &a, const SummaryRow &b) { return a.row < b.row; });
    carry_over(rows, summary_path);
    vif::batch::write_atomically(summary_path, vif::batch::format_summary(rows));
    size_t failed = 0, skipped = 0;
    for (const SummaryRow &r : rows) {
        failed += r.status == "failed";
        skipped += r.status == "skipped";
        if (r.status == "failed")
            std::fprintf(stderr, "vif: error: row %zu (%s): %s\n", r.row, r.distorted.c_str(),
                         r.error.c_str());
    }
    if (!quiet)
        std::fprintf(stderr, "vif: %zu pairs: %zu scored, %zu already done, %zu failed; %s\n",
                     rows.size(), rows.size() - failed - skipped, skipped, failed,
                     summary_path.c_str());
    return failed ? kExitError : 0;
}

} // namespace

bool is_ladder_command_line(int argc, const char *const *argv) {
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        n += a == "-d" || a == "--distorted" || a.rfind("--distorted=", 0) == 0;
    }
    return n > 1;
}

int ladder_main(int argc, const char *const *argv) {
    CLI::App app{"vif ladder: every rung (-d, several) against one reference (-r), the reference "
                 "decoded once; rungs of another size upscaled to the reference's (FFmpeg's "
                 "scale filter, bicubic by default). Writes DIR/<rung>.json and DIR/summary.csv."};
    app.name("vif");
    std::string reference, out_dir, pix;
    std::vector<std::string> rungs;
    uint32_t width = 0, height = 0, bitdepth = 0;
    bool resume = false;
    CommonOptions c;
    app.set_help_flag("--help", "Print this help"); // -h is the raw height, as in `vif`
    app.add_option("-r,--reference", reference, "Reference video")->required();
    app.add_option("-d,--distorted", rungs, "A rung (give -d once per rung)")->required();
    app.add_option("-o,--output", out_dir, "Output folder")->required();
    app.add_option("-w,--width", width, "Raw YUV: width");
    app.add_option("-h,--height", height, "Raw YUV: height");
    app.add_option("-b,--bitdepth", bitdepth, "Raw YUV: bit depth");
    app.add_option("-p,--pixel-format", pix, "Raw YUV: 420, 422, 444 or 400");
    app.add_flag("--resume", resume, "Skip rungs whose complete output is already in DIR");
    add_common(app, c);
    if (int code = parse(app, argc, argv); code >= 0) return code;
    return exit_code_of([&] {
        std::vector<vif::batch::ManifestRow> rows;
        for (size_t i = 0; i < rungs.size(); ++i) {
            vif::batch::ManifestRow r;
            r.row = i + 1;
            r.reference = reference;
            r.distorted = rungs[i];
            r.width = width;
            r.height = height;
            r.bitdepth = bitdepth;
            r.pixel_format = pix;
            rows.push_back(r);
        }
        const auto stems = vif::batch::output_stems(rows);
        std::vector<RungJob> group;
        for (size_t i = 0; i < rows.size(); ++i) group.push_back({rows[i], stems[i]});
        LadderSettings s = settings_from(c, out_dir);
        make_dir(out_dir);
        s.resume = resume;
        return run_groups({group}, s, {}, 1, (fs::path(out_dir) / "summary.csv").string(), c.quiet);
    });
}

int batch_main(int argc, const char *const *argv) {
    CLI::App app{"vif batch: score every pair of a manifest (CSV with reference,distorted "
                 "[,width,height,pixel_format,bitdepth], or JSON lines) with one start-up; rows "
                 "sharing a reference decode it once. One output per row in DIR and "
                 "DIR/summary.csv; re-running skips rows whose complete output exists."};
    app.name("vif batch");
    std::string manifest, out_dir, shard, devices_text;
    size_t workers = 0;
    bool overwrite = false;
    CommonOptions c;
    app.add_option("manifest", manifest, "The manifest (CSV or JSON lines)")->required();
    app.add_option("--out-dir", out_dir, "Output folder")->required();
    app.add_option("--shard", shard,
                   "I/N: this machine's share (or N, the index coming from SLURM_ARRAY_TASK_ID, "
                   "JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX)");
    app.add_option("--devices", devices_text, "CUDA devices to spread the work over, e.g. 0,1");
    app.add_option("--workers", workers,
                   "Scoring contexts at once (default: one per device, or 1 on the CPU)");
    app.add_flag("--overwrite", overwrite, "Score every row again, even with complete outputs");
    add_common(app, c);
    if (int code = parse(app, argc - 1, argv + 1); code >= 0) return code;
    return exit_code_of([&] {
        vif::batch::Shard sh;
        std::string err;
        if (!vif::batch::resolve_shard(
                shard, [](const char *n) { return std::getenv(n); }, &sh, &err)) {
            std::fprintf(stderr, "vif: error: %s\n", err.c_str());
            return kExitUsage;
        }
        std::vector<int> devices;
        if (!devices_text.empty()) {
            std::stringstream ss(devices_text);
            for (std::string d; std::getline(ss, d, ',');) {
                char *end = nullptr;
                const long v = std::strtol(d.c_str(), &end, 10);
                if (d.empty() || *end || v < 0 || v > 1024) {
                    std::fprintf(stderr,
                                 "vif: error: --devices '%s': expected device numbers "
                                 "such as 0,1\n",
                                 devices_text.c_str());
                    return kExitUsage;
                }
                devices.push_back(int(v));
            }
            if (c.backend == "cpu") {
                std::fprintf(stderr, "vif: error: --devices needs --backend cuda or auto\n");
                return kExitUsage;
            }
            c.backend = "cuda";
        }
        const auto rows = vif::batch::read_manifest(manifest);
        const auto stems = vif::batch::output_stems(rows); // the whole manifest: shards agree
        std::map<size_t, std::string> stem_of;
        for (size_t i = 0; i < rows.size(); ++i) stem_of[rows[i].row] = stems[i];
        const auto mine = vif::batch::shard_groups(vif::batch::group_by_reference(rows), sh);
        std::vector<std::vector<RungJob>> groups;
        for (const auto &g : mine) {
            std::vector<RungJob> jobs;
            for (const auto &r : g.rows) jobs.push_back({r, stem_of[r.row]});
            groups.push_back(std::move(jobs));
        }
        LadderSettings s = settings_from(c, out_dir);
        make_dir(out_dir);
        s.resume = !overwrite;
        if (workers == 0) workers = devices.empty() ? 1 : devices.size();
        if (s.threads == 0 && workers > 1 && s.backend == VIF_BACKEND_CPU)
            s.threads = std::max(1u, std::thread::hardware_concurrency() / unsigned(workers));
        if (c.verbose && sh.count > 1)
            std::fprintf(stderr, "vif: shard %u of %u (%s): %zu reference groups\n", sh.index,
                         sh.count, sh.source.c_str(), groups.size());
        return run_groups(
            groups, s, devices, workers,
            (fs::path(out_dir) / vif::batch::summary_name(sh.index, sh.count)).string(), c.quiet);
    });
}

int merge_main(int argc, const char *const *argv) {
    CLI::App app{"vif merge: join the summaries of a sharded batch (summary.csv and "
                 "summary.shard-I-of-N.csv in each folder) into one, in row order. Rows in two "
                 "summaries are an error; rows in none are an error unless --allow-missing."};
    app.name("vif merge");
    std::vector<std::string> dirs;
    std::string output = "-";
    bool allow_missing = false;
    app.add_option("dirs", dirs, "Output folders of the shards")->required();
    app.add_option("-o,--output", output, "Merged summary file ('-': standard output)");
    app.add_flag("--allow-missing", allow_missing, "Write the merge even if rows are missing");
    if (int code = parse(app, argc - 1, argv + 1); code >= 0) return code;
    try {
        std::vector<std::string> files;
        for (const std::string &d : dirs) {
            const auto f = vif::batch::summary_files_in(d);
            if (f.empty()) throw std::runtime_error(fmt::format("no summary in '{}'", d));
            files.insert(files.end(), f.begin(), f.end());
        }
        const auto m = vif::batch::merge_summaries(files);
        if (!m.missing_shards.empty()) {
            std::string list;
            for (uint32_t i : m.missing_shards)
                list += (list.empty() ? "" : ", ") + std::to_string(i);
            std::fprintf(stderr,
                         "vif: %s: shards missing: %s (no summary.shard-I-of-N.csv for "
                         "them in the folders given)\n",
                         allow_missing ? "warning" : "error", list.c_str());
            if (!allow_missing) return kExitError;
        }
        if (!m.missing.empty()) {
            std::string list;
            for (size_t i = 0; i < m.missing.size() && i < 20; ++i)
                list += (i ? ", " : "") + std::to_string(m.missing[i]);
            std::fprintf(stderr,
                         "vif: %s: %zu rows missing (%s%s): a shard not run or not "
                         "given?\n",
                         allow_missing ? "warning" : "error", m.missing.size(), list.c_str(),
                         m.missing.size() > 20 ? ", ..." : "");
            if (!allow_missing) return kExitError;
        }
        const std::string text = vif::batch::format_summary(m.rows);
        if (output == "-") {
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
                std::fflush(stdout) != 0)
                throw std::runtime_error("cannot write to standard output");
        } else {
            vif::batch::write_atomically(output, text);
        }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitError;
    }
}

} // namespace vifcli
