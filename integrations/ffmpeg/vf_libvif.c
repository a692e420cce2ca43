/*
 * libvif filter: VIF (the fidelity feature inside VMAF) between two video streams, computed by
 * libvif with libvmaf's numbers, keys and log files.
 *
 * This file is part of libvif's FFmpeg integration (integrations/ffmpeg in the libvif
 * repository). It is free software; you can redistribute it and/or modify it under the terms of
 * the GNU Lesser General Public License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version. It is distributed WITHOUT
 * ANY WARRANTY; see the GNU Lesser General Public License for more details.
 */

/**
 * @file
 * libvif filter. Inputs as libvmaf's filter: the first is the distorted video, the second the
 * reference, synchronised by framesync; the distorted frames pass through with their scores as
 * frame metadata (lavfi.vif.<libvmaf key>). Host frames and CUDA frames (NVDEC) are scored
 * without conversion; the log file is libvif's result log (vif/vif_log.h), the bytes of the
 * `vif` CLI.
 *
 * One source for FFmpeg 5.1 (libavfilter 8) and 7.1 (libavfilter 10.4): LIBVIF_LAVFI_71 marks
 * where 7.1's libavfilter API differs (the link's frame rate, frames context and frame counts
 * live in FilterLink; formats are negotiated through query_func2; framesync has ts_sync_mode).
 */

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <vif/vif.h>
#include <vif/vif_ffmpeg.h>
#include <vif/vif_log.h>

#include "libavutil/avstring.h"
#include "libavutil/dict.h"
#include "libavutil/hwcontext.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavutil/time.h"
#include "version.h"
#include "avfilter.h"
#include "filters.h"
#include "formats.h"
#include "framesync.h"
#include "video.h"

#define LIBVIF_LAVFI_71 (LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(10, 4, 100))
#if !LIBVIF_LAVFI_71
#include "internal.h" /* 5.1: FILTER_INPUTS, ff_filter_frame, ... (filters.h since 7.1) */
#endif

#define LIBVIF_MAX_VARIANTS 2
#define LIBVIF_MAX_PENDING 64

enum LibvifBackendOpt { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA };

/* One VIF variant (integer or float, with its options) and its own libvif context. */
typedef struct LibvifVariant {
    VifConfig cfg;
    VifContext *ctx;
    int log_index;
    double *values[VIF_NUM_SCALES]; /* per-frame scale scores, for the summary line */
} LibvifVariant;

typedef struct LIBVIFContext {
    const AVClass *class;
    FFFrameSync fs;

    /* options */
    char *log_path;
    char *log_fmt;
    char *variant_opt;
    char *feature_cfg;
    char *precision_opt;
    int n_threads;
    int n_subsample;
    int backend_opt;
    int device;
    int details;
    int score_wait;     /* microseconds; -1: as long as it takes */

    /* state */
    LibvifVariant variants[LIBVIF_MAX_VARIANTS];
    int nb_variants;
    int metrics;        /* columns per variant: VIF_LOG_METRICS_DEFAULT or _ALL (debug=true) */
    int precision;      /* VIF_LOG_PRECISION_* or digits */
    VifLogFormat log_format;
    VifLog *log;
    int bitdepth;
    uint64_t frames_read;   /* pairs read (frameNum of the next one) */
    uint64_t frames_scored;
    size_t values_cap;
    int64_t start_time;
    int64_t last_ref_pts;   /* the reference frame of the previous pair (framesync time base) */
    int have_last_ref;
    int failed;             /* an error was returned: no log is written */
    int had_event;          /* a pair was taken since the last activate */
    int finished;

    /* distorted frames scored and not yet passed on, oldest first, with their frameNums */
    AVFrame *pending[LIBVIF_MAX_PENDING];
    uint64_t pending_num[LIBVIF_MAX_PENDING];
    int pending_scored[LIBVIF_MAX_PENDING]; /* 1: submitted to the contexts, scores awaited */
    /* CUDA frames scored with the distorted one and kept until its scores arrive
     * (VIF_FFMPEG_FRAMES_KEPT: the reference, an uploaded frame; NULL if none) */
    AVFrame *pending_kept[LIBVIF_MAX_PENDING][2];
    int nb_pending;

    /* software input uploaded beside a CUDA input (a mix of hardware and software frames) */
    AVBufferRef *upload_frames;
    int download_instead;
} LIBVIFContext;

#define OFFSET(x) offsetof(LIBVIFContext, x)
#define FLAGS AV_OPT_FLAG_FILTERING_PARAM | AV_OPT_FLAG_VIDEO_PARAM

static const AVOption libvif_options[] = {
    { "log_path", "write the scores to this file (libvmaf's layout)", OFFSET(log_path), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "log_fmt", "log format: xml, json or csv", OFFSET(log_fmt), AV_OPT_TYPE_STRING, { .str = "xml" }, 0, 0, FLAGS },
    { "n_threads", "CPU threads (0: one per core)", OFFSET(n_threads), AV_OPT_TYPE_INT, { .i64 = 0 }, 0, 256, FLAGS },
    { "n_subsample", "score every n-th frame", OFFSET(n_subsample), AV_OPT_TYPE_INT, { .i64 = 1 }, 1, INT_MAX, FLAGS },
    { "variant", "integer, float or both", OFFSET(variant_opt), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "feature", "libvmaf's feature syntax: name=vif|float_vif, options vif_enhn_gain_limit, vif_kernelscale, debug; entries separated by |", OFFSET(feature_cfg), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "backend", "where to score", OFFSET(backend_opt), AV_OPT_TYPE_INT, { .i64 = BACKEND_AUTO }, BACKEND_AUTO, BACKEND_CUDA, FLAGS, "backend" },
        { "auto", "CUDA for CUDA frames, else the CPU (or CUDA when present)", 0, AV_OPT_TYPE_CONST, { .i64 = BACKEND_AUTO }, 0, 0, FLAGS, "backend" },
        { "cpu",  "the CPU", 0, AV_OPT_TYPE_CONST, { .i64 = BACKEND_CPU }, 0, 0, FLAGS, "backend" },
        { "cuda", "an NVIDIA GPU", 0, AV_OPT_TYPE_CONST, { .i64 = BACKEND_CUDA }, 0, 0, FLAGS, "backend" },
    { "device", "CUDA device ordinal (-1: 0); CUDA frames must be on it", OFFSET(device), AV_OPT_TYPE_INT, { .i64 = -1 }, -1, 255, FLAGS },
    { "precision", "log values: libvmaf (libvmaf's rule), max (every bit) or 0..17 digits", OFFSET(precision_opt), AV_OPT_TYPE_STRING, { .str = "libvmaf" }, 0, 0, FLAGS },
    { "details", "add libvif's details block to the log", OFFSET(details), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, FLAGS },
    { "score_wait", "with no pair to take, wait up to this many microseconds for the oldest held frame's scores and pass it on (-1: as long as it takes; 0: frames go on with the next pair)", OFFSET(score_wait), AV_OPT_TYPE_INT, { .i64 = 0 }, -1, 10000000, FLAGS },
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(libvif, LIBVIFContext, fs);

/* ---- options ------------------------------------------------------------------------------ */

static int parse_double_opt(AVFilterContext *ctx, const char *key, const char *val, double *out)
{
    char *end = NULL;
    double d = strtod(val, &end);
    if (!*val || *end || d != d) {
        av_log(ctx, AV_LOG_ERROR, "feature option %s: '%s' is not a number\n", key, val);
        return AVERROR(EINVAL);
    }
    *out = d;
    return 0;
}

/* Applies KEY=VALUE pairs of one feature entry to `v` (NULL: to every variant). */
static int apply_feature_opts(AVFilterContext *ctx, AVDictionary *d, LibvifVariant *v)
{
    LIBVIFContext *s = ctx->priv;
    const AVDictionaryEntry *e = NULL;
    int ret;
    while ((e = av_dict_get(d, "", e, AV_DICT_IGNORE_SUFFIX))) {
        double val;
        if (!strcmp(e->key, "name"))
            continue;
        if (!strcmp(e->key, "debug")) {
            if (!strcmp(e->value, "true") || !strcmp(e->value, "1"))
                s->metrics = VIF_LOG_METRICS_ALL;
            else if (strcmp(e->value, "false") && strcmp(e->value, "0")) {
                av_log(ctx, AV_LOG_ERROR, "feature option debug: '%s' is not true or false\n", e->value);
                return AVERROR(EINVAL);
            }
            continue;
        }
        if (!strcmp(e->key, "vif_enhn_gain_limit") || !strcmp(e->key, "egl")) {
            if ((ret = parse_double_opt(ctx, e->key, e->value, &val)) < 0)
                return ret;
            for (int i = 0; i < s->nb_variants; i++)
                if (!v || v == &s->variants[i])
                    s->variants[i].cfg.enhn_gain_limit = val;
        } else if (!strcmp(e->key, "vif_kernelscale") || !strcmp(e->key, "ks")) {
            int applied = 0;
            if ((ret = parse_double_opt(ctx, e->key, e->value, &val)) < 0)
                return ret;
            for (int i = 0; i < s->nb_variants; i++) {
                LibvifVariant *w = &s->variants[i];
                if ((!v || v == w) && w->cfg.variant == VIF_VARIANT_FLOAT) {
                    w->cfg.kernelscale = val;
                    applied = 1;
                }
            }
            if (!applied) {
                av_log(ctx, AV_LOG_ERROR, "vif_kernelscale applies to the float variant only "
                       "(variant=float, or feature=name=float_vif...)\n");
                return AVERROR(EINVAL);
            }
        } else {
            av_log(ctx, AV_LOG_ERROR, "unknown feature option '%s' (known: vif_enhn_gain_limit "
                   "or egl, vif_kernelscale or ks, debug)\n", e->key);
            return AVERROR(EINVAL);
        }
    }
    return 0;
}

static int add_variant(AVFilterContext *ctx, VifVariant variant, LibvifVariant **out)
{
    LIBVIFContext *s = ctx->priv;
    for (int i = 0; i < s->nb_variants; i++)
        if (s->variants[i].cfg.variant == variant) {
            av_log(ctx, AV_LOG_ERROR, "the %s variant is given twice\n",
                   variant == VIF_VARIANT_FLOAT ? "float" : "integer");
            return AVERROR(EINVAL);
        }
    if (s->nb_variants == LIBVIF_MAX_VARIANTS)
        return AVERROR(EINVAL);
    vif_default_config(&s->variants[s->nb_variants].cfg);
    s->variants[s->nb_variants].cfg.variant = variant;
    *out = &s->variants[s->nb_variants++];
    return 0;
}

/* variant=integer|float|both, then feature=name=vif:opt=val|name=float_vif:...|opt=val (entries
 * with a name choose the variants, as libvmaf's --feature; entries without one apply to all). */
static int parse_variants(AVFilterContext *ctx)
{
    LIBVIFContext *s = ctx->priv;
    LibvifVariant *v;
    int ret, named = 0;
    char *cfg = NULL, *saveptr = NULL, *entry;

    s->metrics = VIF_LOG_METRICS_DEFAULT;
    if (s->feature_cfg) { /* the named entries first: they are the variants */
        if (!(cfg = av_strdup(s->feature_cfg)))
            return AVERROR(ENOMEM);
        for (entry = av_strtok(cfg, "|", &saveptr); entry; entry = av_strtok(NULL, "|", &saveptr)) {
            AVDictionary *d = NULL;
            const AVDictionaryEntry *name;
            if ((ret = av_dict_parse_string(&d, entry, "=", ":", 0)) < 0) {
                av_log(ctx, AV_LOG_ERROR, "feature '%s': not KEY=VALUE[:KEY=VALUE...]\n", entry);
                av_dict_free(&d);
                goto end;
            }
            if ((name = av_dict_get(d, "name", NULL, 0))) {
                VifVariant kind;
                if (!strcmp(name->value, "vif") || !strcmp(name->value, "integer_vif"))
                    kind = VIF_VARIANT_INTEGER;
                else if (!strcmp(name->value, "float_vif"))
                    kind = VIF_VARIANT_FLOAT;
                else {
                    av_log(ctx, AV_LOG_ERROR, "feature '%s': libvif computes only vif and float_vif\n",
                           name->value);
                    av_dict_free(&d);
                    ret = AVERROR(EINVAL);
                    goto end;
                }
                ret = add_variant(ctx, kind, &v);
                if (ret >= 0)
                    ret = apply_feature_opts(ctx, d, v);
                named = 1;
            }
            av_dict_free(&d);
            if (ret < 0)
                goto end;
        }
    }
    if (s->variant_opt) {
        int want_int = !strcmp(s->variant_opt, "integer") || !strcmp(s->variant_opt, "both");
        int want_flt = !strcmp(s->variant_opt, "float") || !strcmp(s->variant_opt, "both");
        if (!want_int && !want_flt) {
            av_log(ctx, AV_LOG_ERROR, "unknown variant '%s' (integer, float or both)\n", s->variant_opt);
            ret = AVERROR(EINVAL);
            goto end;
        }
        if (named) {
            int has_int = 0, has_flt = 0;
            for (int i = 0; i < s->nb_variants; i++) {
                has_int |= s->variants[i].cfg.variant == VIF_VARIANT_INTEGER;
                has_flt |= s->variants[i].cfg.variant == VIF_VARIANT_FLOAT;
            }
            if (has_int != want_int || has_flt != want_flt) {
                av_log(ctx, AV_LOG_ERROR, "variant=%s and the feature names disagree: give one of them\n",
                       s->variant_opt);
                ret = AVERROR(EINVAL);
                goto end;
            }
        } else {
            if (want_int && (ret = add_variant(ctx, VIF_VARIANT_INTEGER, &v)) < 0)
                goto end;
            if (want_flt && (ret = add_variant(ctx, VIF_VARIANT_FLOAT, &v)) < 0)
                goto end;
        }
    }
    if (!s->nb_variants && (ret = add_variant(ctx, VIF_VARIANT_INTEGER, &v)) < 0)
        goto end;
    ret = 0;
    if (s->feature_cfg) { /* then the unnamed entries: options for every variant */
        av_freep(&cfg);
        if (!(cfg = av_strdup(s->feature_cfg)))
            return AVERROR(ENOMEM);
        saveptr = NULL;
        for (entry = av_strtok(cfg, "|", &saveptr); entry; entry = av_strtok(NULL, "|", &saveptr)) {
            AVDictionary *d = NULL;
            if ((ret = av_dict_parse_string(&d, entry, "=", ":", 0)) >= 0 &&
                !av_dict_get(d, "name", NULL, 0))
                ret = apply_feature_opts(ctx, d, NULL);
            av_dict_free(&d);
            if (ret < 0)
                goto end;
        }
    }
end:
    av_free(cfg);
    return ret;
}

static av_cold int init(AVFilterContext *ctx)
{
    LIBVIFContext *s = ctx->priv;
    int ret;

    if ((ret = parse_variants(ctx)) < 0)
        return ret;
    if (!av_strcasecmp(s->log_fmt, "json"))
        s->log_format = VIF_LOG_JSON;
    else if (!av_strcasecmp(s->log_fmt, "xml"))
        s->log_format = VIF_LOG_XML;
    else if (!av_strcasecmp(s->log_fmt, "csv"))
        s->log_format = VIF_LOG_CSV;
    else {
        av_log(ctx, AV_LOG_ERROR, "unknown log_fmt '%s' (json, xml or csv)\n", s->log_fmt);
        return AVERROR(EINVAL);
    }
    if (!strcmp(s->precision_opt, "libvmaf"))
        s->precision = VIF_LOG_PRECISION_LIBVMAF;
    else if (!strcmp(s->precision_opt, "max"))
        s->precision = VIF_LOG_PRECISION_MAX;
    else {
        char *end = NULL;
        long p = strtol(s->precision_opt, &end, 10);
        if (!*s->precision_opt || *end || p < 0 || p > 17) {
            av_log(ctx, AV_LOG_ERROR, "precision '%s' is not libvmaf, max or 0..17\n", s->precision_opt);
            return AVERROR(EINVAL);
        }
        s->precision = (int)p;
    }
    /* Check the variants' options now, as vif_create will (vif_metric_name checks the same). */
    for (int i = 0; i < s->nb_variants; i++) {
        char name[64];
        if (vif_metric_name(&s->variants[i].cfg, VIF_METRIC_SCALE0, name, sizeof(name)) != VIF_OK) {
            av_log(ctx, AV_LOG_ERROR, "%s\n", vif_last_error());
            return AVERROR(EINVAL);
        }
    }
    s->fs.on_event = NULL; /* set in config_output, after framesync's init */
    return 0;
}

/* ---- formats and links -------------------------------------------------------------------- */

/* A link's frame rate, CUDA frames context and count of frames sent: AVFilterLink's own fields
 * in 5.1, FilterLink's (the link's internal part) in 7.1. */
static AVRational *link_frame_rate(AVFilterLink *l)
{
#if LIBVIF_LAVFI_71
    return &ff_filter_link(l)->frame_rate;
#else
    return &l->frame_rate;
#endif
}

static AVBufferRef **link_hw_frames(AVFilterLink *l)
{
#if LIBVIF_LAVFI_71
    return &ff_filter_link(l)->hw_frames_ctx;
#else
    return &l->hw_frames_ctx;
#endif
}

static int64_t link_frame_count_in(AVFilterLink *l)
{
#if LIBVIF_LAVFI_71
    return ff_filter_link(l)->frame_count_in;
#else
    return l->frame_count_in;
#endif
}

#if LIBVIF_LAVFI_71
static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
#else
static int query_formats(AVFilterContext *ctx)
#endif
{
    /* Every format is offered, so that no conversion is inserted silently (a conversion to
     * another bit depth would change the scores); config_input checks what arrives. The output
     * carries the distorted frames: its format is the first input's. */
#if LIBVIF_LAVFI_71
    AVFilterFormats **dist_in = &cfg_in[0]->formats, **out = &cfg_out[0]->formats;
    AVFilterFormats **ref_in = &cfg_in[1]->formats;
#else
    AVFilterFormats **dist_in = &ctx->inputs[0]->outcfg.formats;
    AVFilterFormats **out = &ctx->outputs[0]->incfg.formats;
    AVFilterFormats **ref_in = &ctx->inputs[1]->outcfg.formats;
#endif
    AVFilterFormats *main_fmts = ff_all_formats(AVMEDIA_TYPE_VIDEO);
    AVFilterFormats *ref_fmts = ff_all_formats(AVMEDIA_TYPE_VIDEO);
    int ret;
    if (!main_fmts || !ref_fmts) {
        av_free(main_fmts ? main_fmts->formats : NULL);
        av_free(main_fmts);
        av_free(ref_fmts ? ref_fmts->formats : NULL);
        av_free(ref_fmts);
        return AVERROR(ENOMEM);
    }
    if ((ret = ff_formats_ref(main_fmts, dist_in)) < 0 || (ret = ff_formats_ref(main_fmts, out)) < 0 ||
        (ret = ff_formats_ref(ref_fmts, ref_in)) < 0)
        return ret;
    return 0;
}

/* The format libvif reads on a link: the link's own, or its CUDA frames' software format. */
static int link_sw_format(AVFilterLink *l)
{
    AVBufferRef *hw = *link_hw_frames(l);
    if (l->format == AV_PIX_FMT_CUDA && hw)
        return ((AVHWFramesContext *)hw->data)->sw_format;
    return l->format;
}

static int check_input(AVFilterContext *ctx, AVFilterLink *l, const char *which)
{
    int f = link_sw_format(l);
    if (l->format == AV_PIX_FMT_CUDA && !*link_hw_frames(l)) {
        av_log(ctx, AV_LOG_ERROR, "the %s input has CUDA frames without a frames context\n", which);
        return AVERROR(EINVAL);
    }
    if (l->format != AV_PIX_FMT_CUDA && !vif_ffmpeg_pix_fmt_supported(f)) {
        av_log(ctx, AV_LOG_ERROR, "the %s input's pixel format %s is not supported (gray, "
               "yuv420p/422p/444p at 8, 10, 12 or 16 bits, nv12, p010, p016, or CUDA frames of "
               "those): convert it first, e.g. format=yuv444p10le\n", which,
               av_get_pix_fmt_name(f) ? av_get_pix_fmt_name(f) : "(unknown)");
        return AVERROR(EINVAL);
    }
    if (l->format == AV_PIX_FMT_CUDA && !vif_ffmpeg_pix_fmt_supported(f)) {
        av_log(ctx, AV_LOG_ERROR, "the %s input's CUDA frames hold %s, which libvif does not read\n",
               which, av_get_pix_fmt_name(f) ? av_get_pix_fmt_name(f) : "(unknown)");
        return AVERROR(EINVAL);
    }
    return 0;
}

static int config_input_ref(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    LIBVIFContext *s = ctx->priv;
    AVFilterLink *dist = ctx->inputs[0], *ref = ctx->inputs[1];
    const AVPixFmtDescriptor *dd, *rd;
    int ret;

    if ((ret = check_input(ctx, dist, "distorted (first)")) < 0 ||
        (ret = check_input(ctx, ref, "reference (second)")) < 0)
        return ret;
    if (dist->w != ref->w || dist->h != ref->h) {
        av_log(ctx, AV_LOG_ERROR, "the distorted input is %dx%d and the reference %dx%d: VIF "
               "compares frames of one size (scale the distorted one first, e.g. "
               "[0:v]scale=%d:%d:flags=bicubic)\n", dist->w, dist->h, ref->w, ref->h, ref->w, ref->h);
        return AVERROR(EINVAL);
    }
    dd = av_pix_fmt_desc_get(link_sw_format(dist));
    rd = av_pix_fmt_desc_get(link_sw_format(ref));
    if (dd->comp[0].depth != rd->comp[0].depth) {
        av_log(ctx, AV_LOG_ERROR, "the distorted input is %d-bit (%s) and the reference %d-bit "
               "(%s): VIF compares samples of one bit depth\n", dd->comp[0].depth, dd->name,
               rd->comp[0].depth, rd->name);
        return AVERROR(EINVAL);
    }
    s->bitdepth = dd->comp[0].depth;
    if (s->backend_opt == BACKEND_CPU &&
        (dist->format == AV_PIX_FMT_CUDA || ref->format == AV_PIX_FMT_CUDA)) {
        av_log(ctx, AV_LOG_ERROR, "backend=cpu with CUDA frames: use backend=cuda (or auto), or "
               "download the frames first (hwdownload,format=...)\n");
        return AVERROR(EINVAL);
    }
    return 0;
}

static int do_vif(FFFrameSync *fs);

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    LIBVIFContext *s = ctx->priv;
    AVFilterLink *mainlink = ctx->inputs[0];
    AVRational rate = *link_frame_rate(mainlink);
    AVBufferRef *hw = *link_hw_frames(mainlink), **out_hw = link_hw_frames(outlink);
    int nearest = 0, ret;

    if ((ret = ff_framesync_init_dualinput(&s->fs, ctx)) < 0)
        return ret;
    s->fs.on_event = do_vif;
    outlink->w = mainlink->w;
    outlink->h = mainlink->h;
    outlink->time_base = mainlink->time_base;
    outlink->sample_aspect_ratio = mainlink->sample_aspect_ratio;
    *link_frame_rate(outlink) = rate;
#if LIBVIF_LAVFI_71
    /* ts_sync_mode=nearest (framesync since 6.1): the reference frame nearest in time pairs,
     * which absorbs the containers' rounding below by itself, at any frame rate. */
    nearest = s->fs.opt_ts_sync_mode == TS_NEAREST;
#endif
    /* Containers round timestamps differently (Matroska keeps milliseconds: 33 ms where MP4 has
     * 33.33 ms), and framesync's default comparison (the last reference frame at or before the
     * distorted one) would pair such a distorted frame with the reference frame before it. With
     * one constant frame rate on both inputs, sync on a half-frame grid: rounding to it absorbs
     * any difference under a quarter of a frame. */
    if (!nearest && rate.num > 0 && rate.den > 0 && !av_cmp_q(rate, *link_frame_rate(ctx->inputs[1])))
        s->fs.time_base = av_inv_q(av_mul_q(rate, (AVRational){ 2, 1 }));
    if (hw) {
        av_buffer_unref(out_hw);
        if (!(*out_hw = av_buffer_ref(hw)))
            return AVERROR(ENOMEM);
    }
    return ff_framesync_configure(&s->fs);
}

/* ---- scoring ------------------------------------------------------------------------------ */

static int vif_error(AVFilterContext *ctx, const char *what, const char *msg)
{
    LIBVIFContext *s = ctx->priv;
    s->failed = 1;
    av_log(ctx, AV_LOG_ERROR, "%s: %s\n", what, msg && *msg ? msg : "failed");
    return AVERROR_EXTERNAL;
}

/* The name of what feeds `link`, for the log's details block (the CLI writes its input paths
 * there): the file of a movie source, else the name of the source filter at the head of the
 * chain (FFmpeg's CLI names its inputs "graph 0 input from stream 1:0"). */
static void source_name(AVFilterLink *link, char *buf, size_t size)
{
    AVFilterContext *f = link->src;
    uint8_t *file = NULL;
    while (f->nb_inputs > 0 && f->inputs[0])
        f = f->inputs[0]->src;
    if (av_opt_get(f, "filename", AV_OPT_SEARCH_CHILDREN, &file) >= 0 && file && *file)
        av_strlcpy(buf, (const char *)file, size);
    else
        av_strlcpy(buf, f->name ? f->name : "", size);
    av_free(file);
}

/* Creates the contexts (and the log) from the first pair: size, bit depth and, for CUDA frames,
 * the device come from the frames. */
static int create_contexts(AVFilterContext *ctx, const AVFrame *dist, const AVFrame *ref)
{
    LIBVIFContext *s = ctx->priv;
    VifLogRun run = { 0 };
    VifConfig base;
    VifStatus st;
    char ref_name[1024], dist_name[1024];

    vif_default_config(&base); /* the call below sets size, depth and, for CUDA frames, the device */
    if (vif_ffmpeg_config_from_frame(&base, ref) != VIF_OK)
        return vif_error(ctx, "reference frame", vif_ffmpeg_last_error());
    if (ref->format != AV_PIX_FMT_CUDA && dist->format == AV_PIX_FMT_CUDA) {
        VifConfig d;
        vif_default_config(&d);
        if (vif_ffmpeg_config_from_frame(&d, dist) != VIF_OK)
            return vif_error(ctx, "distorted frame", vif_ffmpeg_last_error());
        base.backend = d.backend;
    }
    for (int i = 0; i < s->nb_variants; i++) {
        VifConfig *c = &s->variants[i].cfg;
        const int cuda_frames = base.backend == VIF_BACKEND_CUDA;
        c->max_width = base.max_width;
        c->max_height = base.max_height;
        c->bitdepth = base.bitdepth;
        c->threads = s->n_threads;
        c->backend = s->backend_opt == BACKEND_CPU ? VIF_BACKEND_CPU
                   : s->backend_opt == BACKEND_CUDA || cuda_frames ? VIF_BACKEND_CUDA
                   : VIF_BACKEND_AUTO;
        /* CUDA frames must be on this device: libvif refuses others, saying so. */
        c->cuda_device = s->device >= 0 ? s->device : 0;
        if ((st = vif_create(&s->variants[i].ctx, c)) != VIF_OK)
            return vif_error(ctx, "vif_create", vif_last_error());
        av_log(ctx, AV_LOG_VERBOSE, "%s VIF on %s\n", c->variant == VIF_VARIANT_FLOAT ? "float" : "integer",
               vif_backend_name(s->variants[i].ctx));
    }

    run.width = base.max_width;
    run.height = base.max_height;
    run.bitdepth = base.bitdepth;
    run.backend = vif_backend_name(s->variants[0].ctx);
    source_name(ctx->inputs[1], ref_name, sizeof(ref_name));
    source_name(ctx->inputs[0], dist_name, sizeof(dist_name));
    run.reference = ref_name;
    run.distorted = dist_name;
    run.subsample = s->n_subsample;
    run.precision = s->precision;
    run.details = s->details;
    if (vif_log_create(&s->log, s->log_format, &run, s->log_path) != VIF_OK)
        return vif_error(ctx, "log_path", vif_last_error());
    for (int i = 0; i < s->nb_variants; i++)
        if (vif_log_add_variant(s->log, &s->variants[i].cfg, s->metrics, &s->variants[i].log_index) != VIF_OK)
            return vif_error(ctx, "log", vif_last_error());
    s->start_time = av_gettime_relative();
    return 0;
}

static int keep_values(LIBVIFContext *s, int variant, const VifScores *sc)
{
    LibvifVariant *v = &s->variants[variant];
    uint64_t k = s->frames_scored; /* this frame's index among the scored ones */
    if (k >= s->values_cap) {
        size_t cap = s->values_cap ? s->values_cap * 2 : 256;
        for (int i = 0; i < s->nb_variants; i++)
            for (int m = 0; m < VIF_NUM_SCALES; m++) {
                double *p = av_realloc_array(s->variants[i].values[m], cap, sizeof(double));
                if (!p)
                    return AVERROR(ENOMEM);
                s->variants[i].values[m] = p;
            }
        s->values_cap = cap;
    }
    for (int m = 0; m < VIF_NUM_SCALES; m++)
        v->values[m][k] = sc->scale[m];
    return 0;
}

static int set_metadata(AVFilterContext *ctx, AVFrame *frame, int variant, const VifScores *sc)
{
    LIBVIFContext *s = ctx->priv;
    for (int m = 0; m < s->metrics; m++) {
        char key[96], name[64], value[400];
        if (vif_metric_name(&s->variants[variant].cfg, (VifMetric)m, name, sizeof(name)) != VIF_OK ||
            vif_log_format_value(vif_metric_value(sc, (VifMetric)m), s->precision, value, sizeof(value)) != VIF_OK)
            return vif_error(ctx, "metadata", vif_last_error());
        snprintf(key, sizeof(key), "lavfi.vif.%s", name);
        if (av_dict_set(&frame->metadata, key, value, 0) < 0)
            return AVERROR(ENOMEM);
    }
    return 0;
}

/* Takes the oldest held frame off the queue (returned), freeing the frames kept with it. */
static AVFrame *pop_pending(LIBVIFContext *s)
{
    AVFrame *out = s->pending[0];
    av_frame_free(&s->pending_kept[0][0]);
    av_frame_free(&s->pending_kept[0][1]);
    memmove(s->pending, s->pending + 1, (s->nb_pending - 1) * sizeof(*s->pending));
    memmove(s->pending_num, s->pending_num + 1, (s->nb_pending - 1) * sizeof(*s->pending_num));
    memmove(s->pending_scored, s->pending_scored + 1, (s->nb_pending - 1) * sizeof(*s->pending_scored));
    memmove(s->pending_kept, s->pending_kept + 1, (s->nb_pending - 1) * sizeof(*s->pending_kept));
    s->nb_pending--;
    s->pending_kept[s->nb_pending][0] = s->pending_kept[s->nb_pending][1] = NULL;
    return out;
}

#define DRAIN_NOW      0  /* drain(): the held frames whose scores are ready */
#define DRAIN_BLOCK   (-1) /* drain(): every held frame, waiting for its scores */
#define DRAIN_OLDEST  (-2) /* drain(): the oldest held frame, waiting for its scores, then as NOW */

/* The scores of the oldest frame submitted to `c`: at once (wait 0), waiting as long as it takes
 * (wait < 0), or until av_gettime_relative() reaches `deadline` (wait > 0). */
static VifStatus receive_oldest(VifContext *c, VifScores *sc, int64_t wait, int64_t deadline)
{
    VifStatus st;
    if (wait <= 0)
        return vif_receive(c, sc, wait < 0);
    while ((st = vif_receive(c, sc, 0)) == VIF_AGAIN && av_gettime_relative() < deadline)
        av_usleep(20);
    return st;
}

/* Passes on every frame at the head of the queue that has its scores or was not scored
 * (subsampling), receiving the scores as `wait` says (DRAIN_*; a positive value: DRAIN_OLDEST
 * waiting up to that many microseconds). Returns 1 when a frame's scores were not ready in time,
 * 0 when the queue is empty. */
static int drain(AVFilterContext *ctx, int64_t wait)
{
    LIBVIFContext *s = ctx->priv;
    const int64_t deadline = wait > 0 ? av_gettime_relative() + wait : 0;
    int ret;
    while (s->nb_pending) {
        AVFrame *out = s->pending[0];
        if (s->pending_scored[0]) {
            VifScores sc[LIBVIF_MAX_VARIANTS];
            for (int i = 0; i < s->nb_variants; i++) {
                /* the other variants' scores of a frame come with the first's: wait for them */
                VifStatus st = receive_oldest(s->variants[i].ctx, &sc[i], i > 0 ? DRAIN_BLOCK : wait,
                                              deadline);
                if (st == VIF_AGAIN && wait >= DRAIN_NOW && i == 0)
                    return 1;
                if (st != VIF_OK)
                    return vif_error(ctx, "vif_receive", vif_last_error());
            }
            for (int i = 0; i < s->nb_variants; i++) {
                if ((ret = keep_values(s, i, &sc[i])) < 0 ||
                    (ret = set_metadata(ctx, out, i, &sc[i])) < 0)
                    return ret;
                if (vif_log_add_frame(s->log, s->variants[i].log_index, s->pending_num[0], &sc[i]) != VIF_OK)
                    return vif_error(ctx, "log", vif_last_error());
            }
            s->frames_scored++;
            if (wait != DRAIN_BLOCK)
                wait = DRAIN_NOW; /* the oldest is out: the others if they are ready */
        }
        pop_pending(s); /* out */
        if ((ret = ff_filter_frame(ctx->outputs[0], out)) < 0)
            return ret;
    }
    return 0;
}

/* A mix of hardware and software inputs: uploads the software frame `sw` to a CUDA frame on the
 * device of the CUDA frame `hw` into *out (returns 0: *out replaces sw), or, for a format CUDA
 * frames cannot hold, downloads `hw` instead (returns 1: *out replaces hw). */
static int upload_beside(AVFilterContext *ctx, const AVFrame *hw, const AVFrame *sw, AVFrame **out)
{
    LIBVIFContext *s = ctx->priv;
    AVFrame *up;
    int ret;
    if (!s->upload_frames && !s->download_instead) {
        AVHWFramesContext *hwfc = (AVHWFramesContext *)hw->hw_frames_ctx->data;
        AVHWFramesContext *fc;
        if (!(s->upload_frames = av_hwframe_ctx_alloc(hwfc->device_ref)))
            return AVERROR(ENOMEM);
        fc = (AVHWFramesContext *)s->upload_frames->data;
        fc->format = AV_PIX_FMT_CUDA;
        fc->sw_format = sw->format;
        fc->width = sw->width;
        fc->height = sw->height;
        if (av_hwframe_ctx_init(s->upload_frames) < 0) {
            /* CUDA frames do not hold this format (yuv420p10le, ...): the CUDA frame comes to
             * the host instead, and libvif copies both planes to the GPU itself. */
            av_buffer_unref(&s->upload_frames);
            s->download_instead = 1;
            av_log(ctx, AV_LOG_VERBOSE, "%s frames cannot be CUDA frames: the CUDA input is "
                   "downloaded instead\n", av_get_pix_fmt_name(sw->format));
        }
    }
    if (s->download_instead) {
        if (!(up = av_frame_alloc()))
            return AVERROR(ENOMEM);
        if ((ret = av_hwframe_transfer_data(up, hw, 0)) < 0 || (ret = av_frame_copy_props(up, hw)) < 0) {
            av_frame_free(&up);
            av_log(ctx, AV_LOG_ERROR, "downloading a CUDA frame failed\n");
            s->failed = 1;
            return ret;
        }
        *out = up;
        return 1; /* *out replaces hw */
    }
    if (!(up = av_frame_alloc()))
        return AVERROR(ENOMEM);
    if ((ret = av_hwframe_get_buffer(s->upload_frames, up, 0)) < 0 ||
        (ret = av_hwframe_transfer_data(up, sw, 0)) < 0 ||
        (ret = av_frame_copy_props(up, sw)) < 0) {
        av_frame_free(&up);
        av_log(ctx, AV_LOG_ERROR, "uploading a %s frame to CUDA failed\n", av_get_pix_fmt_name(sw->format));
        s->failed = 1;
        return ret;
    }
    *out = up;
    return 0;
}

/* `kept`: the caller keeps both frames until their scores arrive (VIF_FFMPEG_FRAMES_KEPT). */
static int submit_pair(AVFilterContext *ctx, const AVFrame *dist, const AVFrame *ref, int kept)
{
    LIBVIFContext *s = ctx->priv;
    const unsigned flags = kept ? VIF_FFMPEG_FRAMES_KEPT : 0;
    for (int i = 0; i < s->nb_variants; i++) {
        VifStatus st;
        while ((st = vif_ffmpeg_submit_flags(s->variants[i].ctx, ref, dist, flags, NULL)) == VIF_AGAIN) {
            /* The queue is full: the oldest frame's scores free a slot. */
            int ret = drain(ctx, DRAIN_BLOCK);
            if (ret < 0)
                return ret;
        }
        if (st != VIF_OK)
            return vif_error(ctx, "scoring", vif_ffmpeg_last_error());
    }
    return 0;
}

static int fail_lengths(AVFilterContext *ctx, const char *msg)
{
    LIBVIFContext *s = ctx->priv;
    s->failed = 1;
    av_log(ctx, AV_LOG_ERROR, "%s after %" PRIu64 " frames: the inputs have different lengths or "
           "timestamps (shortest=1 scores up to the shorter one)\n", msg, s->frames_read);
    return AVERROR(EINVAL);
}

/* The pair of one event: a new reference to the distorted frame (it passes through with its
 * scores) and framesync's reference frame. Not ff_framesync_dualinput_get: that makes a writable
 * copy of the distorted frame whenever the reference's next frame is not known yet, which for
 * CUDA frames is a device copy per frame into a surface of the pool's coded size (1920x1088 for
 * 1080p H.264); the filter only reads the pictures and adds metadata. The distorted frame keeps
 * its own timestamp (the output's time base is its input's). */
static int get_pair(FFFrameSync *fs, AVFrame **dist, AVFrame **ref)
{
    AVFrame *main_frame = NULL;
    int ret = ff_framesync_get_frame(fs, 0, &main_frame, 0);
    if (ret < 0)
        return ret;
    if (!main_frame)
        return AVERROR_BUG;
    if ((ret = ff_framesync_get_frame(fs, 1, ref, 0)) < 0)
        return ret;
    if (fs->parent->is_disabled)
        *ref = NULL;
    *dist = av_frame_clone(main_frame);
    return *dist ? 0 : AVERROR(ENOMEM);
}

static int do_vif(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    LIBVIFContext *s = ctx->priv;
    AVFrame *dist = NULL, *ref = NULL, *upload = NULL, *kept[2] = { NULL, NULL };
    const AVFrame *score_ref, *score_dist;
    int ret, scored;

    if (s->failed)
        return AVERROR(EINVAL);
    /* framesync goes on with a copy of the last frame of an input that ended (repeatlast):
     * VIF pairs frame for frame, so that is an error here, not a score. */
    if (fs->in[0].sync == 0 && fs->in[1].sync) /* events from the reference alone */
        return fail_lengths(ctx, "the distorted input ended before the reference");
    if (fs->in[1].frame && s->have_last_ref && fs->in[1].pts == s->last_ref_pts)
        return fail_lengths(ctx, fs->in[1].sync == 0 ? "the reference input ended before the distorted one"
                                                     : "a reference frame was paired twice");

    if ((ret = get_pair(fs, &dist, &ref)) < 0)
        return ret;
    if (!ref) {
        av_frame_free(&dist);
        return fail_lengths(ctx, "a distorted frame has no reference frame (the reference starts "
                                 "later, or ended with repeatlast=0)");
    }
    s->last_ref_pts = fs->in[1].pts;
    s->have_last_ref = 1;

    if (!s->variants[0].ctx && (ret = create_contexts(ctx, dist, ref)) < 0)
        goto fail;
    scored = s->frames_read % s->n_subsample == 0;
    if (s->nb_pending == LIBVIF_MAX_PENDING && (ret = drain(ctx, DRAIN_BLOCK)) < 0)
        goto fail;
    if (scored) {
        score_ref = ref;
        score_dist = dist;
        if ((ref->format == AV_PIX_FMT_CUDA) != (dist->format == AV_PIX_FMT_CUDA)) {
            const AVFrame *hw = ref->format == AV_PIX_FMT_CUDA ? ref : dist;
            const AVFrame *sw = hw == ref ? dist : ref;
            if ((ret = upload_beside(ctx, hw, sw, &upload)) < 0)
                goto fail;
            if ((sw == ref) == (ret == 0))
                score_ref = upload;
            else
                score_dist = upload;
        }
        /* CUDA frames: the distorted one is held until its scores arrive anyway; with the frames
         * scored beside it kept as long, the glue need not wait for its copies of frames of
         * another CUDA context (FFmpeg's own) before returning. */
        if (score_ref->format == AV_PIX_FMT_CUDA) {
            if (!(kept[0] = av_frame_clone(score_ref)) ||
                (score_dist != dist && !(kept[1] = av_frame_clone(score_dist)))) {
                ret = AVERROR(ENOMEM);
                goto fail;
            }
        }
        ret = submit_pair(ctx, score_dist, score_ref, kept[0] != NULL);
        av_frame_free(&upload);
        if (ret < 0 && kept[0]) {
            /* another variant may have queued the pair: its frames stay held until the contexts
             * are destroyed (uninit); the filter has failed, nothing is passed on */
            s->pending[s->nb_pending] = dist;
            s->pending_num[s->nb_pending] = s->frames_read;
            s->pending_scored[s->nb_pending] = 0;
            s->pending_kept[s->nb_pending][0] = kept[0];
            s->pending_kept[s->nb_pending][1] = kept[1];
            s->nb_pending++;
            s->failed = 1;
            return ret;
        }
        if (ret < 0)
            goto fail;
    }
    s->pending[s->nb_pending] = dist;
    s->pending_num[s->nb_pending] = s->frames_read;
    s->pending_scored[s->nb_pending] = scored;
    s->pending_kept[s->nb_pending][0] = kept[0];
    s->pending_kept[s->nb_pending][1] = kept[1];
    s->nb_pending++;
    s->frames_read++;
    s->had_event = 1;
    ret = drain(ctx, DRAIN_NOW);
    return ret < 0 ? ret : 0;
fail:
    av_frame_free(&upload);
    av_frame_free(&kept[0]);
    av_frame_free(&kept[1]);
    av_frame_free(&dist);
    s->failed = 1;
    return ret;
}

static void log_summary(AVFilterContext *ctx)
{
    LIBVIFContext *s = ctx->priv;
    char line[1024] = "";
    size_t len = 0;
    for (int i = 0; i < s->nb_variants && s->frames_scored; i++)
        for (int m = 0; m < VIF_NUM_SCALES; m++) {
            char name[64], value[64];
            double mean = 0;
            if (vif_metric_name(&s->variants[i].cfg, (VifMetric)m, name, sizeof(name)) != VIF_OK ||
                vif_pool(s->variants[i].values[m], s->frames_scored, VIF_POOL_MEAN, 0, &mean) != VIF_OK ||
                vif_log_format_value(mean, s->precision, value, sizeof(value)) != VIF_OK)
                continue;
            if (len + strlen(name) + strlen(value) + 3 > sizeof(line))
                break; /* more than fits on a line: the log has every value */
            len += snprintf(line + len, sizeof(line) - len, "%s%s=%s", len ? " " : "", name, value);
        }
    av_log(ctx, AV_LOG_INFO, "VIF score: %s (mean of %" PRIu64 " frames)\n", line, s->frames_scored);
}

/* The end: the last scores, the frames held for them, the log file. */
static int finish(AVFilterContext *ctx)
{
    LIBVIFContext *s = ctx->priv;
    int ret;
    if (s->finished || s->failed)
        return s->failed ? AVERROR(EINVAL) : 0;
    s->finished = 1;
    if ((ret = drain(ctx, DRAIN_BLOCK)) < 0)
        return ret;
    if (!s->frames_scored) {
        s->failed = 1;
        av_log(ctx, AV_LOG_ERROR, "no frames were scored (an input is empty)\n");
        return AVERROR(EINVAL);
    }
    if (s->log) {
        double secs = (av_gettime_relative() - s->start_time) / 1e6;
        vif_log_set_fps(s->log, secs > 0 ? s->frames_scored / secs : 0);
        if (s->log_path && vif_log_finish(s->log) != VIF_OK)
            return vif_error(ctx, "log_path", vif_last_error());
    }
    log_summary(ctx);
    return 0;
}

static int activate(AVFilterContext *ctx)
{
    LIBVIFContext *s = ctx->priv;
    int64_t sent = link_frame_count_in(ctx->outputs[0]);
    int ret, ret2;
    if (s->failed)
        return AVERROR(EINVAL);
    ret = ff_framesync_activate(&s->fs);
    if (ret < 0 && ret != FFERROR_NOT_READY) {
        s->failed = 1;
        return ret;
    }
    if (s->fs.eof && !s->finished) {
        /* framesync has set EOF on the output; the held frames go out before it (frames queued
         * on a link are delivered before its status). */
        return finish(ctx);
    }
    if ((ret2 = drain(ctx, DRAIN_NOW)) < 0)
        return ret2;
    /* A pair was taken and its frame may still be held for its scores: nothing went out, so
     * nothing downstream will call again. One more round lets framesync take the next pair or
     * request input. */
    if (s->had_event) {
        s->had_event = 0;
        ff_filter_set_ready(ctx, 100);
        return 0;
    }
    /* No pair was taken (framesync waits for input, which it has asked for): with score_wait,
     * the oldest held frame waits here for its scores and goes on at once, instead of with a
     * later pair (its surface goes back to the decoder sooner; the filter's thread has nothing
     * else to do). */
    if (s->score_wait && s->nb_pending &&
        (ret2 = drain(ctx, s->score_wait < 0 ? DRAIN_OLDEST : s->score_wait)) < 0)
        return ret2;
    return link_frame_count_in(ctx->outputs[0]) != sent ? 0 : ret;
}

static av_cold void uninit(AVFilterContext *ctx)
{
    LIBVIFContext *s = ctx->priv;

    /* Closed before the end of the inputs (-frames:v, -t on the output): the frames scored so far
     * are complete, so their log is written, as libvmaf's filter does; after an error it is not. */
    if (!s->finished && !s->failed && s->log && s->frames_read) {
        s->finished = 1;
        while (s->nb_pending && !s->failed) {
            /* no output link to pass frames to any more: take the scores only */
            AVFrame *f;
            int scored = s->pending_scored[0];
            uint64_t num = s->pending_num[0];
            for (int i = 0; scored && i < s->nb_variants; i++) {
                VifScores sc;
                if (vif_receive(s->variants[i].ctx, &sc, 1) != VIF_OK ||
                    keep_values(s, i, &sc) < 0 ||
                    vif_log_add_frame(s->log, s->variants[i].log_index, num, &sc) != VIF_OK)
                    s->failed = 1;
            }
            if (scored)
                s->frames_scored++;
            f = pop_pending(s); /* its scores are in: its frames may go */
            av_frame_free(&f);
        }
        if (!s->failed && s->frames_scored) {
            double secs = (av_gettime_relative() - s->start_time) / 1e6;
            av_log(ctx, AV_LOG_WARNING, "the graph closed before the inputs ended: the scores "
                   "cover the first %" PRIu64 " frames\n", s->frames_read);
            vif_log_set_fps(s->log, secs > 0 ? s->frames_scored / secs : 0);
            if (s->log_path && vif_log_finish(s->log) != VIF_OK)
                av_log(ctx, AV_LOG_ERROR, "log_path: %s\n", vif_last_error());
            log_summary(ctx);
        }
    }

    ff_framesync_uninit(&s->fs);
    vif_log_destroy(s->log); /* unfinished: its temporary file goes, nothing appears */
    s->log = NULL;
    for (int i = 0; i < s->nb_variants; i++) {
        vif_destroy(s->variants[i].ctx);
        s->variants[i].ctx = NULL;
        for (int m = 0; m < VIF_NUM_SCALES; m++)
            av_freep(&s->variants[i].values[m]);
    }
    /* after the contexts: a kept CUDA frame may be read by a copy until then (an error path) */
    while (s->nb_pending) {
        AVFrame *f = pop_pending(s);
        av_frame_free(&f);
    }
    av_buffer_unref(&s->upload_frames);
}

static const AVFilterPad libvif_inputs[] = {
    {
        .name         = "main",
        .type         = AVMEDIA_TYPE_VIDEO,
    },{
        .name         = "reference",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input_ref,
    },
};

static const AVFilterPad libvif_outputs[] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = config_output,
    },
};

const AVFilter ff_vf_libvif = {
    .name           = "libvif",
    .description    = NULL_IF_CONFIG_SMALL("Calculate VIF (libvmaf's numbers) between two video streams with libvif."),
    .preinit        = libvif_framesync_preinit,
    .init           = init,
    .uninit         = uninit,
    .activate       = activate,
    .priv_size      = sizeof(LIBVIFContext),
    .priv_class     = &libvif_class,
    FILTER_INPUTS(libvif_inputs),
    FILTER_OUTPUTS(libvif_outputs),
#if LIBVIF_LAVFI_71
    FILTER_QUERY_FUNC2(query_formats),
#else
    FILTER_QUERY_FUNC(query_formats),
#endif
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
