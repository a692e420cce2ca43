// Google Benchmark suite of the CUDA backend, over resolution x bit depth:
//   BM_Kernels       GPU time of one frame's kernels (CUDA events around the enqueue,
//                    UseManualTime), inputs already on the device and rotated past L2
//   BM_HostPipeline  vif_submit + vif_receive through the public API from host memory, queue
//                    kept full (wall time: host copy, H2D copy and kernels overlapped)
//   BM_DevicePipeline vif_cuda_submit from device memory through the public API (wall time)
//   BM_BackendPipeline the host pipeline of the internal CUDA backend with batching forced off
//                    (batch1) or as the kernel table's rule has it (batchauto; q32: 32 slots, so
//                    batches of up to 16 can form): the same loop as BM_HostPipeline
// Bytes are the ref + dist luma planes; items are frames.
//   vif_bench_cuda --benchmark_filter=Kernels/1920x1080
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "engine/engine.hpp"
#include "vif/vif.h"
#include "vif/vif_cuda.h"

namespace {

const std::pair<int, int> kSizes[] = {{576, 324},   {1280, 720},  {1920, 1080},
                                      {2560, 1440}, {3840, 2160}, {7680, 4320}};
const int kDepths[] = {8, 10};

bool check(cudaError_t e, benchmark::State& st) {
    if (e != cudaSuccess) st.SkipWithError(cudaGetErrorString(e));
    return e == cudaSuccess;
}

std::vector<uint8_t> content(int w, int h, int bpc, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-6, 6);
    const int maxv = (1 << bpc) - 1;
    const size_t bps = bpc == 8 ? 1 : 2;
    std::vector<uint8_t> b(size_t(w) * h * bps);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int v = int((0.5 + 0.35 * std::sin(x * 0.023 + seed) * std::cos(y * 0.019)) * maxv) +
                    noise(rng) * (maxv / 255);
            v = v < 0 ? 0 : (v > maxv ? maxv : v);
            if (bps == 1)
                b[size_t(y) * w + x] = uint8_t(v);
            else {
                const uint16_t u = uint16_t(v);
                std::memcpy(&b[(size_t(y) * w + x) * 2], &u, 2);
            }
        }
    return b;
}

void BM_Kernels(benchmark::State& st, int w, int h, int bpc, VifVariant variant) {
    vif::CudaParams p;
    p.variant = variant;
    p.bitdepth = uint32_t(bpc);
    p.max_width = uint32_t(w);
    p.max_height = uint32_t(h);
    vif::Status err;
    auto eng = vif::cuda::Engine::create(p, &err);
    if (!eng) return st.SkipWithError(err.message.c_str());
    const size_t plane = size_t(w) * h * (bpc == 8 ? 1 : 2);
    const int sets = int(std::max<size_t>(2, std::min<size_t>(16, (180u << 20) / (2 * plane) + 1)));
    std::vector<void*> d(2 * sets);
    for (int i = 0; i < 2 * sets; ++i) {
        if (!check(cudaMalloc(&d[i], plane), st)) return;
        auto c = content(w, h, bpc, 7 + i);
        if (!check(cudaMemcpy(d[i], c.data(), plane, cudaMemcpyHostToDevice), st)) return;
    }
    void* out = nullptr;
    if (!check(cudaMalloc(&out, sizeof(vif::cuda::DeviceResult)), st)) return;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const ptrdiff_t pitch = ptrdiff_t(w) * (bpc == 8 ? 1 : 2);
    int i = 0;
    auto frame = [&]() {
        const int k = i++ % sets;
        return eng->enqueue({d[2 * k], pitch, 0}, {d[2 * k + 1], pitch, 0}, w, h,
                            static_cast<vif::cuda::DeviceResult*>(out), s);
    };
    for (int k = 0; k < 2 * sets; ++k) frame(); // warm-up (and graph capture per input set)
    cudaStreamSynchronize(s);
    // The frame waits behind a gate until it is fully enqueued, so host launch latency stays
    // out of the GPU time.
    int* flag = nullptr;
    int* dflag = nullptr;
    cudaHostAlloc(reinterpret_cast<void**>(&flag), sizeof(int), cudaHostAllocMapped);
    cudaHostGetDevicePointer(reinterpret_cast<void**>(&dflag), flag, 0);
    for (auto _ : st) {
        *reinterpret_cast<volatile int*>(flag) = 0;
        vif::cuda::launch_gate(dflag, s);
        cudaEventRecord(e0, s);
        if (frame()) return st.SkipWithError("enqueue failed");
        cudaEventRecord(e1, s);
        *reinterpret_cast<volatile int*>(flag) = 1;
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        st.SetIterationTime(ms / 1e3);
    }
    st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(2 * plane));
    st.SetItemsProcessed(st.iterations());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    cudaFreeHost(flag);
    cudaFree(out);
    for (void* p2 : d) cudaFree(p2);
}

void BM_HostPipeline(benchmark::State& st, int w, int h, int bpc, bool device) {
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.backend = VIF_BACKEND_CUDA;
    cfg.max_width = uint32_t(w);
    cfg.max_height = uint32_t(h);
    cfg.bitdepth = uint32_t(bpc);
    VifContext* ctx = nullptr;
    if (vif_create(&ctx, &cfg) != VIF_OK) return st.SkipWithError(vif_last_error());
    const size_t bps = bpc == 8 ? 1 : 2, plane = size_t(w) * h * bps;
    std::vector<std::vector<uint8_t>> frames;
    for (int k = 0; k < 4; ++k) frames.push_back(content(w, h, bpc, 100 + k));
    std::vector<void*> d(4, nullptr);
    cudaStream_t s = nullptr;
    if (device) {
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        for (int k = 0; k < 4; ++k) {
            if (!check(cudaMalloc(&d[k], plane), st)) return;
            cudaMemcpy(d[k], frames[k].data(), plane, cudaMemcpyHostToDevice);
        }
    }
    int i = 0;
    VifScores sc;
    for (auto _ : st) {
        const int a = i % 4, b = (i + 1) % 4;
        ++i;
        VifStatus r;
        if (device) {
            VifDevicePicture pr{d[a],        ptrdiff_t(w * bps), uint32_t(w),
                                uint32_t(h), uint32_t(bpc),      0};
            VifDevicePicture pd{d[b],        ptrdiff_t(w * bps), uint32_t(w),
                                uint32_t(h), uint32_t(bpc),      0};
            r = vif_cuda_submit(ctx, &pr, &pd, s, nullptr);
        } else {
            VifPicture pr{frames[a].data(), ptrdiff_t(w * bps), uint32_t(w),
                          uint32_t(h),      uint32_t(bpc),      0};
            VifPicture pd{frames[b].data(), ptrdiff_t(w * bps), uint32_t(w),
                          uint32_t(h),      uint32_t(bpc),      0};
            r = vif_submit(ctx, &pr, &pd, nullptr);
        }
        if (r != VIF_OK) return st.SkipWithError(vif_last_error());
        while (vif_receive(ctx, &sc, 0) == VIF_OK) benchmark::DoNotOptimize(sc);
    }
    while (vif_receive(ctx, &sc, 1) == VIF_OK) benchmark::DoNotOptimize(sc);
    st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(2 * plane));
    st.SetItemsProcessed(st.iterations());
    vif_destroy(ctx);
    for (void* p : d)
        if (p) cudaFree(p);
    if (s) cudaStreamDestroy(s);
}

void BM_BackendPipeline(benchmark::State& st, int w, int h, int bpc, int batch, int depth) {
    vif::CudaParams p;
    p.bitdepth = uint32_t(bpc);
    p.max_width = uint32_t(w);
    p.max_height = uint32_t(h);
    p.cuda.batch_frames = batch;
    p.queue_depth = uint32_t(depth); // 0: the default (4 slots)
    vif::Status err;
    auto b = vif::create_cuda_backend(p, &err);
    if (!b) return st.SkipWithError(err.message.c_str());
    const size_t bps = bpc == 8 ? 1 : 2, plane = size_t(w) * h * bps;
    std::vector<std::vector<uint8_t>> frames;
    for (int k = 0; k < 4; ++k) frames.push_back(content(w, h, bpc, 100 + k));
    auto hp = [&](int k) {
        vif::HostPlane x;
        x.data = frames[k].data();
        x.stride = ptrdiff_t(w * bps);
        x.width = uint32_t(w);
        x.height = uint32_t(h);
        return x;
    };
    uint64_t i = 0;
    vif::FrameRaw r;
    for (auto _ : st) {
        const int a = int(i % 4), c = int((i + 1) % 4);
        for (;;) {
            const vif::Status e = b->submit(hp(a), hp(c), i);
            if (e.status == VIF_OK) break;
            if (e.status != VIF_AGAIN) return st.SkipWithError(e.message.c_str());
            if (b->receive(&r, true).status != VIF_OK) return st.SkipWithError("receive");
        }
        ++i;
        while (b->receive(&r, false).status == VIF_OK) benchmark::DoNotOptimize(r);
    }
    while (b->pending())
        if (b->receive(&r, true).status != VIF_OK) return st.SkipWithError("receive");
    st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(2 * plane));
    st.SetItemsProcessed(st.iterations());
}

} // namespace

int main(int argc, char** argv) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::fprintf(stderr, "vif_bench_cuda: no CUDA device present\n");
        return 1;
    }
    for (auto [w, h] : kSizes)
        for (int bpc : kDepths) {
            const std::string sz =
                std::to_string(w) + "x" + std::to_string(h) + "/" + std::to_string(bpc) + "bit";
            benchmark::RegisterBenchmark(("Kernels/integer/" + sz).c_str(), BM_Kernels, w, h, bpc,
                                         VIF_VARIANT_INTEGER)
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark(("HostPipeline/" + sz).c_str(), BM_HostPipeline, w, h, bpc,
                                         false)
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark(("DevicePipeline/" + sz).c_str(), BM_HostPipeline, w, h,
                                         bpc, true)
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
        }
    for (auto [w, h] : {std::pair<int, int>{576, 324}, std::pair<int, int>{1920, 1080}})
        for (int bpc : kDepths)
            for (auto [batch, depth] : {std::pair<int, int>{1, 0},
                                        {vif::CudaOptions::kAuto, 0},
                                        {vif::CudaOptions::kAuto, 32}}) {
                const std::string name = "BackendPipeline/" + std::to_string(w) + "x" +
                                         std::to_string(h) + "/" + std::to_string(bpc) + "bit/" +
                                         (batch == 1 ? "batch1" : "batchauto") +
                                         (depth ? "/q" + std::to_string(depth) : "");
                benchmark::RegisterBenchmark(name.c_str(), BM_BackendPipeline, w, h, bpc, batch,
                                             depth)
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond);
            }
    for (auto [w, h] : {std::pair<int, int>{1920, 1080}, std::pair<int, int>{3840, 2160}})
        benchmark::RegisterBenchmark(
            ("Kernels/float/" + std::to_string(w) + "x" + std::to_string(h) + "/8bit").c_str(),
            BM_Kernels, w, h, 8, VIF_VARIANT_FLOAT)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
