// A ladder of K rungs against one reference: the scoring time of K separate pairs (vif_submit)
// against one vif_submit_multi call per reference frame, through the public API on either
// backend. Reports milliseconds per reference frame and the ladder's cost in pair-equivalents
// (ladder time / one pair's time); the target is at most 4.5 for K = 6.
//
//   vif_bench_ladder [--backend cpu|cuda] [--size 1920x1080] [--rungs 6] [--frames 24]
//                    [--threads 1] [--bitdepth 8] [--wall]
//
// CPU: process CPU time with one worker thread (steady on a shared machine). CUDA: pass --wall
// (the host thread mostly waits); the figure is then the GPU's throughput.
//
// Frames are synthetic (smooth texture plus noise; each rung a differently degraded copy) and
// are pipelined as the CLI does, so the figure is throughput, not latency.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "synthetic_plane.hpp"
#include "vif/vif.h"

namespace {

struct Options {
    VifBackend backend = VIF_BACKEND_CPU;
    int w = 1920, h = 1080, rungs = 6, frames = 24, bpc = 8;
    unsigned threads = 1;
};

std::vector<uint8_t> plane(int w, int h, int bpc, int seed, int noise_amp) {
    return vif::bench::ladder_plane(w, h, bpc, seed, noise_amp);
}

// Process CPU time: on a shared machine it is steadier than wall time, and with one worker
// thread (--threads 1, the default here) it is the scoring work itself. --wall for wall time.
bool g_wall = false;
double now() {
    if (g_wall)
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

void die(const char* what) {
    std::fprintf(stderr, "%s: %s\n", what, vif_last_error());
    std::exit(1);
}

// Seconds to score `frames` reference frames against `k` rungs; multi: one call per frame.
double run(const Options& o, int k, bool multi, const std::vector<uint8_t>& ref,
           const std::vector<std::vector<uint8_t>>& rungs) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.max_width = o.w;
    cfg.max_height = o.h;
    cfg.bitdepth = o.bpc;
    cfg.backend = o.backend;
    cfg.threads = o.threads;
    // CUDA queues each pair of a ladder as a frame (vif.h): room for two reference frames.
    if (o.backend == VIF_BACKEND_CUDA) cfg.queue_depth = uint32_t(std::max(4, 2 * o.rungs));
    VifContext* ctx = nullptr;
    if (vif_create(&ctx, &cfg) != VIF_OK) die("vif_create");
    const ptrdiff_t stride = ptrdiff_t(o.w) * (o.bpc == 8 ? 1 : 2);
    const VifPicture r{ref.data(), stride, uint32_t(o.w), uint32_t(o.h), uint32_t(o.bpc), 0};
    std::vector<VifPicture> d;
    for (int i = 0; i < k; ++i)
        d.push_back({rungs[i].data(), stride, uint32_t(o.w), uint32_t(o.h), uint32_t(o.bpc), 0});
    std::vector<const VifPicture*> dp;
    for (auto& p : d) dp.push_back(&p);
    VifScores s;
    auto submit = [&](auto&& call) {
        VifStatus st;
        while ((st = call()) == VIF_AGAIN)
            if (vif_receive(ctx, &s, 1) != VIF_OK) die("vif_receive");
        if (st != VIF_OK) die("submit");
    };
    // One warm-up frame (first-touch of buffers, CUDA module load) outside the timing.
    submit([&] { return vif_submit(ctx, &r, dp[0], nullptr); });
    while (vif_receive(ctx, &s, 1) == VIF_OK) {}
    const double t0 = now();
    for (int f = 0; f < o.frames; ++f) {
        if (multi) {
            submit([&] { return vif_submit_multi(ctx, &r, dp.data(), size_t(k), nullptr); });
        } else {
            for (int i = 0; i < k; ++i) submit([&] { return vif_submit(ctx, &r, dp[i], nullptr); });
        }
    }
    while (vif_receive(ctx, &s, 1) == VIF_OK) {}
    const double t = now() - t0;
    vif_destroy(ctx);
    return t;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i += 2) {
        if (std::string(argv[i]) == "--wall") {
            g_wall = true;
            --i;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s needs a value\n", argv[i]);
            return 2;
        }
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--backend")
            o.backend = v == "cuda" ? VIF_BACKEND_CUDA : VIF_BACKEND_CPU;
        else if (a == "--size")
            std::sscanf(v.c_str(), "%dx%d", &o.w, &o.h);
        else if (a == "--rungs")
            o.rungs = std::atoi(v.c_str());
        else if (a == "--frames")
            o.frames = std::atoi(v.c_str());
        else if (a == "--threads")
            o.threads = unsigned(std::atoi(v.c_str()));
        else if (a == "--bitdepth")
            o.bpc = std::atoi(v.c_str());
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    const auto ref = plane(o.w, o.h, o.bpc, 0, 0);
    std::vector<std::vector<uint8_t>> rungs;
    for (int i = 0; i < o.rungs; ++i) rungs.push_back(plane(o.w, o.h, o.bpc, i + 1, 2 + 3 * i));
    const double one = run(o, 1, false, ref, rungs);
    const double separate = run(o, o.rungs, false, ref, rungs);
    const double ladder = run(o, o.rungs, true, ref, rungs);
    const double per = 1e3 / o.frames;
    std::printf("backend %s, %dx%d %d-bit, %d rungs, %d reference frames, threads %u, %s time\n",
                o.backend == VIF_BACKEND_CUDA ? "cuda" : "cpu", o.w, o.h, o.bpc, o.rungs, o.frames,
                o.threads, g_wall ? "wall" : "process CPU");
    std::printf("one pair            %8.2f ms per reference frame\n", one * per);
    std::printf("%d separate pairs    %8.2f ms  (%.2f pair-equivalents)\n", o.rungs, separate * per,
                separate / one);
    std::printf("ladder (multi)      %8.2f ms  (%.2f pair-equivalents, %.2fx the separate pairs)\n",
                ladder * per, ladder / one, separate / ladder);
    return 0;
}
