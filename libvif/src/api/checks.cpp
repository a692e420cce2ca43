// Argument checks at the C boundary: options, configs and pictures (checks.hpp).
#include "api/checks.hpp"

#include <cstdint>
#include <string>

#include "api/last_error.hpp"
#include "core/vif_constants.hpp"

namespace vif {

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
    if (cfg.maps > 1)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "VifConfig.maps is " + std::to_string(cfg.maps) +
                                                    " (0: off, 1: per-pixel terms)");
    p.maps = cfg.maps == 1;
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
    return static_cast<uint32_t>(min_frame_size(widths));
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
