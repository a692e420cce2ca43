#include "batch/host_share.hpp"

#include <algorithm>

namespace vif::batch {

size_t host_workers_beside_nvdec(size_t cores, size_t nvdec_workers, size_t parts, size_t gpus) {
    // Measured 2026-11-27 (docs/journal/2026-11-27-multigpu-session9.md, sessions 12 and 13),
    // the 1080p H.264 catalogues, NVDEC alone against NVDEC with the share: 2x H200 (32 cores)
    // one GPU 22.3 -> 16.6 and 17.6 s (16 ladders), 33.0 -> 22.3 and 23.5 s (64 rows); 4x H200
    // (64 cores) one GPU 22.9 -> 18.1 s, 33.8 -> 19.5 s. Four GPUs 11.0 -> 12.1 s (64 rows:
    // NVDEC's workers no longer opening their next parts ahead, their sessions made one at a
    // time for the host back on the critical path).
    if (gpus == 0 || gpus > 2) return 0;
    const size_t share = std::clamp<size_t>(cores / 4, 1, 8);
    return parts > nvdec_workers ? std::min(share, parts - nvdec_workers) : 0;
}

ShareLedger::ShareLedger(size_t workers, size_t nvdec_workers, double prior)
    : workers_(workers), nvdec_workers_(std::min(nvdec_workers, workers)), prior_(prior) {}

void ShareLedger::took_ahead(size_t w, size_t rows) {
    workers_.at(w).ahead = part_inputs(rows);
}

void ShareLedger::dropped_ahead(size_t w) {
    workers_.at(w).ahead = 0;
}

void ShareLedger::began(size_t w, size_t rows, double now) {
    Worker &k = workers_.at(w);
    k.ahead = 0;
    k.scoring = part_inputs(rows);
    k.began = now;
}

void ShareLedger::ended(size_t w, double now, bool completed) {
    Worker &k = workers_.at(w);
    if (completed && k.scoring > 0) {
        const double seconds = std::max(0.0, now - k.began);
        if (w >= nvdec_workers_)
            host_seconds_ += seconds, host_inputs_ += k.scoring;
        else
            nvdec_seconds_ += seconds, nvdec_inputs_ += k.scoring;
    }
    k.scoring = 0;
}

double ShareLedger::host_over_nvdec() const {
    if (!measured()) return prior_;
    return (host_seconds_ / host_inputs_) / (nvdec_seconds_ / nvdec_inputs_);
}

namespace {
// The time NVDEC's workers, with `loads` inputs each still to decode, end `parts` (inputs each,
// in the queue's order), each part going to the worker that is free first.
double nvdec_end(std::vector<double> loads, const std::vector<double> &parts, size_t from) {
    for (size_t i = from; i < parts.size(); ++i)
        *std::min_element(loads.begin(), loads.end()) += parts[i];
    return *std::max_element(loads.begin(), loads.end());
}
} // namespace

bool ShareLedger::host_takes(const std::vector<double> &queued, double now) const {
    if (queued.empty()) return false;
    if (nvdec_workers_ == 0) return true;
    // What each NVDEC worker has left, in inputs: the part it holds ahead and what remains of
    // the part it scores, at its measured time an input (none once overdue; the whole part
    // before any has ended).
    const double per_input = nvdec_inputs_ > 0 ? nvdec_seconds_ / nvdec_inputs_ : 0;
    std::vector<double> loads(nvdec_workers_);
    double left = 0;
    for (size_t w = 0; w < nvdec_workers_; ++w) {
        const Worker &k = workers_[w];
        loads[w] = k.ahead;
        if (k.scoring > 0)
            loads[w] +=
                per_input > 0 ? std::max(0.0, k.scoring - (now - k.began) / per_input) : k.scoring;
        left += loads[w];
    }
    for (size_t i = 1; i < queued.size(); ++i) left += queued[i];
    // The host's end, in NVDEC worker's input times.
    const double host_end = host_over_nvdec() * queued.front();
    // A long queue: NVDEC's workers, sharing out the rest, end after it whatever the order.
    if (host_end <= left / double(nvdec_workers_)) return true;
    // Near the end, part by part: taken where the later of the host's end and NVDEC's with the
    // rest is no later than NVDEC's end with every part (a part NVDEC would take only once a
    // worker is free may end sooner on the host even where the host is slower).
    return std::max(host_end, nvdec_end(loads, queued, 1)) <= nvdec_end(loads, queued, 0);
}

} // namespace vif::batch
