#include "batch/run_timings.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace vif::batch {

namespace {

std::string seconds(double s) {
    char b[32];
    std::snprintf(b, sizeof b, s < 0.1 ? "%.3f s" : "%.2f s", s);
    return b;
}

} // namespace

void RunTimings::add(const GroupTiming &g) {
    std::lock_guard<std::mutex> lock(mu_);
    groups_.push_back(g);
}

double covered_seconds(std::vector<std::pair<double, double>> v) {
    std::sort(v.begin(), v.end());
    double total = 0, from = 0, to = 0;
    bool open = false;
    for (const auto &[b, e] : v) {
        if (e <= b) continue;
        if (open && b <= to) {
            to = std::max(to, e);
            continue;
        }
        if (open) total += to - from;
        from = b, to = e, open = true;
    }
    if (open) total += to - from;
    return total;
}

std::vector<std::string> RunTimings::lines(double wall, const std::vector<StartupTiming> &startups,
                                           const std::vector<std::string> &slots,
                                           const std::vector<size_t> &contexts_made) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    std::string first = "timings: " + seconds(wall) + " in all";
    if (!startups.empty()) {
        first += "; device start-ups:";
        for (size_t i = 0; i < startups.size(); ++i) {
            const StartupTiming &s = startups[i];
            first +=
                (i ? ", " : " ") + s.device +
                (s.not_started ? std::string(" not started")
                 : s.starting  ? std::string(" still starting")
                               : " " + seconds(s.seconds) + " (ready at " + seconds(s.ready_at) +
                                    (s.error.empty() ? ")" : "; failed: " + s.error + ")"));
        }
    }
    out.push_back(first);
    for (size_t slot = 0; slot < slots.size(); ++slot) {
        size_t rows = 0, groups = 0, device_groups = 0, ahead_groups = 0;
        double open = 0, context = 0, decode = 0, score = 0, record = 0, most_decode_per_row = 0;
        double first_begin = wall, last_end = 0, first_decoding = wall;
        uint64_t frames = 0;
        std::vector<std::pair<double, double>> spans;
        for (const GroupTiming &g : groups_) {
            if (g.slot != slot) continue;
            ++groups;
            rows += g.rows;
            device_groups += g.device_path;
            ahead_groups += g.opened_ahead;
            open += g.open;
            context += g.context;
            decode += g.decode_wait;
            score += g.score_wait;
            record += g.record;
            frames += g.frames;
            if (g.rows)
                most_decode_per_row = std::max(most_decode_per_row, g.decode_wait / double(g.rows));
            first_begin = std::min(first_begin, g.begin);
            // (A row decodes once its inputs are open: a device's first, with NVDEC, once its
            // sessions are.)
            first_decoding = std::min(first_decoding, g.begin + g.open);
            last_end = std::max(last_end, g.end);
            spans.emplace_back(g.begin, g.end);
        }
        std::string line = "timings: " + slots[slot] + ": ";
        if (!groups) {
            out.push_back(line + "no rows");
            continue;
        }
        char counts[240];
        std::snprintf(counts, sizeof counts,
                      "%zu rows in %zu groups (%zu decoded by NVDEC, %zu opened ahead), %llu "
                      "reference frames",
                      rows, groups, device_groups, ahead_groups,
                      static_cast<unsigned long long>(frames));
        line += counts;
        line += ", busy " + seconds(covered_seconds(spans)) + " from " + seconds(first_begin) +
                " to " + seconds(last_end) + " (first row decoding from " +
                seconds(first_decoding) + ")";
        const size_t made = slot < contexts_made.size() ? contexts_made[slot] : 0;
        line += "; open " + seconds(open) + ", contexts " + std::to_string(made) + " made (" +
                seconds(context) + "), decode wait " + seconds(decode) + ", scoring wait " +
                seconds(score) + ", recording rows " + seconds(record) + "; decode wait per row " +
                seconds(rows ? decode / double(rows) : 0) + " (most " +
                seconds(most_decode_per_row) + ")";
        out.push_back(line);
    }
    return out;
}

std::string RunTimings::workers_line() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<size_t, std::pair<size_t, double>> by_worker; // parts, last end
    for (const GroupTiming &g : groups_) {
        auto &w = by_worker[g.worker];
        ++w.first;
        w.second = std::max(w.second, g.end);
    }
    if (by_worker.size() < 2) return "";
    std::string parts;
    double first_end = -1, last_end = 0;
    for (const auto &[worker, w] : by_worker) {
        parts += (parts.empty() ? "" : " ") + std::to_string(w.first);
        first_end = first_end < 0 ? w.second : std::min(first_end, w.second);
        last_end = std::max(last_end, w.second);
    }
    return "timings: workers: parts scored " + parts +
           " (by worker); their last parts ended from " + seconds(first_end) + " to " +
           seconds(last_end);
}

} // namespace vif::batch
