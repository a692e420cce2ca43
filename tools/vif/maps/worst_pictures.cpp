#include "maps/worst_pictures.hpp"

#include "maps/map_contexts.hpp"
#include "maps/map_writer.hpp"
#include "pair/failure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

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

} // namespace

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
    if (heap_.size() == n_) {
        const Entry &top = heap_.front();
        if (!drop_first(e.scores, e.frame, top.scores, top.frame)) { // not among the N worst
            spare_.push_back(std::move(e));
            return;
        }
        std::pop_heap(heap_.begin(), heap_.end(), less);
        spare_.push_back(std::move(heap_.back()));
        heap_.pop_back();
    }
    heap_.push_back(std::move(e));
    std::push_heap(heap_.begin(), heap_.end(), less);
}

void WorstPictures::map_frames(VifContext *ctx, size_t first, size_t stride, unsigned threads,
                               MapWriter &out, Spent &spent) const {
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
        const Entry &e = heap_[next_out];
        next_out += stride;
        if (!same_scores(s, e.scores))
            throw Failure{fmt::format("internal error: --map: frame {} scored again with maps "
                                      "does not get its scores; no maps written",
                                      e.frame)};
        const auto putting = Clock::now();
        double computing = 0;
        out.put(m, e.frame, threads, &computing);
        spent.local_maps += computing;
        spent.queue += since(putting) - computing;
    };
    while (next_in < heap_.size()) {
        const VifPicture r = heap_[next_in].ref.view(), d = heap_[next_in].dist.view();
        st = vif_submit(ctx, &r, &d, nullptr);
        if (st == VIF_OK) {
            next_in += stride;
        } else if (st == VIF_AGAIN) {
            receive_one();
        } else {
            throw Failure{vif_error("--map: mapping the worst frames", st)};
        }
    }
    while (next_out < heap_.size()) receive_one();
}

void WorstPictures::write_maps(MapContexts &made, MapWriter &out) {
    spare_.clear();
    const std::vector<VifContext *> &ctxs = made.get();
    std::sort(heap_.begin(), heap_.end(),
              [](const Entry &a, const Entry &b) { return a.frame < b.frame; });
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t contexts = std::max<size_t>(1, std::min(heap_.size(), ctxs.size()));
    // Each context's share of the cores for its frames' local maps (bands of rows need buffers
    // of their own: with a core or so a context, one call each).
    const unsigned threads = std::max(1u, unsigned(cores / contexts));
    std::vector<Spent> spent(contexts);
    if (contexts == 1) {
        map_frames(ctxs[0], 0, 1, threads, out, spent[0]);
    } else {
        std::vector<std::string> failures(contexts);
        std::vector<std::thread> pool;
        for (size_t c = 0; c < contexts; ++c)
            pool.emplace_back([&, c] {
                try {
                    map_frames(ctxs[c], c, contexts, threads, out, spent[c]);
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
    if (verbose_) {
        Spent most;
        for (const Spent &c : spent) {
            most.scoring = std::max(most.scoring, c.scoring);
            most.local_maps = std::max(most.local_maps, c.local_maps);
            most.queue = std::max(most.queue, c.queue);
        }
        std::fprintf(stderr,
                     "vif: worst frames: %zu scored again on %zu contexts (%u threads each for "
                     "local maps); the longest waits for maps %.1f ms, local maps %.1f ms, "
                     "writers' queue %.1f ms\n",
                     heap_.size(), contexts, threads, most.scoring * 1e3, most.local_maps * 1e3,
                     most.queue * 1e3);
    }
    heap_.clear();
}

} // namespace vifcli
