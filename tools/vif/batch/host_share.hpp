// The host's share beside NVDEC (issue 25). Where a catalogue's rows decode on NVDEC, a GPU's
// decoding engines bind while the host's cores stay nearly idle, so workers more decode parts on
// the cores. How many there are, and which parts they take: a part only where the host would end
// it no later than NVDEC's workers end what is left to them, so that the share adds throughput
// without a tail (a part that ends after the rest). No CUDA here.
#ifndef VIF_TOOLS_BATCH_HOST_SHARE_HPP
#define VIF_TOOLS_BATCH_HOST_SHARE_HPP

#include <algorithm>
#include <cstddef>
#include <vector>

namespace vif::batch {

/** The most GPUs the share works beside: on four, NVDEC's sessions, made one at a time for the
 *  host, bind, and the share's work beside them slows their making (measured slower there). */
constexpr size_t kShareMostGpus = 2;

/**
 * Workers of the host's share, added to `nvdec_workers` on `gpus` GPUs where the rows decode on
 * NVDEC: a quarter of the cores, 8 at most, never more than the parts the NVDEC workers leave
 * (`parts` - `nvdec_workers`); none without a GPU or on more than kShareMostGpus.
 */
size_t host_workers_beside_nvdec(size_t cores, size_t nvdec_workers, size_t parts, size_t gpus);

/**
 * The share's rate against one GPU's NVDEC before either has ended a part, on a host of `cores`
 * cores: cores / 50, at most 1. Below what is measured once parts end (1080p H.264 catalogues,
 * 2026-11-27: 0.72-0.84 on the 2x H200 host's 32 cores, about 1 on the 4x H200 host's 64), as
 * a first round taken on too high a rate ends late: 16 ladders on one GPU of the 32-core host,
 * 16.2 and 21.4 s taken at 0.8 (the share's 8 parts at once ending 7 s after NVDEC's), 15.3 and
 * 17.3 s at 0.6.
 */
inline double share_rate_prior(size_t cores) {
    return std::min(1.0, double(cores) / 50);
}

/** A part's decoding, in inputs: its rows' distorted inputs and the reference, decoded once. */
inline double part_inputs(size_t rows) {
    return double(rows) + 1;
}

/**
 * What the share's decision needs, kept by the run under its queue's lock: the parts each worker
 * scores and holds ahead, and each side's rate. Each side is a pool whose parts share its
 * engines (NVDEC's decoders; the host's cores among the share's decoder threads), so its rate is
 * inputs a second while it has a part at all, whatever the number of parts, and a part's rate
 * that pool rate over the parts it runs. Workers are numbered as the run numbers them; times are
 * seconds since the run began.
 */
class ShareLedger {
public:
    /** `workers`: all the run's workers; the host's share are those from `nvdec_workers` on,
     *  scoring on `gpus` GPUs. `prior`: the share's rate against one GPU's NVDEC until both
     *  sides have ended a part. */
    ShareLedger(size_t workers, size_t nvdec_workers, size_t gpus, double prior);

    /** Worker `w` (NVDEC's) took a part of `rows` rows ahead; dropped it (back to the queue). */
    void took_ahead(size_t w, size_t rows);
    void dropped_ahead(size_t w);
    /** Worker `w` begins scoring a part of `rows` rows at `now` (its part taken ahead, if any, is
     *  this one). */
    void began(size_t w, size_t rows, double now);
    /** Its part ended at `now`; `completed`: scored to the end (a device's failure: no inputs
     *  done, its time still the pool's). */
    void ended(size_t w, double now, bool completed);

    /** The share's rate over NVDEC's (all its GPUs): measured once both sides have ended a
     *  part, else prior / gpus. */
    double host_over_nvdec() const;
    /** Whether both sides have ended a part. */
    bool measured() const { return pools_[0].done > 0 && pools_[1].done > 0; }

    /**
     * Whether a worker of the share takes the queue's front part (`front` inputs; 0: the queue is
     * empty) at `now`, with `behind` inputs in the parts after it: when the share, with its parts
     * in hand and this one, would end no later than NVDEC with the parts it holds ahead, what
     * remains of those it scores and the parts behind. What remains of a part being scored: from
     * its pool's rate once measured; the whole part before that, as at the run's start.
     */
    bool host_takes(double front, double behind, double now) const;

private:
    struct Worker {
        double ahead = 0;   // inputs of the part held ahead
        double scoring = 0; // inputs of the part being scored
        double began = 0;   // when that part began
    };
    struct Pool {
        size_t active = 0; // parts being scored
        double since = 0;  // when it last went from none to one
        double busy = 0;   // seconds with a part, before `since`
        // At its last part's end: the inputs of the parts it ended, and its seconds with a part
        // (a part still going then is in a later rate, not diluting this one).
        double done = 0, done_busy = 0;
        double rate() const { return done > 0 && done_busy > 0 ? done / done_busy : 0; }
    };
    bool is_host(size_t w) const { return w >= nvdec_workers_; }
    static double left_of(const Worker &k, const Pool &p, double now);
    std::vector<Worker> workers_;
    size_t nvdec_workers_;
    size_t gpus_;
    double prior_;
    Pool pools_[2]; // NVDEC's, the host's
};

} // namespace vif::batch

#endif
