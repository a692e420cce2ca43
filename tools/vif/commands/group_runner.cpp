#include "commands/group_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "batch/outputs.hpp"
#include "batch/summary.hpp"
#include "options.hpp"

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

} // namespace

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

} // namespace vifcli
