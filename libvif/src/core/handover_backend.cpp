// The hand-over of the `auto` backend (handover_backend.hpp).
//
// The start-up thread never outlives its context: the destructor asks it to stop and joins it
// (it stops before its next step: a context destroyed while the GPU starts waits at most for the
// step under way). A process may still exit with such a context alive (an interpreter at exit, a
// program leaving on an error); a thread inside the CUDA runtime while the exit handlers tear that
// runtime down is what crashed an earlier version (glibc: a destroyed mutex locked). So an exit
// handler waits for every start-up thread, and tells them to stop: it is registered before the
// thread starts and again before each step of the start-ups until one has made its backend, so
// that the last registration (which runs first at exit) comes after whatever the step before
// set up and registered for its own teardown (the CUDA runtime, the library's function-local
// statics).
// Later start-ups find those already made. A backend made while the process exits is left to
// the exit, not destroyed on the way out.
#include "core/handover_backend.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace vif {

namespace {

// Start-up threads still running, process-wide. Never destroyed: the exit handler reads it.
struct Running {
    std::mutex mu;
    std::condition_variable cv;
    int count = 0;
    bool exiting = false;
};

Running& running() {
    static Running* r = new Running;
    return *r;
}

// A start-up has made its backend: later ones need no registration before their steps.
std::atomic<bool> g_first_start_over{false};

void wait_for_start_threads() {
    Running& r = running();
    std::unique_lock<std::mutex> lock(r.mu);
    r.exiting = true;
    // Bounded: a driver that never returns must not turn the exit into a hang.
    r.cv.wait_for(lock, std::chrono::seconds(10), [&] { return r.count == 0; });
}

void register_exit_wait() {
    std::atexit(wait_for_start_threads); // may fail (no room): nothing better to do then
}

} // namespace

// What the start-up thread and the context share.
struct HandoverBackend::Start final : StartControl {
    std::mutex mu;
    std::condition_variable cv;
    std::atomic<bool> done{false};
    std::atomic<bool> cancel{false}; // the context is being destroyed
    bool first_of_process = false;
    std::unique_ptr<Backend> made;
    Status err;

    bool next_step() override {
        if (first_of_process) register_exit_wait();
        return !cancelled();
    }
    bool cancelled() const override {
        if (cancel.load(std::memory_order_acquire)) return true;
        std::lock_guard<std::mutex> lock(running().mu);
        return running().exiting;
    }
    static bool exiting() {
        std::lock_guard<std::mutex> lock(running().mu);
        return running().exiting;
    }
};

std::unique_ptr<HandoverBackend> HandoverBackend::create(const FirstFactory& first, Factory later,
                                                         HandoverOptions opts, Status* err) {
    std::unique_ptr<HandoverBackend> b(new HandoverBackend(std::move(later), std::move(opts)));
    std::unique_ptr<Backend> made = first(err);
    if (!made) return nullptr; // the destructor stops the start-up
    b->set_first(std::move(made));
    return b;
}

HandoverBackend::HandoverBackend(std::unique_ptr<Backend> first, Factory later,
                                 HandoverOptions opts)
    : opts_(std::move(opts)), start_(std::make_shared<Start>()) {
    set_first(std::move(first));
    start_later(std::move(later));
}

HandoverBackend::HandoverBackend(Factory later, HandoverOptions opts)
    : opts_(std::move(opts)), start_(std::make_shared<Start>()) {
    start_later(std::move(later));
}

void HandoverBackend::set_first(std::unique_ptr<Backend> first) {
    first_ = std::move(first);
    first_name_ = first_->name();
    first_capacity_ = first_->capacity();
}

void HandoverBackend::start_later(Factory later) {
    static std::once_flag registered;
    std::call_once(registered, register_exit_wait);
    start_->first_of_process = !g_first_start_over.load(std::memory_order_acquire);
    {
        std::lock_guard<std::mutex> lock(running().mu);
        ++running().count;
    }
    Start* start = start_.get(); // outlived by the thread: the destructor joins it
    try {
        thread_ = std::thread([start, later = std::move(later)] {
            Status err;
            std::unique_ptr<Backend> made;
            try {
                if (start->next_step()) made = later(*start, &err);
            } catch (const std::bad_alloc&) {
                made.reset();
                err = {VIF_ERROR_OUT_OF_MEMORY, "out of memory"};
            } catch (const std::exception& e) {
                made.reset();
                err = {VIF_ERROR_INTERNAL, e.what()};
            }
            const bool cancelled = start->cancel.load(std::memory_order_acquire);
            if (!made && err && err.status != VIF_ERROR_NO_DEVICE && !cancelled)
                std::fprintf(stderr,
                             "libvif: auto: the GPU did not start (%s); scoring on the cpu\n",
                             err.message.c_str());
            const bool ok = made != nullptr;
            if (made && Start::exiting()) { // left to the process's exit
#if defined(__SANITIZE_ADDRESS__)
                __lsan_ignore_object(made.get()); // (not lost: LeakSanitizer would say so)
#endif
                (void)made.release();
            }
            {
                std::lock_guard<std::mutex> lock(start->mu);
                start->made = std::move(made);
                start->err = std::move(err);
                start->done.store(true, std::memory_order_release);
            }
            start->cv.notify_all();
            // Only a start-up that got through every step has set everything up once.
            if (ok) g_first_start_over.store(true, std::memory_order_release);
            Running& r = running();
            {
                std::lock_guard<std::mutex> lock(r.mu);
                --r.count;
            }
            r.cv.notify_all();
        });
    } catch (const std::system_error& e) {
        // No thread: no hand-over, the first backend scores everything.
        {
            std::lock_guard<std::mutex> lock(running().mu);
            --running().count;
        }
        start_->err = {VIF_ERROR_INTERNAL, std::string("no start-up thread: ") + e.what()};
        start_->done.store(true, std::memory_order_release);
    }
}

HandoverBackend::~HandoverBackend() {
    start_->cancel.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
    start_->made.reset(); // made but never collected (the context is going)
}

void HandoverBackend::collect(bool wait) {
    if (collected_) return;
    if (!start_->done.load(std::memory_order_acquire)) {
        if (!wait) return;
        std::unique_lock<std::mutex> lock(start_->mu);
        start_->cv.wait(lock, [&] { return start_->done.load(std::memory_order_acquire); });
    }
    if (thread_.joinable()) thread_.join(); // done: it only has its count to drop
    collected_ = true;
    later_ = std::move(start_->made);
    later_err_ = std::move(start_->err);
    if (later_) {
        const std::string later_name = later_->name();
        // A later backend of the same kind (the CPU with every thread, after a start-up that
        // failed) is no hand-over a caller needs to hear of.
        joined_name_ = later_name == first_name_ ? first_name_ : first_name_ + "+" + later_name;
    }
}

bool HandoverBackend::wait_for_later() {
    collect(true);
    return later_ != nullptr;
}

const char* HandoverBackend::name() const {
    if (!later_) return first_name_.c_str();
    return first_frames_ ? joined_name_.c_str() : later_->name();
}

void HandoverBackend::before_submit() {
    if (!collected_) {
        if (opts_.switch_at_frame < 0)
            collect(false);
        else if (submitted_ >= uint64_t(opts_.switch_at_frame))
            collect(true);
    }
    if (later_ && first_ && first_->pending() == 0) retire_first();
}

void HandoverBackend::retire_first() {
    first_.reset(); // joins its idle workers: they must not compete with the later backend
}

template <class Submit>
Status HandoverBackend::submit_later(Submit&& submit) {
    for (;;) {
        Status e = submit();
        if (e.status != VIF_AGAIN) return e;
        // Full: while the first backend still holds older frames, the caller would wait on them
        // and the later backend would run dry; take its oldest result now instead.
        if (!first_ || first_->pending() == 0 || early_.size() >= opts_.early_results ||
            later_->pending() == 0)
            return e;
        FrameRaw r;
        Status g = later_->receive(&r, true);
        if (g.status == VIF_AGAIN) return e;
        if (g) return g;
        early_.push_back(std::move(r));
    }
}

Status HandoverBackend::submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) {
    before_submit();
    Status e = later_ ? submit_later([&] { return later_->submit(ref, dist, index); })
                      : first_->submit(ref, dist, index);
    if (e.status == VIF_OK) {
        if (!later_) ++first_frames_;
        ++submitted_;
    }
    return e;
}

Status HandoverBackend::submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                                     uint64_t first_index) {
    before_submit();
    // More pictures than the first backend's queue holds at all: the later one may take them.
    if (!later_ && count > first_capacity_) collect(true);
    Status e =
        later_ ? submit_later([&] { return later_->submit_multi(ref, dists, count, first_index); })
               : first_->submit_multi(ref, dists, count, first_index);
    if (e.status == VIF_OK) {
        if (!later_) first_frames_ += count;
        submitted_ += count;
    }
    return e;
}

Status HandoverBackend::receive(FrameRaw* out, bool block) {
    // Everything the first backend holds was submitted before anything the later one took.
    if (first_ && (first_->pending() || !later_)) {
        Status e = first_->receive(out, block);
        if (e.status == VIF_OK && later_ && first_->pending() == 0) retire_first();
        return e;
    }
    if (!early_.empty()) {
        *out = std::move(early_.front());
        early_.pop_front();
        return {};
    }
    if (first_) retire_first();
    return later_->receive(out, block);
}

size_t HandoverBackend::pending() const {
    return (first_ ? first_->pending() : 0) + early_.size() + (later_ ? later_->pending() : 0);
}

size_t HandoverBackend::capacity() const {
    return later_ ? later_->capacity() : first_capacity_;
}

Backend* HandoverBackend::device_backend() {
    collect(true);
    if (!later_) return this;
    return later_->device_backend();
}

} // namespace vif
