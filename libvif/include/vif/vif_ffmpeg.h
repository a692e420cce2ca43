/*
 * libvif FFmpeg glue: score AVFrames directly (library vif_ffmpeg, CMake target vif::ffmpeg,
 * pkg-config vif-ffmpeg). Built only when libvif is configured with VIF_WITH_FFMPEG.
 *
 * Software frames: the luma plane (plane 0) of any planar or semi-planar YUV or gray format whose
 * luma samples are 8 bits in bytes, or 10, 12 or 16 bits in little-endian 16-bit words, either
 * LSB-aligned (yuv420p10le, yuv444p12le, gray16le, ...) or MSB-aligned (p010le, p016le, p210le,
 * ...), is handed to vif_submit() as a borrowed VifPicture: no conversion, no copy here (libvif
 * copies the plane inside vif_submit). The bit depth is the pixel format's; it must equal the
 * context's. Frame cropping (AVFrame.crop_*) is honoured. Packed YUV (yuyv422, ...), RGB,
 * palette, big-endian and 9/14-bit formats are refused with VIF_ERROR_UNSUPPORTED: convert them
 * with libswscale first (vif_ffmpeg_pix_fmt_supported() tells which formats need it).
 *
 * Hardware frames (AV_PIX_FMT_CUDA, e.g. from NVDEC with hwaccel cuda): in builds with the CUDA
 * backend, the luma plane of the frames' sw_format stays on the device and goes to
 * vif_cuda_submit() (vif/vif_cuda.h), with no host copy. The context must run on the cuda
 * backend, and the frames must be on its device. libvif computes in the device's primary CUDA
 * context:
 *   - frames of an FFmpeg CUDA device created on that primary context (av_hwdevice_ctx_create
 *     with the option "primary_ctx" = "1", i.e. AV_CUDA_USE_PRIMARY_CONTEXT) are read where they
 *     are, on the stream of their AVCUDADeviceContext;
 *   - frames of any other context on the same device (FFmpeg's default: a context of its own)
 *     are first copied on the GPU, device to device between the two contexts, into buffers of
 *     the primary context (one luma plane per frame, on this thread's per-thread stream, which
 *     then carries the work). The call waits on the host for the work queued so far on the
 *     frames' stream (the decoder's writes) before the copy, and for the copy (microseconds)
 *     before it returns: no stream of one context waits on the GPU for the other (contexts
 *     share the GPU by time slices; such a wait held every frame for milliseconds).
 * Frames of another device are refused with a message. Builds without CUDA return
 * VIF_ERROR_UNSUPPORTED for CUDA frames. FFmpeg's "primary_ctx" refuses a primary context that
 * the CUDA runtime has already activated with other flags: create the FFmpeg device before the
 * vif context (examples/nvdec_decode_score.c), or allocate it with av_hwdevice_ctx_alloc and set
 * AVCUDADeviceContext.cuda_ctx to the runtime's current (primary) context before
 * av_hwdevice_ctx_init (media/segment_decoder.cpp).
 *
 * Encoder loop (reconstructed frames against the source):
 *
 *     VifConfig cfg;
 *     vif_default_config(&cfg);
 *     vif_ffmpeg_config_from_frame(&cfg, src_frame);   // size and bit depth of the first frame
 *     VifContext *ctx;
 *     if (vif_create(&ctx, &cfg) != VIF_OK) { fprintf(stderr, "%s\n", vif_last_error()); ... }
 *     for each (src_frame, recon_frame):
 *         VifScores s;
 *         VifStatus st;
 *         while ((st = vif_ffmpeg_submit(ctx, src_frame, recon_frame, NULL)) == VIF_AGAIN)
 *             if (vif_receive(ctx, &s, 1) == VIF_OK) use(s.frame_index, s.combined);
 *         if (st != VIF_OK) fprintf(stderr, "%s\n", vif_ffmpeg_last_error());
 *         while (vif_receive(ctx, &s, 0) == VIF_OK) use(s.frame_index, s.combined);
 *     VifScores s;
 *     while (vif_receive(ctx, &s, 1) == VIF_OK) use(...);    // drain
 *     vif_destroy(ctx);
 *
 * Threading and lifetimes are those of vif_submit (see vif.h and docs/api.md): a context is used
 * from one thread at a time; a software AVFrame is only read during the call and may be
 * unreferenced or reused as soon as vif_ffmpeg_submit returns. A CUDA AVFrame's device memory is
 * borrowed as vif_cuda_submit() borrows it: until the work queued on the frame's stream after
 * the call. Whatever reuses that memory next must write on that stream (FFmpeg's NVDEC hwaccel
 * does), or the frame must be kept until its scores are received. (Frames of a context other
 * than the primary one have been read when the call returns.)
 */
#ifndef VIF_VIF_FFMPEG_H
#define VIF_VIF_FFMPEG_H

#include "vif/vif.h"

#ifdef __cplusplus
extern "C" {
#endif

struct AVFrame;

/**
 * Queues one frame pair: vif_submit() on the luma planes of ref and dist.
 *
 * Both frames must have the same (cropped) size and the same bit depth, equal to the context's;
 * they may have different pixel formats (e.g. a yuv420p10le source against a p010le
 * reconstruction: both are 10-bit luma and score the same). *frame_index (if not NULL) receives
 * the index the scores will carry in vif_receive().
 *
 * Returns VIF_OK; VIF_AGAIN when queue_depth frames wait to be received (vif.h's queue rule:
 * nothing queued; receive, then submit the same frames again); or
 * VIF_ERROR_INVALID_ARGUMENT (NULL pointer, size or bit-depth mismatch), VIF_ERROR_UNSUPPORTED
 * (pixel format without a usable luma plane, hardware frame this build or context cannot take),
 * or another error of vif_submit() / vif_cuda_submit(). On failure nothing was queued and
 * vif_ffmpeg_last_error() says why.
 */
VIF_API VifStatus vif_ffmpeg_submit(VifContext *ctx, const struct AVFrame *ref,
                                    const struct AVFrame *dist, uint64_t *frame_index);

/**
 * vif_ffmpeg_submit_flags() flag: the caller keeps both frames (holds a reference, and neither
 * it nor anyone it lets write the memory writes it) until this pair's scores have been received
 * with vif_receive(), as libvif's FFmpeg filter does. CUDA frames of a context other than the
 * primary one are then not waited for after their copy is queued: the call returns while the
 * copy runs (the scores come only after it has). On any status but VIF_OK the frames are free
 * again when the call returns, as without the flag.
 */
#define VIF_FFMPEG_FRAMES_KEPT 1u

/**
 * vif_ffmpeg_submit() with flags (VIF_FFMPEG_FRAMES_KEPT or 0; other bits are
 * VIF_ERROR_INVALID_ARGUMENT). With 0 it is vif_ffmpeg_submit().
 */
VIF_API VifStatus vif_ffmpeg_submit_flags(VifContext *ctx, const struct AVFrame *ref,
                                          const struct AVFrame *dist, unsigned flags,
                                          uint64_t *frame_index);

/**
 * Describes the luma plane of a software frame as a borrowed VifPicture (pointing into the
 * frame's buffers; valid while the frame is). Same format rules as vif_ffmpeg_submit().
 * Returns VIF_OK, VIF_ERROR_INVALID_ARGUMENT or VIF_ERROR_UNSUPPORTED (including CUDA frames).
 */
VIF_API VifStatus vif_ffmpeg_picture(const struct AVFrame *frame, VifPicture *picture);

/**
 * Sets cfg->max_width, max_height and bitdepth from a frame (software or CUDA), leaving the
 * other fields as they are; for CUDA frames it also selects VIF_BACKEND_CUDA. Returns VIF_OK,
 * VIF_ERROR_INVALID_ARGUMENT or VIF_ERROR_UNSUPPORTED.
 */
VIF_API VifStatus vif_ffmpeg_config_from_frame(VifConfig *cfg, const struct AVFrame *frame);

/**
 * Whether software frames of this pixel format (an enum AVPixelFormat value) can be scored
 * without conversion: the luma bit depth (8, 10, 12 or 16) if so, 0 if not. For
 * AV_PIX_FMT_CUDA: 1 if this build takes CUDA frames (then their sw_format must pass this test),
 * 0 if not.
 */
VIF_API int vif_ffmpeg_pix_fmt_supported(int pix_fmt);

/**
 * Message of the last failed vif_ffmpeg_* call on this thread ("" if none), including failures
 * passed on from vif_submit(). Valid until the next vif_ffmpeg_* call on this thread.
 */
VIF_API const char *vif_ffmpeg_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* VIF_VIF_FFMPEG_H */
