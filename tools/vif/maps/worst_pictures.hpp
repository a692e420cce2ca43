// `vif --map DIR --map-frames worst:N` on a pair: the clip is scored without maps (the plain,
// fastest path) while the pictures of the N frames with the lowest scores so far are kept
// (copies, in buffers reused from frame to frame). After the last frame only those N are scored
// again, by contexts with maps on the backend that scored them, and their maps go to the
// MapWriter. Keeping every frame's terms (16 bytes a pixel for integer VIF) and the local maps of
// every frame that was once among the worst cost 1.33x the CPU time of a run without maps; a
// picture is 1 or 2 bytes a pixel, and N frames are scored twice.
// What runs after the last frame is kept short: the contexts that score the N frames again are
// made while the clip is scored (MapContexts), the frames are shared among them (one a core on the
// CPU), their local maps are computed in bands over the cores, and each file is a writer's job.
// Scoring the candidates while the clip is scored instead was not chosen: a frame's scoring is
// one thread's work on the CPU backend, so a candidate that enters the N worst near the end
// (most clips have one) still costs that much after the last frame, and the candidates that
// leave again cost spare cores the clip may be using.
#ifndef VIF_TOOLS_MAPS_WORST_PICTURES_HPP
#define VIF_TOOLS_MAPS_WORST_PICTURES_HPP

#include <vif/vif.h>

#include <cstdint>
#include <deque>
#include <vector>

namespace vifcli {

class MapContexts;
class MapWriter;

class WorstPictures {
public:
    explicit WorstPictures(uint64_t n) : n_(n) {}
    /** Frame numbers as the report writes them, by submission index (filled as frames go in). */
    void set_frame_numbers(const std::vector<uint64_t> *nums) { frame_nums_ = nums; }
    /** Whether the pictures submitted stay readable at their address for the whole run (both
     *  inputs read through a file mapping, media/prefetch.hpp): then they are not copied. */
    void set_pictures_stay(bool stay) { pictures_stay_ = stay; }
    /** A pair about to be submitted: copied, unless the pictures stay (its scores come back in
     *  submission order). */
    void submitted(const VifPicture &ref, const VifPicture &dist);
    /** The scores of the oldest pair submitted and not yet scored. */
    void scored(const VifScores &s);
    /** The scores of the oldest pair submitted and not yet scored, whose frame number the
     *  caller knows (a ladder rung's own count). */
    void scored(const VifScores &s, uint64_t frame);
    /** After the last frame: scores the kept frames again with maps on `ctxs` (made with the
     *  run's configuration, MapContexts), checks that each gets the scores it had, and hands its
     *  maps to `out`. The frames are shared among the contexts, each computing the local maps
     *  of its own frames on its share of the cores (a frame's arrays are valid only until its
     *  context's next receive). Throws Failure (also for a context that could not be made). */
    void write_maps(MapContexts &ctxs, MapWriter &out);
    /** --verbose: write_maps prints where its time went (scoring, local maps) to stderr. */
    void set_verbose(bool v) { verbose_ = v; }
    /** Frames kept now (at most N). */
    size_t kept() const { return heap_.size(); }

private:
    struct Picture {
        std::vector<uint8_t> bytes; ///< rows without padding (a copy), or empty
        VifPicture pic{};           ///< a copy's data is set when used (the vector may move)
        VifPicture view() const {
            VifPicture p = pic;
            if (!bytes.empty()) p.data = bytes.data();
            return p;
        }
    };
    struct Entry {
        VifScores scores{};
        uint64_t frame = 0;
        Picture ref, dist;
    };
    static void copy(const VifPicture &src, Picture &dst);
    /** Kept frames first, first + stride, ... scored with maps on `ctx`, their local maps on up
     *  to `threads` threads, into `out`. Throws Failure. */
    struct Spent {
        double scoring = 0;    ///< seconds waiting for a frame's maps
        double local_maps = 0; ///< seconds computing its local maps
        double queue = 0;      ///< seconds waiting for room in the writers' queue
    };
    void map_frames(VifContext *ctx, size_t first, size_t stride, unsigned threads, MapWriter &out,
                    Spent &spent) const;

    uint64_t n_;
    bool pictures_stay_ = false;
    bool verbose_ = false;
    const std::vector<uint64_t> *frame_nums_ = nullptr;
    std::deque<Entry> pending_; ///< submitted, not scored yet, oldest first
    std::vector<Entry> heap_;   ///< a max-heap on (score, frame): its top leaves first
    std::vector<Entry> spare_;  ///< entries whose buffers wait for the next frames
};

} // namespace vifcli

#endif
