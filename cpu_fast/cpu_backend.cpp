// The CPU backend: a ring of frame slots and one worker thread per configured thread, each with
// its own VIF engine (scratch buffers): a fast scorer of cpu_fast/, or the plain reference of
// cpu_ref/ when Params::cpu.reference asks for it (tests). Frames are independent, so scoring them in parallel gives
// the same bits as scoring them one by one; results leave in submission order. A slot holds one
// reference and one or more distorted planes (vif_submit_multi: a ladder's rungs), scored by one
// worker that computes the reference's share once.
#include <algorithm>
#include <cerrno>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "core/backend.hpp"
#include "cpu_fast/cpu_fast.hpp"
#include "cpu_ref/cpu_ref.hpp"
#include "core/sample_range.hpp"
#include "core/vif_constants.hpp"

namespace vif {
namespace {

struct Slot {
    enum class State { kFree, kQueued, kRunning, kDone };
    State state = State::kFree;
    // Copied planes, tightly packed. Not zeroed at create: a fresh context touches only the
    // slots it uses (zeroing 18 slots of 2160p took 0.3 s of start-up). dists[0] exists from
    // create; further ones are allocated the first time a multi submission needs them.
    std::unique_ptr<uint8_t[]> ref;
    std::vector<std::unique_ptr<uint8_t[]>> dists;
    uint32_t width = 0, height = 0;
    size_t count = 1;    // distorted planes in use
    size_t received = 0; // results already taken by receive()
    std::vector<FrameRaw> results;
};

class CpuBackend final : public Backend {
public:
    CpuBackend(const Params& p, size_t threads, size_t depth) : params_(p), slots_(depth) {
        const size_t bytes =
            static_cast<size_t>(p.max_width) * p.max_height * (p.bitdepth == 8 ? 1 : 2);
        plane_bytes_ = bytes;
        for (Slot& s : slots_) {
            s.ref.reset(new uint8_t[bytes]);
            s.dists.emplace_back(new uint8_t[bytes]);
            s.results.resize(1);
        }
        build_engines(threads);
        if (p.maps) {
            map_pool_->put(frame_maps_in_memory());
            // And the first slot's pictures (the first frame's copy), for the same reason.
            std::memset(slots_[0].ref.get(), 0, bytes);
            std::memset(slots_[0].dists[0].get(), 0, bytes);
        }
        for (size_t t = 0; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
    }

    ~CpuBackend() override {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_work_.notify_all();
        for (auto& w : workers_) w.join();
    }

    const char* name() const override { return "cpu"; }

    Status submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) override {
        return submit_multi(ref, &dist, 1, index);
    }

    Status submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                        uint64_t index) override {
        Slot* slot;
        {
            std::lock_guard<std::mutex> lock(mu_);
            // Every slot holds a frame not yet received (being scored or done): waiting here
            // could wait on the caller itself, so say so at once (the rule of vif.h).
            if (tail_ - head_ == slots_.size())
                return {VIF_AGAIN, "queue full: receive scores before submitting more frames"};
            // Frame tail_ - slots_.size() used this slot and has been received: it is free.
            slot = &slots_[tail_ % slots_.size()];
        }
        // The slot is ours until it is queued: grow it and copy outside the lock. On an error
        // it stays free.
        try {
            while (slot->dists.size() < count) slot->dists.emplace_back(new uint8_t[plane_bytes_]);
            if (slot->results.size() < count) slot->results.resize(count);
        } catch (const std::bad_alloc&) {
            return {VIF_ERROR_OUT_OF_MEMORY, "cpu backend: out of memory for distorted planes"};
        }
        if (Status e = copy_plane(ref, slot->ref.get(), index, "reference")) return e;
        for (size_t k = 0; k < count; ++k) {
            if (Status e = copy_plane(dists[k], slot->dists[k].get(), index + k,
                                      count == 1 ? "distorted" : "distorted picture of a ladder"))
                return e;
            slot->results[k].index = index + k;
        }
        slot->width = ref.width;
        slot->height = ref.height;
        slot->count = count;
        slot->received = 0;
        {
            std::lock_guard<std::mutex> lock(mu_);
            slot->state = Slot::State::kQueued;
            ++tail_;
            unreceived_ += count;
        }
        cv_work_.notify_one();
        return {};
    }

    Status receive(FrameRaw* out, bool block) override {
        std::unique_lock<std::mutex> lock(mu_);
        if (head_ == tail_) return {VIF_AGAIN, "no frame pending"};
        Slot& slot = slots_[head_ % slots_.size()];
        if (slot.state != Slot::State::kDone) {
            if (!block) return {VIF_AGAIN, "scores not ready"};
            cv_done_.wait(lock, [&] { return slot.state == Slot::State::kDone; });
        }
        *out = slot.results[slot.received];
        slot.results[slot.received++].maps.reset(); // the receiver owns the maps now
        --unreceived_;
        if (slot.received < slot.count) return {};
        slot.state = Slot::State::kFree;
        ++head_;
        lock.unlock();
        cv_done_.notify_all();
        return {};
    }

    size_t pending() const override {
        std::lock_guard<std::mutex> lock(mu_);
        return unreceived_;
    }

private:
    // One engine per worker, built on as many threads at once: each allocates and clears its
    // scratch images, which on one thread took most of the start-up at 2160p.
    void build_engines(size_t n) {
        engines_.resize(n);
        std::atomic<bool> failed{false};
        std::vector<std::thread> builders;
        auto join_all = [&] {
            for (auto& b : builders) b.join();
        };
        try {
            for (size_t t = 0; t < n; ++t)
                builders.emplace_back([this, t, &failed] {
                    try {
                        engines_[t] = make_engine();
                    } catch (...) {
                        failed = true;
                    }
                });
        } catch (...) {
            join_all();
            throw;
        }
        join_all();
        if (failed) throw std::bad_alloc();
    }

    std::unique_ptr<cpu_ref::FrameScorer> make_engine() const {
        const int w = static_cast<int>(params_.max_width), h = static_cast<int>(params_.max_height);
        const int bpc = static_cast<int>(params_.bitdepth);
        const bool integer = params_.variant == VIF_VARIANT_INTEGER;
        // Maps (Params::maps): every scorer has compute_maps (the fast ones give the reference's
        // bits, tests/unit/isa_test.cpp).
        if (params_.cpu.reference)
            return integer
                       ? cpu_ref::make_integer(w, h, bpc, params_.gain_limit)
                       : cpu_ref::make_float(w, h, bpc, params_.gain_limit, params_.kernelscale);
        if (integer) return cpu_fast::make_integer_scorer(w, h, bpc, params_.gain_limit);
        return cpu_fast::make_float_scorer(w, h, bpc, params_.gain_limit, params_.kernelscale);
    }

    // Packs a plane into a slot; plain 10/12-bit words are OR-ed as they are copied, to catch
    // samples above the bit depth.
    Status copy_plane(const HostPlane& p, uint8_t* dst, uint64_t index, const char* which) const {
        const size_t bps = params_.bitdepth == 8 ? 1 : 2;
        const size_t row = p.width * bps;
        const auto* src = static_cast<const uint8_t*>(p.data);
        if (!p.msb_aligned) {
            const bool check = samples_can_exceed(params_.bitdepth, false);
            uint32_t acc = 0;
            for (uint32_t i = 0; i < p.height; ++i) {
                const uint8_t* s = src + static_cast<ptrdiff_t>(i) * p.stride;
                if (check)
                    acc |= copy_and_or_words(dst + i * row, s, p.width);
                else
                    std::memcpy(dst + i * row, s, row);
            }
            if (acc >> params_.bitdepth)
                return find_sample_above(dst, static_cast<ptrdiff_t>(row), p.width, p.height,
                                         params_.bitdepth, index, which);
            return {};
        }
        const int shift = 16 - static_cast<int>(params_.bitdepth);
        for (uint32_t i = 0; i < p.height; ++i) {
            uint16_t* d = reinterpret_cast<uint16_t*>(dst + i * row);
            const uint8_t* s = src + static_cast<ptrdiff_t>(i) * p.stride;
            for (uint32_t j = 0; j < p.width; ++j) {
                uint16_t v;
                std::memcpy(&v, s + 2 * j, 2);
                d[j] = static_cast<uint16_t>(v >> shift);
            }
        }
        return {};
    }

    void work(size_t t) {
#if defined(__linux__)
        if (params_.cpu.worker_nice != 0) { // this thread only (Linux's nice is per thread)
            const id_t tid = static_cast<id_t>(syscall(SYS_gettid));
            errno = 0;
            const int now = getpriority(PRIO_PROCESS, tid);
            if (errno == 0) (void)setpriority(PRIO_PROCESS, tid, now + params_.cpu.worker_nice);
        }
#endif
        cpu_ref::FrameScorer& engine = *engines_[t];
        for (;;) {
            Slot* slot = nullptr;
            {
                std::unique_lock<std::mutex> lock(mu_);
                cv_work_.wait(lock, [&] { return stop_ || next_ != tail_; });
                if (next_ == tail_) return; // stopping and nothing queued
                slot = &slots_[next_ % slots_.size()];
                slot->state = Slot::State::kRunning;
                ++next_;
            }
            const ptrdiff_t stride =
                static_cast<ptrdiff_t>(slot->width) * (params_.bitdepth == 8 ? 1 : 2);
            const int w = static_cast<int>(slot->width), h = static_cast<int>(slot->height);
            cpu_ref::Plane dists[kMaxDistorted];
            ScaleRaw raw[kMaxDistorted][kNumScales];
            for (size_t k = 0; k < slot->count; ++k)
                dists[k] = cpu_ref::Plane{slot->dists[k].get(), stride, w, h};
            const cpu_ref::Plane ref{slot->ref.get(), stride, w, h};
            if (params_.maps)
                compute_maps(engine, ref, dists, *slot, raw);
            else
                engine.compute_multi(ref, dists, slot->count, raw);
            for (size_t k = 0; k < slot->count; ++k)
                std::copy(raw[k], raw[k] + kNumScales, slot->results[k].scale);
            {
                std::lock_guard<std::mutex> lock(mu_);
                slot->state = Slot::State::kDone;
            }
            cv_done_.notify_all();
        }
    }

    // Each pair with its per-pixel terms (docs/algorithm.md §12) into maps handed to the frame's
    // result. The maps come from a pool: a frame's maps go back to it when the receiver drops
    // them, so a run reuses a few sets instead of allocating (and faulting in) 16 bytes a pixel
    // per frame. Only contexts created with maps have one.
    void compute_maps(cpu_ref::FrameScorer& engine, const cpu_ref::Plane& ref,
                      const cpu_ref::Plane* dists, Slot& slot, ScaleRaw (*raw)[kNumScales]) {
        for (size_t k = 0; k < slot.count; ++k) {
            std::shared_ptr<FrameMaps> maps = map_pool_->take();
            engine.compute_maps(ref, dists[k], raw[k], *maps);
            slot.results[k].maps = std::move(maps);
        }
    }

    // One set of frame maps at the largest size, its memory written now: the first frame's
    // maps do not wait for 16 bytes a pixel of fresh pages (a context made ahead of its frames,
    // as vif's worst:N rescoring makes them, pays for that while it waits). The scorers resize
    // the arrays to each frame's scales, within this capacity.
    // Its arrays ask for transparent huge pages where the system gives them on request (Linux's
    // "madvise" setting): a fault and a clear per 2 MB instead of per 4 KB page. 16 bytes a
    // pixel of 4 KB pages took 0.37 ms a MB to fault in here (24 MB at 720p, integer), and vif's
    // worst:N makes a set per rescoring context, many at once.
    template <typename T>
    static void resize_on_huge_pages(std::vector<T>& v, size_t n) {
        v.reserve(n); // not written yet: the advice applies to the pages' first faults
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        constexpr uintptr_t kHuge = uintptr_t(2) << 20;
        const uintptr_t b = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
        const uintptr_t e = reinterpret_cast<uintptr_t>(v.data() + n) & ~(kHuge - 1);
        if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#endif
        v.resize(n);
    }

    std::unique_ptr<FrameMaps> frame_maps_in_memory() const {
        auto m = std::make_unique<FrameMaps>();
        size_t w = params_.max_width, h = params_.max_height;
        for (ScaleMap& sm : m->scale) {
            if (params_.variant == VIF_VARIANT_INTEGER) {
                for (auto* v : {&sm.nl, &sm.dl, &sm.nn, &sm.dn}) resize_on_huge_pages(*v, w * h);
            } else {
                for (auto* v : {&sm.num, &sm.den}) resize_on_huge_pages(*v, w * h);
            }
            w /= 2; // each scale is the previous one's halves, rounded down
            h /= 2;
        }
        return m;
    }

    // Frame maps not in use. Shared with the maps handed out, whose deleter puts them back, so
    // that maps received before vif_destroy outlive the backend.
    class MapPool : public std::enable_shared_from_this<MapPool> {
    public:
        std::shared_ptr<FrameMaps> take() {
            std::unique_ptr<FrameMaps> m;
            {
                std::lock_guard<std::mutex> lock(mu_);
                if (!free_.empty()) {
                    m = std::move(free_.back());
                    free_.pop_back();
                }
            }
            if (!m) m = std::make_unique<FrameMaps>();
            std::weak_ptr<MapPool> pool = weak_from_this();
            return std::shared_ptr<FrameMaps>(m.release(), [pool](FrameMaps* p) {
                std::unique_ptr<FrameMaps> owned(p);
                if (auto alive = pool.lock()) alive->put(std::move(owned));
            });
        }

        void put(std::unique_ptr<FrameMaps> m) {
            std::lock_guard<std::mutex> lock(mu_);
            free_.push_back(std::move(m));
        }

    private:
        std::mutex mu_;
        std::vector<std::unique_ptr<FrameMaps>> free_;
    };

    Params params_;
    size_t plane_bytes_ = 0;
    std::vector<Slot> slots_;
    std::vector<std::unique_ptr<cpu_ref::FrameScorer>> engines_;
    std::shared_ptr<MapPool> map_pool_ = std::make_shared<MapPool>();
    std::vector<std::thread> workers_;
    mutable std::mutex mu_;
    std::condition_variable cv_work_, cv_done_;
    uint64_t head_ = 0;     // next slot to receive
    uint64_t next_ = 0;     // next slot a worker takes
    uint64_t tail_ = 0;     // next slot to fill
    size_t unreceived_ = 0; // results queued and not yet received (a slot may hold several)
    bool stop_ = false;
};

} // namespace

std::unique_ptr<Backend> create_cpu_backend(const Params& p, Status* err) {
    size_t threads = p.threads ? p.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<size_t>(threads, 256);
    const size_t depth = p.queue_depth ? p.queue_depth : threads + 2;
    try {
        return std::make_unique<CpuBackend>(p, threads, std::max(depth, threads));
    } catch (const std::bad_alloc&) {
        *err = {VIF_ERROR_OUT_OF_MEMORY, "cpu backend: out of memory allocating frame buffers"};
    } catch (const std::system_error& e) {
        *err = {VIF_ERROR_INTERNAL, std::string("cpu backend: cannot start threads: ") + e.what()};
    }
    return nullptr;
}

} // namespace vif
