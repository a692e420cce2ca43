// `--map-frames worst:N`: the contexts that score the N worst frames again with maps
// (WorstPictures). Making one (a CPU context's scratch images and a set of frame maps with their
// pages written, 20-30 MB at 720p; a CUDA context's start) is kept out of the time after the
// last frame: they are made while the clip is scored, by 2 threads each making its share in
// turn (makers_count). On the H200 host's 16 cores (main d869d0f) making them while the clip is
// scored slowed the 720p clip least: made before the first frame, the run waited for them (+44
// ms before the last frame against +27 ms, 720p integer, best of 5); made after the last frame,
// every page of theirs was faulted in then; made on threads of idle priority (main f0d5bb4),
// worst:10 was slower (720p integer 1.258x against 1.204x, 1080p 1.211x against 1.159x: the
// making slows the clip through memory, not through the cores, and the rescoring then waited
// for cores). Those ways were bench switches until session 9 (docs/journal/2026-11-26-vif-maps.md).
// One set serves a pair, or every rung of a ladder group in turn.
#ifndef VIF_TOOLS_MAPS_MAP_CONTEXTS_HPP
#define VIF_TOOLS_MAPS_MAP_CONTEXTS_HPP

#include <vif/vif.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vifcli {

class MapContexts {
public:
    /** `cfg` as the run's with maps on, on `backend`. On the CPU single-threaded ones (a
     *  frame's scoring is one thread's work there), one for every 2 of the `worst` (N) frames,
     *  at most one a core and at most `frames` (the clip's frame count when known, else 0); on
     *  CUDA one. Starts making them. `bands` above 1 (CPU; WorstPictures::band_contexts): each
     *  frame is scored in that many bands, on contexts made for a band (`cfg`'s max_height set
     *  by the caller), one for every 2 bands to score. VIF_MAP_CONTEXT_COUNT=N (bench/cpu/
     *  maps_speed.sh's ways, the tests): N contexts (CPU). */
    MapContexts(VifConfig cfg, VifBackend backend, uint64_t worst, uint64_t frames,
                uint32_t bands = 1);
    ~MapContexts(); ///< waits for the making; destroys the contexts unless left to the exit
    MapContexts(const MapContexts &) = delete;
    MapContexts &operator=(const MapContexts &) = delete;

    /** Waits until they are made. */
    void wait();
    /** The contexts (at least one), once made. Throws Failure when one could not be made.
     *  Any thread (WorstPictures' early start calls it beside the run's thread). */
    const std::vector<VifContext *> &get();
    /** How many contexts there are (known before they are made). */
    size_t count() const { return count_; }
    /** Leaves the contexts to the process exit (vif's outputs are written, it leaves next). */
    void leave_to_the_exit();
    /** How many threads make the contexts (and MapWriter::reserve_frames' buffers), each
     *  making its share one after the other: kMakers, so that their pages are written over
     *  more of the clip's time and fewer threads fault beside its scoring at once;
     *  VIF_MAP_MAKERS=K (bench/cpu/maps_speed.sh's ways clip-m1, clip-mall): K. */
    static size_t makers_count();
    /** Session 9 (H200 host, 16 cores, worst:10, best of 5 / 7 alternating, 720p integer /
     *  720p float / 1080p integer / 1080p float): 2 threads 1.144x / 1.162x / 1.174x / 1.100x
     *  (round 1, main 0544c47) and 1.109x / 1.107x / 1.166x / 1.077x (round 2, 68adae1), a
     *  thread each (10 + 10 at the clip's start) 1.213x / 1.141x / 1.035x / 1.145x and 1.193x
     *  / 1.034x / 1.165x / 1.053x: the 720p integer line (the one over 1.2x) gains, the others
     *  are within the spread; at 720p integer the tail after the last frame +13.0 ms against
     *  +26.8 ms (round 2's best runs). */
    static constexpr size_t kMakers = 2;

private:
    void make(); ///< every context, each on a thread of its own

    VifConfig cfg_;
    std::mutex mu_; ///< get() and wait() from several threads
    size_t count_ = 1;
    std::thread making_;
    std::vector<VifContext *> ctxs_; ///< read once making_ is joined
    std::string error_;              ///< why one could not be made (then ctxs_ is empty)
};

} // namespace vifcli

#endif
