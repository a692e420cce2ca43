/*
 * libvif CUDA entry points: score pictures that already live in GPU memory (for example the luma
 * plane of an NV12 or P010 surface from NVDEC) without a copy through the host.
 *
 * This is the only public header that mentions CUDA. It needs the CUDA runtime headers
 * (cuda_runtime_api.h) on the include path; the library itself links the CUDA runtime.
 *
 * Example (decoder output on `stream`):
 *
 *     VifConfig cfg;
 *     vif_default_config(&cfg);
 *     cfg.backend = VIF_BACKEND_CUDA;
 *     cfg.max_width = 3840; cfg.max_height = 2160; cfg.bitdepth = 10;
 *     VifContext *ctx;
 *     vif_create(&ctx, &cfg);
 *     ...
 *     VifDevicePicture ref = {d_ref_luma, ref_pitch, 3840, 2160, 10, VIF_PICTURE_MSB_ALIGNED};
 *     VifDevicePicture dis = {d_dis_luma, dis_pitch, 3840, 2160, 10, VIF_PICTURE_MSB_ALIGNED};
 *     vif_cuda_submit(ctx, &ref, &dis, stream, NULL);   // returns at once
 *     ... more work on `stream` (it waits for VIF to have read the two planes) ...
 *     VifScores s;
 *     while (vif_receive(ctx, &s, 0) == VIF_OK) use(s);  // same queue as vif_submit
 *
 * Lifetimes: the device memory of both pictures is borrowed until the work queued on `stream`
 * after this call runs, i.e. work that the caller enqueues on `stream` afterwards (and
 * everything synchronised with it) may overwrite the planes. Host threads that reuse the memory
 * without going through `stream` must synchronise with `stream` first. VIF takes its own
 * device-to-device copy of the luma rows first, so `stream` is held only for that copy (a few
 * microseconds), not for the VIF kernels.
 *
 * Threading: the same rules as vif.h (one thread at a time per context).
 */
#ifndef VIF_VIF_CUDA_H
#define VIF_VIF_CUDA_H

#include <cuda_runtime_api.h>

#include "vif/vif.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A borrowed view of one luma plane in device memory (cudaMalloc, cudaMallocPitch, a mapped
 * NVDEC surface, or managed memory).
 */
typedef struct VifDevicePicture {
    const void *data;  /**< device pointer to the first sample of the first row */
    ptrdiff_t pitch;   /**< bytes from one row to the next: >= width * bytes per sample and
                            <= VIF_MAX_STRIDE, as VifPicture.stride */
    uint32_t width;    /**< samples per row (VifPicture's limits) */
    uint32_t height;   /**< rows */
    uint32_t bitdepth; /**< must equal VifConfig.bitdepth. 8: one byte a sample (NV12 luma);
                            10, 12, 16: 16-bit words */
    uint32_t flags;    /**< VIF_PICTURE_MSB_ALIGNED for P010/P016-style words, else 0 */
} VifDevicePicture;

/**
 * Queues one frame pair that is already in device memory. The context must run on the CUDA
 * backend (VIF_BACKEND_CUDA, or AUTO that picked CUDA) and the pictures must be on its device
 * (VifConfig.cuda_device). Sizes and bit depth follow the rules of vif_submit.
 *
 * The work is ordered after everything queued on `stream` before this call (the decoder's
 * writes to the planes, say); and work queued on `stream` after this call waits until VIF has
 * finished reading the planes (a device-to-device copy into the context's own buffers; nothing
 * goes through the host). Nothing is allocated and the call never blocks: it follows vif.h's
 * queue rule, shared with vif_submit (VIF_AGAIN when queue_depth frames submitted either way
 * await vif_receive). `stream` may be 0 (the legacy default stream) or any stream of the
 * context's device.
 *
 * Scores come back through vif_receive, in submission order, interleaved with vif_submit
 * frames. *frame_index (if not NULL) receives the index the scores will carry.
 *
 * Samples above the bit depth (10/12-bit pictures without VIF_PICTURE_MSB_ALIGNED) are found on
 * the device, after this call has returned: vif_receive then returns VIF_ERROR_INVALID_ARGUMENT
 * for that frame, naming the frame index, the plane, x, y and the value (the frame is consumed;
 * the context stays usable).
 *
 * Returns VIF_OK; VIF_AGAIN (queue full, nothing queued: receive, then submit again);
 * VIF_ERROR_INVALID_ARGUMENT (NULL or host pointers, a device other than the context's, sizes,
 * pitch, bit depth, flags); VIF_ERROR_UNSUPPORTED (the context is not on the CUDA backend);
 * VIF_ERROR_DEVICE (a CUDA call failed; the context is unusable afterwards);
 * VIF_ERROR_INVALID_STATE (it failed earlier).
 */
VIF_API VifStatus vif_cuda_submit(VifContext *ctx, const VifDevicePicture *ref,
                                  const VifDevicePicture *dist, cudaStream_t stream,
                                  uint64_t *frame_index);

/**
 * Queues one reference picture in device memory against `count` distorted pictures in device
 * memory of the same size: vif_submit_multi (an encoding ladder's rungs for one source frame)
 * for pictures already on the GPU, with vif_cuda_submit's stream and lifetime rules. The result
 * is exactly that of `count` vif_cuda_submit calls with the same reference, bit for bit; the
 * reference is copied once and, for the integer variant, its share of the work is done once per
 * call (float ladders are queued as pairs, same scores).
 *
 * Pair k gets frame index *first_index + k (first_index may be NULL); vif_receive returns the
 * score sets in the order of dists. Each pair takes a place of queue_depth: count above
 * queue_depth is VIF_ERROR_INVALID_ARGUMENT (create the context with a queue_depth of at least
 * count), fewer free places than count is VIF_AGAIN with nothing queued. dists is an array of
 * `count` pointers, each checked as vif_cuda_submit's distorted picture. A sample above the bit
 * depth is reported by vif_receive for each pair it affects (the reference's for every pair).
 *
 * Returns VIF_OK (all queued); VIF_AGAIN; VIF_ERROR_INVALID_ARGUMENT (NULL ctx/ref/dists or a
 * NULL entry, count 0 or above VIF_MAX_DISTORTED, a picture vif_cuda_submit would refuse, a
 * distorted size differing from the reference's; nothing queued); VIF_ERROR_UNSUPPORTED (the
 * context is not on the CUDA backend); VIF_ERROR_DEVICE (a CUDA call failed; the context is
 * unusable afterwards); VIF_ERROR_INVALID_STATE (it failed earlier, or a float pair failed after
 * earlier ones were queued: destroy the context).
 */
VIF_API VifStatus vif_cuda_submit_multi(VifContext *ctx, const VifDevicePicture *ref,
                                        const VifDevicePicture *const *dists, size_t count,
                                        cudaStream_t stream, uint64_t *first_index);

/** The CUDA device ordinal a context computes on, or -1 if it is not on the CUDA backend. */
VIF_API int vif_cuda_context_device(const VifContext *ctx);

#ifdef __cplusplus
}
#endif

#endif /* VIF_VIF_CUDA_H */
