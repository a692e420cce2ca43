// A worker's scoring context, kept from one reference group to the next: making a CUDA context
// allocates its pinned staging and device buffers (dozens of CUDA calls that take the driver's
// locks and, on a host with several GPUs, map every pinned buffer for each of them), so a batch
// makes one per worker instead of one per group. Also the record of where a group's time went
// (`vif batch --timings`).
#ifndef VIF_TOOLS_COMMANDS_CONTEXT_CACHE_HPP
#define VIF_TOOLS_COMMANDS_CONTEXT_CACHE_HPP

#include <vif/vif.h>

#include <cstddef>
#include <cstdint>

namespace vifcli {

/** Seconds a group spent in each step (score_group adds to it; the sums are per group). */
struct GroupTimes {
    double open = 0;          ///< opening the inputs (and NVDEC's first-frame probe)
    double context = 0;       ///< getting the scoring context (made, or kept from the last group)
    double decode_wait = 0;   ///< the scoring loop waiting for decoded frames
    double score_wait = 0;    ///< submitting, and waiting for scores
    double record = 0;        ///< recording finished rows (output identity, progress log)
    double total = 0;         ///< the whole group, outputs written
    uint64_t frames = 0;      ///< reference frames scored
    bool device_path = false; ///< decoded by NVDEC and scored on its GPU
};

/** Whether a context made for `have` can score what `want` asks for: the same settings in
 *  every field but the queue, which may be deeper (a deeper queue holds more frames in flight
 *  and changes no score). */
bool context_fits(const VifConfig &have, const VifConfig &want);

/** One kept context (one thread uses it at a time, as every context). */
class ScoringContextCache {
public:
    ScoringContextCache() = default;
    ~ScoringContextCache();
    ScoringContextCache(const ScoringContextCache &) = delete;
    ScoringContextCache &operator=(const ScoringContextCache &) = delete;

    /** A context for `cfg`: the kept one when it fits (context_fits), else a new one (the kept
     *  one destroyed first). vif_create's status; *out null on failure. The context is lent
     *  until give_back(). */
    VifStatus take(const VifConfig &cfg, VifContext **out);
    /** Ends the loan: `reusable` (every frame received, no error) keeps the context for the
     *  next take(); else it is destroyed. */
    void give_back(VifContext *ctx, bool reusable);

    size_t made() const { return made_; }
    /** Forgets the kept context without destroying it: the process is about to end, and its
     *  exit frees it (destroying a CUDA context waits and frees dozens of buffers). */
    void abandon() { kept_ = nullptr; }

private:
    VifContext *kept_ = nullptr;
    VifConfig cfg_{};
    bool lent_ = false;
    size_t made_ = 0;
};

/** A context for one group: from `cache` when there is one, else made now and destroyed at the
 *  end. The group marks it reusable once every frame it submitted came back without an error. */
class ContextLease {
public:
    explicit ContextLease(ScoringContextCache *cache) : cache_(cache) {}
    ~ContextLease();
    ContextLease(const ContextLease &) = delete;
    ContextLease &operator=(const ContextLease &) = delete;
    VifStatus open(const VifConfig &cfg);
    VifContext *get() const { return ctx_; }
    bool reusable = false;

private:
    ScoringContextCache *cache_;
    VifContext *ctx_ = nullptr;
};

} // namespace vifcli

#endif
