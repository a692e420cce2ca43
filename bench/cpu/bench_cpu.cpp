// CPU backend throughput through the public API: frames per second and bytes (luma pairs) per
// second, over variant, resolution, bit depth and thread count. Frames are pipelined through
// vif_submit/vif_receive as the CLI does, so N threads score N frames at once.
//
//   vif_bench_cpu --benchmark_filter='integer/1920x1080'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vif/vif.h"

namespace {

// Deterministic textured content: a smooth gradient plus noise, and a blurred-and-noisier copy,
// so every branch of the per-pixel statistics is exercised (flat runs, edges, noise).
struct Pair {
    std::vector<uint8_t> ref, dist;
};

Pair make_pair(int w, int h, int bpc, int variant_seed) {
    Pair p;
    const int bps = bpc == 8 ? 1 : 2;
    const int maxv = (1 << bpc) - 1;
    p.ref.resize(size_t(w) * h * bps);
    p.dist.resize(p.ref.size());
    std::mt19937 rng(1234 + variant_seed);
    std::uniform_int_distribution<int> noise(-6, 6);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const double base = 0.5 + 0.35 * std::sin(i * 0.02) * std::cos(j * 0.013) +
                                0.1 * (((i / 32) + (j / 32)) % 2);
            int r = int(base * maxv) + noise(rng) * (maxv / 255);
            int d = r + noise(rng) * 2 * (maxv / 255);
            r = std::clamp(r, 0, maxv);
            d = std::clamp(d, 0, maxv);
            const size_t k = size_t(i) * w + j;
            if (bps == 1) {
                p.ref[k] = uint8_t(r);
                p.dist[k] = uint8_t(d);
            } else {
                reinterpret_cast<uint16_t*>(p.ref.data())[k] = uint16_t(r);
                reinterpret_cast<uint16_t*>(p.dist.data())[k] = uint16_t(d);
            }
        }
    return p;
}

void bench_vif(benchmark::State& state, VifVariant variant, int w, int h, int bpc) {
    const int threads = static_cast<int>(state.range(0));
    const Pair p = make_pair(w, h, bpc, 0);
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.bitdepth = bpc;
    cfg.variant = variant;
    cfg.backend = VIF_BACKEND_CPU;
    cfg.threads = threads;
    VifContext* ctx = nullptr;
    if (vif_create(&ctx, &cfg) != VIF_OK) {
        state.SkipWithError(vif_last_error());
        return;
    }
    const ptrdiff_t stride = ptrdiff_t(w) * (bpc == 8 ? 1 : 2);
    VifPicture ref{p.ref.data(), stride, uint32_t(w), uint32_t(h), uint32_t(bpc), 0};
    VifPicture dis{p.dist.data(), stride, uint32_t(w), uint32_t(h), uint32_t(bpc), 0};
    // Each iteration scores `threads` frames, pipelined.
    int64_t frames = 0;
    VifScores s;
    for (auto _ : state) {
        for (int t = 0; t < threads; ++t) {
            while (vif_submit(ctx, &ref, &dis, nullptr) == VIF_AGAIN) vif_receive(ctx, &s, 1);
        }
        while (vif_receive(ctx, &s, 1) == VIF_OK) {}
        frames += threads;
    }
    benchmark::DoNotOptimize(s.scale[0]);
    vif_destroy(ctx);
    state.SetItemsProcessed(frames);
    state.SetBytesProcessed(frames * 2 * stride * h);
    state.counters["fps"] = benchmark::Counter(double(frames), benchmark::Counter::kIsRate);
}

void register_all() {
    struct Res {
        int w, h;
    };
    const Res res[] = {{576, 324}, {1280, 720}, {1920, 1080}, {2560, 1440}, {3840, 2160}};
    for (VifVariant v : {VIF_VARIANT_INTEGER, VIF_VARIANT_FLOAT})
        for (const Res& r : res)
            for (int bpc : {8, 10}) {
                const std::string name =
                    std::string(v == VIF_VARIANT_INTEGER ? "integer" : "float") + "/" +
                    std::to_string(r.w) + "x" + std::to_string(r.h) + "/" + std::to_string(bpc) +
                    "bit";
                benchmark::RegisterBenchmark(name.c_str(), bench_vif, v, r.w, r.h, bpc)
                    ->ArgName("threads")
                    ->Arg(1)
                    ->Arg(2)
                    ->Unit(benchmark::kMillisecond)
                    ->UseRealTime()
                    ->MinTime(1.0);
            }
}

} // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
