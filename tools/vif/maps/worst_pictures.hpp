// `vif --map DIR --map-frames worst:N` on a pair: the clip is scored without maps (the plain,
// fastest path) while the pictures of the N frames with the lowest scores so far are kept
// (copies, in buffers reused from frame to frame). After the last frame only those N are scored
// again, by a context with maps on the backend that scored them, and their maps go to the
// MapWriter. Keeping every frame's terms (16 bytes a pixel for integer VIF) and the local maps of
// every frame that was once among the worst cost 1.33x the CPU time of a run without maps; a
// picture is 1 or 2 bytes a pixel, and N frames are scored twice.
#ifndef VIF_TOOLS_MAPS_WORST_PICTURES_HPP
#define VIF_TOOLS_MAPS_WORST_PICTURES_HPP

#include <vif/vif.h>

#include <cstdint>
#include <deque>
#include <vector>

namespace vifcli {

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
    /** After the last frame: scores the kept frames again with maps (`cfg` as the run's, on
     *  `backend`), checks that each gets the scores it had, and hands its maps to `out`. On the
     *  CPU the frames are shared among single-threaded contexts, one a core, each computing the
     *  local maps of its own frames: the work after the last frame runs on every core (a frame's
     *  arrays are valid only until its context's next receive). Throws Failure. */
    void write_maps(VifConfig cfg, VifBackend backend, MapWriter &out);
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
    /** Kept frames first, first + stride, ... scored with maps on a context of their own (cfg),
     *  their local maps on up to `threads` threads, into `out`. Throws Failure. */
    void map_frames(const VifConfig &cfg, size_t first, size_t stride, unsigned threads,
                    MapWriter &out) const;

    uint64_t n_;
    bool pictures_stay_ = false;
    const std::vector<uint64_t> *frame_nums_ = nullptr;
    std::deque<Entry> pending_; ///< submitted, not scored yet, oldest first
    std::vector<Entry> heap_;   ///< a max-heap on (score, frame): its top leaves first
    std::vector<Entry> spare_;  ///< entries whose buffers wait for the next frames
};

} // namespace vifcli

#endif
