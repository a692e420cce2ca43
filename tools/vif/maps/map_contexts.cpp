#include "maps/map_contexts.hpp"

#include "pair/failure.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace vifcli {

MapContexts::When MapContexts::when() {
    const char *v = std::getenv("VIF_MAP_CONTEXTS");
    if (v && std::strcmp(v, "start") == 0) return When::kStart;
    if (v && std::strcmp(v, "tail") == 0) return When::kTail;
    return When::kClip;
}

MapContexts::MapContexts(VifConfig cfg, VifBackend backend, uint64_t worst, uint64_t frames)
    : cfg_(cfg) {
    cfg_.maps = 1;
    cfg_.backend = backend;
    if (backend == VIF_BACKEND_CPU) {
        const uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
        count_ = size_t(std::max<uint64_t>(1, std::min({worst, cores, frames ? frames : worst})));
        cfg_.threads = 1;
    }
    if (when() != When::kTail) start();
}

MapContexts::~MapContexts() {
    wait();
    for (VifContext *c : ctxs_) vif_destroy(c);
}

void MapContexts::start() {
    making_ = std::thread([this] { make(); });
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
    if (making_.joinable()) making_.join();
}

bool MapContexts::before_first_frame() {
    if (when() != When::kStart || cfg_.backend != VIF_BACKEND_CPU) return false;
    wait();
    return true;
}

const std::vector<VifContext *> &MapContexts::get() {
    if (!making_.joinable() && ctxs_.empty() && error_.empty()) make(); // kTail
    wait();
    if (!error_.empty()) throw Failure{error_};
    return ctxs_;
}

void MapContexts::leave_to_the_exit() {
    wait();
    ctxs_.clear();
}

} // namespace vifcli
