/*
 * Scoring a libavcodec encode as it runs: each packet the encoder emits is decoded right away and
 * the decoded picture is scored against its source frame with vif_ffmpeg_submit(), which takes
 * AVFrames in any planar/semi-planar YUV or gray format (NV12, P010, yuv420p10le, ...) without a
 * conversion. Source frames are matched to decoded ones by pts (the encoder may reorder).
 *
 *   ffmpeg_encoder_loop [encoder [frames]]     (default: libx264, else mpeg4; 24 frames)
 *
 * Build against an installed libvif with FFmpeg support:
 *   cc ffmpeg_encoder_loop.c $(pkg-config --cflags --libs vif-ffmpeg libavcodec libavutil)
 *   or CMake: find_package(vif CONFIG REQUIRED COMPONENTS ffmpeg) + vif::ffmpeg, and FFmpeg's
 *   libavcodec/libavutil (pkg-config).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>

#include <vif/vif.h>
#include <vif/vif_ffmpeg.h>

#define WIDTH 352
#define HEIGHT 288
#define MAX_FRAMES 240

static AVFrame *source[MAX_FRAMES];
static int scored;
static double total;

static void fill_source(AVFrame *f, int t) {
    for (int y = 0; y < f->height; ++y)
        for (int x = 0; x < f->width; ++x) {
            const int xx = x + 2 * t, yy = y + t;
            int v = ((xx / 16 + yy / 16) & 1) ? 170 : 60;
            v += ((xx * yy) >> 5) & 15;
            f->data[0][y * f->linesize[0] + x] = (uint8_t)v;
        }
    for (int p = 1; p < 3; ++p)
        for (int y = 0; y < f->height / 2; ++y)
            memset(f->data[p] + y * f->linesize[p], 128, (size_t)f->width / 2);
}

static int report(VifContext *ctx, int block) {
    VifScores s;
    while (vif_receive(ctx, &s, block) == VIF_OK) {
        printf("frame %llu: vif %.6f  scales %.6f %.6f %.6f %.6f\n",
               (unsigned long long)s.frame_index, s.combined, s.scale[0], s.scale[1], s.scale[2],
               s.scale[3]);
        total += s.combined;
        ++scored;
    }
    return 0;
}

/* Decodes whatever the decoder has and scores each picture against its source frame. */
static int drain_decoder(AVCodecContext *dec, AVFrame *decoded, VifContext *ctx, int frames) {
    int r;
    while ((r = avcodec_receive_frame(dec, decoded)) == 0) {
        const int64_t t = decoded->pts;
        if (t < 0 || t >= frames) {
            fprintf(stderr, "decoded frame with unexpected pts %lld\n", (long long)t);
            return -1;
        }
        VifStatus st;
        /* VIF_AGAIN: queue_depth frames' scores wait to be received; take them, then retry. */
        while ((st = vif_ffmpeg_submit(ctx, source[t], decoded, NULL)) == VIF_AGAIN) report(ctx, 1);
        if (st != VIF_OK) {
            fprintf(stderr, "vif_ffmpeg_submit: %s\n", vif_ffmpeg_last_error());
            return -1;
        }
        av_frame_unref(decoded); /* the picture was copied: the decoder may reuse it */
        report(ctx, 0);
    }
    return r == AVERROR(EAGAIN) || r == AVERROR_EOF ? 0 : -1;
}

static int pass_packets(AVCodecContext *enc, AVCodecContext *dec, AVPacket *pkt, AVFrame *decoded,
                        VifContext *ctx, int frames) {
    int r;
    while ((r = avcodec_receive_packet(enc, pkt)) == 0) {
        /* A real encoder loop writes the packet out here, then hands it to the decoder. */
        if (avcodec_send_packet(dec, pkt) < 0) return -1;
        av_packet_unref(pkt);
        if (drain_decoder(dec, decoded, ctx, frames) < 0) return -1;
    }
    return r == AVERROR(EAGAIN) || r == AVERROR_EOF ? 0 : -1;
}

int main(int argc, char **argv) {
    av_log_set_level(AV_LOG_ERROR); /* keep the encoder's statistics out of the output */
    const char *name = argc > 1 ? argv[1] : NULL;
    const int frames = argc > 2 ? atoi(argv[2]) : 24;
    if (frames < 1 || frames > MAX_FRAMES) {
        fprintf(stderr, "frames must be 1..%d\n", MAX_FRAMES);
        return 2;
    }
    const AVCodec *codec =
        name ? avcodec_find_encoder_by_name(name) : avcodec_find_encoder_by_name("libx264");
    if (!codec && !name) codec = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    if (!codec) {
        fprintf(stderr, "encoder %s not found\n", name ? name : "libx264/mpeg4");
        return 1;
    }
    AVCodecContext *enc = avcodec_alloc_context3(codec);
    enc->width = WIDTH;
    enc->height = HEIGHT;
    enc->pix_fmt = AV_PIX_FMT_YUV420P;
    enc->time_base = (AVRational){1, 25};
    enc->framerate = (AVRational){25, 1};
    enc->gop_size = 12;
    enc->thread_count = 1;
    if (strcmp(codec->name, "libx264") == 0) {
        av_opt_set(enc->priv_data, "preset", "veryfast", 0);
        av_opt_set(enc->priv_data, "crf", "32", 0);
    } else {
        enc->flags |= AV_CODEC_FLAG_QSCALE;
        enc->global_quality = FF_QP2LAMBDA * 8;
    }
    if (avcodec_open2(enc, codec, NULL) < 0) {
        fprintf(stderr, "cannot open encoder %s\n", codec->name);
        return 1;
    }
    const AVCodec *dcodec = avcodec_find_decoder(codec->id);
    AVCodecContext *dec = avcodec_alloc_context3(dcodec);
    if (!dcodec || !dec) {
        fprintf(stderr, "no decoder for %s\n", codec->name);
        return 1;
    }
    if (enc->extradata_size) {
        dec->extradata = av_mallocz((size_t)enc->extradata_size + AV_INPUT_BUFFER_PADDING_SIZE);
        memcpy(dec->extradata, enc->extradata, (size_t)enc->extradata_size);
        dec->extradata_size = enc->extradata_size;
    }
    dec->thread_count = 1;
    if (avcodec_open2(dec, dcodec, NULL) < 0) {
        fprintf(stderr, "cannot open decoder %s\n", dcodec->name);
        return 1;
    }

    /* The context: size and bit depth of the pictures it will see. */
    for (int t = 0; t < frames; ++t) {
        source[t] = av_frame_alloc();
        source[t]->format = AV_PIX_FMT_YUV420P;
        source[t]->width = WIDTH;
        source[t]->height = HEIGHT;
        if (av_frame_get_buffer(source[t], 0) < 0) return 1;
        fill_source(source[t], t);
        source[t]->pts = t;
    }
    VifConfig cfg;
    vif_default_config(&cfg);
    if (vif_ffmpeg_config_from_frame(&cfg, source[0]) != VIF_OK) {
        fprintf(stderr, "%s\n", vif_ffmpeg_last_error());
        return 1;
    }
    VifContext *ctx = NULL;
    if (vif_create(&ctx, &cfg) != VIF_OK) {
        fprintf(stderr, "vif_create: %s\n", vif_last_error());
        return 1;
    }
    fprintf(stderr, "encoding with %s, scoring with libvif %s on %s\n", codec->name, vif_version(),
            vif_backend_name(ctx));

    AVPacket *pkt = av_packet_alloc();
    AVFrame *decoded = av_frame_alloc();
    int status = 0;
    for (int t = 0; t < frames && status == 0; ++t) {
        if (avcodec_send_frame(enc, source[t]) < 0 ||
            pass_packets(enc, dec, pkt, decoded, ctx, frames) < 0)
            status = 1;
    }
    /* Flush the encoder, then the decoder, then libvif. */
    if (status == 0 &&
        (avcodec_send_frame(enc, NULL) < 0 ||
         pass_packets(enc, dec, pkt, decoded, ctx, frames) < 0 ||
         avcodec_send_packet(dec, NULL) < 0 || drain_decoder(dec, decoded, ctx, frames) < 0))
        status = 1;
    report(ctx, 1);
    if (status == 0 && scored != frames) {
        fprintf(stderr, "scored %d of %d frames\n", scored, frames);
        status = 1;
    }
    if (scored) printf("%d frames: mean vif %.6f\n", scored, total / scored);

    vif_destroy(ctx);
    av_frame_free(&decoded);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avcodec_free_context(&enc);
    for (int t = 0; t < frames; ++t) av_frame_free(&source[t]);
    return status;
}
