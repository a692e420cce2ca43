// The host's share beside NVDEC (issue 25). Where a catalogue's rows decode on NVDEC, a GPU's
// decoding engines bind while the host's cores stay nearly idle, so workers more decode parts on
// the cores. How many there are, and which parts they take: a part only where the host would end
// it before NVDEC's workers end what is left to them, so that the share adds throughput and never
// a tail (a part that ends after the rest). No CUDA here.
#ifndef VIF_TOOLS_BATCH_HOST_SHARE_HPP
#define VIF_TOOLS_BATCH_HOST_SHARE_HPP

#include <cstddef>
#include <vector>

namespace vif::batch {

/**
 * Workers of the host's share, added to `nvdec_workers` on `gpus` GPUs where the rows decode on
 * NVDEC: a quarter of the cores, 8 at most, never more than the parts the NVDEC workers leave
 * (`parts` - `nvdec_workers`); none without a GPU or on more than two (four GPUs' NVDEC workers
 * need every part to open ahead: measured slower there).
 */
size_t host_workers_beside_nvdec(size_t cores, size_t nvdec_workers, size_t parts, size_t gpus);

/** A part's decoding, in inputs: its rows' distorted inputs and the reference, decoded once. */
inline double part_inputs(size_t rows) {
    return double(rows) + 1;
}

/**
 * What the share's decision needs, kept by the run under its queue's lock: the parts each worker
 * scores and holds ahead, and the time an input took on each side (the parts that ended).
 * Workers are numbered as the run numbers them; times are seconds since the run began.
 */
class ShareLedger {
public:
    /** `workers`: all the run's workers; the host's share are those from `nvdec_workers` on.
     *  `prior`: the host's time an input over an NVDEC worker's until both have ended a part. */
    ShareLedger(size_t workers, size_t nvdec_workers, double prior);

    /** Worker `w` (NVDEC's) took a part of `rows` rows ahead; dropped it (back to the queue). */
    void took_ahead(size_t w, size_t rows);
    void dropped_ahead(size_t w);
    /** Worker `w` begins scoring a part of `rows` rows at `now` (its part taken ahead, if any, is
     *  this one). */
    void began(size_t w, size_t rows, double now);
    /** Its part ended at `now`; `completed`: scored to the end (a device's failure: not a rate). */
    void ended(size_t w, double now, bool completed);

    /** The host's time an input over an NVDEC worker's: measured, else the prior. */
    double host_over_nvdec() const;
    /** Whether both sides have ended a part (host_over_nvdec() is measured). */
    bool measured() const { return host_inputs_ > 0 && nvdec_inputs_ > 0 && nvdec_seconds_ > 0; }

    /**
     * Whether a worker of the share takes the queue's front part at `now` (`queued`: the inputs
     * of each part in the queue, front first): when that does not make the work end later. The
     * host would end it at host_over_nvdec() times an NVDEC worker's time for its inputs; NVDEC's
     * workers have the parts they hold ahead and what remains of those they score (at their
     * time an input once measured; whole before that, as at the run's start), and take the
     * queue's parts in turn, each going to the worker free first. The later of the host's end
     * and NVDEC's end without the part must be no later than NVDEC's end with it.
     */
    bool host_takes(const std::vector<double> &queued, double now) const;

private:
    struct Worker {
        double ahead = 0;   // inputs of the part held ahead
        double scoring = 0; // inputs of the part being scored
        double began = 0;   // when that part began
    };
    std::vector<Worker> workers_;
    size_t nvdec_workers_;
    double prior_;
    double host_seconds_ = 0, host_inputs_ = 0;   // the share's ended parts
    double nvdec_seconds_ = 0, nvdec_inputs_ = 0; // NVDEC workers' ended parts
};

} // namespace vif::batch

#endif
