// The `auto` backend's hand-over: a context scores its first frames on a backend that is ready at
// once (the CPU) while a second one (CUDA) starts on a thread of its own, and sends every frame
// submitted after that start finished to the second. Frames leave in submission order: those
// still held by the first backend come out before any of the second's. Each frame is scored
// whole by one backend, and both give the same bits (docs/design.md, "auto: the hand-over"), so
// the hand-over does not show in the scores.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace vif {

class HandoverBackend final : public Backend {
public:
    // Makes the later backend; runs on the start-up thread. Null with *err set: no hand-over.
    using Factory = std::function<std::unique_ptr<Backend>(Status* err)>;

    // Starts `later` on a thread of its own at once.
    HandoverBackend(std::unique_ptr<Backend> first, Factory later);
    // Does not wait for a start-up still running: that thread finishes it and frees what it made
    // (the process exit waits for it; see handover_backend.cpp).
    ~HandoverBackend() override;

    // "cpu" until the hand-over; then "cuda" when the first backend scored no frame, else
    // "cpu+cuda" (the two names joined).
    const char* name() const override;
    Status submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) override;
    Status submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                        uint64_t first_index) override;
    Status receive(FrameRaw* out, bool block) override;
    size_t pending() const override;
    size_t capacity() const override;
    // Frames already on the device need the later backend: waits for its start-up.
    Backend* device_backend() override;

    // Whether frames now go to the later backend.
    bool handed_over() const { return later_ != nullptr; }
    // Waits for the start-up to end; true when the later backend is ready (frames submitted from
    // now on go to it). Tests use it to place the hand-over between two given frames.
    bool wait_for_later();
    // Why the later backend did not come ("" while starting or once it came).
    std::string later_error() const;

private:
    struct Start;
    // Takes the start-up's result if it has one (waiting for it with `wait`); once only.
    void collect(bool wait);
    Backend& active() { return later_ ? *later_ : *first_; }
    const Backend& active() const { return later_ ? *later_ : *first_; }

    std::shared_ptr<Start> start_;
    std::unique_ptr<Backend> first_;
    std::unique_ptr<Backend> later_;
    bool collected_ = false;
    Status later_err_;
    uint64_t first_frames_ = 0; // frames the first backend took
    std::string joined_name_;
};

} // namespace vif
