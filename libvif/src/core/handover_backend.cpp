// The hand-over of the `auto` backend (handover_backend.hpp).
//
// The start-up thread is detached: a context destroyed before CUDA came up (a short clip scored
// on the CPU) returns at once, and the thread frees whatever it made when it ends. Such a thread
// must not still be inside the CUDA driver while the process exit tears the runtime down, so the
// first start registers an exit handler that waits for every start-up thread still running. It is
// registered before any thread starts, so it runs before the handlers of anything those threads
// set up. A process that leaves with _exit (the vif CLI) skips it and waits for nothing.
#include "core/handover_backend.hpp"

#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace vif {

namespace {

// Start-up threads still running, process-wide. Never destroyed: the exit handler reads it.
struct Running {
    std::mutex mu;
    std::condition_variable cv;
    int count = 0;
};

Running& running() {
    static Running* r = new Running;
    return *r;
}

void wait_for_start_threads() {
    Running& r = running();
    std::unique_lock<std::mutex> lock(r.mu);
    r.cv.wait(lock, [&] { return r.count == 0; });
}

} // namespace

// What the start-up thread and the context share.
struct HandoverBackend::Start {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    bool abandoned = false; // the context is gone: the thread frees the backend itself
    std::unique_ptr<Backend> backend;
    Status err;
};

HandoverBackend::HandoverBackend(std::unique_ptr<Backend> first, Factory later)
    : start_(std::make_shared<Start>()), first_(std::move(first)) {
    static std::once_flag registered;
    std::call_once(registered, [] { std::atexit(wait_for_start_threads); });
    {
        std::lock_guard<std::mutex> lock(running().mu);
        ++running().count;
    }
    std::shared_ptr<Start> start = start_;
    try {
        std::thread([start, later = std::move(later)] {
            Status err;
            std::unique_ptr<Backend> made;
            try {
                made = later(&err);
                if (!made && !err) err = {VIF_ERROR_INTERNAL, "no backend"};
            } catch (const std::exception& e) {
                made.reset();
                err = {VIF_ERROR_INTERNAL, e.what()};
            }
            {
                std::lock_guard<std::mutex> lock(start->mu);
                if (!start->abandoned) {
                    start->backend = std::move(made);
                    start->err = std::move(err);
                }
                start->done = true;
            }
            start->cv.notify_all();
            made.reset(); // abandoned: freed here, off the caller's thread
            Running& r = running();
            {
                std::lock_guard<std::mutex> lock(r.mu);
                --r.count;
            }
            r.cv.notify_all();
        }).detach();
    } catch (const std::system_error& e) {
        // No thread: no hand-over, the first backend scores everything.
        std::lock_guard<std::mutex> lock(running().mu);
        --running().count;
        start_->done = true;
        start_->err = {VIF_ERROR_INTERNAL, std::string("no start-up thread: ") + e.what()};
    }
}

HandoverBackend::~HandoverBackend() {
    std::lock_guard<std::mutex> lock(start_->mu);
    start_->abandoned = true;
    start_->backend.reset(); // made but never collected: freed here
}

void HandoverBackend::collect(bool wait) {
    if (collected_) return;
    std::unique_lock<std::mutex> lock(start_->mu);
    if (!start_->done) {
        if (!wait) return;
        start_->cv.wait(lock, [&] { return start_->done; });
    }
    collected_ = true;
    later_ = std::move(start_->backend);
    later_err_ = std::move(start_->err);
    if (later_) joined_name_ = std::string(first_->name()) + "+" + later_->name();
}

bool HandoverBackend::wait_for_later() {
    collect(true);
    return later_ != nullptr;
}

std::string HandoverBackend::later_error() const {
    return later_err_.message;
}

const char* HandoverBackend::name() const {
    if (!later_) return first_->name();
    return first_frames_ ? joined_name_.c_str() : later_->name();
}

Status HandoverBackend::submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) {
    collect(false);
    Status e = active().submit(ref, dist, index);
    if (e.status == VIF_OK && !later_) ++first_frames_;
    return e;
}

Status HandoverBackend::submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                                     uint64_t first_index) {
    collect(false);
    // More pictures than the first backend's queue holds at all: the later one may take them.
    if (!later_ && count > first_->capacity()) collect(true);
    Status e = active().submit_multi(ref, dists, count, first_index);
    if (e.status == VIF_OK && !later_) first_frames_ += count;
    return e;
}

Status HandoverBackend::receive(FrameRaw* out, bool block) {
    // Everything the first backend holds was submitted before anything the later one holds.
    if (first_->pending() || !later_) return first_->receive(out, block);
    return later_->receive(out, block);
}

size_t HandoverBackend::pending() const {
    return first_->pending() + (later_ ? later_->pending() : 0);
}

size_t HandoverBackend::capacity() const {
    return active().capacity();
}

Backend* HandoverBackend::device_backend() {
    collect(true);
    return later_ ? later_->device_backend() : this;
}

} // namespace vif
