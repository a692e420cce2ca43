// AVFrame -> VifPicture glue (vif/vif_ffmpeg.h). No pixel is touched here: software frames are
// described as borrowed luma views and handed to vif_submit, which copies them.
#include "vif/vif_ffmpeg.h"

#include <cstdarg>
#include <cstdio>
#include <string>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
}

#if defined(VIF_FFMPEG_HAVE_CUDA)
#include "vif_ffmpeg_cuda.hpp"
#endif

namespace {

thread_local std::string g_error;

VifStatus fail(VifStatus status, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_error = buf;
    return status;
}

const char* fmt_name(int fmt) {
    const char* n = av_get_pix_fmt_name(static_cast<AVPixelFormat>(fmt));
    return n ? n : "unknown";
}

// Luma layout of a software pixel format, or why it has none we can take as is.
struct LumaLayout {
    uint32_t bitdepth = 0;
    uint32_t bytes = 0; // per sample
    bool msb_aligned = false;
    const char* why_not = nullptr;
};

LumaLayout luma_layout(int fmt) {
    LumaLayout l;
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(fmt));
    if (!d) {
        l.why_not = "unknown pixel format";
        return l;
    }
    if (d->flags & AV_PIX_FMT_FLAG_HWACCEL) {
        l.why_not = "hardware frame format";
        return l;
    }
    if (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                    AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_BAYER)) {
        l.why_not = "no luma plane (RGB, palette, float, Bayer or bitstream format)";
        return l;
    }
    if (d->nb_components < 1 || d->comp[0].plane != 0 || d->comp[0].offset != 0) {
        l.why_not = "luma is not the first plane on its own";
        return l;
    }
    const AVComponentDescriptor& c = d->comp[0];
    const uint32_t depth = static_cast<uint32_t>(c.depth);
    if (depth != 8 && depth != 10 && depth != 12 && depth != 16) {
        l.why_not = "libvif scores 8, 10, 12 and 16-bit luma only";
        return l;
    }
    const uint32_t bytes = depth > 8 ? 2 : 1;
    if (static_cast<uint32_t>(c.step) != bytes) {
        l.why_not = "packed format: luma samples are interleaved with chroma";
        return l;
    }
    if (bytes == 2 && (d->flags & AV_PIX_FMT_FLAG_BE)) {
        l.why_not = "big-endian samples";
        return l;
    }
    if (c.shift == 0) {
        l.msb_aligned = false;
    } else if (bytes == 2 && static_cast<uint32_t>(c.shift) + depth == 16) {
        l.msb_aligned = true;
    } else {
        l.why_not = "luma samples are shifted in their words";
        return l;
    }
    l.bitdepth = depth;
    l.bytes = bytes;
    return l;
}

// Visible (cropped) size of a frame.
bool visible_size(const AVFrame* f, uint32_t* w, uint32_t* h) {
    if (f->width <= 0 || f->height <= 0) return false;
    const size_t cw = f->crop_left + f->crop_right, ch = f->crop_top + f->crop_bottom;
    if (cw >= static_cast<size_t>(f->width) || ch >= static_cast<size_t>(f->height)) return false;
    *w = static_cast<uint32_t>(f->width - cw);
    *h = static_cast<uint32_t>(f->height - ch);
    return true;
}

VifStatus picture_of(const AVFrame* f, const char* which, VifPicture* pic) {
    if (!f) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg: %s frame is NULL", which);
    if (f->format == AV_PIX_FMT_CUDA)
        return fail(VIF_ERROR_UNSUPPORTED,
                    "vif_ffmpeg: %s frame is a CUDA hardware frame; it has no host luma plane",
                    which);
    const LumaLayout l = luma_layout(f->format);
    if (!l.bitdepth)
        return fail(VIF_ERROR_UNSUPPORTED,
                    "vif_ffmpeg: %s frame: pixel format %s not supported (%s); convert it with "
                    "libswscale to a planar YUV or gray format first",
                    which, fmt_name(f->format), l.why_not);
    uint32_t w = 0, h = 0;
    if (!visible_size(f, &w, &h) || !f->data[0] || f->linesize[0] == 0)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg: %s frame has no picture (%dx%d)",
                    which, f->width, f->height);
    const uint8_t* p = f->data[0] + static_cast<ptrdiff_t>(f->crop_top) * f->linesize[0] +
                       static_cast<ptrdiff_t>(f->crop_left) * l.bytes;
    pic->data = p;
    pic->stride = f->linesize[0];
    pic->width = w;
    pic->height = h;
    pic->bitdepth = l.bitdepth;
    pic->flags = l.msb_aligned ? VIF_PICTURE_MSB_ALIGNED : 0u;
    return VIF_OK;
}

#if defined(VIF_FFMPEG_HAVE_CUDA)
// Format of the samples behind a CUDA frame.
int cuda_sw_format(const AVFrame* f) {
    if (!f->hw_frames_ctx) return AV_PIX_FMT_NONE;
    const auto* fc = reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data);
    return fc->sw_format;
}
#endif

} // namespace

extern "C" {

VIF_API const char* vif_ffmpeg_last_error(void) {
    return g_error.c_str();
}

VIF_API int vif_ffmpeg_pix_fmt_supported(int pix_fmt) {
    if (pix_fmt == AV_PIX_FMT_CUDA) {
#if defined(VIF_FFMPEG_HAVE_CUDA)
        return 1;
#else
        return 0;
#endif
    }
    return static_cast<int>(luma_layout(pix_fmt).bitdepth);
}

VIF_API VifStatus vif_ffmpeg_picture(const AVFrame* frame, VifPicture* picture) {
    g_error.clear();
    if (!picture) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg_picture: picture is NULL");
    return picture_of(frame, "the", picture);
}

VIF_API VifStatus vif_ffmpeg_config_from_frame(VifConfig* cfg, const AVFrame* frame) {
    g_error.clear();
    if (!cfg || !frame)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg_config_from_frame: NULL argument");
    if (frame->format == AV_PIX_FMT_CUDA) {
#if defined(VIF_FFMPEG_HAVE_CUDA)
        const LumaLayout l = luma_layout(cuda_sw_format(frame));
        uint32_t w = 0, h = 0;
        if (!l.bitdepth || !visible_size(frame, &w, &h))
            return fail(VIF_ERROR_UNSUPPORTED,
                        "vif_ffmpeg: CUDA frame with software format %s not supported",
                        fmt_name(cuda_sw_format(frame)));
        cfg->max_width = w;
        cfg->max_height = h;
        cfg->bitdepth = l.bitdepth;
        cfg->backend = VIF_BACKEND_CUDA;
        return VIF_OK;
#else
        return fail(VIF_ERROR_UNSUPPORTED,
                    "vif_ffmpeg: CUDA hardware frames need libvif built with the CUDA backend");
#endif
    }
    VifPicture p;
    const VifStatus st = picture_of(frame, "the", &p);
    if (st != VIF_OK) return st;
    cfg->max_width = p.width;
    cfg->max_height = p.height;
    cfg->bitdepth = p.bitdepth;
    return VIF_OK;
}

VIF_API VifStatus vif_ffmpeg_submit(VifContext* ctx, const AVFrame* ref, const AVFrame* dist,
                                    uint64_t* frame_index) {
    return vif_ffmpeg_submit_flags(ctx, ref, dist, 0, frame_index);
}

VIF_API VifStatus vif_ffmpeg_submit_flags(VifContext* ctx, const AVFrame* ref, const AVFrame* dist,
                                          unsigned flags, uint64_t* frame_index) {
    g_error.clear();
    if (flags & ~VIF_FFMPEG_FRAMES_KEPT)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg_submit_flags: unknown flags 0x%x",
                    flags & ~VIF_FFMPEG_FRAMES_KEPT);
    if (!ctx) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg_submit: context is NULL");
    if (!ref || !dist)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_ffmpeg_submit: %s frame is NULL",
                    ref ? "dist" : "ref");
    const bool ref_hw = ref->format == AV_PIX_FMT_CUDA, dist_hw = dist->format == AV_PIX_FMT_CUDA;
    if (ref_hw || dist_hw) {
#if defined(VIF_FFMPEG_HAVE_CUDA)
        if (!(ref_hw && dist_hw))
            return fail(VIF_ERROR_UNSUPPORTED,
                        "vif_ffmpeg_submit: one CUDA frame and one software frame; download the "
                        "CUDA frame (av_hwframe_transfer_data) or upload the other");
        std::string msg;
        const VifStatus st = vif::ffmpeg::submit_cuda(
            ctx, ref, dist, (flags & VIF_FFMPEG_FRAMES_KEPT) != 0, frame_index, &msg);
        if (st != VIF_OK) return fail(st, "%s", msg.c_str());
        return VIF_OK;
#else
        return fail(VIF_ERROR_UNSUPPORTED,
                    "vif_ffmpeg_submit: CUDA hardware frames need libvif built with the CUDA "
                    "backend (VIF_ENABLE_CUDA); download them with av_hwframe_transfer_data");
#endif
    }
    VifPicture r, d;
    VifStatus st = picture_of(ref, "ref", &r);
    if (st != VIF_OK) return st;
    st = picture_of(dist, "dist", &d);
    if (st != VIF_OK) return st;
    if (r.width != d.width || r.height != d.height)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "vif_ffmpeg_submit: frame sizes differ: ref %ux%u, dist %ux%u", r.width,
                    r.height, d.width, d.height);
    if (r.bitdepth != d.bitdepth)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "vif_ffmpeg_submit: bit depths differ: ref %s is %u-bit, dist %s is %u-bit",
                    fmt_name(ref->format), r.bitdepth, fmt_name(dist->format), d.bitdepth);
    st = vif_submit(ctx, &r, &d, frame_index);
    if (st != VIF_OK) return fail(st, "%s", vif_last_error());
    return VIF_OK;
}

} // extern "C"
