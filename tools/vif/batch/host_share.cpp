#include "batch/host_share.hpp"

#include <algorithm>

namespace vif::batch {

size_t host_workers_beside_nvdec(size_t cores, size_t nvdec_workers, size_t parts, size_t gpus) {
    // Measured 2026-11-27 (docs/journal/2026-11-27-multigpu-session9.md, sessions 12 and 13),
    // the 1080p H.264 catalogues, NVDEC alone against NVDEC with the share: 2x H200 (32 cores)
    // one GPU 22.3 -> 16.6 and 17.6 s (16 ladders), 33.0 -> 22.3 and 23.5 s (64 rows); 4x H200
    // (64 cores) one GPU 22.9 -> 18.1 s, 33.8 -> 19.5 s; 2x H200 two GPUs, with the share
    // taking parts as host_takes says, 11.4 -> 9.5-10.3 s (ladders), 17.3 -> 14.1-15.6 s. Four
    // GPUs: slower with the share, whatever parts it took (4x H200, 64 rows: session 12's rule
    // 11.0 -> 12.1 s; host_takes 11.90 -> 13.36 s; host_takes leaving NVDEC's workers every part
    // they would open ahead, session 14, 11.44 -> 12.89 s, 128 rows 20.59 -> 22.00 s). There
    // NVDEC's sessions, made one at a time for the host, bind, and with the share's work beside
    // them each took about twice as long to make (0.167 s against 0.089 s, their first frames
    // 3.1 s against 1.8 s): NVDEC scored 23% fewer rows a second, more than the share added.
    if (gpus == 0 || gpus > kShareMostGpus) return 0;
    const size_t share = std::clamp<size_t>(cores / 4, 1, 8);
    return parts > nvdec_workers ? std::min(share, parts - nvdec_workers) : 0;
}

ShareLedger::ShareLedger(size_t workers, size_t nvdec_workers, size_t gpus, double prior)
    : workers_(workers), nvdec_workers_(std::min(nvdec_workers, workers)),
      gpus_(std::max<size_t>(gpus, 1)), prior_(prior) {}

void ShareLedger::took_ahead(size_t w, size_t rows) {
    workers_.at(w).ahead = part_inputs(rows);
}

void ShareLedger::dropped_ahead(size_t w) {
    workers_.at(w).ahead = 0;
}

void ShareLedger::began(size_t w, size_t rows, double now) {
    Worker &k = workers_.at(w);
    Pool &p = pools_[is_host(w)];
    if (k.scoring > 0) ended(w, now, false); // (a part never ended: not counted twice)
    k.ahead = 0;
    if (rows == 0) return; // (no work: neither time nor inputs)
    if (p.active++ == 0) p.since = now;
    k.scoring = part_inputs(rows);
    k.began = now;
}

void ShareLedger::ended(size_t w, double now, bool completed) {
    Worker &k = workers_.at(w);
    if (k.scoring <= 0) return;
    Pool &p = pools_[is_host(w)];
    const double busy = p.busy + std::max(0.0, now - p.since);
    if (--p.active == 0) p.busy = busy;
    if (completed) p.done += k.scoring, p.done_busy = busy;
    k.scoring = 0;
}

double ShareLedger::host_over_nvdec() const {
    const double nvdec = pools_[0].rate(), host = pools_[1].rate();
    return nvdec > 0 && host > 0 ? host / nvdec : prior_ / double(gpus_);
}

double ShareLedger::left_of(const Worker &k, const Pool &p, double now) {
    if (k.scoring <= 0) return 0;
    const double rate = p.rate();
    if (rate <= 0 || p.active == 0) return k.scoring;
    return std::max(0.0, k.scoring - (now - k.began) * rate / double(p.active));
}

bool ShareLedger::host_takes(double front, double behind, double now) const {
    if (front <= 0) return false;
    if (nvdec_workers_ == 0) return true;
    double nvdec_left = behind, host_left = front;
    for (size_t w = 0; w < workers_.size(); ++w) {
        const Worker &k = workers_[w];
        if (is_host(w))
            host_left += left_of(k, pools_[1], now);
        else
            nvdec_left += k.ahead + left_of(k, pools_[0], now);
    }
    // Ends in NVDEC's time: the share's inputs at its rate over NVDEC's.
    return host_left / host_over_nvdec() <= nvdec_left;
}

} // namespace vif::batch
