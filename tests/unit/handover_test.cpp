// The `auto` backend's hand-over (libvif/src/core/handover_backend.hpp), without a GPU: the later
// backend is a second CPU backend whose start-up the test holds back until it chooses, so the
// hand-over falls between two given frames with frames still in flight on the first backend.
// The expected scores come from one plain reference backend (cpu_ref's scorers) over the whole
// stream: the hand-over must give the same raw sums (and maps) to the bit, in submission order,
// for pairs and for vif_submit_multi ladders, whenever the caller drains.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/checks.hpp"
#include "core/backend.hpp"
#include "core/handover_backend.hpp"
#include "vif/vif.h"

namespace {

constexpr uint32_t kW = 128, kH = 96;

vif::Params params_for(VifVariant variant, uint32_t bitdepth, bool reference, bool maps = false) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = kW;
    cfg.max_height = kH;
    cfg.bitdepth = bitdepth;
    cfg.variant = variant;
    cfg.threads = 3;
    cfg.maps = maps ? 1 : 0;
    vif::Params p;
    EXPECT_EQ(vif::params_from_config(cfg, &p), VIF_OK) << vif_last_error();
    p.cpu.reference = reference;
    return p;
}

// A picture with structure at every scale and a distorted copy with noise of its own:
// `seed` makes each frame different.
struct Frame {
    std::vector<uint16_t> ref, dist;
};

Frame make_frame(uint32_t seed, uint32_t bitdepth) {
    Frame f;
    f.ref.resize(size_t(kW) * kH);
    f.dist.resize(f.ref.size());
    uint32_t s = seed * 2654435761u + 1;
    auto rnd = [&] { return (s = s * 1664525u + 1013904223u) >> 24; };
    const uint32_t maxv = (1u << bitdepth) - 1;
    const uint32_t scale = 1u << (bitdepth - 8);
    for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
            const uint32_t base = ((x * 3 + y * 2 + seed * 7) % 200 + rnd() % 40) * scale;
            const uint32_t r = std::min(base, maxv);
            const int32_t d = int32_t(r) + (int32_t(rnd() % 21) - 10) * int32_t(scale);
            f.ref[size_t(y) * kW + x] = uint16_t(r);
            f.dist[size_t(y) * kW + x] = uint16_t(std::clamp<int32_t>(d, 0, int32_t(maxv)));
        }
    return f;
}

// 8-bit planes are one byte a sample: the frames are kept as 16-bit words and narrowed here.
struct Planes {
    std::vector<uint8_t> ref, dist;
    vif::HostPlane ref_plane() const { return plane(ref); }
    vif::HostPlane dist_plane() const { return plane(dist); }
    uint32_t bytes = 1;
    vif::HostPlane plane(const std::vector<uint8_t>& v) const {
        return vif::HostPlane{v.data(), ptrdiff_t(kW * bytes), kW, kH, false};
    }
};

Planes planes_of(const Frame& f, uint32_t bitdepth) {
    Planes p;
    p.bytes = bitdepth == 8 ? 1 : 2;
    auto narrow = [&](const std::vector<uint16_t>& in, std::vector<uint8_t>& out) {
        out.resize(in.size() * p.bytes);
        if (p.bytes == 2) {
            std::memcpy(out.data(), in.data(), out.size());
        } else {
            for (size_t i = 0; i < in.size(); ++i) out[i] = uint8_t(in[i]);
        }
    };
    narrow(f.ref, p.ref);
    narrow(f.dist, p.dist);
    return p;
}

// What the test sees of the later backend.
struct LateLog {
    std::atomic<int> frames{0};
    std::atomic<bool> made{false}, destroyed{false};
};

// The later backend: a CPU backend that says "late" and counts the frames it took.
class LateBackend final : public vif::Backend {
public:
    LateBackend(std::unique_ptr<vif::Backend> inner, std::shared_ptr<LateLog> log)
        : inner_(std::move(inner)), log_(std::move(log)) {
        log_->made = true;
    }
    ~LateBackend() override { log_->destroyed = true; }
    const char* name() const override { return "late"; }
    vif::Status submit(const vif::HostPlane& r, const vif::HostPlane& d, uint64_t i) override {
        vif::Status e = inner_->submit(r, d, i);
        if (e.status == VIF_OK) ++log_->frames;
        return e;
    }
    vif::Status submit_multi(const vif::HostPlane& r, const vif::HostPlane* d, size_t n,
                             uint64_t i) override {
        vif::Status e = inner_->submit_multi(r, d, n, i);
        if (e.status == VIF_OK) log_->frames += int(n);
        return e;
    }
    vif::Status receive(vif::FrameRaw* out, bool block) override {
        return inner_->receive(out, block);
    }
    size_t pending() const override { return inner_->pending(); }
    size_t capacity() const override { return inner_->capacity(); }

private:
    std::unique_ptr<vif::Backend> inner_;
    std::shared_ptr<LateLog> log_;
};

// A hand-over backend whose later backend starts when `open()` is called (or fails to, with
// `fail_start`). The start-up polls StartControl while it waits (the real one asks between its
// steps), so that a context destroyed meanwhile is not held up.
struct Rig {
    std::shared_ptr<std::atomic<bool>> gate = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<LateLog> log = std::make_shared<LateLog>();
    std::unique_ptr<vif::HandoverBackend> backend;

    explicit Rig(const vif::Params& p, bool fail_start = false, size_t early_results = 0,
                 uint32_t later_queue = 0) {
        vif::Status err;
        auto first = vif::create_cpu_backend(p, &err);
        EXPECT_TRUE(first) << err.message;
        vif::HandoverOptions opts;
        opts.early_results = early_results;
        vif::Params lp = p;
        lp.queue_depth = later_queue;
        backend = std::make_unique<vif::HandoverBackend>(
            std::move(first),
            [lp, gate = gate, fail_start,
             log = log](vif::StartControl& ctl, vif::Status* e) -> std::unique_ptr<vif::Backend> {
                while (!gate->load()) {
                    if (ctl.cancelled()) return nullptr;
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                if (fail_start) {
                    *e = {VIF_ERROR_NO_DEVICE, "test: no late backend"};
                    return nullptr;
                }
                auto inner = vif::create_cpu_backend(lp, e);
                if (!inner) return nullptr;
                return std::make_unique<LateBackend>(std::move(inner), log);
            },
            opts);
    }
    void open() { gate->store(true); }
    int late_frames() const { return log->frames.load(); }
};

// Submits with the rule of vif.h: on VIF_AGAIN, receive the oldest frame and try again.
// Returns how many times the queue was full.
int submit_or_drain(vif::Backend& b, const Planes& p, uint64_t index,
                    std::vector<vif::FrameRaw>* got) {
    int full = 0;
    for (;;) {
        const vif::Status e = b.submit(p.ref_plane(), p.dist_plane(), index);
        if (e.status != VIF_AGAIN) {
            EXPECT_EQ(e.status, VIF_OK) << e.message;
            return full;
        }
        ++full;
        vif::FrameRaw r;
        const vif::Status g = b.receive(&r, true);
        EXPECT_EQ(g.status, VIF_OK) << g.message;
        if (g.status != VIF_OK) return full;
        got->push_back(r);
    }
}

void drain(vif::Backend& b, std::vector<vif::FrameRaw>* got) {
    while (b.pending()) {
        vif::FrameRaw r;
        const vif::Status e = b.receive(&r, true);
        ASSERT_EQ(e.status, VIF_OK) << e.message;
        got->push_back(r);
    }
}

void expect_same_maps(const vif::FrameMaps& a, const vif::FrameMaps& b, size_t frame) {
    for (int s = 0; s < VIF_NUM_SCALES; ++s) {
        const vif::ScaleMap &x = a.scale[s], &y = b.scale[s];
        EXPECT_EQ(x.width, y.width);
        EXPECT_EQ(x.height, y.height);
        EXPECT_TRUE(x.nl == y.nl && x.dl == y.dl && x.nn == y.nn && x.dn == y.dn)
            << "integer map terms of frame " << frame << " scale " << s;
        EXPECT_EQ(x.num.size(), y.num.size());
        EXPECT_EQ(x.den.size(), y.den.size());
        if (x.num.size() == y.num.size() && !x.num.empty()) {
            EXPECT_EQ(std::memcmp(x.num.data(), y.num.data(), x.num.size() * sizeof(float)), 0)
                << "float map terms of frame " << frame << " scale " << s;
        }
        if (x.den.size() == y.den.size() && !x.den.empty()) {
            EXPECT_EQ(std::memcmp(x.den.data(), y.den.data(), x.den.size() * sizeof(float)), 0)
                << "float map terms of frame " << frame << " scale " << s;
        }
    }
}

void expect_same(const std::vector<vif::FrameRaw>& got, const std::vector<vif::FrameRaw>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].index, i) << "frames left out of submission order";
        EXPECT_EQ(want[i].index, i);
        // Frames with something to score: sums that a lost or swapped frame would change.
        EXPECT_TRUE(want[i].scale[0].dl > 0 || want[i].scale[0].den > 0) << "frame " << i;
        for (int s = 0; s < VIF_NUM_SCALES; ++s) {
            const vif::ScaleRaw &a = got[i].scale[s], &b = want[i].scale[s];
            EXPECT_EQ(a.nl, b.nl) << "frame " << i << " scale " << s;
            EXPECT_EQ(a.dl, b.dl) << "frame " << i << " scale " << s;
            EXPECT_EQ(a.nn, b.nn) << "frame " << i << " scale " << s;
            EXPECT_EQ(a.dn, b.dn) << "frame " << i << " scale " << s;
            EXPECT_EQ(std::memcmp(&a.num, &b.num, sizeof a.num), 0) << "frame " << i;
            EXPECT_EQ(std::memcmp(&a.den, &b.den, sizeof a.den), 0) << "frame " << i;
        }
        EXPECT_EQ(bool(got[i].maps), bool(want[i].maps)) << "frame " << i;
        if (got[i].maps && want[i].maps) expect_same_maps(*got[i].maps, *want[i].maps, i);
    }
}

// The whole stream on one reference backend: the expected values.
std::vector<vif::FrameRaw> reference_run(VifVariant variant, uint32_t bitdepth,
                                         const std::vector<Planes>& frames, bool maps = false) {
    vif::Status err;
    auto b = vif::create_cpu_backend(params_for(variant, bitdepth, true, maps), &err);
    EXPECT_TRUE(b) << err.message;
    std::vector<vif::FrameRaw> got;
    for (size_t i = 0; i < frames.size(); ++i) submit_or_drain(*b, frames[i], i, &got);
    drain(*b, &got);
    return got;
}

std::vector<Planes> stream(uint32_t count, uint32_t bitdepth) {
    std::vector<Planes> frames;
    for (uint32_t i = 0; i < count; ++i)
        frames.push_back(planes_of(make_frame(i, bitdepth), bitdepth));
    return frames;
}

struct Case {
    VifVariant variant;
    uint32_t bitdepth;
};

class Handover : public ::testing::TestWithParam<Case> {};

// Frames 0..5 go to the first backend and stay in flight (none received); the later backend is
// let start, and frames 6..19 go to it. Every frame comes out once, in order, with the bits of
// the single reference run; the first backend is stopped once its frames are out.
TEST_P(Handover, MidStreamWithFramesInFlightKeepsOrderAndBits) {
    const Case c = GetParam();
    const std::vector<Planes> frames = stream(20, c.bitdepth);
    const auto want = reference_run(c.variant, c.bitdepth, frames);

    Rig rig(params_for(c.variant, c.bitdepth, false));
    vif::HandoverBackend& b = *rig.backend;
    std::vector<vif::FrameRaw> got;
    for (uint64_t i = 0; i < 6; ++i) submit_or_drain(b, frames[i], i, &got);
    EXPECT_FALSE(b.handed_over());
    EXPECT_STREQ(b.name(), "cpu");
    ASSERT_GT(b.pending(), 0u) << "no frame in flight at the hand-over";
    rig.open();
    ASSERT_TRUE(b.wait_for_later());
    for (uint64_t i = 6; i < frames.size(); ++i) submit_or_drain(b, frames[i], i, &got);
    drain(b, &got);
    EXPECT_EQ(rig.late_frames(), 14);
    EXPECT_STREQ(b.name(), "cpu+late");
    EXPECT_TRUE(b.first_retired()) << "the first backend's threads outlived its frames";
    expect_same(got, want);
}

// The caller drains at every point of the stream (after each frame, with 1..5 frames still
// held), and the hand-over falls at each of those points too: always the single run's frames.
TEST_P(Handover, DrainAtAnyPointAroundTheHandover) {
    const Case c = GetParam();
    const std::vector<Planes> frames = stream(10, c.bitdepth);
    const auto want = reference_run(c.variant, c.bitdepth, frames);
    for (uint64_t at = 0; at <= frames.size(); at += 3) {
        for (uint64_t every = 1; every <= 5; every += 2) {
            SCOPED_TRACE("hand-over before frame " + std::to_string(at) + ", drain every " +
                         std::to_string(every));
            Rig rig(params_for(c.variant, c.bitdepth, false), false, 256, 2);
            vif::HandoverBackend& b = *rig.backend;
            std::vector<vif::FrameRaw> got;
            for (uint64_t i = 0; i < frames.size(); ++i) {
                if (i == at) {
                    rig.open();
                    ASSERT_TRUE(b.wait_for_later());
                }
                submit_or_drain(b, frames[i], i, &got);
                if ((i + 1) % every == 0) drain(b, &got);
            }
            drain(b, &got);
            EXPECT_EQ(rig.late_frames(),
                      int(frames.size() - std::min<uint64_t>(at, frames.size())));
            expect_same(got, want);
        }
    }
}

// Maps (VifConfig.maps): frames of either backend carry their per-pixel terms, the same bits.
TEST_P(Handover, MapsAcrossTheHandover) {
    const Case c = GetParam();
    const std::vector<Planes> frames = stream(9, c.bitdepth);
    const auto want = reference_run(c.variant, c.bitdepth, frames, true);
    for (const auto& w : want) ASSERT_TRUE(w.maps) << "the reference run kept no maps";
    Rig rig(params_for(c.variant, c.bitdepth, false, true));
    vif::HandoverBackend& b = *rig.backend;
    std::vector<vif::FrameRaw> got;
    for (uint64_t i = 0; i < 4; ++i) submit_or_drain(b, frames[i], i, &got);
    rig.open();
    ASSERT_TRUE(b.wait_for_later());
    for (uint64_t i = 4; i < frames.size(); ++i) submit_or_drain(b, frames[i], i, &got);
    drain(b, &got);
    EXPECT_EQ(rig.late_frames(), 5);
    expect_same(got, want);
}

// A ladder of three distorted pictures per reference (vif_submit_multi), handed over after two
// references: the pairs keep the single run's indices, order and bits.
TEST_P(Handover, SubmitMultiAcrossTheHandover) {
    const Case c = GetParam();
    constexpr size_t kRefs = 6, kRungs = 3;
    std::vector<Planes> pairs; // what the single run scores, pair by pair
    std::vector<std::vector<Planes>> rungs(kRefs);
    for (uint32_t r = 0; r < kRefs; ++r) {
        const Frame base = make_frame(100 + r, c.bitdepth);
        for (uint32_t k = 0; k < kRungs; ++k) {
            Frame f = base;
            f.dist = make_frame(200 + r * kRungs + k, c.bitdepth).dist; // each rung its own
            for (size_t i = 0; i < f.dist.size(); ++i) // near the reference, as a rung is
                f.dist[i] = uint16_t((uint32_t(f.ref[i]) * 3 + f.dist[i]) / 4);
            pairs.push_back(planes_of(f, c.bitdepth));
            rungs[r].push_back(pairs.back());
        }
    }
    const auto want = reference_run(c.variant, c.bitdepth, pairs);

    Rig rig(params_for(c.variant, c.bitdepth, false));
    vif::HandoverBackend& b = *rig.backend;
    std::vector<vif::FrameRaw> got;
    auto submit_ladder = [&](size_t r) {
        vif::HostPlane d[kRungs];
        for (size_t k = 0; k < kRungs; ++k) d[k] = rungs[r][k].dist_plane();
        for (;;) {
            const vif::Status e = b.submit_multi(rungs[r][0].ref_plane(), d, kRungs, r * kRungs);
            if (e.status != VIF_AGAIN) {
                ASSERT_EQ(e.status, VIF_OK) << e.message;
                return;
            }
            vif::FrameRaw raw;
            ASSERT_EQ(b.receive(&raw, true).status, VIF_OK);
            got.push_back(raw);
        }
    };
    submit_ladder(0);
    submit_ladder(1);
    ASSERT_GT(b.pending(), 0u);
    rig.open();
    ASSERT_TRUE(b.wait_for_later());
    for (size_t r = 2; r < kRefs; ++r) submit_ladder(r);
    drain(b, &got);
    EXPECT_EQ(rig.late_frames(), int((kRefs - 2) * kRungs));
    expect_same(got, want);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, Handover,
    ::testing::Values(Case{VIF_VARIANT_INTEGER, 8}, Case{VIF_VARIANT_INTEGER, 10},
                      Case{VIF_VARIANT_FLOAT, 8}),
    [](const auto& info) {
        return std::string(info.param.variant == VIF_VARIANT_INTEGER ? "integer" : "float") +
               std::to_string(info.param.bitdepth);
    });

// While the first backend still holds frames, a full later queue is made room in by taking its
// results early, so the caller is not sent to wait on the first backend's slower frames; the
// results still leave in order. Without that room (early_results 0) the caller is told the
// queue is full, as vif.h says.
TEST(HandoverQueue, LaterBackendKeptBusyWhileTheFirstDrains) {
    const std::vector<Planes> frames = stream(16, 8);
    const auto want = reference_run(VIF_VARIANT_INTEGER, 8, frames);
    for (size_t early : {size_t(0), size_t(256)}) {
        SCOPED_TRACE("early_results " + std::to_string(early));
        Rig rig(params_for(VIF_VARIANT_INTEGER, 8, false), false, early, 2);
        vif::HandoverBackend& b = *rig.backend;
        std::vector<vif::FrameRaw> got;
        for (uint64_t i = 0; i < 3; ++i) submit_or_drain(b, frames[i], i, &got);
        rig.open();
        ASSERT_TRUE(b.wait_for_later());
        int full = 0;
        for (uint64_t i = 3; i < frames.size(); ++i) full += submit_or_drain(b, frames[i], i, &got);
        if (early)
            EXPECT_EQ(full, 0) << "the caller waited on the first backend";
        else
            EXPECT_GT(full, 0) << "the later backend's queue of 2 never filled";
        drain(b, &got);
        expect_same(got, want);
    }
}

// A later backend that never comes (no GPU): the first scores everything, says why, and
// keeps its name.
TEST(HandoverStart, FailedStartLeavesEveryFrameOnTheFirst) {
    const std::vector<Planes> frames = stream(8, 8);
    const auto want = reference_run(VIF_VARIANT_INTEGER, 8, frames);
    Rig rig(params_for(VIF_VARIANT_INTEGER, 8, false), /*fail_start=*/true);
    vif::HandoverBackend& b = *rig.backend;
    std::vector<vif::FrameRaw> got;
    submit_or_drain(b, frames[0], 0, &got);
    rig.open();
    EXPECT_FALSE(b.wait_for_later());
    EXPECT_EQ(b.later_error(), "test: no late backend");
    for (uint64_t i = 1; i < frames.size(); ++i) submit_or_drain(b, frames[i], i, &got);
    drain(b, &got);
    EXPECT_STREQ(b.name(), "cpu");
    EXPECT_EQ(b.device_backend(), &b); // no device backend to give
    EXPECT_FALSE(b.first_retired());
    expect_same(got, want);
}

// Ready before the first frame: every frame goes to the later backend, which alone is named.
TEST(HandoverStart, ReadyBeforeTheFirstFrameTakesThemAll) {
    const std::vector<Planes> frames = stream(5, 8);
    const auto want = reference_run(VIF_VARIANT_INTEGER, 8, frames);
    Rig rig(params_for(VIF_VARIANT_INTEGER, 8, false));
    rig.open();
    vif::HandoverBackend& b = *rig.backend;
    ASSERT_TRUE(b.wait_for_later());
    EXPECT_NE(b.device_backend(), &b);
    std::vector<vif::FrameRaw> got;
    for (uint64_t i = 0; i < frames.size(); ++i) submit_or_drain(b, frames[i], i, &got);
    drain(b, &got);
    EXPECT_EQ(rig.late_frames(), 5);
    EXPECT_STREQ(b.name(), "late");
    expect_same(got, want);
}

// Destroyed while the later backend is still starting (a short clip done on the CPU): the
// destructor stops the start-up before its next step and joins it; nothing of it is left
// running or made afterwards.
TEST(HandoverStart, DestroyedDuringStartUpStopsIt) {
    Rig rig(params_for(VIF_VARIANT_INTEGER, 8, false));
    std::vector<vif::FrameRaw> got;
    submit_or_drain(*rig.backend, planes_of(make_frame(1, 8), 8), 0, &got);
    drain(*rig.backend, &got);
    EXPECT_EQ(got.size(), 1u);
    rig.backend.reset(); // the gate is still closed: returns once the start-up has stopped
    rig.open();
    EXPECT_FALSE(rig.log->made.load()) << "the start-up went on after its context was gone";
}

// Destroyed with frames in flight on both backends and results taken early: nothing leaks or
// hangs (ASan/LSan builds check the former).
TEST(HandoverStart, DestroyedWithFramesInFlightOnBoth) {
    const std::vector<Planes> frames = stream(12, 8);
    Rig rig(params_for(VIF_VARIANT_INTEGER, 8, false), false, 256, 2);
    std::vector<vif::FrameRaw> got;
    for (uint64_t i = 0; i < 3; ++i) submit_or_drain(*rig.backend, frames[i], i, &got);
    rig.open();
    ASSERT_TRUE(rig.backend->wait_for_later());
    for (uint64_t i = 3; i < frames.size(); ++i) submit_or_drain(*rig.backend, frames[i], i, &got);
    EXPECT_GT(rig.backend->pending(), 0u);
    rig.backend.reset();
    EXPECT_TRUE(rig.log->destroyed.load());
}

} // namespace

namespace {

// create(): the later backend's start-up begins before the first backend is made; a first that
// cannot be made fails the whole with its error, and the start-up under way is stopped.
TEST(HandoverCreate, StartsTheLaterFirstAndStopsItWhenTheFirstFails) {
    auto started = std::make_shared<std::atomic<bool>>(false);
    auto gate = std::make_shared<std::atomic<bool>>(false);
    auto later = [started, gate](vif::StartControl& ctl,
                                 vif::Status*) -> std::unique_ptr<vif::Backend> {
        started->store(true);
        while (!gate->load()) {
            if (ctl.cancelled()) return nullptr;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return nullptr;
    };
    vif::Status err;
    auto b = vif::HandoverBackend::create(
        [&](vif::Status* e) -> std::unique_ptr<vif::Backend> {
            while (!started->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            *e = {VIF_ERROR_OUT_OF_MEMORY, "test: no first backend"};
            return nullptr;
        },
        later, {}, &err);
    EXPECT_FALSE(b); // and returned: the start-up was stopped (the gate never opened)
    EXPECT_EQ(err.status, VIF_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(err.message, "test: no first backend");
    // A first that can be made: an ordinary hand-over backend.
    const vif::Params p = params_for(VIF_VARIANT_INTEGER, 8, false);
    gate->store(true);
    auto ok = vif::HandoverBackend::create(
        [&](vif::Status* e) { return vif::create_cpu_backend(p, e); }, later, {}, &err);
    ASSERT_TRUE(ok);
    EXPECT_STREQ(ok->name(), "cpu");
    EXPECT_FALSE(ok->wait_for_later());
}

} // namespace
