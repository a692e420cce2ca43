// `vif batch MANIFEST --out-dir DIR`: every row of a manifest (or of this machine's shard).
#include "commands/batch_commands.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batch/manifest.hpp"
#include "batch/outputs.hpp"
#include "batch/shard.hpp"
#include "batch/summary.hpp"
#include "commands/group_runner.hpp"
#include "commands/subcommand_options.hpp"
#include "pair/exit_holder.hpp"

namespace vifcli {

namespace {

// Seconds since this process started (/proc: clock ticks since boot against the uptime; about
// 10 ms resolution), or -1 where that cannot be read.
double process_age_seconds() {
    std::ifstream stat("/proc/self/stat"), up("/proc/uptime");
    std::string line;
    double uptime = 0;
    if (!std::getline(stat, line) || !(up >> uptime)) return -1;
    const size_t close = line.rfind(')'); // the command name may hold spaces
    if (close == std::string::npos) return -1;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i)
        if (i == 22) return uptime - std::stod(field) / double(::sysconf(_SC_CLK_TCK));
    return -1;
}

} // namespace

int batch_main(int argc, const char *const *argv) {
    CLI::App app{"vif batch: score every pair of a manifest (CSV with reference,distorted "
                 "[,width,height,pixel_format,bitdepth], or JSON lines) with one start-up; rows "
                 "sharing a reference decode it once. One output per row in DIR and "
                 "DIR/summary.csv; re-running skips rows whose complete output exists."};
    app.name("vif batch");
    std::string manifest, out_dir, shard, devices_text;
    size_t workers = 0;
    bool overwrite = false, timings = false, no_mmap = false;
    int decoder_threads = -1;
    unsigned nvdec_decoders = 0;
    std::string hwdec = "auto";
    CommonOptions c;
    app.add_option("manifest", manifest, "The manifest (CSV or JSON lines)")->required();
    app.add_option("--out-dir", out_dir, "Output folder")->required();
    app.add_option("--shard", shard,
                   "I/N: this machine's share (or N, the index coming from SLURM_ARRAY_TASK_ID, "
                   "JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX)");
    app.add_option("--devices", devices_text,
                   "CUDA devices to spread the work over: all (default: every GPU there is) or "
                   "a list such as 0,1");
    app.add_option("--workers", workers,
                   "Scoring contexts at once, 1 to 256 (default: a quarter of the cores, 1 to 8 "
                   "per GPU, above 4 at most half the parts of 64 rows a reference; on one GPU "
                   "whose NVDEC decodes the rows, a quarter of the cores more (8 at most) that "
                   "decode on the host beside it; 1 on the CPU)")
        ->check(CLI::Range(size_t(0), size_t(256)));
    app.add_option("--decoder-threads", decoder_threads,
                   "libavcodec threads per encoded input, 0 = one per core (FFmpeg's choice; "
                   "default: with several workers, the cores shared among the inputs they "
                   "decode at once)")
        ->check(CLI::Range(0, 256));
    app.add_option("--hwdec", hwdec,
                   "auto: rows whose inputs NVDEC decodes are decoded and scored on their GPU "
                   "(a ladder, rows sharing a reference, where every rung is of the "
                   "reference's size: the reference decoded once for all; short clips on the "
                   "host, done before NVDEC would have started); cuda: such rows on the GPU "
                   "whatever their length; none: every input decoded on the host")
        ->check(CLI::IsMember({"auto", "cuda", "none"}))
        ->capture_default_str();
    app.add_option("--nvdec-decoders", nvdec_decoders,
                   "NVDEC decoders per input of a row decoded on its GPU (default: 3 with one "
                   "worker per GPU, 2 with two, 1 with more: the rows keep the engines busy)")
        ->check(CLI::Range(0u, 16u));
    app.add_flag("--timings", timings,
                 "Print where the time went, per device: start-up, contexts made, opening, "
                 "decode and scoring waits, busy time");
    app.add_flag("--overwrite", overwrite, "Score every row again, even with complete outputs");
    app.add_flag("--no-mmap", no_mmap,
                 "Read raw inputs with pread into buffers instead of mapping them");
    add_common(app, c);
    if (int code = parse_subcommand(app, argc - 1, argv + 1); code >= 0) return code;
    // The teardown of the process's memory and of its GPU contexts and NVDEC sessions (several
    // devices' worth) left to a holder that runs it once this process has gone
    // (pair/exit_holder.hpp); the progress log is closed, its lock released, before the exit.
    if (exit_holder_wanted()) start_exit_holder();
    return leave_process(exit_code_of([&] {
        vif::batch::Shard sh;
        std::string err;
        if (!vif::batch::resolve_shard(
                shard, [](const char *n) { return std::getenv(n); }, &sh, &err)) {
            std::fprintf(stderr, "vif: error: %s\n", err.c_str());
            return kExitUsage;
        }
        const auto rows = vif::batch::read_manifest(manifest);
        const auto stems = vif::batch::output_stems(rows); // the whole manifest: shards agree
        std::map<size_t, std::string> stem_of;
        for (size_t i = 0; i < rows.size(); ++i) stem_of[rows[i].row] = stems[i];
        const auto mine = vif::batch::shard_groups(vif::batch::group_by_reference(rows), sh);
        std::vector<std::vector<RungJob>> groups;
        for (const auto &g : mine) {
            std::vector<RungJob> jobs;
            for (const auto &r : g.rows) jobs.push_back({r, stem_of[r.row], std::nullopt});
            groups.push_back(std::move(jobs));
        }
        LadderSettings s = settings_from(c, out_dir);
        DeviceSet devices;
        std::string dev_err;
        const auto finding = std::chrono::steady_clock::now();
        const bool found = choose_devices(devices_text, s.backend, &devices, &dev_err);
        const double finding_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - finding).count();
        if (!found) {
            std::fprintf(stderr, "vif: error: %s\n", dev_err.c_str());
            return kExitUsage;
        }
        s.resume = !overwrite;
        s.decoder_threads = decoder_threads;
        s.hwdec = hwdec != "none";
        s.hwdec_always = hwdec == "cuda";
        s.nvdec_decoders = nvdec_decoders;
        s.timings = timings;
        s.no_mmap = no_mmap;
        s.manifest_id =
            vif::batch::manifest_identity(vif::batch::canonical_rows(rows), rows.size());
        // (Parts of VIF_MAX_DISTORTED rows at most: what a worker takes at a time.)
        size_t parts = 0;
        for (const auto &g : groups)
            parts += (g.size() + VIF_MAX_DISTORTED - 1) / VIF_MAX_DISTORTED;
        s.workers_default = workers == 0;
        if (workers == 0) workers = default_workers(devices, parts);
        if (c.verbose && sh.count > 1)
            std::fprintf(stderr, "vif: shard %u of %u (%s): %zu reference groups\n", sh.index,
                         sh.count, sh.source.c_str(), groups.size());
        // What comes before the run (the process's start, the manifest, CUDA's initialisation
        // when the devices are counted): no number of devices shortens it.
        if (timings)
            std::fprintf(stderr,
                         "vif: timings: before the run: %.2f s since the process started "
                         "(finding the devices %.3f s)\n",
                         process_age_seconds(), finding_s);
        std::vector<std::string> inputs = {manifest};
        for (const auto &r : rows) inputs.insert(inputs.end(), {r.reference, r.distorted});
        return run_groups(
            groups, s, devices, workers,
            (std::filesystem::path(out_dir) / vif::batch::summary_name(sh.index, sh.count))
                .string(),
            inputs, c.quiet);
    }));
}

} // namespace vifcli
