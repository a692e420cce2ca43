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
 *
 * Conventions for every function below:
 * - Status: each documents the VifStatus values it returns. On any failure,
 *   vif_last_error() on the same thread says why in one line, and nothing else happened (no
 *   frame queued, no output written) unless the function says otherwise.
 * - Enums read from the caller (config fields, arguments) are checked before use: a value that
 *   is not one of the enumerators gives VIF_ERROR_INVALID_ARGUMENT, never undefined behaviour.
 * - Pointers are borrowed for the duration of the call only, unless documented otherwise;
 *   nothing the library returns needs to be freed except a VifContext (vif_destroy).
 *
 * The queue rule (both backends, vif_submit, vif_cuda_submit and vif_ffmpeg_submit alike): a
 * context holds at most queue_depth frames submitted and not yet received (vif_pending). When
 * that many are pending, a submit returns VIF_AGAIN at once and queues nothing (waiting would
 * wait on the caller itself): receive at least the oldest scores (vif_receive with block = 1
 * waits for them), then submit the same frame again. Below that, a submit never waits for
 * scoring, and memory never grows with the number of frames not received.
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
    VIF_AGAIN = 1, /**< vif_receive: no scores ready (or none pending) yet;
                                          submit: queue_depth frames await vif_receive */
    VIF_ERROR_INVALID_ARGUMENT =
        -1,                       /**< a NULL pointer, a size, bit depth or option out of range */
    VIF_ERROR_UNSUPPORTED = -2,   /**< valid request this build or machine cannot serve */
    VIF_ERROR_OUT_OF_MEMORY = -3, /**< host or device allocation failed */
    VIF_ERROR_NO_DEVICE = -4,     /**< backend cuda asked for, but no usable GPU */
    VIF_ERROR_DEVICE = -5,        /**< a CUDA call or kernel launch failed */
    VIF_ERROR_INVALID_STATE = -6, /**< call not allowed now (e.g. context failed earlier) */
    VIF_ERROR_INTERNAL = -7
} VifStatus;

typedef enum VifVariant {
    VIF_VARIANT_INTEGER = 0, /**< libvmaf's `vif` extractor (VMAF's default); bit-exact */
    VIF_VARIANT_FLOAT = 1    /**< libvmaf's `float_vif` extractor */
} VifVariant;

typedef enum VifBackend {
    VIF_BACKEND_AUTO = 0, /**< CUDA build: the CPU while the GPU starts, then the GPU, the
                               same values (docs/api.md; the environment's VIF_AUTO=wait: the
                               GPU started in vif_create); no GPU: cpu */
    VIF_BACKEND_CPU = 1,  /**< the reference backend (multi-threaded over frames) */
    VIF_BACKEND_CUDA = 2
} VifBackend;

/** Per-picture flags. */
#define VIF_PICTURE_MSB_ALIGNED 1u /**< 16-bit words hold the sample in their top bits (P010) */

/** Largest VifPicture.stride accepted, in bytes (2^30). */
#define VIF_MAX_STRIDE ((ptrdiff_t)1 << 30)

/**
 * A borrowed view of one luma plane in host memory. It only has to stay valid for the duration
 * of the call it is passed to (vif_submit copies what it needs). The library reads exactly
 * `height` rows of `width` samples, rows `stride` bytes apart, and nothing in between.
 */
typedef struct VifPicture {
    const void *data;  /**< first sample of the first row; not NULL */
    ptrdiff_t stride;  /**< bytes from one row to the next: at least width * bytes per sample,
                               at most VIF_MAX_STRIDE; negative (bottom-up) strides are refused */
    uint32_t width;    /**< samples per row, in [minimum, VifConfig.max_width] */
    uint32_t height;   /**< rows, in [minimum, VifConfig.max_height] */
    uint32_t bitdepth; /**< must equal VifConfig.bitdepth. 8: one byte a sample; 10, 12, 16:
                               little-endian 16-bit words. Without VIF_PICTURE_MSB_ALIGNED a
                               10/12-bit sample above 2^bitdepth - 1 is an error naming it */
    uint32_t flags;    /**< VIF_PICTURE_* flags, 0 for plain planar data; other bits refused */
} VifPicture;

/**
 * What a context computes and how. Start from vif_default_config() and set the fields you need;
 * vif_create checks every field (VIF_ERROR_INVALID_ARGUMENT names the first bad one).
 */
typedef struct VifConfig {
    uint32_t max_width;     /**< largest frame width the context will see, in [minimum, 32768]
                                    (minimum: 16, more for float kernel scales above 1); every
                                    buffer is sized for it once, at vif_create */
    uint32_t max_height;    /**< largest frame height, same range */
    uint32_t bitdepth;      /**< 8, 10, 12 or 16 (default 8); every picture must match */
    VifVariant variant;     /**< VIF_VARIANT_INTEGER (default) or VIF_VARIANT_FLOAT */
    VifBackend backend;     /**< VIF_BACKEND_AUTO (default), _CPU or _CUDA */
    double enhn_gain_limit; /**< libvmaf's vif_enhn_gain_limit, in [1, 100] (NaN refused),
                                    default 100 */
    double kernelscale;     /**< libvmaf's vif_kernelscale: float variant only, one of the
                                    values libvmaf accepts (1.0, 0.5, 1.5, 2.0, ...); must stay
                                    1.0 for the integer variant. Default 1.0 */
    uint32_t threads;       /**< cpu: worker threads, 0 = one per hardware thread (at most 256);
                                    cuda: threads for the host-side copies, 0 = automatic */
    uint32_t queue_depth;   /**< frames submitted and not yet received before a submit returns
                                    VIF_AGAIN (the queue rule above), 0 = automatic (cpu:
                                    threads + 2; cuda: 2 to 4 by frame size); the cpu backend
                                    raises it to its thread count */
    int32_t cuda_device;    /**< cuda: device ordinal, default 0 */
    uint32_t maps;          /**< 1: every frame also keeps its per-pixel VIF terms, read with
                                    vif_receive_maps (docs/algorithm.md §12); 0 (default): none.
                                    Both backends, the same bits; on cuda, frames of
                                    vif_cuda_submit get them in device memory (docs/api.md) */
    uint32_t reserved[14];  /**< must be zero (VIF_ERROR_INVALID_ARGUMENT otherwise): room to
                                    grow without breaking the ABI */
} VifConfig;

/** One frame's result. Integer variant: exact libvmaf values; float: within 1e-4. */
typedef struct VifScores {
    uint64_t frame_index;         /**< 0 for the first frame submitted to the context */
    double scale[VIF_NUM_SCALES]; /**< per-scale score num/den: integer_vif_scaleN / vif_scaleN */
    double num[VIF_NUM_SCALES];   /**< per-scale numerator (a float value, widened) */
    double den[VIF_NUM_SCALES];   /**< per-scale denominator */
    double combined;              /**< sum(num) / sum(den): integer_vif / vif */
    double num_sum;               /**< integer_vif_num / vif_num */
    double den_sum;               /**< integer_vif_den / vif_den */
} VifScores;

typedef struct VifContext VifContext;

/** Library version as "MAJOR.MINOR.PATCH". Static storage; never fails. */
VIF_API const char *vif_version(void);

/**
 * Human-readable name of a status code ("unknown status" for any other value). Static storage;
 * never fails.
 */
VIF_API const char *vif_status_string(VifStatus status);

/**
 * Message of the last failure on this thread ("" if none). Owned by the library; valid until
 * the thread's next libvif call.
 */
VIF_API const char *vif_last_error(void);

/**
 * Fills *cfg with defaults: sizes 0 (set them), 8-bit, integer variant, auto backend, gain limit
 * 100, kernel scale 1, threads and queue_depth automatic, device 0, reserved zero. cfg NULL:
 * does nothing.
 */
VIF_API void vif_default_config(VifConfig *cfg);

/** Whether this build has the CUDA backend and a usable GPU is present (1) or not (0). */
VIF_API int vif_cuda_available(void);

/**
 * How many CUDA devices the driver shows this process (after CUDA_VISIBLE_DEVICES), usable or
 * not: valid VifConfig.cuda_device values are 0 to count - 1. 0 without a CUDA backend in this
 * build or without a driver. Does not start a device context.
 */
VIF_API int vif_cuda_device_count(void);

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
 * Creates a context: checks every field of *cfg (see VifConfig) and allocates every buffer it
 * will need, so that nothing is allocated per frame.
 * @param ctx  receives the new context (owned by the caller: vif_destroy it); NULL on failure
 * @param cfg  read during the call only
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL pointer, a field out of range, an unknown
 *         enum value, a non-zero reserved field); VIF_ERROR_UNSUPPORTED (backend cuda in a build
 *         without CUDA); VIF_ERROR_NO_DEVICE (backend cuda, no usable GPU or no such device);
 *         VIF_ERROR_OUT_OF_MEMORY; VIF_ERROR_DEVICE (a CUDA call failed);
 *         VIF_ERROR_INTERNAL (threads could not be started).
 */
VIF_API VifStatus vif_create(VifContext **ctx, const VifConfig *cfg);

/**
 * Waits for work in flight and releases everything; scores not received are dropped. NULL is
 * allowed. The context must not be used afterwards.
 */
VIF_API void vif_destroy(VifContext *ctx);

/**
 * Name of the backend the context runs on: "cpu" or "cuda" ("" for NULL). Valid for the
 * context's life.
 */
VIF_API const char *vif_backend_name(const VifContext *ctx);

/**
 * Queues one frame pair for scoring. Both pictures must follow VifPicture's rules and have the
 * same size. The planes are copied (and their samples checked) before this returns, so they may
 * be reused at once; the call never waits for scoring (see the queue rule at the top).
 * @param ctx          the context
 * @param ref, dist    reference and distorted luma planes, read during the call only
 * @param frame_index  if not NULL, receives on success the index the scores will carry (0 for
 *                     the context's first frame; failed submits consume no index)
 * @return VIF_OK; VIF_AGAIN (queue_depth frames await vif_receive: nothing queued, receive and
 *         submit again); VIF_ERROR_INVALID_ARGUMENT (NULL pointer, size, stride, bit depth or
 *         flags against VifPicture's rules, sizes that differ, or a sample above the bit depth:
 *         the message names the frame index, "reference"/"distorted", x, y and the value);
 *         VIF_ERROR_DEVICE (cuda: a CUDA call failed; the context is unusable afterwards);
 *         VIF_ERROR_INVALID_STATE (the context failed earlier). On any failure nothing is queued.
 */
VIF_API VifStatus vif_submit(VifContext *ctx, const VifPicture *ref, const VifPicture *dist,
                             uint64_t *frame_index);

/**
 * Takes the scores of the oldest submitted frame not yet received; scores always come out in
 * submission order.
 * @param scores  receives the scores (written only on VIF_OK)
 * @param block   0: return VIF_AGAIN if they are not ready; otherwise wait for them
 * @return VIF_OK; VIF_AGAIN (not ready, or nothing pending); VIF_ERROR_INVALID_ARGUMENT (NULL
 *         pointer; or, for a frame submitted with vif_cuda_submit, a sample above the bit depth
 *         found on the device: that frame is consumed without scores, the message names it, and
 *         the next call returns the next frame); VIF_ERROR_DEVICE (the context is unusable
 *         afterwards); VIF_ERROR_INVALID_STATE (the context failed earlier).
 */
VIF_API VifStatus vif_receive(VifContext *ctx, VifScores *scores, int block);

/**
 * The per-pixel VIF terms of one scale (docs/algorithm.md §12.1), row-major, `width` values a
 * row. Integer variant: nl, dl, nn, dn, what each pixel adds to the scale's four accumulators
 * (num and den NULL); float variant: num and den, each pixel's terms (the four others NULL).
 * Summed as §12.2 says, they give the frame's num and den of that scale exactly.
 */
typedef struct VifScaleMap {
    uint32_t width, height; /**< the scale's size: the frame's, halved `scale` times */
    const int32_t *nl, *dl, *nn, *dn;
    const float *num, *den;
} VifScaleMap;

/** One frame's maps, one per scale. */
typedef struct VifMaps {
    uint64_t frame_index; /**< the frame the maps belong to (equal to its scores') */
    VifScaleMap scale[VIF_NUM_SCALES];
} VifMaps;

/**
 * vif_receive for a context created with VifConfig.maps = 1: the oldest frame's scores and its
 * per-pixel terms. The arrays are owned by the context and stay valid until the next
 * vif_receive / vif_receive_maps / vif_score on it or vif_destroy; copy what you keep. (A plain
 * vif_receive on such a context drops the frame's maps.) They are host memory, except for
 * frames submitted with vif_cuda_submit, whose arrays are device memory on the context's GPU.
 * @return as vif_receive; VIF_ERROR_INVALID_ARGUMENT also for a NULL maps, or a context created
 *         without maps (no frame is taken then).
 */
VIF_API VifStatus vif_receive_maps(VifContext *ctx, VifScores *scores, VifMaps *maps, int block);

/**
 * The local VIF map of one scale (docs/algorithm.md §12.3): for each pixel, the sum of the num
 * terms over the 5x5 window around it (clipped at the frame's edges) divided by the sum of the
 * den terms; 1 where the distorted frame kept the detail, towards 0 where it was lost. Writes
 * map->width * map->height floats, row-major, to `out`. Any thread; no context needed. Reads
 * host memory: copy the device arrays of a vif_cuda_submit frame to the host first.
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL map or out, a zero size, or neither the
 *         integer nor the float arrays set)
 */
VIF_API VifStatus vif_local_map(const VifScaleMap *map, float *out);

/** Number of submitted frames whose scores have not been received (0 for NULL); never above
 *  queue_depth, except on the CPU backend after vif_submit_multi, whose pairs count one by one
 *  here but hold one place of queue_depth together. */
VIF_API size_t vif_pending(const VifContext *ctx);

/** Most distorted pictures one vif_submit_multi call takes. */
#define VIF_MAX_DISTORTED 64

/**
 * Queues one reference picture against `count` distorted pictures of the same size: an encoding
 * ladder's rungs (upscaled to the reference size) for one source frame. The result is exactly
 * that of `count` vif_submit calls with the same reference, in order of dists, bit for bit; but
 * the reference is copied once and its own share of the work (its filtered mean and variance
 * at every scale, the whole denominator, its downsampled scales) is done once per call: on the
 * CPU backend, and on the CUDA backend for the integer variant (float ladders are queued there
 * as ordinary pairs, same scores).
 *
 * Pair k gets frame index *first_index + k (first_index may be NULL): vif_receive returns the
 * `count` score sets one by one, in the order of dists, interleaved with other submissions in
 * submission order. vif_pending counts each pair. On the CPU backend one call occupies one place
 * of queue_depth; on the CUDA backend `count` places (count above queue_depth is
 * VIF_ERROR_INVALID_ARGUMENT there: create the context with a queue_depth of at least count).
 * dists is an array of `count` pointers, each checked like vif_submit's distorted picture;
 * the caller keeps ownership of every picture (they are copied before this returns).
 *
 * Status: VIF_OK (all queued); VIF_ERROR_INVALID_ARGUMENT (NULL ctx/ref/dists or a NULL
 * entry, count 0 or above VIF_MAX_DISTORTED, a picture that vif_submit would refuse, or a
 * distorted size differing from the reference's; nothing queued); VIF_AGAIN (queue full as in
 * vif_submit, or on CUDA fewer than `count` free places; nothing queued);
 * VIF_ERROR_OUT_OF_MEMORY (nothing queued); a sample above the bit depth as in vif_submit (CPU:
 * nothing queued; CUDA integer: nothing queued either). On the CUDA backend a failure after
 * some pairs were queued (float: a bad sample in a later picture; a device error) gives
 * VIF_ERROR_INVALID_STATE and leaves the context failed (destroy it).
 */
VIF_API VifStatus vif_submit_multi(VifContext *ctx, const VifPicture *ref,
                                   const VifPicture *const *dists, size_t count,
                                   uint64_t *first_index);

/**
 * Convenience: vif_submit then a blocking vif_receive, for callers that score one frame at a
 * time. Returns what those return, or VIF_ERROR_INVALID_STATE when frames are pending (receive
 * them first), VIF_ERROR_INVALID_ARGUMENT for NULL ctx or scores.
 */
VIF_API VifStatus vif_score(VifContext *ctx, const VifPicture *ref, const VifPicture *dist,
                            VifScores *scores);

/* ---- Output names (libvmaf's keys) ---- */

typedef enum VifMetric {
    VIF_METRIC_SCALE0 = 0,
    VIF_METRIC_SCALE1,
    VIF_METRIC_SCALE2,
    VIF_METRIC_SCALE3,
    VIF_METRIC_COMBINED,
    VIF_METRIC_NUM,
    VIF_METRIC_DEN,
    VIF_METRIC_NUM_SCALE0,
    VIF_METRIC_DEN_SCALE0,
    VIF_METRIC_NUM_SCALE1,
    VIF_METRIC_DEN_SCALE1,
    VIF_METRIC_NUM_SCALE2,
    VIF_METRIC_DEN_SCALE2,
    VIF_METRIC_NUM_SCALE3,
    VIF_METRIC_DEN_SCALE3,
    VIF_METRIC_COUNT
} VifMetric;

/**
 * Writes libvmaf's output key for a metric under cfg's variant and options, e.g.
 * "integer_vif_scale0", "vif_scale1_ks_0.5", "integer_vif_num_scale2_egl_1".
 * Only cfg's variant, enhn_gain_limit and kernelscale are read, and checked as vif_create checks
 * them (so no name is made for options no context would take).
 * @param buf, size  receives the NUL-terminated name; 64 bytes always suffice. Untouched on failure.
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL pointer, unknown metric or variant, an option
 *         out of range or not finite, buffer too small).
 */
VIF_API VifStatus vif_metric_name(const VifConfig *cfg, VifMetric metric, char *buf, size_t size);

/** The value of a metric in a VifScores; NaN for a NULL pointer or an unknown metric. */
VIF_API double vif_metric_value(const VifScores *scores, VifMetric metric);

/* ---- Pooling over frames ---- */

typedef enum VifPoolMethod {
    VIF_POOL_MEAN = 0,
    VIF_POOL_HARMONIC_MEAN, /**< libvmaf's: n / sum(1 / (x + 1)) - 1 */
    VIF_POOL_MIN,
    VIF_POOL_MAX,
    VIF_POOL_PERCENTILE /**< param in [0, 100], linear interpolation between order stats */
} VifPoolMethod;

/**
 * Pools n values (read during the call) into *result.
 * @param param  VIF_POOL_PERCENTILE: the percentile in [0, 100]; ignored otherwise
 * @return VIF_OK; VIF_ERROR_INVALID_ARGUMENT (NULL pointer, n == 0, unknown method, percentile
 *         out of range or NaN). *result is written only on VIF_OK.
 */
VIF_API VifStatus vif_pool(const double *values, size_t n, VifPoolMethod method, double param,
                           double *result);

#ifdef __cplusplus
}
#endif

#endif /* VIF_VIF_H */
