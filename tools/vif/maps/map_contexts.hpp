// `--map-frames worst:N`: the contexts that score the N worst frames again with maps
// (WorstPictures). Making one (a CPU context's scratch images and a set of frame maps with their
// pages written, 20-30 MB at 720p; a CUDA context's start) is kept out of the time after the
// last frame: the contexts are made at once, each on a thread of its own. When
// (VIF_MAP_CONTEXTS, for bench/cpu/maps_speed.sh's comparison; docs/performance.md):
//   clip (default): while the clip is scored. On the H200 host's 16 cores (main d869d0f) this
//         slowed the 720p clip least: made before the first frame, the run waited for them
//         (+44 ms before the last frame against +27 ms, 720p integer, best of 5);
//   start: before the first frame is scored (the run waits for CPU contexts there; a CUDA one
//         is made while the clip is scored);
//   tail: after the last frame (every page of theirs is faulted in then).
// One set serves a pair, or every rung of a ladder group in turn.
// VIF_MAP_IDLE=1: CPU contexts made on threads of idle priority (Linux SCHED_IDLE), which their
// worker threads inherit, so that their making and their frames take only the cores the clip's
// scoring leaves idle. Not the default: on the H200 host's 16 cores (main f0d5bb4) it made
// worst:10 slower (720p integer 1.258x against 1.204x at normal priority, 1080p 1.211x against
// 1.159x): the clip's last frame came as late (the making slows it through memory, not through
// the cores), and the rescoring then waited for cores after it.
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
    enum class When { kStart, kClip, kTail };
    /** VIF_MAP_CONTEXTS's choice (clip when unset or unknown). */
    static When when();

    /** `cfg` as the run's with maps on, on `backend`. On the CPU single-threaded ones (a
     *  frame's scoring is one thread's work there), one for every 2 of the `worst` (N) frames,
     *  at most one a core and at most `frames` (the clip's frame count when known, else 0); on
     *  CUDA one. Starts making them unless when() is kTail (then get() makes them). `bands`
     *  above 1 (CPU; WorstPictures::band_contexts): each frame is scored in that many bands,
     *  on contexts made for a band (`cfg`'s max_height set by the caller), one for every 2
     *  bands to score. */
    MapContexts(VifConfig cfg, VifBackend backend, uint64_t worst, uint64_t frames,
                uint32_t bands = 1);
    ~MapContexts(); ///< waits for the making; destroys the contexts unless left to the exit
    MapContexts(const MapContexts &) = delete;
    MapContexts &operator=(const MapContexts &) = delete;

    /** Waits until they are made. */
    void wait();
    /** Called before the first frame is submitted: waits for CPU contexts when when() is
     *  kStart. A CUDA context is left to be made while the clip is scored (its making does
     *  not take the cores a GPU clip needs, and waiting would add it to the start-up). Says
     *  whether it waited. */
    bool before_first_frame();
    /** The contexts (at least one), once made. Throws Failure when one could not be made.
     *  Any thread (WorstPictures' early start calls it beside the run's thread). */
    const std::vector<VifContext *> &get();
    /** How many contexts there are (known before they are made). */
    size_t count() const { return count_; }
    /** Lowers the calling thread to idle priority when VIF_MAP_IDLE=1 (threads it then
     *  creates inherit it); says whether it did. */
    static bool lower_this_thread();
    /** Once the clip is scored: the threads lowered (and those they made) back to normal
     *  priority, where the process may raise them (root, CAP_SYS_NICE: else they stay idle,
     *  which only matters beside other work on the machine). Not when the whole process runs
     *  at idle priority (`chrt --idle`). */
    static void raise_lowered_threads();
    /** Leaves the contexts to the process exit (vif's outputs are written, it leaves next). */
    void leave_to_the_exit();

    /** VIF_MAP_LATE_CONTEXTS=N (bench/cpu/maps_speed.sh's comparison; CPU only): N more
     *  contexts, made from start_late() on (the last frame submitted: none of their pages
     *  while the clip is scored), for the frames scored again after it. */
    size_t late_count() const { return late_count_; }
    void start_late();
    /** The late contexts, once made (those that could be made; they stay this object's). Any
     *  thread. */
    std::vector<VifContext *> get_late();

private:
    void start();
    void make(bool idle); ///< every context, each on a thread of its own (idle: lowered)

    VifConfig cfg_;
    std::mutex mu_; ///< get() and wait() from several threads
    size_t count_ = 1;
    std::thread making_;
    std::vector<VifContext *> ctxs_; ///< read once making_ is joined
    std::string error_;              ///< why one could not be made (then ctxs_ is empty)
    size_t late_count_ = 0;
    std::mutex late_mu_;
    std::thread late_making_;
    std::vector<VifContext *> late_; ///< read once late_making_ is joined
};

} // namespace vifcli

#endif
