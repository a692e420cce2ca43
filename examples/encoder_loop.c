/*
 * An encoder loop scoring each reconstructed frame against its source with libvif (C API).
 *
 * The "encoder" here is a stand-in (a blur and a quantiser) so that the example needs nothing but
 * libvif; in a real encoder, `source` is the input picture and `recon` the reconstructed one,
 * both luma planes in host memory. Scores arrive a little later than the frames they belong to:
 * the loop polls for them after each submission and drains the rest at the end.
 *
 *   encoder_loop [width height frames bitdepth]     (default 640 360 12 8; bitdepth 8 or 10)
 *
 * Build against an installed libvif:
 *   cc encoder_loop.c $(pkg-config --cflags --libs vif) -o encoder_loop
 *   or CMake: find_package(vif CONFIG REQUIRED) + target_link_libraries(app PRIVATE vif::vif)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vif/vif.h>

/* One luma plane; 8-bit samples in bytes, 10-bit in 16-bit words. */
typedef struct Plane {
    void *data;
    ptrdiff_t stride; /* bytes */
    int width, height, bitdepth;
} Plane;

static int get(const Plane *p, int x, int y) {
    if (x < 0) x = 0;
    if (x >= p->width) x = p->width - 1;
    if (y < 0) y = 0;
    if (y >= p->height) y = p->height - 1;
    const uint8_t *row = (const uint8_t *)p->data + y * p->stride;
    return p->bitdepth == 8 ? row[x] : ((const uint16_t *)row)[x];
}

static void put(Plane *p, int x, int y, int v) {
    uint8_t *row = (uint8_t *)p->data + y * p->stride;
    if (p->bitdepth == 8)
        row[x] = (uint8_t)v;
    else
        ((uint16_t *)row)[x] = (uint16_t)v;
}

/* Source frame t: a pattern with edges, texture and flat areas that moves from frame to frame. */
static void make_source(Plane *p, int t) {
    const int max = (1 << p->bitdepth) - 1;
    uint32_t seed = 12345u + (uint32_t)t;
    for (int y = 0; y < p->height; ++y)
        for (int x = 0; x < p->width; ++x) {
            const int xx = x + 3 * t, yy = y + t;
            int v = ((xx / 24 + yy / 24) & 1) ? 160 : 70;       /* blocks */
            v += ((xx * xx + yy * 7) >> 6) & 31;                /* texture */
            if (y > p->height / 2 && x > p->width / 2) v = 128; /* a flat area */
            seed = seed * 1664525u + 1013904223u;
            v += (int)(seed >> 29) - 4; /* grain */
            v = v * max / 255;
            put(p, x, y, v < 0 ? 0 : v > max ? max : v);
        }
}

/* The stand-in encoder: a 3-tap blur and a coarser quantiser on some frames. */
static void fake_encode(const Plane *src, Plane *rec, int t) {
    const int step = (t % 4 == 0) ? 4 : 12;
    const int scale = 1 << (src->bitdepth - 8);
    for (int y = 0; y < src->height; ++y)
        for (int x = 0; x < src->width; ++x) {
            int v = (get(src, x - 1, y) + 2 * get(src, x, y) + get(src, x + 1, y) + 2) / 4;
            const int q = step * scale;
            v = (v + q / 2) / q * q;
            const int max = (1 << src->bitdepth) - 1;
            put(rec, x, y, v > max ? max : v);
        }
}

static void print_scores(const VifScores *s) {
    printf("frame %llu: vif %.9f  scales %.9f %.9f %.9f %.9f\n", (unsigned long long)s->frame_index,
           s->combined, s->scale[0], s->scale[1], s->scale[2], s->scale[3]);
}

int main(int argc, char **argv) {
    const int width = argc > 1 ? atoi(argv[1]) : 640;
    const int height = argc > 2 ? atoi(argv[2]) : 360;
    const int frames = argc > 3 ? atoi(argv[3]) : 12;
    const int bitdepth = argc > 4 ? atoi(argv[4]) : 8;
    if (width < 16 || height < 16 || frames < 1 || (bitdepth != 8 && bitdepth != 10)) {
        fprintf(stderr, "usage: %s [width>=16 height>=16 frames>=1 bitdepth(8|10)]\n", argv[0]);
        return 2;
    }

    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = (uint32_t)width;
    cfg.max_height = (uint32_t)height;
    cfg.bitdepth = (uint32_t)bitdepth;
    cfg.backend = VIF_BACKEND_AUTO; /* the GPU when there is one, else the CPU */
    cfg.queue_depth = 4;            /* frames unreceived before vif_submit says VIF_AGAIN */

    VifContext *ctx = NULL;
    if (vif_create(&ctx, &cfg) != VIF_OK) {
        fprintf(stderr, "vif_create: %s\n", vif_last_error());
        return 1;
    }
    fprintf(stderr, "libvif %s on %s\n", vif_version(), vif_backend_name(ctx));

    const int bps = bitdepth == 8 ? 1 : 2;
    const ptrdiff_t stride = ((ptrdiff_t)width * bps + 63) / 64 * 64;
    Plane src = {malloc((size_t)stride * height), stride, width, height, bitdepth};
    Plane rec = {malloc((size_t)stride * height), stride, width, height, bitdepth};
    double *combined = malloc(sizeof(double) * (size_t)frames);
    int received = 0, status = 0;
    if (!src.data || !rec.data || !combined) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    VifScores s;
    for (int t = 0; t < frames; ++t) {
        make_source(&src, t);
        fake_encode(&src, &rec, t);

        const VifPicture ref = {src.data,         src.stride,         (uint32_t)width,
                                (uint32_t)height, (uint32_t)bitdepth, 0};
        const VifPicture dis = {rec.data,         rec.stride,         (uint32_t)width,
                                (uint32_t)height, (uint32_t)bitdepth, 0};
        /* Copies both planes before returning: src and rec may be reused at once. VIF_AGAIN:
         * queue_depth frames' scores wait to be received; take the oldest, then submit again. */
        VifStatus st;
        while ((st = vif_submit(ctx, &ref, &dis, NULL)) == VIF_AGAIN &&
               vif_receive(ctx, &s, 1) == VIF_OK) {
            print_scores(&s);
            combined[received++] = s.combined;
        }
        if (st != VIF_OK) {
            fprintf(stderr, "vif_submit (frame %d): %s\n", t, vif_last_error());
            status = 1;
            break;
        }
        /* Whatever is ready now, oldest first; never waits. */
        while (vif_receive(ctx, &s, 0) == VIF_OK) {
            print_scores(&s);
            combined[received++] = s.combined;
        }
    }
    /* End of stream: wait for the rest. */
    while (vif_receive(ctx, &s, 1) == VIF_OK) {
        print_scores(&s);
        combined[received++] = s.combined;
    }

    if (received > 0) {
        double mean = 0, hmean = 0;
        vif_pool(combined, (size_t)received, VIF_POOL_MEAN, 0, &mean);
        vif_pool(combined, (size_t)received, VIF_POOL_HARMONIC_MEAN, 0, &hmean);
        printf("%d frames: mean vif %.9f, harmonic mean %.9f\n", received, mean, hmean);
    }
    if (received != frames && status == 0) {
        fprintf(stderr, "expected %d scores, got %d\n", frames, received);
        status = 1;
    }
    vif_destroy(ctx);
    free(src.data);
    free(rec.data);
    free(combined);
    return status;
}
