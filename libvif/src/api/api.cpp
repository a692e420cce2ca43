// The C entry points of vif.h. Arguments are checked here, once, at the boundary (checks.cpp);
// exceptions never cross it (they become status codes with a message, last_error.cpp).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "api/checks.hpp"
#include "api/context.hpp"
#include "api/last_error.hpp"
#include "api/submit.hpp"
#include "core/map_math.hpp"
#include "core/registry.hpp"
#include "core/scores.hpp"

namespace vif {

Backend* context_backend(VifContext* ctx) {
    return ctx ? ctx->backend.get() : nullptr;
}

namespace {

HostPlane host_plane(const VifPicture& p) {
    return HostPlane{p.data, p.stride, p.width, p.height, (p.flags & VIF_PICTURE_MSB_ALIGNED) != 0};
}

} // namespace

} // namespace vif

using vif::fail;

#define VIF_CHECK_ARG(cond, msg)                                                                   \
    do {                                                                                           \
        if (!(cond)) return fail(VIF_ERROR_INVALID_ARGUMENT, msg);                                 \
    } while (0)

namespace {

// vif_receive and vif_receive_maps: the oldest frame's scores, and its maps when `maps` is set.
VifStatus receive_frame(VifContext* ctx, VifScores* scores, VifMaps* maps, int block,
                        const char* fn) {
    if (ctx->failed) return fail(VIF_ERROR_INVALID_STATE, "context failed earlier; destroy it");
    try {
        vif::FrameRaw raw;
        vif::Status err = ctx->backend->receive(&raw, block != 0);
        if (err.status == VIF_AGAIN) return VIF_AGAIN;
        if (err) {
            if (err.status == VIF_ERROR_DEVICE) ctx->failed = true;
            return fail(err);
        }
        vif::finalize_scores(ctx->params, raw, scores);
        ctx->last_maps = std::move(raw.maps); // the previous frame's arrays are released here
        if (maps) {
            if (!ctx->last_maps)
                return fail(VIF_ERROR_INTERNAL, std::string(fn) + ": the backend kept no maps");
            *maps = VifMaps{};
            maps->frame_index = scores->frame_index;
            for (int s = 0; s < VIF_NUM_SCALES; ++s) {
                const vif::ScaleMap& m = ctx->last_maps->scale[s];
                VifScaleMap& o = maps->scale[s];
                o.width = static_cast<uint32_t>(m.width);
                o.height = static_cast<uint32_t>(m.height);
                if (ctx->last_maps->on_device) { // CUDA, vif_cuda_submit: device pointers
                    const vif::FrameMaps::DeviceTerms& d = ctx->last_maps->device[s];
                    o.nl = d.nl;
                    o.dl = d.dl;
                    o.nn = d.nn;
                    o.dn = d.dn;
                    o.num = d.num;
                    o.den = d.den;
                } else if (m.integer()) {
                    o.nl = m.nl.data();
                    o.dl = m.dl.data();
                    o.nn = m.nn.data();
                    o.dn = m.dn.data();
                } else {
                    o.num = m.num.data();
                    o.den = m.den.data();
                }
            }
        }
        return VIF_OK;
    } catch (const std::exception& e) {
        return fail(VIF_ERROR_INTERNAL, std::string(fn) + ": " + e.what());
    }
}

} // namespace

extern "C" {

const char* vif_version(void) {
    return VIF_VERSION_STRING;
}

const char* vif_status_string(VifStatus status) {
    switch (vif::enum_value(status)) {
    case VIF_OK:
        return "ok";
    case VIF_AGAIN:
        return "not ready";
    case VIF_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case VIF_ERROR_UNSUPPORTED:
        return "unsupported";
    case VIF_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case VIF_ERROR_NO_DEVICE:
        return "no CUDA device";
    case VIF_ERROR_DEVICE:
        return "CUDA device error";
    case VIF_ERROR_INVALID_STATE:
        return "invalid state";
    case VIF_ERROR_INTERNAL:
        return "internal error";
    }
    return "unknown status";
}

const char* vif_last_error(void) {
    return vif::last_error_cstr();
}

void vif_default_config(VifConfig* cfg) {
    if (!cfg) return;
    *cfg = VifConfig{};
    cfg->bitdepth = 8;
    cfg->variant = VIF_VARIANT_INTEGER;
    cfg->backend = VIF_BACKEND_AUTO;
    cfg->enhn_gain_limit = 100.0;
    cfg->kernelscale = 1.0;
    cfg->cuda_device = 0;
}

VifStatus vif_create(VifContext** ctx, const VifConfig* cfg) {
    VIF_CHECK_ARG(ctx, "vif_create: ctx is NULL");
    *ctx = nullptr;
    VIF_CHECK_ARG(cfg, "vif_create: cfg is NULL");
    vif::Params params;
    if (VifStatus st = vif::params_from_config(*cfg, &params); st != VIF_OK) return st;
    try {
        auto c = std::make_unique<VifContext>();
        c->config = *cfg;
        c->params = params;
        vif::Status err;
        c->backend = vif::create_backend(params, cfg->backend, &err);
        if (!c->backend)
            return fail(err.status ? err : vif::Status{VIF_ERROR_INTERNAL, "no backend"});
        *ctx = c.release();
        vif::clear_error();
        return VIF_OK;
    } catch (const std::bad_alloc&) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_create: out of memory");
    } catch (const std::exception& e) {
        return fail(VIF_ERROR_INTERNAL, std::string("vif_create: ") + e.what());
    }
}

void vif_destroy(VifContext* ctx) {
    delete ctx;
}

const char* vif_backend_name(const VifContext* ctx) {
    return ctx && ctx->backend ? ctx->backend->name() : "";
}

VifStatus vif_submit(VifContext* ctx, const VifPicture* ref, const VifPicture* dist,
                     uint64_t* frame_index) {
    if (VifStatus st = vif::check_usable(ctx, "vif_submit"); st != VIF_OK) return st;
    if (VifStatus st = vif::check_picture(ctx->params, ref, "reference"); st != VIF_OK) return st;
    if (VifStatus st = vif::check_picture(ctx->params, dist, "distorted"); st != VIF_OK) return st;
    if (VifStatus st =
            vif::check_same_size(ref->width, ref->height, dist->width, dist->height, "distorted");
        st != VIF_OK)
        return st;
    return vif::submit_frames(ctx, "vif_submit", 1, false, frame_index, [&](uint64_t index) {
        return ctx->backend->submit(vif::host_plane(*ref), vif::host_plane(*dist), index);
    });
}

VifStatus vif_submit_multi(VifContext* ctx, const VifPicture* ref, const VifPicture* const* dists,
                           size_t count, uint64_t* first_index) {
    if (VifStatus st = vif::check_usable(ctx, "vif_submit_multi"); st != VIF_OK) return st;
    VIF_CHECK_ARG(dists, "vif_submit_multi: dists is NULL");
    VIF_CHECK_ARG(count >= 1 && count <= VIF_MAX_DISTORTED,
                  "vif_submit_multi: count " + std::to_string(count) + " is not in [1, " +
                      std::to_string(VIF_MAX_DISTORTED) + "]");
    if (VifStatus st = vif::check_picture(ctx->params, ref, "reference"); st != VIF_OK) return st;
    vif::HostPlane planes[VIF_MAX_DISTORTED];
    for (size_t k = 0; k < count; ++k) {
        const std::string which = "distorted[" + std::to_string(k) + "]";
        if (VifStatus st = vif::check_picture(ctx->params, dists[k], which.c_str()); st != VIF_OK)
            return st;
        if (VifStatus st = vif::check_same_size(ref->width, ref->height, dists[k]->width,
                                                dists[k]->height, which);
            st != VIF_OK)
            return st;
        planes[k] = vif::host_plane(*dists[k]);
    }
    return vif::submit_frames(
        ctx, "vif_submit_multi", count, true, first_index, [&](uint64_t index) {
            return ctx->backend->submit_multi(vif::host_plane(*ref), planes, count, index);
        });
}

VifStatus vif_receive(VifContext* ctx, VifScores* scores, int block) {
    VIF_CHECK_ARG(ctx, "vif_receive: ctx is NULL");
    VIF_CHECK_ARG(scores, "vif_receive: scores is NULL");
    return receive_frame(ctx, scores, nullptr, block, "vif_receive");
}

VifStatus vif_receive_maps(VifContext* ctx, VifScores* scores, VifMaps* maps, int block) {
    VIF_CHECK_ARG(ctx, "vif_receive_maps: ctx is NULL");
    VIF_CHECK_ARG(scores, "vif_receive_maps: scores is NULL");
    VIF_CHECK_ARG(maps, "vif_receive_maps: maps is NULL");
    VIF_CHECK_ARG(ctx->params.maps,
                  "vif_receive_maps: the context was created without maps (VifConfig.maps = 1)");
    return receive_frame(ctx, scores, maps, block, "vif_receive_maps");
}

VifStatus vif_local_map(const VifScaleMap* map, float* out) {
    VIF_CHECK_ARG(map, "vif_local_map: map is NULL");
    VIF_CHECK_ARG(out, "vif_local_map: out is NULL");
    VIF_CHECK_ARG(map->width > 0 && map->height > 0 && map->width <= 32768 && map->height <= 32768,
                  "vif_local_map: the map's size is zero or above 32768");
    const bool integer = map->nl && map->dl && map->nn && map->dn;
    VIF_CHECK_ARG(integer || (map->num && map->den),
                  "vif_local_map: the map has neither the integer (nl, dl, nn, dn) nor the float "
                  "(num, den) arrays");
    try {
        vif::TermsView v;
        v.width = static_cast<int>(map->width);
        v.height = static_cast<int>(map->height);
        if (integer) {
            v.nl = map->nl;
            v.dl = map->dl;
            v.nn = map->nn;
            v.dn = map->dn;
        } else {
            v.num = map->num;
            v.den = map->den;
        }
        vif::local_vif(v, out);
        return VIF_OK;
    } catch (const std::bad_alloc&) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_local_map: out of memory");
    }
}

size_t vif_pending(const VifContext* ctx) {
    return ctx && ctx->backend ? ctx->backend->pending() : 0;
}

VifStatus vif_score(VifContext* ctx, const VifPicture* ref, const VifPicture* dist,
                    VifScores* scores) {
    VIF_CHECK_ARG(ctx, "vif_score: ctx is NULL");
    VIF_CHECK_ARG(scores, "vif_score: scores is NULL");
    if (ctx->backend && ctx->backend->pending() != 0)
        return fail(VIF_ERROR_INVALID_STATE, "vif_score: frames are pending; receive them first");
    if (VifStatus st = vif_submit(ctx, ref, dist, nullptr); st != VIF_OK) return st;
    return vif_receive(ctx, scores, 1);
}

} // extern "C"

// Whether CUDA is here, and its start-up ahead of the first context (vif.h).
extern "C" VifStatus vif_cuda_prepare(int cuda_device) {
#if defined(VIF_HAVE_CUDA)
    if (vif::Status e = vif::cuda_prepare(cuda_device)) return vif::fail(e);
    return VIF_OK;
#else
    (void)cuda_device;
    return vif::fail(VIF_ERROR_NO_DEVICE, "this libvif was built without CUDA");
#endif
}

extern "C" int vif_cuda_device_count(void) {
#if defined(VIF_HAVE_CUDA)
    return vif::cuda_device_count();
#else
    return 0;
#endif
}

extern "C" int vif_cuda_available(void) {
#if defined(VIF_HAVE_CUDA)
    return vif::cuda_device_present() ? 1 : 0;
#else
    return 0;
#endif
}
