#include "commands/context_cache.hpp"

#include <cstring>

namespace vifcli {

bool context_fits(const VifConfig &have, const VifConfig &want) {
    // Field by field (padding makes memcmp unreliable); a new field of VifConfig comes out of
    // `reserved`, which is compared too.
    return have.max_width == want.max_width && have.max_height == want.max_height &&
           have.bitdepth == want.bitdepth && have.variant == want.variant &&
           have.backend == want.backend && have.enhn_gain_limit == want.enhn_gain_limit &&
           have.kernelscale == want.kernelscale && have.threads == want.threads &&
           have.cuda_device == want.cuda_device && have.maps == want.maps &&
           std::memcmp(have.reserved, want.reserved, sizeof have.reserved) == 0 &&
           (want.queue_depth == 0 ? have.queue_depth == 0 : have.queue_depth >= want.queue_depth);
}

ScoringContextCache::~ScoringContextCache() {
    vif_destroy(kept_);
}

VifStatus ScoringContextCache::take(const VifConfig &cfg, VifContext **out) {
    *out = nullptr;
    if (lent_) return VIF_ERROR_INVALID_STATE; // (one group at a time: a caller's mistake)
    if (kept_ && context_fits(cfg_, cfg)) {
        lent_ = true;
        *out = kept_;
        return VIF_OK;
    }
    vif_destroy(kept_);
    kept_ = nullptr;
    VifContext *ctx = nullptr;
    const VifStatus st = vif_create(&ctx, &cfg);
    if (st != VIF_OK) return st;
    ++made_;
    kept_ = ctx;
    cfg_ = cfg;
    lent_ = true;
    *out = ctx;
    return VIF_OK;
}

void ScoringContextCache::give_back(VifContext *ctx, bool reusable) {
    if (!ctx || ctx != kept_) return;
    lent_ = false;
    if (!reusable || vif_pending(ctx) != 0) {
        vif_destroy(kept_);
        kept_ = nullptr;
    }
}

ContextLease::~ContextLease() {
    if (!ctx_) return;
    if (cache_)
        cache_->give_back(ctx_, reusable);
    else
        vif_destroy(ctx_);
}

VifStatus ContextLease::open(const VifConfig &cfg) {
    return cache_ ? cache_->take(cfg, &ctx_) : vif_create(&ctx_, &cfg);
}

} // namespace vifcli
