// A reader thread per input: it reads luma planes ahead into a small ring of buffers (allocated
// once), checks their sample range, and hands them to the scoring loop in order. With a source
// that maps its file (FrameSource::map_luma), the ring holds pointers into the mapping instead:
// the thread faults the plane's pages in ahead of the scoring loop (so that vif_submit's copy
// does not stall on page faults) and drops them from the page tables once the loop is done with
// them (so that a long file does not pile up page-table entries), many frames' at a time: each
// drop changes the page tables every thread of the process shares (a TLB shootdown on every
// core it runs on), which a drop per frame, in many readers at once, makes a shared limit.
#ifndef VIF_TOOLS_PREFETCH_HPP
#define VIF_TOOLS_PREFETCH_HPP

#include "frame_source.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vifcli {

struct ReadPlan {
    uint64_t skip = 0;       ///< frames to drop at the start of the input
    std::string skip_option; ///< "--skip-ref", for the message when skip is too big
    uint64_t subsample = 1;  ///< deliver pairs 0, N, 2N, ... (the rest are skipped)
    uint64_t max_delivered = std::numeric_limits<uint64_t>::max(); ///< --frames
    uint64_t max_pairs = std::numeric_limits<uint64_t>::max();     ///< common frame count
    /// Mapped input: the pages of the planes done with are dropped once those planes span this
    /// many bytes of the file (one page-table change for all of them). Environment
    /// VIF_PREFETCH_DROP_BYTES=N (benchmarks) sets it for every input.
    size_t drop_batch_bytes = size_t(64) << 20;
};

/** What every reader thread of the process did so far (`vif batch --timings`): frames read,
 *  their threads' CPU time, and the time they spent reading (their life less the waits for a
 *  free slot). Reading time well over CPU time: the readers waited for a core or a lock. (An
 *  input decoded on several libavcodec threads decodes on those: not counted here.) */
struct ReaderTotals {
    uint64_t frames = 0;
    double cpu_seconds = 0;
    double reading_seconds = 0;
};
ReaderTotals reader_totals();

class Prefetcher {
public:
    enum class Status { kFrame, kEnd, kError };
    struct Frame {
        const uint8_t *data = nullptr; ///< packed luma plane (row_bytes() apart)
        uint64_t pair = 0;             ///< index after the skip: frameNum in the output
        uint64_t file_frame = 0;       ///< index in the input file
    };

    Prefetcher(FrameSource &src, std::string name, ReadPlan plan, size_t slots);
    ~Prefetcher();
    Prefetcher(const Prefetcher &) = delete;
    Prefetcher &operator=(const Prefetcher &) = delete;

    /** Waits for the next frame. kEnd: the input (or the plan) ended; kError: see error(). */
    Status next(Frame *out);
    /** Gives back the frame next() returned last; its buffer is then reused. */
    void release();
    /** Stops the reader thread (also done by the destructor). */
    void stop();

    const std::string &error() const { return error_; }
    /** After kEnd: whether the input itself ended (rather than --frames or the common count). */
    bool input_ended() const { return input_ended_; }
    /** Whether frames come straight from a file mapping (no copy). */
    bool mapped() const { return mapped_; }
    /** Page drops made so far (mapped inputs; tests). */
    uint64_t drops() const { return drops_.load(); }

private:
    struct AlignedFree {
        void operator()(uint8_t *p) const;
    };
    struct Slot {
        std::unique_ptr<uint8_t, AlignedFree> buf; // copied mode only
        const uint8_t *data = nullptr;
        uint64_t pair = 0, file_frame = 0;
    };

    void run();
    void check_samples(const uint8_t *data, uint64_t file_frame) const;
    bool check_samples_needed() const;
    void populate(const uint8_t *data) const;
    void done_with(const uint8_t *data);
    void drop_pending();

    FrameSource &src_;
    VideoInfo info_;
    std::string name_;
    ReadPlan plan_;
    bool mapped_;
    std::vector<Slot> slots_;

    std::mutex mu_;
    std::condition_variable cv_;
    size_t head_ = 0, filled_ = 0; // consumer side: head_ is the oldest filled slot
    bool done_ = false, failed_ = false, stop_ = false;
    bool input_ended_ = false;
    std::string error_;
    // Mapped planes done with and not yet dropped: [pending_begin_, pending_end_) of the
    // mapping (reader thread only).
    const uint8_t *pending_begin_ = nullptr, *pending_end_ = nullptr;
    std::atomic<uint64_t> drops_{0};
    std::thread thread_;
};

} // namespace vifcli

#endif
