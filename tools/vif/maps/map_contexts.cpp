#include "maps/map_contexts.hpp"

#include "pair/failure.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace vifcli {

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
    }
    try {
        making_ = std::thread([this] { make(); });
    } catch (const std::system_error &) { // no thread to spare: made here
        make();
    }
}

MapContexts::~MapContexts() {
    wait();
    for (VifContext *c : ctxs_) vif_destroy(c);
}

void MapContexts::make() {
    std::vector<VifContext *> made(count_, nullptr);
    std::vector<std::string> errors(count_); // vif_last_error is the failing thread's
    auto one = [&](size_t i) {
        const VifStatus st = vif_create(&made[i], &cfg_);
        if (st != VIF_OK)
            errors[i] =
                vif_error("--map: cannot create the context that maps the worst frames", st);
    };
    // `makers` threads, each making every makers-th context in turn (makers_count()).
    const size_t makers = std::min(count_, makers_count());
    auto some = [&](size_t first) {
        for (size_t i = first; i < count_; i += makers) one(i);
    };
    std::vector<std::thread> threads;
    size_t t = 1;
    try {
        for (; t < makers; ++t) threads.emplace_back(some, t);
    } catch (const std::system_error &) { // no thread to spare: the rest here, one by one
        for (; t < makers; ++t) some(t);
    }
    some(0);
    for (std::thread &th : threads) th.join();
    for (const std::string &e : errors)
        if (!e.empty() && error_.empty()) error_ = e;
    if (!error_.empty()) {
        for (VifContext *c : made)
            if (c) vif_destroy(c);
        return;
    }
    ctxs_ = std::move(made);
}

size_t MapContexts::makers_count() {
    if (const char *n = std::getenv("VIF_MAP_MAKERS"); n && *n)
        return size_t(std::clamp<long>(std::strtol(n, nullptr, 10), 1, 256));
    return kMakers;
}

void MapContexts::wait() {
    std::lock_guard<std::mutex> lock(mu_);
    if (making_.joinable()) making_.join();
}

const std::vector<VifContext *> &MapContexts::get() {
    std::lock_guard<std::mutex> lock(mu_);
    if (making_.joinable()) making_.join();
    if (!error_.empty()) throw Failure{error_};
    return ctxs_;
}

void MapContexts::leave_to_the_exit() {
    wait();
    ctxs_.clear();
}

} // namespace vifcli
