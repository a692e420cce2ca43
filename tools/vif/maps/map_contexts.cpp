#include "maps/map_contexts.hpp"

#include "pair/failure.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace vifcli {

MapContexts::When MapContexts::when() {
    const char *v = std::getenv("VIF_MAP_CONTEXTS");
    if (v && std::strcmp(v, "start") == 0) return When::kStart;
    if (v && std::strcmp(v, "tail") == 0) return When::kTail;
    return When::kClip;
}

MapContexts::MapContexts(VifConfig cfg, VifBackend backend, uint64_t worst, uint64_t frames,
                         uint32_t bands)
    : cfg_(cfg) {
    cfg_.maps = 1;
    cfg_.backend = backend;
    if (backend == VIF_BACKEND_CPU) {
        const uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
        // Half as many as frames to score again (each scores 2): the pages each context makes
        // while the clip is scored (a frame's maps, 16 bytes a pixel) slowed the clip more than
        // the second round of frames costs after it (H200 host, 16 cores, main affcd83,
        // worst:10: 5 contexts 1.103x / 1.142x at 720p / 1080p integer against 1.202x / 1.138x
        // for 10, 1.209x / 1.217x for 16).
        const uint64_t half = (worst * std::max<uint32_t>(1, bands) + 1) / 2;
        count_ = size_t(std::max<uint64_t>(
            1, std::min({half, cores, frames ? frames * std::max<uint32_t>(1, bands) : half})));
        // VIF_MAP_CONTEXT_COUNT=N: N of them whatever N and the cores (bench/cpu/maps_speed.sh's
        // comparison: more contexts than frames serve the bands).
        if (const char *n = std::getenv("VIF_MAP_CONTEXT_COUNT"); n && *n)
            count_ = size_t(std::clamp<long>(std::strtol(n, nullptr, 10), 1, 256));
        cfg_.threads = 1;
        if (const char *n = std::getenv("VIF_MAP_LATE_CONTEXTS"); n && *n)
            late_count_ = size_t(std::clamp<long>(std::strtol(n, nullptr, 10), 0, 256));
    }
    if (when() != When::kTail) start();
}

MapContexts::~MapContexts() {
    wait();
    for (VifContext *c : ctxs_) vif_destroy(c);
    for (VifContext *c : get_late()) vif_destroy(c);
    late_.clear();
}

void MapContexts::start_late() {
    std::lock_guard<std::mutex> lock(late_mu_);
    if (late_count_ == 0 || late_making_.joinable() || !late_.empty()) return;
    late_making_ = std::thread([this] {
        std::vector<VifContext *> made(late_count_, nullptr);
        std::vector<std::thread> threads;
        auto one = [&](size_t i) {
            if (vif_create(&made[i], &cfg_) != VIF_OK) made[i] = nullptr;
        };
        try {
            for (size_t i = 1; i < made.size(); ++i) threads.emplace_back(one, i);
        } catch (const std::system_error &) { // those not started are left out
        }
        one(0);
        for (std::thread &t : threads) t.join();
        for (VifContext *c : made)
            if (c) late_.push_back(c);
    });
}

std::vector<VifContext *> MapContexts::get_late() {
    std::lock_guard<std::mutex> lock(late_mu_);
    if (late_making_.joinable()) late_making_.join();
    return late_; // still theirs: destroyed with them (or left to the exit)
}

bool MapContexts::lower_this_thread() {
    const char *v = std::getenv("VIF_MAP_IDLE");
    if (!v || std::strcmp(v, "1") != 0) return false;
#if defined(__linux__)
    sched_param p{};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &p) == 0) return true;
    const id_t tid = static_cast<id_t>(syscall(SYS_gettid));
    return setpriority(PRIO_PROCESS, tid, 19) == 0;
#else
    return false;
#endif
}

void MapContexts::raise_lowered_threads() {
#if defined(__linux__)
    if (sched_getscheduler(0) == SCHED_IDLE) return; // the main thread's: the user's choice
    std::error_code ec;
    for (const auto &task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
        const pid_t tid = pid_t(std::strtol(task.path().filename().c_str(), nullptr, 10));
        sched_param p{};
        if (tid > 0 && sched_getscheduler(tid) == SCHED_IDLE &&
            sched_setscheduler(tid, SCHED_OTHER, &p) != 0 && errno == EPERM)
            return; // not allowed: none will be (ESRCH: that thread has just ended)
    }
#endif
}

void MapContexts::start() {
    const bool idle = cfg_.backend == VIF_BACKEND_CPU; // a CUDA context's threads stay as they are
    making_ = std::thread([this, idle] {
        if (idle) lower_this_thread();
        make(idle);
    });
}

void MapContexts::make(bool idle) {
    std::vector<VifContext *> made(count_, nullptr);
    std::vector<std::string> errors(count_); // vif_last_error is the failing thread's
    auto one = [&](size_t i) {
        if (idle && i > 0) lower_this_thread(); // (the first runs on the caller's thread)
        const VifStatus st = vif_create(&made[i], &cfg_);
        if (st != VIF_OK)
            errors[i] =
                vif_error("--map: cannot create the context that maps the worst frames", st);
    };
    std::vector<std::thread> threads;
    size_t i = 1;
    try {
        for (; i < count_; ++i) threads.emplace_back(one, i);
    } catch (const std::system_error &) { // no thread to spare: the rest here, one by one
        for (; i < count_; ++i) one(i);
    }
    one(0);
    for (std::thread &t : threads) t.join();
    for (const std::string &e : errors)
        if (!e.empty() && error_.empty()) error_ = e;
    if (!error_.empty()) {
        for (VifContext *c : made)
            if (c) vif_destroy(c);
        return;
    }
    ctxs_ = std::move(made);
}

void MapContexts::wait() {
    std::lock_guard<std::mutex> lock(mu_);
    if (making_.joinable()) making_.join();
}

bool MapContexts::before_first_frame() {
    if (when() != When::kStart || cfg_.backend != VIF_BACKEND_CPU) return false;
    wait();
    return true;
}

const std::vector<VifContext *> &MapContexts::get() {
    std::lock_guard<std::mutex> lock(mu_);
    // kTail: made here, on the caller's thread (of normal priority: the clip is over).
    if (!making_.joinable() && ctxs_.empty() && error_.empty()) make(false);
    if (making_.joinable()) making_.join();
    if (!error_.empty()) throw Failure{error_};
    return ctxs_;
}

void MapContexts::leave_to_the_exit() {
    wait();
    ctxs_.clear();
    (void)get_late(); // made: left too
    std::lock_guard<std::mutex> lock(late_mu_);
    late_.clear();
}

} // namespace vifcli
