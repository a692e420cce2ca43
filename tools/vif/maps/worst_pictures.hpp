// `vif --map DIR --map-frames worst:N` on a pair: the clip is scored without maps (the plain,
// fastest path) while the pictures of the N frames with the lowest scores so far are kept
// (copies, in buffers reused from frame to frame). Only those N are scored again, by contexts
// with maps on the backend that scored them, and their maps go to the MapWriter. Keeping every
// frame's terms (16 bytes a pixel for integer VIF) and the local maps of every frame that was
// once among the worst cost 1.33x the CPU time of a run without maps; a picture is 1 or 2 bytes
// a pixel, and N frames are scored twice.
// What runs after the last frame is kept short: the contexts that score the N frames again are
// made while the clip is scored (MapContexts), the frames are shared among them (on the
// CPU, for a pair, each frame in 2 bands on contexts made for a band's rows, one for every 2
// bands: band_contexts; else whole frames, one context for every 2 frames, at most one a
// core), their local maps are computed in bands over the cores, and each file is a writer's
// job. And the scoring again starts as soon as the last frame is submitted (start_early), on
// the cores that the last frames being scored leave idle one by one: the N worst so far are scored again then, and each
// frame that enters the N worst while the last frames are scored as soon as its scores come;
// their local maps are held, and once every frame is scored those still among the N worst go to
// the writers (each as soon as it is done), the others are dropped.
// A frame scored again is one context's work (a thread's on the CPU), about a frame's scoring
// with every core busy: where rescoring workers have nothing to do, a frame is split into bands
// of rows (crops of its pictures with 48 rows more on each side, beyond where the filters of the
// 4 scales and the local map's window reach from the crop's edges: the terms of the band's rows
// are the whole frame's), each scored on a context of its own and its local maps written into
// the frame's (VIF_MAP_BANDS=0: whole frames; =B: every frame in B bands, for the tests). A
// frame that enters the N worst among the last ones then costs a fraction of a frame after the
// last one. Those frames are not checked against their first scores (a band has no totals).
// Scoring the candidates all along the clip was not chosen: the candidates that leave the N
// worst again (3 to 4 times N on a clip of 250 frames) cost cores the clip is using.
#ifndef VIF_TOOLS_MAPS_WORST_PICTURES_HPP
#define VIF_TOOLS_MAPS_WORST_PICTURES_HPP

#include <vif/vif.h>

#include "maps/map_writer.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace vifcli {

class MapContexts;

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
    /** Once the last frame is submitted (no submitted() any more; scored() still comes for the
     *  frames being scored): starts scoring the N worst so far again on `ctxs`, a thread a
     *  context, and from then on each frame that scored() puts among the N worst, holding
     *  their local maps for write_maps. Off with VIF_MAP_EARLY=0 (for the tests: every frame
     *  then goes whole to write_maps' second half, as for a clip shorter than the frames in
     *  flight). Throws Failure for a context that could not be made. */
    void start_early(MapContexts &ctxs, MapWriter &out);
    /** After the last frame: writes the held maps of the frames still among the N worst (drops
     *  the others), scores the kept frames not scored early again with maps on `ctxs` (made
     *  with the run's configuration, MapContexts), checks that each gets the scores it had, and
     *  hands its maps to `out`. The frames are shared among the contexts, each computing the
     *  local maps of its own frames on its share of the cores (a frame's arrays are valid only
     *  until its context's next receive). Throws Failure (also for a context that could not be
     *  made). */
    void write_maps(MapContexts &ctxs, MapWriter &out);
    ~WorstPictures(); ///< waits for start_early's threads (their results dropped)
    /** Whether frames may be split into bands: not where the filters reach further than the
     *  bands' halo (a float kernelscale above 1). */
    void set_bands(bool ok) { bands_ok_ = ok; }
    /** VIF_MAP_BAND_CONTEXTS=B (bench/cpu/maps_speed.sh's comparison; CPU, early start on,
     *  bands allowed): B (2 or more) when every frame (h rows high) scored again is to be split
     *  into B bands on contexts made for a band's crop (band_crop_rows), else 0. Unset: the
     *  default (kDefaultBandContexts), where a band's crop is at most 3/4 of the frame. */
    static uint32_t band_contexts(uint32_t h);
    /** The most rows a crop of band_contexts()' B bands of a frame h rows high takes (its band
     *  and the halo beyond it): the height those contexts are made for. */
    static uint32_t band_crop_rows(uint32_t h, uint32_t bands);
    /** Every frame split into `bands` bands (VIF_MAP_BANDS's setting, given by the caller). */
    void force_bands(uint32_t bands) { forced_bands_ = int(bands); }
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
    /** A frame to score again: its pictures (valid until write_maps returns) and scores. */
    struct Job {
        uint64_t frame = 0;
        VifScores scores{};
        VifPicture ref{}, dist{};
    };
    struct Spent {
        double scoring = 0;    ///< seconds waiting for a frame's maps
        double local_maps = 0; ///< seconds computing its local maps
        double queue = 0;      ///< seconds waiting for room in the writers' queue
    };
    /** The kept frames as jobs, in frame order. */
    std::vector<Job> jobs() const;
    /** Scores jobs[first], jobs[first + stride], ... with maps on `ctx` and hands each frame's
     *  maps to `take(job, maps)`, which returns the seconds its local maps took. Throws
     *  Failure. */
    template <typename Take>
    static void map_frames(VifContext *ctx, const std::vector<Job> &jobs, size_t first,
                           size_t stride, Spent &spent, Take take);
    /** Every job on its context (one thread a context); the longest times; throws the first
     *  failure. `take(job, maps, threads)` as map_frames'. */
    template <typename Take>
    static Spent map_on(const std::vector<VifContext *> &ctxs, const std::vector<Job> &jobs,
                        unsigned *threads, Take take);
    void print(const char *what, size_t frames, size_t contexts, unsigned threads,
               const Spent &most) const;
    /** start_early's work: a queue of frames to score again, fed with the N worst so far and
     *  then with each frame that enters the N worst while the last frames are scored, taken by
     *  a thread a context (a frame whole, or split into bands when workers are idle); the
     *  local maps held by job. */
    struct Item {
        size_t k = 0;                 ///< the job
        uint32_t band = 0, bands = 1; ///< band `band` of `bands` (1: the whole frame)
    };
    struct Early {
        std::mutex mu;
        std::condition_variable cv;
        std::deque<Job> jobs;              ///< every frame queued (a deque: stable references)
        std::deque<MapWriter::Kept> held;  ///< by job, once done (a split one's: once made)
        std::deque<char> done;             ///< by job: held is complete
        std::deque<char> ready;            ///< by job: a split frame's held buffers are made
        std::deque<char> written;          ///< by job: handed to the writers (the final phase)
        std::deque<uint32_t> bands_left;   ///< by job: a split frame's bands not done
        std::deque<Item> queue;            ///< work not taken yet
        std::unordered_set<uint64_t> kept; ///< the frames among the N worst now
        size_t entered = 0;                ///< jobs queued after start_early
        size_t split = 0;                  ///< frames split into bands
        size_t busy = 0;                   ///< workers with an item
        size_t workers_n = 1;              ///< how many workers there are
        bool closed = false;               ///< write_maps: no more jobs
        bool final = false;                ///< every frame scored: `kept` is the N worst
        std::string error;                 ///< the first failure
        std::vector<Spent> spent;          ///< by context
        unsigned threads = 1;              ///< each context's threads for a whole frame's maps
        int forced_bands = -1;             ///< VIF_MAP_BANDS (0: never split; -1: unset)
        uint32_t local_parts = 0; ///< VIF_MAP_LOCAL_PARTS: a band's local maps in that many parts
        std::thread launcher;     ///< waits for the contexts, runs the workers
    };
    /** Hands the arrays of the frame `ctx` gave last back to its pool (see the .cpp). */
    static void release_maps(VifContext *ctx, const Job &next);
    /** out.hold_rows of rows [first, end) in `parts` parts, each on a thread of its own (the
     *  first on this one). Throws Failure. */
    static void hold_rows_in_parts(MapWriter &out, const VifMaps &m, uint32_t top, uint32_t first,
                                   uint32_t end, uint32_t parts, MapWriter::Kept &k);
    /** A context's thread of start_early. */
    void early_worker(VifContext *ctx, size_t c, MapWriter &out);
    /** A frame queued (x.mu held). */
    static void add_job(Early &x, const Job &j);
    /** The bands a frame taken now is split into (x.mu held; 1: whole). */
    uint32_t bands_for(const Job &j) const;
    /** One band of a split frame: scored, its local maps written into the frame's. */
    void early_band(VifContext *ctx, size_t c, const Item &it, MapWriter &out);
    /** A job's maps complete (x.mu held): written now when every frame is scored and it is
     *  among the N worst (returned, to hand to the writers outside the lock), else held. */
    bool finish_job(size_t k);
    /** scored() while the early start runs: `entered` joined the N worst (its job queued),
     *  `left` (if not null) left them. */
    void early_update(const Entry *entered, const Entry *left);
    void join_early();

    uint64_t n_;
    bool pictures_stay_ = false;
    bool verbose_ = false;
    bool bands_ok_ = true;
    int forced_bands_ = -1; ///< force_bands (-1: VIF_MAP_BANDS, or none)
    const std::vector<uint64_t> *frame_nums_ = nullptr;
    std::deque<Entry> pending_; ///< submitted, not scored yet, oldest first
    std::vector<Entry> heap_;   ///< a max-heap on (score, frame): its top leaves first
    std::vector<Entry> spare_;  ///< entries whose buffers wait for the next frames
    std::unique_ptr<Early> early_;
};

} // namespace vifcli

#endif
