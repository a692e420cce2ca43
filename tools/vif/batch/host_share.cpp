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

bool ShareLedger::host_takes(size_t front_rows, double queued_inputs, double now) const {
    const double front = part_inputs(front_rows);
    if (queued_inputs < front) return false; // (no such part queued)
    if (nvdec_workers_ == 0) return true;
    // An NVDEC worker's time an input, where measured: its part being scored has that much
    // of its inputs left (none once overdue).
    const double per_input = nvdec_inputs_ > 0 ? nvdec_seconds_ / nvdec_inputs_ : 0;
    double left = queued_inputs - front;
    for (size_t w = 0; w < nvdec_workers_; ++w) {
        const Worker &k = workers_[w];
        left += k.ahead;
        if (k.scoring > 0)
            left +=
                per_input > 0 ? std::max(0.0, k.scoring - (now - k.began) / per_input) : k.scoring;
    }
    return host_over_nvdec() * front <= left / double(nvdec_workers_);
}

} // namespace vif::batch
