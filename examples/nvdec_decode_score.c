/*
 * Decode and score on the GPU: two encoded files are decoded by NVDEC (libavcodec's `cuda`
 * hwaccel) into AV_PIX_FMT_CUDA frames, and each pair is scored with vif_ffmpeg_submit() on the
 * CUDA backend. The frames never leave GPU memory.
 *
 *   nvdec_decode_score reference.mp4 distorted.mkv [frames]
 *
 * Prints the scores of each frame (%.17g: every bit, to compare with `vif --precision max`),
 * then their mean. Exit status: 0 on success, 1 on an error, 77 when there is no GPU or NVDEC
 * cannot decode the inputs.
 *
 * The FFmpeg CUDA device is created on the device's primary context (primary_ctx=1) BEFORE the
 * vif context: libvif computes in that context, so its frames are read in place (a device of a
 * context of FFmpeg's own works too, at the cost of a device-to-device copy of each luma plane),
 * and FFmpeg refuses to take over a primary context that the CUDA runtime has already activated
 * with other flags.
 *
 * Build against an installed libvif with CUDA and FFmpeg support:
 *   cc nvdec_decode_score.c $(pkg-config --cflags --libs vif-ffmpeg libavformat libavcodec libavutil)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>

#include <vif/vif.h>
#include <vif/vif_ffmpeg.h>

typedef struct Input {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    int stream;
    int eof;
} Input;

/* Take NVDEC's frames; if the hwaccel cannot decode this stream, fail (no silent software). */
static enum AVPixelFormat pick_cuda(AVCodecContext *c, const enum AVPixelFormat *fmts) {
    (void)c;
    for (; *fmts != AV_PIX_FMT_NONE; ++fmts)
        if (*fmts == AV_PIX_FMT_CUDA) return AV_PIX_FMT_CUDA;
    return AV_PIX_FMT_NONE;
}

static int open_input(Input *in, const char *path, AVBufferRef *device) {
    const AVCodec *codec = NULL;
    memset(in, 0, sizeof *in);
    if (avformat_open_input(&in->fmt, path, NULL, NULL) < 0 ||
        avformat_find_stream_info(in->fmt, NULL) < 0) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    in->stream = av_find_best_stream(in->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (in->stream < 0) {
        fprintf(stderr, "%s: no video stream\n", path);
        return -1;
    }
    /* FFmpeg 5.1 drives NVDEC's AV1 through its native decoder, not libdav1d. */
    if (codec->id == AV_CODEC_ID_AV1 && avcodec_find_decoder_by_name("av1"))
        codec = avcodec_find_decoder_by_name("av1");
    in->dec = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(in->dec, in->fmt->streams[in->stream]->codecpar);
    in->dec->hw_device_ctx = av_buffer_ref(device);
    in->dec->get_format = pick_cuda;
    in->pkt = av_packet_alloc();
    if (avcodec_open2(in->dec, codec, NULL) < 0) {
        fprintf(stderr, "%s: cannot open the %s decoder\n", path, codec->name);
        return -1;
    }
    return 0;
}

/* The next decoded frame: 1, 0 at the end, -1 on an error. */
static int next_frame(Input *in, AVFrame *f) {
    for (;;) {
        int r = avcodec_receive_frame(in->dec, f);
        if (r == 0) return 1;
        if (r == AVERROR_EOF) return 0;
        if (r != AVERROR(EAGAIN)) return -1;
        if (in->eof) return 0;
        r = av_read_frame(in->fmt, in->pkt);
        if (r < 0) {
            in->eof = 1;
            avcodec_send_packet(in->dec, NULL);
            continue;
        }
        if (in->pkt->stream_index == in->stream) r = avcodec_send_packet(in->dec, in->pkt);
        av_packet_unref(in->pkt);
        if (r < 0 && r != AVERROR(EAGAIN)) return -1;
    }
}

static void close_input(Input *in) {
    av_packet_free(&in->pkt);
    avcodec_free_context(&in->dec);
    avformat_close_input(&in->fmt);
}

static long scored;
static double total;

static void print_scores(VifContext *ctx, int block) {
    VifScores s;
    while (vif_receive(ctx, &s, block) == VIF_OK) {
        printf("frame %llu: %.17g %.17g %.17g %.17g %.17g\n", (unsigned long long)s.frame_index,
               s.combined, s.scale[0], s.scale[1], s.scale[2], s.scale[3]);
        total += s.combined;
        ++scored;
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s reference distorted [frames]\n", argv[0]);
        return 1;
    }
    const long max_frames = argc > 3 ? atol(argv[3]) : -1;
    av_log_set_level(getenv("NVDEC_EXAMPLE_VERBOSE") ? AV_LOG_VERBOSE : AV_LOG_ERROR);
    AVBufferRef *device = NULL;
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "primary_ctx", "1", 0);
    if (av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_CUDA, "0", opts, 0) < 0) {
        av_dict_free(&opts);
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    av_dict_free(&opts);
    Input ref, dist;
    if (open_input(&ref, argv[1], device) < 0 || open_input(&dist, argv[2], device) < 0) return 1;

    AVFrame *a = av_frame_alloc(), *b = av_frame_alloc();
    VifContext *ctx = NULL;
    int status = 0;
    for (long n = 0; max_frames < 0 || n < max_frames; ++n) {
        const int ra = next_frame(&ref, a), rb = next_frame(&dist, b);
        if (ra < 0 || rb < 0) {
            fprintf(stderr, "decoding failed at frame %ld\n", n);
            status = n == 0 ? 77 : 1;
            break;
        }
        if (!ra || !rb) break;
        if (!ctx) { /* sized from the first frames; CUDA frames select the cuda backend */
            VifConfig cfg;
            vif_default_config(&cfg);
            if (vif_ffmpeg_config_from_frame(&cfg, a) != VIF_OK ||
                vif_create(&ctx, &cfg) != VIF_OK) {
                fprintf(stderr, "cannot create the vif context: %s %s\n", vif_ffmpeg_last_error(),
                        vif_last_error());
                status = 1;
                break;
            }
        }
        VifStatus st;
        while ((st = vif_ffmpeg_submit(ctx, a, b, NULL)) == VIF_AGAIN) print_scores(ctx, 1);
        if (st != VIF_OK) {
            fprintf(stderr, "vif_ffmpeg_submit: %s\n", vif_ffmpeg_last_error());
            status = 1;
            break;
        }
        /* NVDEC writes the surface again only on the frames' stream, after VIF has read it. */
        av_frame_unref(a);
        av_frame_unref(b);
        print_scores(ctx, 0);
    }
    if (ctx) {
        print_scores(ctx, 1);
        vif_destroy(ctx);
    }
    if (!status) printf("%ld frames, mean vif %.6f\n", scored, scored ? total / scored : 0.0);
    av_frame_free(&a);
    av_frame_free(&b);
    close_input(&ref);
    close_input(&dist);
    av_buffer_unref(&device);
    return status;
}
