// `--map-frames worst:N`: the contexts that score the N worst frames again with maps after the
// last frame (WorstPictures), made on a thread of their own while the clip is scored, so that
// making them (allocating a context's buffers, or a CUDA context's start) is not part of the
// time after the last frame. One set serves a pair, or every rung of a ladder group in turn.
#ifndef VIF_TOOLS_MAPS_MAP_CONTEXTS_HPP
#define VIF_TOOLS_MAPS_MAP_CONTEXTS_HPP

#include <vif/vif.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace vifcli {

class MapContexts {
public:
    /** Starts making them: `cfg` as the run's with maps on, on `backend`. On the CPU
     *  single-threaded ones (a frame's scoring is one thread's work there), one a core, at most
     *  `worst` (N) and at most `frames` (the clip's frame count when known, else 0); on CUDA
     *  one. */
    MapContexts(VifConfig cfg, VifBackend backend, uint64_t worst, uint64_t frames);
    ~MapContexts(); ///< waits for the making; destroys the contexts unless left to the exit
    MapContexts(const MapContexts &) = delete;
    MapContexts &operator=(const MapContexts &) = delete;

    /** The contexts (at least one), once made. Throws Failure when one could not be made. */
    const std::vector<VifContext *> &get();
    /** Leaves the contexts to the process exit (vif's outputs are written, it leaves next). */
    void leave_to_the_exit();

private:
    void wait();

    std::thread making_;
    std::vector<VifContext *> ctxs_; ///< read once making_ is joined
    std::string error_;              ///< why one could not be made (then ctxs_ is empty)
};

} // namespace vifcli

#endif
