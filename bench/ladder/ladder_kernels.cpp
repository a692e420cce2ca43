// GPU time of a ladder's kernels (CUDA): one reference against K rungs scored as K separate
// pairs (Engine::enqueue, the pair kernels) and as one ladder (Engine::enqueue_multi, the
// reference's work done once), with the inputs already on the device. Each figure is the time
// between two CUDA events around a batch of launches queued behind a gate (so the GPU never
// waits for the host): kernel time plus the gaps between kernels, no copies. Reports
// microseconds per reference frame and pair-equivalents (time / one pair's time); the target of
// the issue is at most 4.5 for K = 6 at 1080p. Also checks that every rung's sums equal its
// separate pair's.
//
//   vif_bench_ladder_kernels [--size 1920x1080] [--rungs 6] [--frames 20] [--bitdepth 8]
//                            [--reps 5] [--rpb A,B,C] [--shape0 N] [--stat 0|1] [--per-launch]
//                            [--check-only]
// --rpb forces the rungs per block of the ladder's three launches, --shape0 the 8-bit scale-0
// kernel (CudaOptions::ladder_shape0: 0 tensor-core vertical pass with two barriers a rung, 1
// 64x16, 2 48x16 on CUDA cores, 3 as 0 with four barriers a rung, 4 as 2 with two), --stat the
// ladder's statistic (CudaOptions::ladder_stat_packed: 1 the packed log table and exact numerics,
// the default; 0 the hardware log2, as before); --per-launch also prints each launch's time (events
// between the launches of a frame, mean over a batch); --check-only skips the timings (no gate
// kernel: for a profiler, which serialises launches) and only compares one ladder with its pairs.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "synthetic_plane.hpp"

namespace {

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}
void check(const vif::Status& s, const char* what) {
    if (s) {
        std::fprintf(stderr, "%s: %s\n", what, s.message.c_str());
        std::exit(1);
    }
}

std::vector<uint8_t> plane(int w, int h, int bpc, int seed, int noise_amp) {
    return vif::bench::ladder_plane(w, h, bpc, seed, noise_amp);
}

} // namespace

int main(int argc, char** argv) {
    int w = 1920, h = 1080, rungs = 6, frames = 20, bpc = 8, reps = 5;
    int rpb[3] = {0, 0, 0};
    bool per_launch = false, check_only = false;
    int shape0 = 0, stat = 1;
    for (int i = 1; i < argc; i += 2) {
        if (std::string(argv[i]) == "--per-launch" || std::string(argv[i]) == "--check-only") {
            (std::string(argv[i]) == "--per-launch" ? per_launch : check_only) = true;
            --i;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s needs a value\n", argv[i]);
            return 2;
        }
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--shape0")
            shape0 = std::atoi(v.c_str());
        else if (a == "--stat")
            stat = std::atoi(v.c_str());
        else if (a == "--rpb")
            std::sscanf(v.c_str(), "%d,%d,%d", &rpb[0], &rpb[1], &rpb[2]);
        else if (a == "--size")
            std::sscanf(v.c_str(), "%dx%d", &w, &h);
        else if (a == "--rungs")
            rungs = std::atoi(v.c_str());
        else if (a == "--frames")
            frames = std::atoi(v.c_str());
        else if (a == "--bitdepth")
            bpc = std::atoi(v.c_str());
        else if (a == "--reps")
            reps = std::atoi(v.c_str());
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (!vif::cuda::device_present()) {
        std::printf("no CUDA device: nothing measured\n");
        return 0;
    }
    rungs = std::clamp(rungs, 1, 64);
    vif::CudaParams p;
    p.bitdepth = uint32_t(bpc);
    p.max_width = uint32_t(w);
    p.max_height = uint32_t(h);
    p.cuda.graphs = false; // both paths launch their kernels directly (the ladder has no graph)
    for (int i = 0; i < 3; ++i) p.cuda.ladder_rungs_per_block[i] = rpb[i];
    p.cuda.ladder_shape0 = shape0;
    p.cuda.ladder_stat_packed = stat != 0;
    vif::Status err;
    auto eng = vif::cuda::Engine::create(p, &err);
    check(err, "Engine::create");

    // Sets of (reference + rungs) rotated so that a batch reads past the 50 MB L2 as real
    // ladders (fresh frames) do.
    const size_t pitch = (size_t(w) * (bpc == 8 ? 1 : 2) + 15) / 16 * 16;
    const size_t bytes = pitch * h;
    const int sets = int(std::clamp<size_t>((180u << 20) / (bytes * (rungs + 1)) + 1, 2, 16));
    std::vector<std::vector<vif::cuda::DevPlane>> set(sets);
    for (int s = 0; s < sets; ++s)
        for (int r = 0; r <= rungs; ++r) {
            const auto host = plane(w, h, bpc, r + 7 * s, r == 0 ? 0 : 2 + 3 * (r - 1));
            void* d = nullptr;
            check(cudaMalloc(&d, bytes), "cudaMalloc");
            const size_t row = size_t(w) * (bpc == 8 ? 1 : 2);
            check(cudaMemcpy2D(d, pitch, host.data(), row, row, h, cudaMemcpyHostToDevice),
                  "cudaMemcpy2D");
            set[s].push_back({d, ptrdiff_t(pitch), 0});
        }
    vif::cuda::DeviceResult* outs = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&outs), sizeof(vif::cuda::DeviceResult) * 2 * 64),
          "cudaMalloc");
    std::vector<vif::cuda::DeviceResult*> out_ptrs(64), pair_ptrs(64);
    for (int k = 0; k < 64; ++k) {
        out_ptrs[k] = outs + k;
        pair_ptrs[k] = outs + 64 + k;
    }
    int* flag = nullptr;
    check(cudaHostAlloc(reinterpret_cast<void**>(&flag), sizeof(int), cudaHostAllocMapped),
          "cudaHostAlloc");
    int* dflag = nullptr;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dflag), flag, 0), "device pointer");
    cudaStream_t st;
    check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);

    // Microseconds per reference frame: 0 = one pair, 1 = K separate pairs, 2 = the ladder.
    auto enqueue_frame = [&](int mode, int f) {
        const auto& s = set[f % sets];
        if (mode == 2) {
            check(eng->enqueue_multi(s[0], s.data() + 1, rungs, w, h, out_ptrs.data(), st),
                  "enqueue_multi");
            return;
        }
        const int n = mode == 0 ? 1 : rungs;
        for (int k = 0; k < n; ++k)
            check(eng->enqueue(s[0], s[1 + k], w, h, pair_ptrs[k], st), "enqueue");
    };
    auto time_mode = [&](int mode) {
        for (int f = 0; f < 2; ++f) enqueue_frame(mode, f); // warm-up
        check(cudaStreamSynchronize(st), "sync");
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
            *reinterpret_cast<volatile int*>(flag) = 0;
            check(vif::cuda::launch_gate(dflag, st), "gate");
            cudaEventRecord(e0, st);
            for (int f = 0; f < frames; ++f) enqueue_frame(mode, f);
            cudaEventRecord(e1, st);
            *reinterpret_cast<volatile int*>(flag) = 1;
            check(cudaStreamSynchronize(st), "sync");
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            t.push_back(1e3 * ms / frames);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2]; // median
    };
    double one = 0, sep = 0, lad = 0;
    if (!check_only) {
        one = time_mode(0);
        sep = time_mode(1);
        lad = time_mode(2);
    }

    // Per launch (scale 0, scale 1, scales 2+3): events between the launches of each frame.
    double launch_us[2][3] = {};
    if (per_launch && !check_only) {
        std::vector<cudaEvent_t> ev(size_t(frames) * 4);
        for (auto& e : ev) cudaEventCreate(&e);
        for (int mode = 0; mode < 2; ++mode) {
            *reinterpret_cast<volatile int*>(flag) = 0;
            check(vif::cuda::launch_gate(dflag, st), "gate");
            for (int f = 0; f < frames; ++f) {
                const auto& s = set[f % sets];
                const cudaEvent_t* e = ev.data() + 4 * f;
                if (mode == 0)
                    check(eng->enqueue(s[0], s[1], w, h, pair_ptrs[0], st, nullptr, e), "pair");
                else
                    check(
                        eng->enqueue_multi(s[0], s.data() + 1, rungs, w, h, out_ptrs.data(), st, e),
                        "multi");
            }
            *reinterpret_cast<volatile int*>(flag) = 1;
            check(cudaStreamSynchronize(st), "sync");
            for (int f = 0; f < frames; ++f)
                for (int i = 0; i < 3; ++i) {
                    float ms = 0;
                    cudaEventElapsedTime(&ms, ev[4 * f + i], ev[4 * f + i + 1]);
                    launch_us[mode][i] += 1e3 * ms / frames;
                }
        }
    }

    // Every rung's sums against its separate pair's, on the first set.
    bool same = true;
    {
        const auto& s = set[0];
        check(eng->enqueue_multi(s[0], s.data() + 1, rungs, w, h, out_ptrs.data(), st), "multi");
        for (int k = 0; k < rungs; ++k)
            check(eng->enqueue(s[0], s[1 + k], w, h, pair_ptrs[k], st), "enqueue");
        check(cudaStreamSynchronize(st), "sync");
        std::vector<vif::cuda::DeviceResult> hr(128);
        check(cudaMemcpy(hr.data(), outs, sizeof(vif::cuda::DeviceResult) * 128,
                         cudaMemcpyDeviceToHost),
              "copy");
        for (int k = 0; k < rungs; ++k)
            same = same && std::memcmp(hr[k].acc, hr[64 + k].acc, sizeof(hr[k].acc)) == 0;
    }
    if (check_only) {
        std::printf("%dx%d %d-bit, %d rungs, shape0 %d, stat %d: rung sums equal to separate "
                    "pairs: %s\n",
                    w, h, bpc, rungs, shape0, stat, same ? "yes" : "NO");
        return same ? 0 : 1;
    }
    std::printf(
        "%dx%d %d-bit, %d rungs, shape0 %d, stat %d, GPU time per reference frame (median of %d "
        "batches of %d frames, %d input sets)\n",
        w, h, bpc, rungs, shape0, stat, reps, frames, sets);
    std::printf("one pair            %8.1f us\n", one);
    std::printf("%2d separate pairs   %8.1f us  (%.2f pair-equivalents)\n", rungs, sep, sep / one);
    std::printf("ladder (multi)      %8.1f us  (%.2f pair-equivalents, %.2f per extra rung)\n", lad,
                lad / one, rungs > 1 ? (lad / one - 1.0) / (rungs - 1) : 0.0);
    if (per_launch) {
        const char* names[3] = {"scale 0", "scale 1", "scales 2+3"};
        for (int i = 0; i < 3; ++i)
            std::printf("  %-10s  pair %7.1f us   ladder %7.1f us  (%.2f pair-equivalents)\n",
                        names[i], launch_us[0][i], launch_us[1][i],
                        launch_us[1][i] / launch_us[0][i]);
    }
    std::printf("rung sums equal to separate pairs: %s\n", same ? "yes" : "NO");
    return same ? 0 : 1;
}
