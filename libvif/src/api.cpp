// The C entry points. Arguments are checked here, once, at the boundary; exceptions never cross
// it (they become status codes with a message).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "context.hpp"
#include "cpu_ref/cpu_ref.hpp"
#include "vif_constants.hpp"

namespace vif {
namespace {
thread_local std::string g_last_error;
}

VifStatus fail(VifStatus status, const std::string& msg) {
    g_last_error = msg;
    return status;
}

void clear_error() {
    g_last_error.clear();
}

const char* last_error_cstr() {
    return g_last_error.c_str();
}

Backend* context_backend(VifContext* ctx) {
    return ctx ? ctx->backend.get() : nullptr;
}

VifStatus check_options(const VifConfig& cfg) {
    // A C caller may store any int in an enum field; read them as ints before trusting them.
    const int variant = enum_value(cfg.variant);
    if (variant != VIF_VARIANT_INTEGER && variant != VIF_VARIANT_FLOAT)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "unknown variant " + std::to_string(variant) +
                                                    " (VIF_VARIANT_INTEGER or VIF_VARIANT_FLOAT)");
    if (!(cfg.enhn_gain_limit >= 1.0 && cfg.enhn_gain_limit <= 100.0)) // NaN fails too
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_enhn_gain_limit " +
                                                    std::to_string(cfg.enhn_gain_limit) +
                                                    " is not in [1, 100]");
    if (variant == VIF_VARIANT_FLOAT && !kernelscale_accepted(cfg.kernelscale))
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "vif_kernelscale " + std::to_string(cfg.kernelscale) +
                        " is not one of the values libvmaf accepts (1.0, 0.5, 1.5, 2.0, ...)");
    if (variant == VIF_VARIANT_INTEGER && cfg.kernelscale != 1.0)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "vif_kernelscale applies to the float variant only");
    return VIF_OK;
}

VifStatus params_from_config(const VifConfig& cfg, Params* out) {
    for (size_t k = 0; k < sizeof cfg.reserved / sizeof cfg.reserved[0]; ++k)
        if (cfg.reserved[k] != 0)
            return fail(VIF_ERROR_INVALID_ARGUMENT,
                        "VifConfig.reserved[" + std::to_string(k) + "] is " +
                            std::to_string(cfg.reserved[k]) +
                            "; reserved fields must be zero (start from vif_default_config)");
    if (cfg.bitdepth != 8 && cfg.bitdepth != 10 && cfg.bitdepth != 12 && cfg.bitdepth != 16)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "unsupported bit depth " + std::to_string(cfg.bitdepth) + " (8, 10, 12 or 16)");
    const int backend = enum_value(cfg.backend);
    if (backend != VIF_BACKEND_AUTO && backend != VIF_BACKEND_CPU && backend != VIF_BACKEND_CUDA)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "unknown backend " + std::to_string(backend));
    if (VifStatus st = check_options(cfg); st != VIF_OK) return st;
    if (cfg.max_width > static_cast<uint32_t>(kMaxSize) ||
        cfg.max_height > static_cast<uint32_t>(kMaxSize))
        return fail(VIF_ERROR_INVALID_ARGUMENT, "frame size above the 32768x32768 limit");
    Params p;
    p.variant = cfg.variant;
    p.bitdepth = cfg.bitdepth;
    p.max_width = cfg.max_width;
    p.max_height = cfg.max_height;
    p.gain_limit = cfg.enhn_gain_limit;
    p.kernelscale = static_cast<float>(cfg.kernelscale);
    p.threads = cfg.threads;
    p.queue_depth = cfg.queue_depth;
    p.cuda_device = cfg.cuda_device;
    p.min_size = min_size(p);
    const uint32_t min = p.min_size;
    if (cfg.max_width < min || cfg.max_height < min)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "maximum frame size " + std::to_string(cfg.max_width) + "x" +
                        std::to_string(cfg.max_height) + " is below the minimum " +
                        std::to_string(min) + "x" + std::to_string(min));
    *out = p;
    return VIF_OK;
}

uint32_t min_size(const Params& p) {
    int widths[4];
    for (int s = 0; s < 4; ++s)
        widths[s] = p.variant == VIF_VARIANT_INTEGER ? kIntFilterWidth[s]
                                                     : float_filter_width(s, p.kernelscale);
    return static_cast<uint32_t>(cpu_ref::min_frame_size(widths));
}

VifStatus check_picture(const Params& p, const VifPicture* pic, const char* which) {
    const std::string w(which);
    if (!pic) return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture is NULL");
    if (!pic->data) return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture has no data");
    if (pic->bitdepth != p.bitdepth)
        return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture is " + std::to_string(pic->bitdepth) +
                                                    "-bit but the context is " +
                                                    std::to_string(p.bitdepth) + "-bit");
    if (pic->width > p.max_width || pic->height > p.max_height)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    w + " picture " + std::to_string(pic->width) + "x" +
                        std::to_string(pic->height) + " exceeds the context's maximum " +
                        std::to_string(p.max_width) + "x" + std::to_string(p.max_height));
    const uint32_t min = p.min_size; // computed once at create: this runs per frame
    if (pic->width < min || pic->height < min)
        return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture " + std::to_string(pic->width) + "x" +
                                                    std::to_string(pic->height) +
                                                    " is below the minimum " + std::to_string(min) +
                                                    "x" + std::to_string(min));
    // Width and height are at most 32768 here, so `row` cannot overflow; with the stride capped
    // the whole extent (stride * (height - 1) + row < 2^46) cannot either.
    const ptrdiff_t row = static_cast<ptrdiff_t>(pic->width) * (p.bitdepth == 8 ? 1 : 2);
    if (pic->stride < row)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    w + " picture stride " + std::to_string(pic->stride) +
                        " is smaller than a row (" + std::to_string(row) + " bytes)" +
                        (pic->stride < 0 ? "; negative strides are not supported" : ""));
    if (pic->stride > kMaxStride)
        return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture stride " +
                                                    std::to_string(pic->stride) +
                                                    " is above the limit of 2^30 bytes");
    const uint64_t extent =
        static_cast<uint64_t>(pic->stride) * (pic->height - 1) + static_cast<uint64_t>(row);
    if (reinterpret_cast<uintptr_t>(pic->data) > UINTPTR_MAX - extent)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    w + " picture: the plane (" + std::to_string(extent) +
                        " bytes from its first sample) runs past the end of the address space");
    if ((pic->flags & ~VIF_PICTURE_MSB_ALIGNED) != 0)
        return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture has unknown flags");
    if ((pic->flags & VIF_PICTURE_MSB_ALIGNED) && p.bitdepth == 8)
        return fail(VIF_ERROR_INVALID_ARGUMENT, w + " picture: MSB-aligned needs 16-bit words");
    return VIF_OK;
}

} // namespace vif

using vif::fail;

#define VIF_CHECK_ARG(cond, msg)                                                                   \
    do {                                                                                           \
        if (!(cond)) return fail(VIF_ERROR_INVALID_ARGUMENT, msg);                                 \
    } while (0)

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
    VIF_CHECK_ARG(ctx, "vif_submit: ctx is NULL");
    if (ctx->failed) return fail(VIF_ERROR_INVALID_STATE, "context failed earlier; destroy it");
    if (VifStatus st = vif::check_picture(ctx->params, ref, "reference"); st != VIF_OK) return st;
    if (VifStatus st = vif::check_picture(ctx->params, dist, "distorted"); st != VIF_OK) return st;
    if (ref->width != dist->width || ref->height != dist->height)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "reference is " + std::to_string(ref->width) + "x" +
                        std::to_string(ref->height) + " but distorted is " +
                        std::to_string(dist->width) + "x" + std::to_string(dist->height));
    auto host = [](const VifPicture& p) {
        return vif::HostPlane{p.data, p.stride, p.width, p.height,
                              (p.flags & VIF_PICTURE_MSB_ALIGNED) != 0};
    };
    try {
        const uint64_t index = ctx->next_index;
        vif::Status err = ctx->backend->submit(host(*ref), host(*dist), index);
        if (err.status == VIF_AGAIN) return fail(err);
        if (err) {
            if (err.status == VIF_ERROR_DEVICE) ctx->failed = true;
            return fail(err);
        }
        ++ctx->next_index;
        if (frame_index) *frame_index = index;
        return VIF_OK;
    } catch (const std::exception& e) {
        return fail(VIF_ERROR_INTERNAL, std::string("vif_submit: ") + e.what());
    }
}

VifStatus vif_submit_multi(VifContext* ctx, const VifPicture* ref, const VifPicture* const* dists,
                           size_t count, uint64_t* first_index) {
    VIF_CHECK_ARG(ctx, "vif_submit_multi: ctx is NULL");
    if (ctx->failed) return fail(VIF_ERROR_INVALID_STATE, "context failed earlier; destroy it");
    VIF_CHECK_ARG(dists, "vif_submit_multi: dists is NULL");
    VIF_CHECK_ARG(count >= 1 && count <= VIF_MAX_DISTORTED,
                  "vif_submit_multi: count " + std::to_string(count) + " is not in [1, " +
                      std::to_string(VIF_MAX_DISTORTED) + "]");
    if (VifStatus st = vif::check_picture(ctx->params, ref, "reference"); st != VIF_OK) return st;
    vif::HostPlane planes[VIF_MAX_DISTORTED];
    auto host = [](const VifPicture& p) {
        return vif::HostPlane{p.data, p.stride, p.width, p.height,
                              (p.flags & VIF_PICTURE_MSB_ALIGNED) != 0};
    };
    for (size_t k = 0; k < count; ++k) {
        const std::string which = "distorted[" + std::to_string(k) + "]";
        if (VifStatus st = vif::check_picture(ctx->params, dists[k], which.c_str()); st != VIF_OK)
            return st;
        if (dists[k]->width != ref->width || dists[k]->height != ref->height)
            return fail(VIF_ERROR_INVALID_ARGUMENT, "reference is " + std::to_string(ref->width) +
                                                        "x" + std::to_string(ref->height) +
                                                        " but " + which + " is " +
                                                        std::to_string(dists[k]->width) + "x" +
                                                        std::to_string(dists[k]->height));
        planes[k] = host(*dists[k]);
    }
    try {
        const uint64_t index = ctx->next_index;
        vif::Status err = ctx->backend->submit_multi(host(*ref), planes, count, index);
        if (err.status == VIF_AGAIN) return fail(err);
        if (err) {
            if (err.status == VIF_ERROR_DEVICE || err.status == VIF_ERROR_INVALID_STATE)
                ctx->failed = true;
            return fail(err);
        }
        ctx->next_index += count;
        if (first_index) *first_index = index;
        return VIF_OK;
    } catch (const std::exception& e) {
        return fail(VIF_ERROR_INTERNAL, std::string("vif_submit_multi: ") + e.what());
    }
}

VifStatus vif_receive(VifContext* ctx, VifScores* scores, int block) {
    VIF_CHECK_ARG(ctx, "vif_receive: ctx is NULL");
    VIF_CHECK_ARG(scores, "vif_receive: scores is NULL");
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
        return VIF_OK;
    } catch (const std::exception& e) {
        return fail(VIF_ERROR_INTERNAL, std::string("vif_receive: ") + e.what());
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
