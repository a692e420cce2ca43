// The `auto` backend's hand-over (docs/design.md, "auto in the library: the hand-over"): a
// context scores its first frames on a backend that is ready at once (the CPU) while a second one
// (CUDA) starts on a thread of its own, and every frame submitted once that start-up has finished
// goes to the second. Frames leave in submission order: those the first backend holds come out
// before any of the second's. Each frame is scored whole by one backend and both give the same
// bits, so the hand-over does not show in the scores.
//
// Lifetime: the start-up thread is joined by the destructor (a context destroyed while the GPU
// is still starting waits for the step under way, then the rest is skipped), and a process that
// exits with such a context alive waits for it in an exit handler that runs before the teardown
// of anything the start-up set up (handover_backend.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/backend.hpp"

namespace vif {

// What the start-up thread's factory sees: whether to go on before each step.
class StartControl {
public:
    virtual ~StartControl() = default;
    // Call before each step of the start-up that sets something up (the driver, a backend):
    // false when the context has been destroyed or the process is exiting, and the factory
    // should return null at once. Registers the exit wait again first (handover_backend.cpp).
    virtual bool next_step() = 0;
    // The same answer without the registration: for polling while waiting.
    virtual bool cancelled() const = 0;
};

struct HandoverOptions {
    // The later backend's name in vif_backend_name once frames went to both ("cpu+cuda").
    std::string later_name = "cuda";
    // Tests: the hand-over falls exactly before this frame (its submission waits for the
    // start-up); -1: as soon as the later backend is ready.
    int64_t switch_at_frame = -1;
    // Frames of the later backend whose results may be taken early while the first backend still
    // holds older frames, so that the later one is kept busy (0: none; the caller's queue_depth
    // is then the only bound).
    size_t early_results = 0;
};

class HandoverBackend final : public Backend {
public:
    // Makes the later backend on the start-up thread. Null with *err set: no hand-over (an error
    // other than VIF_ERROR_NO_DEVICE is said once on stderr); null with no error: cancelled.
    using Factory = std::function<std::unique_ptr<Backend>(StartControl& ctl, Status* err)>;

    // Makes the first backend on the calling thread.
    using FirstFactory = std::function<std::unique_ptr<Backend>(Status* err)>;

    // Starts `later` on a thread of its own, then makes the first backend meanwhile (making the
    // CPU's threads and buffers took 15-60 ms: the GPU's start-up does not wait for it). Null
    // with *err set when the first cannot be made.
    static std::unique_ptr<HandoverBackend> create(const FirstFactory& first, Factory later,
                                                   HandoverOptions opts, Status* err);
    // Starts `later` on a thread of its own at once, `first` already made.
    HandoverBackend(std::unique_ptr<Backend> first, Factory later, HandoverOptions opts);
    // Joins the start-up thread (it stops before its next step).
    ~HandoverBackend() override;

    // The first backend's name until the hand-over; then the later one's when the first scored
    // no frame, else both joined ("cpu+cuda").
    const char* name() const override;
    Status submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) override;
    Status submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                        uint64_t first_index) override;
    Status receive(FrameRaw* out, bool block) override;
    size_t pending() const override;
    size_t capacity() const override;
    // Frames already in GPU memory need the later backend: waits for its start-up; `this` when
    // it did not come.
    Backend* device_backend() override;

    // Whether frames now go to the later backend.
    bool handed_over() const { return later_ != nullptr; }
    // Whether the first backend has been stopped (its frames all received after the hand-over).
    bool first_retired() const { return first_ == nullptr; }
    // Waits for the start-up to end; true when the later backend is ready (frames submitted from
    // now on go to it).
    bool wait_for_later();
    // Why the later backend did not come ("" while starting or once it came).
    const std::string& later_error() const { return later_err_.message; }

private:
    struct Start;
    HandoverBackend(Factory later, HandoverOptions opts);
    void start_later(Factory later);
    void set_first(std::unique_ptr<Backend> first);
    // Takes the start-up's result if it has one (waiting for it with `wait`); once only.
    void collect(bool wait);
    // Before a submission: takes a finished start-up, or waits for it when the tests placed the
    // hand-over here; stops the first backend once it holds nothing after the hand-over.
    void before_submit();
    // Submits to the later backend; while the first still holds frames, a full queue is made
    // room in by taking the later backend's oldest results early (HandoverOptions).
    template <class Submit>
    Status submit_later(Submit&& submit);
    // The first backend's frames are all received after the hand-over: stop its threads.
    void retire_first();

    HandoverOptions opts_;
    std::shared_ptr<Start> start_;
    std::thread thread_;
    std::unique_ptr<Backend> first_;
    std::unique_ptr<Backend> later_;
    std::deque<FrameRaw> early_; // the later backend's results taken early, in order
    bool collected_ = false;
    Status later_err_;
    uint64_t submitted_ = 0;    // frames submitted through this backend
    uint64_t first_frames_ = 0; // of which the first backend took
    std::string first_name_, joined_name_;
    size_t first_capacity_ = 0;
};

} // namespace vif
