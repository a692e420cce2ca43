/*
 * libvif result logs: the JSON, XML and CSV files of libvmaf's layout (libvmaf's key names,
 * per-frame values, pooled min/max/mean/harmonic_mean), byte for byte what the `vif` CLI writes,
 * for programs that score through the library (the FFmpeg filter, the GStreamer element) and
 * want the same files.
 *
 *     VifLogRun run = {0};
 *     run.width = 1920; run.height = 1080; run.bitdepth = 8; run.backend = "cpu";
 *     run.reference = "ref.y4m"; run.distorted = "dist.mkv"; run.subsample = 1;
 *     run.precision = VIF_LOG_PRECISION_LIBVMAF;
 *     VifLog *log;
 *     if (vif_log_create(&log, VIF_LOG_JSON, &run, "scores.json") != VIF_OK) ... // fails now
 *     int v;                                     // if scores.json cannot be written
 *     vif_log_add_variant(log, &cfg, VIF_LOG_METRICS_DEFAULT, &v);   // once per variant
 *     for each scored frame: vif_log_add_frame(log, v, frame_number, &scores);
 *     vif_log_set_fps(log, fps);
 *     if (vif_log_finish(log) != VIF_OK) ...     // scores.json appears complete, or not at all
 *     vif_log_destroy(log);
 *
 * Every function returns a VifStatus; on failure vif_last_error() on the same thread says why in
 * one line and the log is unchanged. A log is used from one thread at a time.
 */
#ifndef VIF_VIF_LOG_H
#define VIF_VIF_LOG_H

#include "vif.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum VifLogFormat {
    VIF_LOG_JSON = 0,   /**< libvmaf's JSON (tools/vmaf --json) */
    VIF_LOG_XML = 1,    /**< libvmaf's XML (the default of tools/vmaf) */
    VIF_LOG_CSV = 2,    /**< libvmaf's CSV, trailing commas included */
    VIF_LOG_SUMMARY = 3 /**< the `vif` CLI's human summary: a header line and a table of the
                                pooled values; for vif_log_render (a file may carry it too) */
} VifLogFormat;

/** Values as libvmaf prints them: %.6f, or %.16f when the fraction starts with 7+ zeros. */
#define VIF_LOG_PRECISION_LIBVMAF (-2)
/** Every bit of each double: %.17g. Any value >= 0 is that many digits after the point. */
#define VIF_LOG_PRECISION_MAX (-1)

/** Frame metrics per variant: libvmaf's default columns (scale0..3), or every metric
 *  (scale0..3, combined, num, den, per-scale num/den: libvmaf's debug columns). */
#define VIF_LOG_METRICS_DEFAULT (VIF_METRIC_SCALE3 + 1)
#define VIF_LOG_METRICS_ALL VIF_METRIC_COUNT

/** What the file says about the run. Strings are copied by vif_log_create. */
typedef struct VifLogRun {
    uint32_t width, height; /**< frame size scored (XML's qualityWidth/qualityHeight) */
    uint32_t bitdepth;      /**< 8, 10, 12 or 16 */
    double fps;             /**< throughput written as "fps"; vif_log_set_fps changes it;
                                   a non-finite value is written as null in JSON */
    const char *backend;    /**< "cpu", "cuda", ... (details block, summary); NULL = "" */
    const char *reference;  /**< reference name (details block); NULL = "" */
    const char *distorted;  /**< distorted name (details block); NULL = "" */
    uint64_t subsample;     /**< every n-th frame scored (details block); 0 is taken as 1 */
    int precision;          /**< VIF_LOG_PRECISION_LIBVMAF, _MAX, or 0..17 digits */
    int details;            /**< non-zero: add libvif's own block (the CLI's --details) */
    uint32_t reserved[8];   /**< must be zero */
} VifLogRun;

typedef struct VifLog VifLog;

/**
 * Creates a log. `path` (may be NULL: a log only rendered to memory) is prepared now, so that a
 * path that cannot be written fails here, before any scoring: a regular file (or a name not yet
 * there) gets a temporary file beside it, renamed over `path` by vif_log_finish; a character
 * device, FIFO or socket (/dev/stdout, a pipe) is opened and written straight through; a
 * directory is refused. A symbolic link is followed (the link stays, its target is replaced).
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL log or run, unknown format, precision out of
 *         range, bit depth not 8/10/12/16, zero width or height, reserved not zero, a path that
 *         cannot be written: the message names it and the reason); VIF_ERROR_OUT_OF_MEMORY.
 */
VIF_API VifStatus vif_log_create(VifLog **log, VifLogFormat format, const VifLogRun *run,
                                 const char *path);

/**
 * Adds a variant's columns: `metrics` metrics from VIF_METRIC_SCALE0 on, each named by
 * vif_metric_name(cfg, ...) (integer_vif_scale0.., vif_scale0.., with option suffixes such as
 * _egl_1). *variant receives the index to pass to vif_log_add_frame (0, 1, ... in call order;
 * the files list the variants' columns in that order). Only before the first frame is added.
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL pointer, metrics not in 1..VIF_METRIC_COUNT,
 *         options vif_metric_name refuses); VIF_ERROR_INVALID_STATE (frames already added).
 */
VIF_API VifStatus vif_log_add_variant(VifLog *log, const VifConfig *cfg, int metrics, int *variant);

/**
 * Adds one frame's scores to a variant. `frame_num` is the frameNum written (libvmaf numbers the
 * frames read, so with subsampling 0, n, 2n, ...). Every variant must get the same frames in the
 * same order: the k-th frame added to each variant must carry the same frame_num.
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL pointer, unknown variant, a frame_num other
 *         than the one the other variants have at this position); VIF_ERROR_OUT_OF_MEMORY.
 */
VIF_API VifStatus vif_log_add_frame(VifLog *log, int variant, uint64_t frame_num,
                                    const VifScores *scores);

/** Sets the "fps" the files carry (measured at the end of a run). VIF_OK, or
 *  VIF_ERROR_INVALID_ARGUMENT for a NULL log. */
VIF_API VifStatus vif_log_set_fps(VifLog *log, double fps);

/** Frames added so far (those of variant 0); 0 for NULL. */
VIF_API size_t vif_log_frames(const VifLog *log);

/**
 * Renders the log as `format` into buf (NUL-terminated when it fits). *length receives the text's
 * length without the NUL; call with size 0 (buf may then be NULL) to learn it.
 * @return VIF_OK (the whole text written); VIF_ERROR_INVALID_ARGUMENT (NULL log or length, unknown
 *         format, buf NULL with size > 0, buf too small: nothing but *length is written);
 *         VIF_ERROR_INVALID_STATE (no variant or no frame: a file needs at least one of each, or
 *         variants with different frame counts).
 */
VIF_API VifStatus vif_log_render(const VifLog *log, VifLogFormat format, char *buf, size_t size,
                                 size_t *length);

/**
 * Writes the log to the path given to vif_log_create, in its format: a regular file is written
 * to the temporary file, flushed and renamed over the path, so the file at `path` is either the
 * previous one or the complete new one; a device or FIFO is written straight through. Once.
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL log); VIF_ERROR_INVALID_STATE (no path, already
 *         finished, nothing to write as in vif_log_render); VIF_ERROR_INTERNAL (a write, flush or
 *         rename failed: the message names the path and the reason; the temporary file is gone).
 */
VIF_API VifStatus vif_log_finish(VifLog *log);

/** Frees the log. A temporary file not finished is removed (nothing appears at the path). */
VIF_API void vif_log_destroy(VifLog *log);

/**
 * One value as the logs print it (precision as in VifLogRun; non-finite: "nan", "inf", "-inf"),
 * for programs that show values beside a log (per-frame metadata, a summary line).
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL buf, precision out of range, buf too small).
 */
VIF_API VifStatus vif_log_format_value(double value, int precision, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
