#include "maps/worst_pictures.hpp"

#include "maps/map_contexts.hpp"
#include "maps/map_trace.hpp"
#include "maps/map_writer.hpp"
#include "pair/failure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace vifcli {
namespace {

// The heap's top is the frame to drop first: the highest score, the later frame on a tie (as
// MapWriter's worst:N without rescoring).
bool drop_first(const VifScores &a, uint64_t af, const VifScores &b, uint64_t bf) {
    return a.combined < b.combined || (a.combined == b.combined && af < bf);
}

// Whether a frame scored again with maps got the same numbers, bit for bit.
bool same_scores(const VifScores &a, const VifScores &b) {
    auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    for (int s = 0; s < VIF_NUM_SCALES; ++s)
        if (!same(a.scale[s], b.scale[s]) || !same(a.num[s], b.num[s]) || !same(a.den[s], b.den[s]))
            return false;
    return same(a.combined, b.combined);
}

// The rows a band's crop takes beyond its own on each side (a multiple of 8, so that each of
// the 4 scales halves the crop where it halves the frame): the terms of a crop's rows are the
// frame's from 24 rows inside its edges (the filters of the 4 scales, scale 3 the furthest:
// measured, tests/cli/map_test.cpp), and the local map's window takes 2 rows of scale 3 (16)
// beyond the band's: 40 rows (with 32 the test's files differ); 48 taken, a row of scale 3 to
// spare (64 before: the band contexts' crops at 1080p are 592 rows instead of 608, their
// scoring 9% more than the frame's instead of 12%).
constexpr uint32_t kBandHalo = 48;
// The most threads a band's local maps take after the last frame (hold_rows_in_parts).
constexpr size_t kMostLocalMapParts = 4;
// A band's own rows at least (fewer bands for smaller frames).
constexpr uint32_t kMinBandRows = 96;
// VIF_MAP_BAND_CONTEXTS unset: every frame scored again in this many bands on contexts made for
// a band (band_contexts); 1: whole frames (on contexts made for the frame). Round 1 of session 8
// (H200 host, 16 cores, worst:10, best of 5, 720p integer / 720p float / 1080p integer / 1080p
// float): 2 bands 1.195x / 1.196x / 1.051x / 1.051x against whole frames 1.215x / 1.191x /
// 1.110x / 1.076x, 3 bands 1.271x / 1.215x / 1.082x / 1.088x (more halo CPU, 15 contexts);
// round 2, 2 bands 1.205x / 1.212x / 1.113x / 1.054x, whole frames 1.208x / 1.212x / 1.059x /
// 1.068x: the two within the spread of the runs, 2 bands ahead by ~1% over both rounds.
constexpr long kDefaultBandContexts = 2;

// Band b of n of a frame h rows high: its own rows [first, end), first a multiple of 8.
void band_rows(uint32_t h, uint32_t b, uint32_t n, uint32_t *first, uint32_t *end) {
    auto edge = [&](uint32_t i) { return i >= n ? h : uint32_t(uint64_t(h) * i / n) & ~7u; };
    *first = edge(b);
    *end = edge(b + 1);
}

} // namespace

uint32_t WorstPictures::band_contexts(uint32_t h) {
    const char *b = std::getenv("VIF_MAP_BAND_CONTEXTS");
    const char *early = std::getenv("VIF_MAP_EARLY");
    // Whole frames go to the contexts when the early start is off (write_maps' second half).
    if (early && std::strcmp(early, "0") == 0) return 0;
    // The other ways of bench/cpu/maps_speed.sh (bands, counts of whole-frame contexts) keep
    // whole-frame contexts unless asked for band contexts too.
    auto set = [](const char *name) {
        const char *v = std::getenv(name);
        return v && *v;
    };
    const bool other_way = set("VIF_MAP_BANDS") || set("VIF_MAP_CONTEXT_COUNT");
    const long n = b && *b ? std::strtol(b, nullptr, 10) : other_way ? 1 : kDefaultBandContexts;
    const uint32_t bands = n >= 2 ? uint32_t(std::min<long>(n, 16)) : 0;
    // By default only where a band's crop is at most 3/4 of the frame (its contexts' pages
    // are then fewer than a frame's).
    if (bands && !(b && *b) && uint64_t(band_crop_rows(h, bands)) * 4 > uint64_t(h) * 3) return 0;
    return bands;
}

uint32_t WorstPictures::band_crop_rows(uint32_t h, uint32_t bands) {
    uint32_t most = 0;
    for (uint32_t b = 0; b < bands; ++b) {
        uint32_t first = 0, end = 0;
        band_rows(h, b, bands, &first, &end);
        const uint32_t top = first >= kBandHalo ? first - kBandHalo : 0;
        most = std::max(most, std::min(h, end + kBandHalo) - top);
    }
    return most;
}

void WorstPictures::copy(const VifPicture &src, Picture &dst) {
    const size_t row = size_t(src.width) * (src.bitdepth > 8 ? 2 : 1);
    dst.bytes.resize(row * src.height); // a reused entry keeps its storage: no allocation
    const auto *in = static_cast<const uint8_t *>(src.data);
    if (src.stride == ptrdiff_t(row)) {
        std::memcpy(dst.bytes.data(), in, row * src.height);
    } else {
        for (uint32_t y = 0; y < src.height; ++y)
            std::memcpy(dst.bytes.data() + y * row, in + ptrdiff_t(y) * src.stride, row);
    }
    dst.pic = src;
    dst.pic.stride = ptrdiff_t(row);
    dst.pic.data = nullptr;
}

void WorstPictures::submitted(const VifPicture &ref, const VifPicture &dist) {
    Entry e;
    if (!spare_.empty()) {
        e = std::move(spare_.back());
        spare_.pop_back();
    }
    if (pictures_stay_) {
        e.ref.pic = ref;
        e.dist.pic = dist;
    } else {
        copy(ref, e.ref);
        copy(dist, e.dist);
    }
    pending_.push_back(std::move(e));
}

void WorstPictures::scored(const VifScores &s) {
    const uint64_t idx = s.frame_index;
    scored(s, frame_nums_ && idx < frame_nums_->size() ? (*frame_nums_)[size_t(idx)] : idx);
}

void WorstPictures::scored(const VifScores &s, uint64_t frame) {
    if (pending_.empty())
        throw Failure{"internal error: --map-frames worst: a frame's scores "
                      "came back that was not submitted"};
    Entry e = std::move(pending_.front());
    pending_.pop_front();
    e.scores = s;
    e.frame = frame;
    auto less = [](const Entry &a, const Entry &b) {
        return drop_first(a.scores, a.frame, b.scores, b.frame);
    };
    bool left = false;
    if (heap_.size() == n_) {
        const Entry &top = heap_.front();
        if (!drop_first(e.scores, e.frame, top.scores, top.frame)) { // not among the N worst
            spare_.push_back(std::move(e));
            return;
        }
        std::pop_heap(heap_.begin(), heap_.end(), less);
        spare_.push_back(std::move(heap_.back()));
        heap_.pop_back();
        left = true;
    }
    if (early_) early_update(&e, left ? &spare_.back() : nullptr);
    heap_.push_back(std::move(e));
    std::push_heap(heap_.begin(), heap_.end(), less);
}

void WorstPictures::early_update(const Entry *entered, const Entry *left) {
    Early &x = *early_;
    {
        std::lock_guard<std::mutex> lock(x.mu);
        if (x.closed) return;
        if (left) x.kept.erase(left->frame);
        x.kept.insert(entered->frame);
        add_job(x, {entered->frame, entered->scores, entered->ref.view(), entered->dist.view()});
        ++x.entered;
    }
    x.cv.notify_one();
}

WorstPictures::~WorstPictures() {
    join_early();
}

std::vector<WorstPictures::Job> WorstPictures::jobs() const {
    std::vector<Job> out;
    for (const Entry &e : heap_) out.push_back({e.frame, e.scores, e.ref.view(), e.dist.view()});
    std::sort(out.begin(), out.end(), [](const Job &a, const Job &b) { return a.frame < b.frame; });
    return out;
}

template <typename Take>
void WorstPictures::map_frames(VifContext *ctx, const std::vector<Job> &jobs, size_t first,
                               size_t stride, Spent &spent, Take take) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) {
        return std::chrono::duration<double>(Clock::now() - t).count();
    };
    VifStatus st = VIF_OK;
    // Submitted as the queue takes them, received in the same order.
    size_t next_in = first, next_out = first;
    auto receive_one = [&] {
        VifScores s;
        VifMaps m;
        const auto waiting = Clock::now();
        const VifStatus r = vif_receive_maps(ctx, &s, &m, 1);
        spent.scoring += since(waiting);
        if (r != VIF_OK) throw Failure{vif_error("--map: mapping the worst frames", r)};
        const Job &j = jobs[next_out];
        next_out += stride;
        if (!same_scores(s, j.scores))
            throw Failure{fmt::format("internal error: --map: frame {} scored again with maps "
                                      "does not get its scores; no maps written",
                                      j.frame)};
        const auto putting = Clock::now();
        const double computing = take(j, m);
        spent.local_maps += computing;
        spent.queue += since(putting) - computing;
    };
    while (next_in < jobs.size()) {
        st = vif_submit(ctx, &jobs[next_in].ref, &jobs[next_in].dist, nullptr);
        if (st == VIF_OK) {
            next_in += stride;
        } else if (st == VIF_AGAIN) {
            receive_one();
        } else {
            throw Failure{vif_error("--map: mapping the worst frames", st)};
        }
    }
    while (next_out < jobs.size()) receive_one();
}

template <typename Take>
WorstPictures::Spent WorstPictures::map_on(const std::vector<VifContext *> &ctxs,
                                           const std::vector<Job> &jobs, unsigned *threads_out,
                                           Take take) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t contexts = std::max<size_t>(1, std::min(jobs.size(), ctxs.size()));
    // Each context's share of the cores for its frames' local maps (bands of rows need buffers
    // of their own: with a core or so a context, one call each).
    const unsigned threads = std::max(1u, unsigned(cores / contexts));
    *threads_out = threads;
    std::vector<Spent> spent(contexts);
    auto one = [&](size_t c) {
        map_frames(ctxs[c], jobs, c, contexts, spent[c],
                   [&](const Job &j, const VifMaps &m) { return take(j, m, threads); });
    };
    if (contexts == 1) {
        one(0);
    } else {
        std::vector<std::string> failures(contexts);
        std::vector<std::thread> pool;
        for (size_t c = 0; c < contexts; ++c)
            pool.emplace_back([&, c] {
                try {
                    one(c);
                } catch (const Failure &f) {
                    failures[c] = f.message;
                } catch (const std::exception &e) {
                    failures[c] = fmt::format("--map: mapping the worst frames: {}", e.what());
                }
            });
        for (std::thread &t : pool) t.join();
        for (const std::string &f : failures)
            if (!f.empty()) throw Failure{f};
    }
    Spent most;
    for (const Spent &c : spent) {
        most.scoring = std::max(most.scoring, c.scoring);
        most.local_maps = std::max(most.local_maps, c.local_maps);
        most.queue = std::max(most.queue, c.queue);
    }
    return most;
}

void WorstPictures::print(const char *what, size_t frames, size_t contexts, unsigned threads,
                          const Spent &most) const {
    if (!verbose_) return;
    std::fprintf(stderr,
                 "vif: worst frames: %zu scored again %s on %zu contexts (%u threads each for "
                 "local maps); the longest waits for maps %.1f ms, local maps %.1f ms, "
                 "writers' queue %.1f ms\n",
                 frames, what, contexts, threads, most.scoring * 1e3, most.local_maps * 1e3,
                 most.queue * 1e3);
}

void WorstPictures::add_job(Early &x, const Job &j) {
    x.jobs.push_back(j);
    x.held.emplace_back();
    x.done.push_back(0);
    x.ready.push_back(0);
    x.written.push_back(0);
    x.bands_left.push_back(0);
    x.queue.push_back({x.jobs.size() - 1, 0, 1});
}

void WorstPictures::start_early(MapContexts &made, MapWriter &out) {
    const char *env = std::getenv("VIF_MAP_EARLY");
    // With none scored yet (a clip shorter than the frames in flight) the frames go to
    // write_maps' second half whole, unless the contexts are made for bands (force_bands):
    // then they are queued here as they are scored.
    if ((env && std::strcmp(env, "0") == 0) || (heap_.empty() && forced_bands_ < 2) || early_)
        return;
    early_ = std::make_unique<Early>();
    Early &x = *early_;
    // The lowest scores first: the highest of the N are the likeliest to leave the N worst
    // before their turn (then skipped, not scored for nothing).
    std::vector<Job> first = jobs();
    std::sort(first.begin(), first.end(), [](const Job &a, const Job &b) {
        return drop_first(a.scores, a.frame, b.scores, b.frame);
    });
    for (const Job &j : first) {
        add_job(x, j);
        x.kept.insert(j.frame);
    }
    if (const char *b = std::getenv("VIF_MAP_BANDS"); b && *b)
        x.forced_bands = int(std::min<long>(64, std::max<long>(0, std::strtol(b, nullptr, 10))));
    if (forced_bands_ >= 0) x.forced_bands = forced_bands_;
    if (const char *p = std::getenv("VIF_MAP_LOCAL_PARTS"); p && *p)
        x.local_parts = uint32_t(std::clamp<long>(std::strtol(p, nullptr, 10), 0, 64));
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t contexts = std::max<size_t>(1, made.count());
    x.workers_n = contexts;
    x.threads = std::max(1u, unsigned(cores / contexts));
    x.spent.resize(contexts);
    // The pictures stay valid: no frame is submitted any more, so no entry's buffers are reused
    // for another picture before write_maps (scored() only moves entries).
    // A thread waits for the contexts (this one goes on receiving the last frames' scores) and
    // then works as context 0's worker beside a thread for each other context.
    auto run = [this, &made, &out, contexts] {
        Early &e = *early_;
        std::vector<VifContext *> ctxs;
        try {
            ctxs = made.get();
        } catch (const Failure &f) {
            std::lock_guard<std::mutex> lock(e.mu);
            if (e.error.empty()) e.error = f.message;
            return;
        }
        std::vector<std::thread> workers;
        try {
            for (size_t c = 1; c < std::min(contexts, ctxs.size()); ++c)
                workers.emplace_back([this, ctx = ctxs[c], c, &out] { early_worker(ctx, c, out); });
        } catch (const std::system_error &) { // those started and this one take every job
        }
        {
            std::lock_guard<std::mutex> lock(e.mu);
            e.workers_n = workers.size() + 1;
        }
        early_worker(ctxs[0], 0, out);
        for (std::thread &t : workers) t.join();
    };
    try {
        x.launcher = std::thread(run);
    } catch (const std::system_error &) {
        run();
    }
}

// A context keeps the arrays of the frame it handed out last until its next receive, so its
// next frame's maps would take a fresh set (16 bytes a pixel of new pages, integer: 10-20 ms at
// 720p). A small corner of the next pictures scored through first hands the set back to the
// context's pool. Its result is not used; a refusal only costs the fresh set.
void WorstPictures::release_maps(VifContext *ctx, const Job &j) {
    constexpr uint32_t kSide = 128;
    VifPicture r = j.ref, d = j.dist;
    r.width = d.width = std::min(kSide, j.ref.width);
    r.height = d.height = std::min(kSide, j.ref.height);
    if (vif_submit(ctx, &r, &d, nullptr) != VIF_OK) return;
    VifScores s;
    VifMaps m;
    (void)vif_receive_maps(ctx, &s, &m, 1);
}

uint32_t WorstPictures::bands_for(const Job &j) const {
    const Early &x = *early_;
    const uint32_t most = std::max<uint32_t>(1, j.ref.height / (kMinBandRows + 2 * kBandHalo));
    if (!bands_ok_) return 1;
    if (x.forced_bands >= 0)
        return std::max<uint32_t>(1, std::min<uint32_t>(x.forced_bands, j.ref.height / 8));
    // Workers with nothing to do (this one counted busy) beyond the queued work share this
    // frame.
    const size_t taken = x.busy + x.queue.size();
    const size_t spare = x.workers_n > taken ? x.workers_n - taken : 0;
    return uint32_t(std::min<size_t>(most, 1 + spare));
}

bool WorstPictures::finish_job(size_t k) {
    Early &x = *early_;
    x.done[k] = 1;
    if (!x.final || !x.kept.count(x.jobs[k].frame)) return false;
    x.written[k] = 1;
    return true;
}

void WorstPictures::early_band(VifContext *ctx, size_t c, const Item &it, MapWriter &out) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) {
        return std::chrono::duration<double>(Clock::now() - t).count();
    };
    Early &x = *early_;
    Job j;
    {
        std::lock_guard<std::mutex> lock(x.mu);
        j = x.jobs[it.k];
    }
    const uint32_t h = j.ref.height;
    uint32_t first = 0, end = 0;
    band_rows(h, it.band, it.bands, &first, &end);
    const uint32_t top = first >= kBandHalo ? first - kBandHalo : 0;
    const uint32_t bottom = std::min(h, end + kBandHalo);
    VifPicture r = j.ref, d = j.dist;
    const ptrdiff_t skip = ptrdiff_t(top) * r.stride;
    r.data = static_cast<const uint8_t *>(r.data) + skip;
    d.data = static_cast<const uint8_t *>(d.data) + ptrdiff_t(top) * d.stride;
    r.height = d.height = bottom - top;
    map_trace("early ctx %zu frame %llu band %u/%u: scoring", c, (unsigned long long)j.frame,
              it.band, it.bands);
    const auto waiting = Clock::now();
    VifStatus st = vif_submit(ctx, &r, &d, nullptr);
    VifScores s;
    VifMaps m;
    if (st == VIF_OK) st = vif_receive_maps(ctx, &s, &m, 1);
    if (st != VIF_OK) throw Failure{vif_error("--map: mapping the worst frames", st)};
    x.spent[c].scoring += since(waiting);
    map_trace("early ctx %zu frame %llu band %u/%u: scored", c, (unsigned long long)j.frame,
              it.band, it.bands);
    MapWriter::Kept *k = nullptr;
    uint32_t parts = 1;
    {
        // The frame's buffers, made by the worker that split it (while this band was scored).
        std::unique_lock<std::mutex> lock(x.mu);
        x.cv.wait(lock, [&] { return x.ready[it.k] || !x.error.empty(); });
        if (!x.error.empty()) return;
        k = &x.held[it.k]; // a deque's element: stays where it is
        // After the last frame with no band left to take, cores are idle: this band's local
        // maps on this worker's share of them (the last bands' local maps were ~3 ms of the
        // 720p tail on one thread).
        if (x.final && x.queue.empty()) {
            const size_t cores = std::max(1u, std::thread::hardware_concurrency());
            const size_t busy = std::max<size_t>(1, x.busy);
            parts = uint32_t(std::min<size_t>(kMostLocalMapParts, cores / busy));
        }
        if (x.local_parts > 0) parts = x.local_parts; // VIF_MAP_LOCAL_PARTS (the tests)
    }
    const auto computing = Clock::now();
    hold_rows_in_parts(out, m, top, first, end, parts, *k); // its own rows only: no lock
    x.spent[c].local_maps += since(computing);
    map_trace("early ctx %zu frame %llu band %u/%u: local maps done", c,
              (unsigned long long)j.frame, it.band, it.bands);
    bool write = false;
    MapWriter::Kept whole;
    {
        std::lock_guard<std::mutex> lock(x.mu);
        if (--x.bands_left[it.k] == 0 && finish_job(it.k)) {
            write = true;
            whole = std::move(x.held[it.k]);
        }
    }
    if (write) out.put_held(std::move(whole));
}

void WorstPictures::hold_rows_in_parts(MapWriter &out, const VifMaps &m, uint32_t top,
                                       uint32_t first, uint32_t end, uint32_t parts,
                                       MapWriter::Kept &k) {
    // Parts of whole rows of scale 3 (multiples of 8 rows), each its own rows of each scale:
    // hold_rows of [a, b) and [b, c) write the rows of [a, c) once each.
    std::vector<uint32_t> edges{first};
    for (uint32_t p = 1; p < parts; ++p) {
        const uint32_t e = (first + uint32_t(uint64_t(end - first) * p / parts)) & ~7u;
        if (e > edges.back() && e < end) edges.push_back(e);
    }
    edges.push_back(end);
    std::vector<std::thread> threads;
    std::vector<std::string> failures(edges.size() - 1);
    auto one = [&](size_t i) {
        try {
            out.hold_rows(m, top, edges[i], edges[i + 1], k);
        } catch (const Failure &f) {
            failures[i] = f.message;
        } catch (const std::exception &e) {
            failures[i] = std::string("--map: the local VIF map: ") + e.what();
        }
    };
    size_t i = 1;
    try {
        for (; i + 1 < edges.size(); ++i) threads.emplace_back(one, i);
    } catch (const std::system_error &) { // no thread to spare: the rest here
        for (; i + 1 < edges.size(); ++i) one(i);
    }
    one(0);
    for (std::thread &t : threads) t.join();
    for (const std::string &f : failures)
        if (!f.empty()) throw Failure{f};
}

void WorstPictures::early_worker(VifContext *ctx, size_t c, MapWriter &out) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) {
        return std::chrono::duration<double>(Clock::now() - t).count();
    };
    Early &x = *early_;
    bool did_one = false, busy = false;
    for (;;) {
        Item it;
        Job j;
        uint32_t split = 1;
        {
            std::unique_lock<std::mutex> lock(x.mu);
            if (busy) --x.busy; // the last item is done
            busy = false;
            x.cv.wait(lock, [&] { return !x.queue.empty() || x.closed || !x.error.empty(); });
            if (x.queue.empty() || !x.error.empty()) return; // closed, or a failure
            it = x.queue.front();
            x.queue.pop_front();
            if (!x.kept.count(x.jobs[it.k].frame)) continue; // left the N worst before its turn
            ++x.busy;
            busy = true;
            j = x.jobs[it.k];
            if (it.bands == 1) {
                split = bands_for(j);
                if (split > 1) { // this worker takes band 0; the others go first in the queue
                    ++x.split;
                    x.bands_left[it.k] = split;
                    for (uint32_t b = split - 1; b >= 1; --b) x.queue.push_front({it.k, b, split});
                    it.bands = split;
                }
            }
        }
        if (split > 1) x.cv.notify_all();
        try {
            if (did_one) release_maps(ctx, j);
            did_one = true;
            if (split > 1) { // the frame's buffers, for every band's rows
                MapWriter::Kept blank = out.blank(j.frame, j.ref.width, j.ref.height);
                {
                    std::lock_guard<std::mutex> lock(x.mu);
                    x.held[it.k] = std::move(blank);
                    x.ready[it.k] = 1;
                }
                x.cv.notify_all();
            }
            if (it.bands > 1) {
                early_band(ctx, c, it, out);
                continue;
            }
            map_trace("early ctx %zu frame %llu: scoring", c, (unsigned long long)j.frame);
            const auto waiting = Clock::now();
            VifStatus st = vif_submit(ctx, &j.ref, &j.dist, nullptr);
            VifScores s;
            VifMaps m;
            if (st == VIF_OK) st = vif_receive_maps(ctx, &s, &m, 1);
            if (st != VIF_OK) throw Failure{vif_error("--map: mapping the worst frames", st)};
            x.spent[c].scoring += since(waiting);
            if (!same_scores(s, j.scores))
                throw Failure{fmt::format("internal error: --map: frame {} scored again with "
                                          "maps does not get its scores; no maps written",
                                          j.frame)};
            // Its local maps on its share of the cores, or once every frame is scored on those
            // of the workers with nothing to do too.
            unsigned threads = x.threads;
            {
                std::lock_guard<std::mutex> lock(x.mu);
                const size_t taken = x.busy + x.queue.size();
                if (x.final && x.workers_n > taken)
                    threads = std::max<unsigned>(threads, unsigned(1 + x.workers_n - taken));
            }
            map_trace("early ctx %zu frame %llu: scored; local maps on %u threads", c,
                      (unsigned long long)j.frame, threads);
            const auto computing = Clock::now();
            MapWriter::Kept held = out.hold(m, j.frame, threads);
            x.spent[c].local_maps += since(computing);
            map_trace("early ctx %zu frame %llu: local maps done", c, (unsigned long long)j.frame);
            bool write = false;
            {
                std::lock_guard<std::mutex> lock(x.mu);
                write = finish_job(it.k);
                if (!write) x.held[it.k] = std::move(held);
            }
            if (write) out.put_held(std::move(held));
        } catch (const Failure &f) {
            {
                std::lock_guard<std::mutex> lock(x.mu);
                if (x.error.empty()) x.error = f.message;
            }
            x.cv.notify_all();
            return;
        } catch (const std::exception &e) {
            {
                std::lock_guard<std::mutex> lock(x.mu);
                if (x.error.empty())
                    x.error = fmt::format("--map: mapping the worst frames: {}", e.what());
            }
            x.cv.notify_all();
            return;
        }
    }
}

void WorstPictures::join_early() {
    if (!early_) return;
    {
        std::lock_guard<std::mutex> lock(early_->mu);
        early_->closed = true;
    }
    early_->cv.notify_all();
    if (early_->launcher.joinable()) early_->launcher.join();
}

void WorstPictures::write_maps(MapContexts &made, MapWriter &out) {
    spare_.clear();
    std::vector<Job> todo = jobs();
    if (early_) {
        Early &x = *early_;
        // Every frame is scored: the N worst are known. Those whose maps are held go to the
        // writers now, those done from here on as they finish (finish_job), while the rest are
        // scored (split into bands where workers are idle).
        std::vector<MapWriter::Kept> now;
        {
            std::lock_guard<std::mutex> lock(x.mu);
            x.final = true;
            for (size_t k = 0; k < x.jobs.size(); ++k)
                if (x.done[k] && !x.written[k] && x.kept.count(x.jobs[k].frame)) {
                    x.written[k] = 1;
                    now.push_back(std::move(x.held[k]));
                }
        }
        x.cv.notify_all();
        map_trace("write_maps: every frame scored, %zu frames' maps held go to the writers",
                  now.size());
        std::string failure;
        for (MapWriter::Kept &k : now) {
            try {
                out.put_held(std::move(k));
            } catch (const Failure &f) {
                failure = f.message;
                break;
            }
        }
        join_early();
        map_trace("write_maps: early workers joined");
        if (!x.error.empty()) throw Failure{x.error};
        if (!failure.empty()) throw Failure{failure};
        // Frames scored again and written; the others' maps dropped.
        std::unordered_map<uint64_t, size_t> by_frame;
        for (size_t k = 0; k < x.jobs.size(); ++k)
            if (x.done[k]) by_frame[x.jobs[k].frame] = k;
        std::vector<Job> rest;
        size_t scored_early = 0;
        for (const Job &j : todo)
            if (!by_frame.count(j.frame)) rest.push_back(j);
        for (size_t k = 0; k < x.jobs.size(); ++k) {
            scored_early += x.done[k] ? 1 : 0;
            // (a frame split into bands that left the N worst before all were scored too)
            if ((x.done[k] || x.ready[k]) && !x.written[k]) out.drop_held(std::move(x.held[k]));
        }
        if (verbose_) {
            Spent most;
            for (const Spent &c : x.spent) {
                most.scoring = std::max(most.scoring, c.scoring);
                most.local_maps = std::max(most.local_maps, c.local_maps);
            }
            print("early (while the last frames were scored)", scored_early, x.spent.size(),
                  x.threads, most);
            std::fprintf(stderr,
                         "vif: worst frames: %zu entered the worst while the last frames were "
                         "scored; %zu of those still among the worst, %zu scored again after "
                         "the last frame\n",
                         x.entered, todo.size() - rest.size(), rest.size());
            std::fprintf(stderr, "vif: worst frames: %zu split into bands of rows\n", x.split);
        }
        todo = std::move(rest);
        early_.reset();
    }
    if (!todo.empty()) {
        const std::vector<VifContext *> &ctxs = made.get();
        unsigned threads = 1;
        const Spent most =
            map_on(ctxs, todo, &threads, [&](const Job &j, const VifMaps &m, unsigned t) {
                double computing = 0;
                out.put(m, j.frame, t, &computing);
                return computing;
            });
        print("after the last frame", todo.size(), std::min(todo.size(), ctxs.size()), threads,
              most);
    }
    heap_.clear();
}

} // namespace vifcli
