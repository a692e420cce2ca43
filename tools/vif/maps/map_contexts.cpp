#include "maps/map_contexts.hpp"

#include "pair/failure.hpp"

#include <algorithm>

namespace vifcli {

MapContexts::MapContexts(VifConfig cfg, VifBackend backend, uint64_t worst, uint64_t frames) {
    cfg.maps = 1;
    cfg.backend = backend;
    size_t count = 1;
    if (backend == VIF_BACKEND_CPU) {
        const uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
        count = size_t(std::max<uint64_t>(1, std::min({worst, cores, frames ? frames : worst})));
        cfg.threads = 1;
    }
    making_ = std::thread([this, cfg, count] {
        for (size_t i = 0; i < count; ++i) {
            VifContext *ctx = nullptr;
            const VifStatus st = vif_create(&ctx, &cfg);
            if (st != VIF_OK) {
                error_ =
                    vif_error("--map: cannot create the context that maps the worst frames", st);
                for (VifContext *c : ctxs_) vif_destroy(c);
                ctxs_.clear();
                return;
            }
            ctxs_.push_back(ctx);
        }
    });
}

MapContexts::~MapContexts() {
    wait();
    for (VifContext *c : ctxs_) vif_destroy(c);
}

void MapContexts::wait() {
    if (making_.joinable()) making_.join();
}

const std::vector<VifContext *> &MapContexts::get() {
    wait();
    if (!error_.empty()) throw Failure{error_};
    return ctxs_;
}

void MapContexts::leave_to_the_exit() {
    wait();
    ctxs_.clear();
}

} // namespace vifcli
