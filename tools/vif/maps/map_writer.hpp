// `vif --map DIR`: picks the frames whose local VIF maps are written (all, a list; the N worst
// come from WorstPictures, through put), computes the maps (vif_local_map) of the scales asked
// for as each frame's scores are received,
// and hands them to writer threads of its own (encoding PNG or Y4M takes longer than scoring a
// small frame: the thread that submits frames does not wait for it), which write them into a
// temporary folder beside DIR that becomes DIR only when the run succeeds (commit). A failed
// run, an unwritable folder or a frame list outside the clip leaves nothing.
#ifndef VIF_TOOLS_MAPS_MAP_WRITER_HPP
#define VIF_TOOLS_MAPS_MAP_WRITER_HPP

#include "options.hpp"

#include <vif/vif.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vifcli {

class MapWriter {
public:
    /** Checks DIR (new, or an empty folder) and creates the temporary folder; throws Failure. */
    explicit MapWriter(const MapOptions &m);
    ~MapWriter(); ///< stops the writers; removes the temporary folder unless committed
    MapWriter(const MapWriter &) = delete;
    MapWriter &operator=(const MapWriter &) = delete;

    /** Frame numbers as the report writes them, by submission index (filled as frames go in). */
    void set_frame_numbers(const std::vector<uint64_t> *nums) { frame_nums_ = nums; }
    /** The heat-map video's frame rate (y4m; default 25/1 when the input has none). */
    void set_frame_rate(uint32_t num, uint32_t den) {
        if (num && den) rate_num_ = num, rate_den_ = den;
    }
    /** One received frame (all, list): its maps go to the writer now if it is one asked for.
     *  Throws the writer's Failure, if it had one. */
    void take(const VifScores &s, const VifMaps &maps);
    /** The same for a frame whose number the caller knows (a ladder rung's own count). */
    void take(const VifScores &s, const VifMaps &maps, uint64_t frame);
    /** One frame whose maps are written whatever --map-frames says: the worst frames that
     *  WorstPictures scored again; its local maps on up to `threads` threads. Any thread (several
     *  at once). Throws the writer's Failure, if it had one. `computing`, if not null, gets
     *  the seconds the local maps took (the rest waited for room in the writers' queue). */
    void put(const VifMaps &maps, uint64_t frame, unsigned threads, double *computing = nullptr);

    /** A frame's local maps, computed and held: worst:N's frames scored again while the last
     *  frames of the clip are scored, written (put_held) if they stay among the N worst, else
     *  dropped (drop_held: their buffers go back to the pool). */
    struct Kept {
        uint64_t frame;
        std::vector<std::vector<float>> maps; ///< one per selected scale
        std::vector<uint32_t> w, h;
        uint32_t frame_w = 0, frame_h = 0; ///< scale 0's size: the frame's
    };
    /** put's first half, any thread: the local maps on up to `threads` threads. */
    Kept hold(const VifMaps &maps, uint64_t frame, unsigned threads) {
        return compute(maps, frame, threads);
    }
    /** A frame's buffers for its local maps (from the pool), sized for a w x h frame: filled a
     *  band of rows at a time by hold_rows, from any threads (each its own rows). */
    Kept blank(uint64_t frame, uint32_t w, uint32_t h);
    /** The local maps of the frame rows [first, end) (scale 0's rows; first a multiple of 8)
     *  into k, from the maps of a crop of the frame whose first row is `top` (a multiple of 8):
     *  for each selected scale, its rows first >> s to end >> s (the frame's last row when end
     *  is the frame's height), from the crop's rows around them. The crop's terms must be the
     *  frame's there and 2 rows (the window's radius) beyond (WorstPictures' bands). On this
     *  thread. Throws Failure. */
    void hold_rows(const VifMaps &crop, uint32_t top, uint32_t first, uint32_t end, Kept &k);
    /** put's second half. Throws the writer's Failure, if it had one. */
    void put_held(Kept k);
    void drop_held(Kept k) { give_back(std::move(k.maps)); }
    /** Makes, on a thread of its own, `frames` sets of the buffers a frame's local maps take
     *  (the selected scales of a w x h frame), their pages written: worst:N's frames are mapped
     *  after the last frame, where fresh memory for each (and its page faults, in many threads
     *  at once) was time on the critical path (each set on a thread of its own). Buffers also go back to a pool once a frame's
     *  files are written, for the next frame. */
    void reserve_frames(size_t frames, uint32_t w, uint32_t h);
    /** After every frame: checks the list, waits for the writers,
     *  renames the folder to DIR; throws Failure (nothing left behind) for a listed frame that
     *  was not scored or a file that could not be written. */
    void commit();
    size_t files_written() const { return files_; }

private:
    Kept compute(const VifMaps &maps, uint64_t frame,
                 unsigned threads = 0); ///< threads: 0 for every core
    /** One file of a frame: its scale m_.scales[scale]. */
    struct Job {
        std::shared_ptr<const Kept> frame;
        size_t scale;
    };
    void enqueue(Kept k); ///< waits while the writers are kQueueDepth frames each behind
    void writer_loop();   ///< a writer thread
    void write(const Kept &k, size_t scale); ///< one file (or video frame), on a writer thread
    void write_file(const std::string &name, const std::string &bytes);
    /** A file of `head` then `n` samples of `map` converted by `samples` (bytes_each a sample)
     *  a piece at a time (no whole-file buffer). */
    void write_file(const std::string &name, const std::string &head, const float *map, size_t n,
                    size_t bytes_each, void (*samples)(const float *, size_t, char *));
    using Buffers = std::vector<std::vector<float>>; ///< a frame's maps, one a selected scale
    Buffers take_buffers();                          ///< from the pool, else empty
    void give_back(Buffers b);                       ///< to the pool
    void join_prefill();
    void stop_writer();
    void check_writer() const; ///< throws the writer's failure

    MapOptions m_;
    std::string dir_, tmp_;
    bool committed_ = false;
    const std::vector<uint64_t> *frame_nums_ = nullptr;
    std::vector<uint64_t> listed_; ///< kList: the listed frames seen
    std::atomic<size_t> files_{0}; ///< counted by the writers
    uint32_t rate_num_ = 25, rate_den_ = 1;
    std::vector<std::FILE *> videos_; ///< y4m: one open file per selected scale

    std::vector<std::thread> writers_; ///< one for y4m (frames in order), else see writer_count
    mutable std::mutex mu_;
    std::condition_variable work_cv_;  ///< writers wait for jobs (or closing_)
    std::condition_variable space_cv_; ///< enqueue waits for room in the queue (or an error)
    std::deque<Job> queue_;
    bool closing_ = false;
    std::string error_; ///< the writer's failure; it drops what is queued after one

    std::mutex pool_mu_;
    std::vector<Buffers> pool_; ///< buffers of frames written, for the next ones
    std::thread prefill_;       ///< reserve_frames'
};

} // namespace vifcli

#endif
