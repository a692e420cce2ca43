/*
 * libvif: Visual Information Fidelity (VIF) as libvmaf computes it, on the CPU and on NVIDIA GPUs.
 *
 * This is the backend-agnostic C ABI. Every function returns a VifStatus; on failure
 * vif_last_error() gives a one-line message for the calling thread. Nothing here aborts or exits.
 *
 * Typical use (an encoder loop):
 *
 *     VifConfig cfg;
 *     vif_default_config(&cfg);
 *     cfg.max_width = 1920; cfg.max_height = 1080; cfg.bitdepth = 8;
 *     VifContext *ctx;
 *     if (vif_create(&ctx, &cfg) != VIF_OK) { fprintf(stderr, "%s\n", vif_last_error()); ... }
 *     for each frame:
 *         VifPicture ref = {y_ref, stride_ref, 1920, 1080, 8, 0};
 *         VifPicture dis = {y_dis, stride_dis, 1920, 1080, 8, 0};
 *         vif_submit(ctx, &ref, &dis, NULL);          // copies the planes; returns at once
 *         VifScores s;
 *         while (vif_receive(ctx, &s, 0) == VIF_OK)   // poll: scores that are ready, in order
 *             use(s.frame_index, s.scale[0..3]);
 *     while (vif_receive(ctx, &s, 1) == VIF_OK) use(...);  // drain at the end
 *     vif_destroy(ctx);
 *
 * Threading: a VifContext is used from one thread at a time (it runs its own worker threads or
 * CUDA stream internally). Different contexts are independent; the library has no global state.
 */
#ifndef VIF_VIF_H
#define VIF_VIF_H

#include <stddef.h>
#include <stdint.h>

#include "vif_version.h" /* VIF_VERSION_MAJOR/MINOR/PATCH, VIF_VERSION_STRING (from CMake) */

#if defined(_WIN32)
#define VIF_API __declspec(dllexport)
#elif defined(__GNUC__)
#define VIF_API __attribute__((visibility("default")))
#else
#define VIF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif


/** Number of scales VIF reports. */
#define VIF_NUM_SCALES 4

typedef enum VifStatus {
    VIF_OK = 0,
    VIF_AGAIN = 1,                   /**< vif_receive: no scores ready (or none pending) yet */
    VIF_ERROR_INVALID_ARGUMENT = -1, /**< a NULL pointer, a size, bit depth or option out of range */
    VIF_ERROR_UNSUPPORTED = -2,      /**< valid request this build or machine cannot serve */
    VIF_ERROR_OUT_OF_MEMORY = -3,    /**< host or device allocation failed */
    VIF_ERROR_NO_DEVICE = -4,        /**< backend cuda asked for, but no usable GPU */
    VIF_ERROR_DEVICE = -5,           /**< a CUDA call or kernel launch failed */
    VIF_ERROR_INVALID_STATE = -6,    /**< call not allowed now (e.g. context failed earlier) */
    VIF_ERROR_INTERNAL = -7
} VifStatus;

typedef enum VifVariant {
    VIF_VARIANT_INTEGER = 0, /**< libvmaf's `vif` extractor (VMAF's default); bit-exact */
    VIF_VARIANT_FLOAT = 1    /**< libvmaf's `float_vif` extractor */
} VifVariant;

typedef enum VifBackend {
    VIF_BACKEND_AUTO = 0, /**< cuda when built with CUDA and a GPU is present, else cpu */
    VIF_BACKEND_CPU = 1,  /**< the reference backend (multi-threaded over frames) */
    VIF_BACKEND_CUDA = 2
} VifBackend;

/** Per-picture flags. */
#define VIF_PICTURE_MSB_ALIGNED 1u /**< 16-bit words hold the sample in their top bits (P010) */

/**
 * A borrowed view of one luma plane in host memory. It only has to stay valid for the duration
 * of the call it is passed to (vif_submit copies what it needs).
 */
typedef struct VifPicture {
    const void *data;     /**< first sample of the first row */
    ptrdiff_t stride;     /**< bytes from one row to the next (may exceed width * bytes/sample) */
    uint32_t width;       /**< samples per row */
    uint32_t height;      /**< rows */
    uint32_t bitdepth;    /**< 8: one byte a sample; 10, 12, 16: little-endian 16-bit words */
    uint32_t flags;       /**< VIF_PICTURE_* flags, 0 for plain planar data */
} VifPicture;

typedef struct VifConfig {
    uint32_t max_width;        /**< largest frame the context will see (buffers sized once) */
    uint32_t max_height;
    uint32_t bitdepth;         /**< 8, 10, 12 or 16; every picture must match */
    VifVariant variant;
    VifBackend backend;
    double enhn_gain_limit;    /**< vif_enhn_gain_limit, [1, 100], default 100 */
    double kernelscale;        /**< vif_kernelscale (float variant only), default 1.0 */
    uint32_t threads;          /**< cpu: worker threads, 0 = one per hardware thread */
    uint32_t queue_depth;      /**< frames in flight before vif_submit blocks, 0 = automatic */
    int32_t cuda_device;       /**< cuda: device ordinal, default 0 */
    uint32_t reserved[15];     /**< zero; room to grow without breaking the ABI */
} VifConfig;

/** One frame's result. Integer variant: exact libvmaf values; float: within 1e-4. */
typedef struct VifScores {
    uint64_t frame_index;          /**< 0 for the first frame submitted to the context */
    double scale[VIF_NUM_SCALES];  /**< per-scale score num/den: integer_vif_scaleN / vif_scaleN */
    double num[VIF_NUM_SCALES];    /**< per-scale numerator (a float value, widened) */
    double den[VIF_NUM_SCALES];    /**< per-scale denominator */
    double combined;               /**< sum(num) / sum(den): integer_vif / vif */
    double num_sum;                /**< integer_vif_num / vif_num */
    double den_sum;                /**< integer_vif_den / vif_den */
} VifScores;

typedef struct VifContext VifContext;

/** Library version as "MAJOR.MINOR.PATCH". Static storage. */
VIF_API const char *vif_version(void);

/** Human-readable name of a status code. Static storage. */
VIF_API const char *vif_status_string(VifStatus status);

/** Message of the last failure on this thread ("" if none). Valid until the next libvif call. */
VIF_API const char *vif_last_error(void);

/** Fills cfg with defaults: integer variant, auto backend, gain limit 100, kernel scale 1. */
VIF_API void vif_default_config(VifConfig *cfg);

/** Whether this build has the CUDA backend and a usable GPU is present. */
VIF_API int vif_cuda_available(void);

/**
 * Optional: does the CUDA start-up that the first vif_create on a GPU would otherwise pay
 * (driver initialisation and the device's context, typically 0.1 to 0.3 s) now, so that it can
 * run on a thread of its own while the caller opens its inputs. Safe to call from any thread,
 * any number of times; vif_create waits for a start-up in progress instead of repeating it.
 * VIF_OK, or VIF_ERROR_NO_DEVICE (no CUDA backend in this build, no GPU, or no such device),
 * with the reason in vif_last_error() of the calling thread.
 */
VIF_API VifStatus vif_cuda_prepare(int cuda_device);

/**
 * Creates a context. Validates cfg (sizes >= 16 and <= 32768, bit depth, options) and allocates
 * every buffer it will need. On failure *ctx is NULL.
 */
VIF_API VifStatus vif_create(VifContext **ctx, const VifConfig *cfg);

/** Waits for work in flight and releases everything. NULL is allowed. */
VIF_API void vif_destroy(VifContext *ctx);

/** Name of the backend the context runs on: "cpu" or "cuda". */
VIF_API const char *vif_backend_name(const VifContext *ctx);

/**
 * Queues one frame pair. Both pictures must have the same size (at most the configured maximum,
 * at least 16x16) and the configured bit depth. The planes are copied before this returns; it
 * blocks only while queue_depth frames are being scored. It never waits on the caller: on the
 * CPU backend, if queue_depth frames already wait for vif_receive it returns VIF_AGAIN at once
 * (nothing queued; receive scores, then submit again); the CUDA backend instead keeps finished
 * scores in host memory until they are received. Handle VIF_AGAIN either way.
 * *frame_index (if not NULL) receives the index the scores will carry.
 */
VIF_API VifStatus vif_submit(VifContext *ctx, const VifPicture *ref, const VifPicture *dist,
                             uint64_t *frame_index);

/**
 * Takes the scores of the oldest submitted frame not yet received. With block = 0 it returns
 * VIF_AGAIN when they are not ready; with block != 0 it waits for them. VIF_AGAIN also means
 * nothing is pending. Scores always come out in submission order.
 */
VIF_API VifStatus vif_receive(VifContext *ctx, VifScores *scores, int block);

/** Number of submitted frames whose scores have not been received. */
VIF_API size_t vif_pending(const VifContext *ctx);

/** Convenience: vif_submit then a blocking vif_receive. Requires nothing pending. */
VIF_API VifStatus vif_score(VifContext *ctx, const VifPicture *ref, const VifPicture *dist,
                            VifScores *scores);

/* ---- Output names (libvmaf's keys) ---- */

typedef enum VifMetric {
    VIF_METRIC_SCALE0 = 0, VIF_METRIC_SCALE1, VIF_METRIC_SCALE2, VIF_METRIC_SCALE3,
    VIF_METRIC_COMBINED, VIF_METRIC_NUM, VIF_METRIC_DEN,
    VIF_METRIC_NUM_SCALE0, VIF_METRIC_DEN_SCALE0, VIF_METRIC_NUM_SCALE1, VIF_METRIC_DEN_SCALE1,
    VIF_METRIC_NUM_SCALE2, VIF_METRIC_DEN_SCALE2, VIF_METRIC_NUM_SCALE3, VIF_METRIC_DEN_SCALE3,
    VIF_METRIC_COUNT
} VifMetric;

/**
 * Writes libvmaf's output key for a metric under cfg's variant and options, e.g.
 * "integer_vif_scale0", "vif_scale1_ks_0.5", "integer_vif_num_scale2_egl_1".
 * Returns VIF_ERROR_INVALID_ARGUMENT if the buffer is too small (64 bytes always suffice).
 */
VIF_API VifStatus vif_metric_name(const VifConfig *cfg, VifMetric metric, char *buf, size_t size);

/** The value of a metric in a VifScores. */
VIF_API double vif_metric_value(const VifScores *scores, VifMetric metric);

/* ---- Pooling over frames ---- */

typedef enum VifPoolMethod {
    VIF_POOL_MEAN = 0,
    VIF_POOL_HARMONIC_MEAN, /**< libvmaf's: n / sum(1 / (x + 1)) - 1 */
    VIF_POOL_MIN,
    VIF_POOL_MAX,
    VIF_POOL_PERCENTILE     /**< param in [0, 100], linear interpolation between order stats */
} VifPoolMethod;

/** Pools n values. n must be > 0. */
VIF_API VifStatus vif_pool(const double *values, size_t n, VifPoolMethod method, double param,
                           double *result);

#ifdef __cplusplus
}
#endif

#endif /* VIF_VIF_H */
