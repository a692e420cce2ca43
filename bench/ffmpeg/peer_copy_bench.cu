// The copy behind the FFmpeg filter's plain `-hwaccel cuda` command (libvif/ffmpeg/
// vif_ffmpeg_cuda.cpp): the luma plane of a frame in a CUDA context of FFmpeg's own, copied into
// a buffer of the device's primary context (where libvif computes) with cuMemcpy3DPeerAsync.
//
// Times that copy against a device-to-device copy within one context for a 1080p 8-bit and a
// 2160p 16-bit luma plane, and checks that it stays on the GPU: PASS when the peer copy moves
// more than 60 GB/s (a copy staged through host memory is bounded by the host link, under about
// 25 GB/s for a download plus an upload over PCIe 5). Exit status 0 (PASS), 1 (FAIL), 77 (no GPU).
//
// Also (INFO lines): a model of the filter's pipeline, to tell where the plain command's time
// goes: per frame, "decoding" in FFmpeg's context (a device copy of a 1080p NV12 frame on its
// legacy default stream, or a 20 us kernel), the luma copy into the primary context, "VIF" there
// (a 400 us kernel), with 3 frames in flight (a frame's surface comes back when its VIF is
// done), ordered as Order below says. Microseconds a frame; one context is the floor.
//
//   nvcc -std=c++17 -O2 -arch=sm_90 peer_copy_bench.cu -ldl
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <thread>
#include <vector>

namespace {

void* driver_fn(const char* name) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess)
        return nullptr;
#else
    if (cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q) != cudaSuccess) return nullptr;
#endif
    return q == cudaDriverEntryPointSuccess ? fn : nullptr;
}

template <typename Fn>
bool load(Fn* f, const char* name) {
    *f = reinterpret_cast<Fn>(driver_fn(name));
    return *f != nullptr;
}

CUresult (*ctx_create)(CUcontext*, unsigned, CUdevice); // cuCtxCreate_v2, FFmpeg's call
CUresult (*ctx_destroy)(CUcontext);
CUresult (*ctx_push)(CUcontext);
CUresult (*ctx_pop)(CUcontext*);
CUresult (*ctx_get_current)(CUcontext*);
CUresult (*mem_alloc)(CUdeviceptr*, size_t);
CUresult (*mem_free)(CUdeviceptr);
CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t);
CUresult (*copy_peer)(const CUDA_MEMCPY3D_PEER*, CUstream);
CUresult (*stream_sync)(CUstream);
CUresult (*event_create)(CUevent*, unsigned);
CUresult (*event_record)(CUevent, CUstream);
CUresult (*stream_wait)(CUstream, CUevent, unsigned);
CUresult (*memset_d8_async)(CUdeviceptr, unsigned char, size_t, CUstream);
CUresult (*copy_2d_async)(const CUDA_MEMCPY2D*, CUstream);
CUresult (*mem_granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags);
CUresult (*mem_create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                       unsigned long long);
CUresult (*mem_reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
CUresult (*mem_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
CUresult (*event_sync)(CUevent);
CUresult (*event_query)(CUevent);
CUresult (*event_destroy)(CUevent);

// Runs for `ns` nanoseconds of GPU time (one thread): a stand-in for work of a given length.
__global__ void spin(unsigned long long ns) {
    unsigned long long t0 = 0, t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

// one_context: primary_ctx=1. gpu_waits: each context's stream waits for the other's event on the
// GPU (the glue's first ordering). host_waits: the filter's thread blocks in the driver for the
// decoder's event, then for the copy's. host_poll: the same waits, polling the events (the glue
// now). host_poll_kept: polling for the decoder's event only; the frames are kept until the
// scores come (the glue with VIF_FFMPEG_FRAMES_KEPT, as the filter calls it).
enum class Order { one_context, gpu_waits, host_waits, host_poll, host_poll_kept };

bool poll(CUevent e) {
    CUresult r;
    while ((r = event_query(e)) == CUDA_ERROR_NOT_READY) std::this_thread::yield();
    return r == CUDA_SUCCESS;
}

// The pipeline model (see the top of the file): microseconds a frame, or a negative value when a
// call failed. `own` is FFmpeg's context; the primary context is current.
double pipeline_us(Order order, bool decode_kernel, CUcontext own, CUcontext primary) {
    const int frames = 300, warm = 20, in_flight = 3;
    const size_t w = 1920, h = 1080, frame_bytes = w * h * 3 / 2;
    const unsigned long long vif_ns = 400000, decode_ns = 20000;
    const CUcontext dec = order == Order::one_context ? primary : own;
    auto pop = [] {
        CUcontext popped = nullptr;
        ctx_pop(&popped);
    };
    bool ok = true;
    CUdeviceptr surface = 0, frame = 0; // the decoder's surface and the frame handed on
    CUevent decoded = nullptr;
    ctx_push(dec);
    ok &= mem_alloc(&surface, frame_bytes) == CUDA_SUCCESS &&
          mem_alloc(&frame, frame_bytes) == CUDA_SUCCESS &&
          event_create(&decoded, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS;
    pop();
    void* staging = nullptr;
    cudaStream_t compute = nullptr;
    cudaEvent_t copied = nullptr;
    std::vector<cudaEvent_t> done(in_flight, nullptr);
    ok &= cudaMalloc(&staging, w * h) == cudaSuccess &&
          cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking) == cudaSuccess &&
          cudaEventCreateWithFlags(&copied, cudaEventDisableTiming) == cudaSuccess;
    for (cudaEvent_t& e : done)
        ok &= cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess;
    const cudaStream_t work = cudaStreamPerThread;
    CUDA_MEMCPY2D
    dcopy{}; // the decoder's copy out of its surface (FFmpeg's av_frame_make_writable)
    dcopy.srcMemoryType = dcopy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    dcopy.srcDevice = surface;
    dcopy.dstDevice = frame;
    dcopy.srcPitch = dcopy.dstPitch = dcopy.WidthInBytes = w;
    dcopy.Height = h * 3 / 2;
    CUDA_MEMCPY3D_PEER luma{};
    luma.srcMemoryType = luma.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    luma.srcDevice = frame;
    luma.srcContext = dec;
    luma.srcPitch = luma.dstPitch = luma.WidthInBytes = w;
    luma.dstDevice = reinterpret_cast<CUdeviceptr>(staging);
    luma.dstContext = primary;
    luma.Height = h;
    luma.Depth = 1;
    using clock = std::chrono::steady_clock;
    clock::time_point t0;
    for (int i = 0; ok && i < warm + frames; ++i) {
        if (i == warm) t0 = clock::now();
        if (i >= in_flight) ok &= cudaEventSynchronize(done[i % in_flight]) == cudaSuccess;
        ctx_push(dec); // the decoder's work on its context's legacy default stream
        if (decode_kernel) {
            spin<<<1, 1, 0, nullptr>>>(decode_ns);
            ok &= cudaGetLastError() == cudaSuccess;
        } else {
            ok &= copy_2d_async(&dcopy, nullptr) == CUDA_SUCCESS;
        }
        ok &= event_record(decoded, nullptr) == CUDA_SUCCESS;
        const bool on_gpu = order == Order::one_context || order == Order::gpu_waits;
        if (order == Order::host_waits) ok &= event_sync(decoded) == CUDA_SUCCESS;
        if (order == Order::host_poll || order == Order::host_poll_kept) ok &= poll(decoded);
        pop();
        if (on_gpu) ok &= stream_wait(CU_STREAM_PER_THREAD, decoded, 0) == CUDA_SUCCESS;
        ok &= copy_peer(&luma, CU_STREAM_PER_THREAD) == CUDA_SUCCESS &&
              cudaEventRecord(copied, work) == cudaSuccess;
        if (order == Order::host_waits) {
            ok &= cudaEventSynchronize(copied) == cudaSuccess;
        } else if (order == Order::host_poll) {
            ok &= poll(copied);
        } else if (on_gpu) { // the decoder's stream waits for the copy (its next write comes after)
            ctx_push(dec);
            ok &= stream_wait(nullptr, reinterpret_cast<CUevent>(copied), 0) == CUDA_SUCCESS;
            pop();
        }
        ok &= cudaStreamWaitEvent(compute, copied, 0) == cudaSuccess;
        spin<<<1, 1, 0, compute>>>(vif_ns);
        ok &= cudaGetLastError() == cudaSuccess &&
              cudaEventRecord(done[i % in_flight], compute) == cudaSuccess;
    }
    ok &= cudaStreamSynchronize(compute) == cudaSuccess;
    const double us = std::chrono::duration<double, std::micro>(clock::now() - t0).count() / frames;
    for (cudaEvent_t e : done)
        if (e) cudaEventDestroy(e);
    if (copied) cudaEventDestroy(copied);
    if (compute) cudaStreamDestroy(compute);
    if (staging) cudaFree(staging);
    ctx_push(dec);
    stream_sync(nullptr);
    if (surface) mem_free(surface);
    if (frame) mem_free(frame);
    if (decoded) event_destroy(decoded);
    pop();
    return ok ? us : -1;
}

template <typename Enqueue>
double seconds_per_copy(Enqueue enqueue, int n) {
    for (int i = 0; i < 5; ++i) enqueue();
    stream_sync(CU_STREAM_PER_THREAD);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) enqueue();
    stream_sync(CU_STREAM_PER_THREAD);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
}

} // namespace

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIP: no CUDA device\n");
        return 77;
    }
    // cuCtxCreate by version resolves to _v3/_v4 (other arguments): the _v2 symbol FFmpeg loads.
    void* libcuda = dlopen("libcuda.so.1", RTLD_NOW);
    ctx_create = libcuda ? reinterpret_cast<decltype(ctx_create)>(dlsym(libcuda, "cuCtxCreate_v2"))
                         : nullptr;
    if (!ctx_create || !load(&ctx_destroy, "cuCtxDestroy") ||
        !load(&ctx_push, "cuCtxPushCurrent") || !load(&ctx_pop, "cuCtxPopCurrent") ||
        !load(&ctx_get_current, "cuCtxGetCurrent") || !load(&mem_alloc, "cuMemAlloc") ||
        !load(&mem_free, "cuMemFree") || !load(&memset_d8, "cuMemsetD8") ||
        !load(&copy_peer, "cuMemcpy3DPeerAsync") || !load(&stream_sync, "cuStreamSynchronize") ||
        !load(&event_create, "cuEventCreate") || !load(&event_record, "cuEventRecord") ||
        !load(&stream_wait, "cuStreamWaitEvent") || !load(&memset_d8_async, "cuMemsetD8Async") ||
        !load(&copy_2d_async, "cuMemcpy2DAsync") ||
        !load(&mem_granularity, "cuMemGetAllocationGranularity") ||
        !load(&mem_create, "cuMemCreate") || !load(&mem_reserve, "cuMemAddressReserve") ||
        !load(&mem_map, "cuMemMap") || !load(&mem_set_access, "cuMemSetAccess") ||
        !load(&event_sync, "cuEventSynchronize") || !load(&event_destroy, "cuEventDestroy") ||
        !load(&event_query, "cuEventQuery")) {
        std::printf("FAIL: CUDA driver entry points missing\n");
        return 1;
    }
    cudaSetDevice(0);
    cudaFree(nullptr); // the primary context, current from here on
    CUcontext primary = nullptr, own = nullptr;
    ctx_get_current(&primary);
    // FFmpeg's default: a context of its own, with FFmpeg's flags (hwcontext_cuda.c)
    if (ctx_create(&own, CU_CTX_SCHED_BLOCKING_SYNC, 0) != CUDA_SUCCESS) {
        std::printf("FAIL: cuCtxCreate\n");
        return 1;
    }
    ctx_pop(&own); // as FFmpeg does: made current only around its own calls
    int fails = 0;
    // Does the glue's sequence block the calling thread until FFmpeg's stream has finished its
    // work? FFmpeg's context gets ~20 ms of memsets on its stream, then, as the glue does: an
    // event recorded there, the primary context's per-thread stream waits on it, the peer copy is
    // queued; each call is timed on the host (asynchronous calls return in microseconds).
    {
        const size_t big = size_t(256) << 20, plane = size_t(1920) * 1080;
        CUdeviceptr busy = 0, src = 0;
        void* dst = nullptr;
        CUevent ev = nullptr;
        ctx_push(own);
        bool ok = mem_alloc(&busy, big) == CUDA_SUCCESS && mem_alloc(&src, plane) == CUDA_SUCCESS;
        ctx_pop(&own);
        ok = ok && cudaMalloc(&dst, plane) == cudaSuccess;
        using clock = std::chrono::steady_clock;
        auto ms = [](clock::time_point a, clock::time_point b) {
            return std::chrono::duration<double, std::milli>(b - a).count();
        };
        ctx_push(own);
        const auto t0 = clock::now();
        for (int i = 0; ok && i < 100; ++i)
            ok = memset_d8_async(busy, i, big, nullptr) == CUDA_SUCCESS;
        ok = ok && event_create(&ev, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS &&
             event_record(ev, nullptr) == CUDA_SUCCESS;
        ctx_pop(&own);
        const auto t1 = clock::now();
        ok = ok && stream_wait(CU_STREAM_PER_THREAD, ev, 0) == CUDA_SUCCESS;
        const auto t2 = clock::now();
        CUDA_MEMCPY3D_PEER c{};
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c.srcDevice = src;
        c.srcContext = own;
        c.srcPitch = 1920;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        c.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
        c.dstContext = primary;
        c.dstPitch = 1920;
        c.WidthInBytes = 1920;
        c.Height = 1080;
        c.Depth = 1;
        ok = ok && copy_peer(&c, CU_STREAM_PER_THREAD) == CUDA_SUCCESS;
        const auto t3 = clock::now();
        stream_sync(CU_STREAM_PER_THREAD);
        const auto t4 = clock::now();
        const bool async = ok && ms(t1, t2) < 2 && ms(t2, t3) < 2;
        fails += !async;
        std::printf("%s host time of each call while FFmpeg's stream is busy (%.1f ms of work): "
                    "cross-context cuStreamWaitEvent %.3f ms, cuMemcpy3DPeerAsync %.3f ms (queued "
                    "without waiting: both under 2 ms)%s\n",
                    async ? "PASS" : "FAIL", ms(t0, t4), ms(t1, t2), ms(t2, t3),
                    ok ? "" : " (a call failed)");
        cudaFree(dst);
        ctx_push(own);
        mem_free(busy);
        mem_free(src);
        ctx_pop(&own);
    }
    // The alternative to the peer copy (information for the glue's next step): memory mapped with
    // access for the device (cuMemCreate/cuMemMap: access is per device, not per context),
    // written by a plain cuMemcpy2DAsync inside FFmpeg's context on its stream, read in the
    // primary context. Timed on the host while FFmpeg's stream is busy; the bytes checked.
    {
        const size_t w = 1920, h = 1080;
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t gran = 0, size = w * h;
        CUmemGenericAllocationHandle handle = 0;
        CUdeviceptr shared = 0, busy = 0, src = 0;
        bool ok = mem_granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS;
        if (ok) size = (size + gran - 1) / gran * gran;
        CUmemAccessDesc access{};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        ok = ok && mem_create(&handle, size, &prop, 0) == CUDA_SUCCESS &&
             mem_reserve(&shared, size, 0, 0, 0) == CUDA_SUCCESS &&
             mem_map(shared, size, 0, handle, 0) == CUDA_SUCCESS &&
             mem_set_access(shared, size, &access, 1) == CUDA_SUCCESS;
        using clock = std::chrono::steady_clock;
        ctx_push(own);
        ok = ok && mem_alloc(&busy, size_t(256) << 20) == CUDA_SUCCESS &&
             mem_alloc(&src, size) == CUDA_SUCCESS && memset_d8(src, 9, size) == CUDA_SUCCESS &&
             stream_sync(nullptr) == CUDA_SUCCESS;
        for (int i = 0; ok && i < 100; ++i)
            ok = memset_d8_async(busy, i, size_t(256) << 20, nullptr) == CUDA_SUCCESS;
        CUDA_MEMCPY2D c{};
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c.srcDevice = src;
        c.srcPitch = w;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        c.dstDevice = shared;
        c.dstPitch = w;
        c.WidthInBytes = w;
        c.Height = h;
        const auto t0 = clock::now();
        const bool copied = ok && copy_2d_async(&c, nullptr) == CUDA_SUCCESS;
        const auto t1 = clock::now();
        ok = copied && stream_sync(nullptr) == CUDA_SUCCESS;
        ctx_pop(&own);
        // Read in the primary context: on the device (a copy) and back to the host.
        void* dst = nullptr;
        unsigned char probe[2] = {0, 0};
        const bool read = ok && cudaMalloc(&dst, size) == cudaSuccess &&
                          cudaMemcpy(dst, reinterpret_cast<void*>(shared), size,
                                     cudaMemcpyDeviceToDevice) == cudaSuccess &&
                          cudaMemcpy(&probe[0], dst, 1, cudaMemcpyDeviceToHost) == cudaSuccess &&
                          cudaMemcpy(&probe[1], static_cast<char*>(dst) + w * h - 1, 1,
                                     cudaMemcpyDeviceToHost) == cudaSuccess;
        cudaGetLastError();
        std::printf("INFO device-mapped memory (cuMemMap) written in FFmpeg's context with "
                    "cuMemcpy2DAsync (host call %.3f ms while its stream is busy), read in the "
                    "primary context: %s\n",
                    std::chrono::duration<double, std::milli>(t1 - t0).count(),
                    !ok                              ? "a call failed"
                    : !read                          ? "NOT readable there"
                    : probe[0] == 9 && probe[1] == 9 ? "the right bytes"
                                                     : "WRONG bytes");
        if (dst) cudaFree(dst);
        ctx_push(own);
        if (busy) mem_free(busy);
        if (src) mem_free(src);
        ctx_pop(&own);
    }
    struct Plane {
        const char* name;
        size_t width_bytes, height;
    };
    for (const Plane& p :
         {Plane{"1920x1080 8-bit", 1920, 1080}, Plane{"3840x2160 16-bit", 7680, 2160}}) {
        const size_t pitch = (p.width_bytes + 511) / 512 * 512, bytes = pitch * p.height;
        CUdeviceptr src = 0;
        ctx_push(own);
        const bool ok_src = mem_alloc(&src, bytes) == CUDA_SUCCESS &&
                            memset_d8(src, 7, bytes) == CUDA_SUCCESS &&
                            stream_sync(nullptr) == CUDA_SUCCESS; // the fill is done
        ctx_pop(&own);
        void *dst = nullptr, *dst2 = nullptr;
        if (!ok_src || cudaMalloc(&dst, bytes) != cudaSuccess ||
            cudaMalloc(&dst2, bytes) != cudaSuccess) {
            std::printf("FAIL: %s: allocations\n", p.name);
            return 1;
        }
        CUDA_MEMCPY3D_PEER c{};
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c.srcDevice = src;
        c.srcContext = own;
        c.srcPitch = pitch;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        c.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
        c.dstContext = primary;
        c.dstPitch = pitch;
        c.WidthInBytes = p.width_bytes;
        c.Height = p.height;
        c.Depth = 1;
        bool copy_ok = true;
        const double peer = seconds_per_copy(
            [&] { copy_ok &= copy_peer(&c, CU_STREAM_PER_THREAD) == CUDA_SUCCESS; }, 200);
        const double same = seconds_per_copy(
            [&] {
                copy_ok &=
                    cudaMemcpy2DAsync(dst2, pitch, dst, pitch, p.width_bytes, p.height,
                                      cudaMemcpyDeviceToDevice, cudaStreamPerThread) == cudaSuccess;
            },
            200);
        // The copied bytes are the source's.
        unsigned char probe[2] = {0, 0};
        cudaMemcpy(&probe[0], dst, 1, cudaMemcpyDeviceToHost);
        cudaMemcpy(&probe[1], static_cast<char*>(dst) + bytes - pitch + p.width_bytes - 1, 1,
                   cudaMemcpyDeviceToHost);
        const double plane = double(p.width_bytes) * p.height;
        const double gbs = plane / peer / 1e9;
        const bool pass = copy_ok && probe[0] == 7 && probe[1] == 7 && gbs > 60;
        fails += !pass;
        std::printf("%s %s: peer copy (FFmpeg's context -> primary) %.1f us a plane (%.0f GB/s); "
                    "same-context copy %.1f us (%.0f GB/s)%s\n",
                    pass ? "PASS" : "FAIL", p.name, peer * 1e6, gbs, same * 1e6, plane / same / 1e9,
                    copy_ok && probe[0] == 7 && probe[1] == 7 ? ""
                                                              : " (copy failed or wrong bytes)");
        cudaFree(dst);
        cudaFree(dst2);
        ctx_push(own);
        mem_free(src);
        ctx_pop(&own);
    }
    // The pipeline model: where the plain command's time goes.
    for (bool kernel : {false, true}) {
        const double one = pipeline_us(Order::one_context, kernel, own, primary);
        const double gpu = pipeline_us(Order::gpu_waits, kernel, own, primary);
        const double host = pipeline_us(Order::host_waits, kernel, own, primary);
        const double hpoll = pipeline_us(Order::host_poll, kernel, own, primary);
        const double kept = pipeline_us(Order::host_poll_kept, kernel, own, primary);
        std::printf("INFO pipeline model, decoding = %s in FFmpeg's context, VIF = a 400 us kernel "
                    "in the primary one, 3 frames in flight: one context %.0f us a frame; two "
                    "contexts with GPU-side waits across them %.0f us (%.2fx); with host waits "
                    "blocking in the driver %.0f us (%.2fx), polling %.0f us (%.2fx), polling "
                    "before the copy only (frames kept until scored) %.0f us (%.2fx)%s\n",
                    kernel ? "a 20 us kernel" : "a device copy of a 1080p NV12 frame", one, gpu,
                    gpu / one, host, host / one, hpoll, hpoll / one, kept, kept / one,
                    one < 0 || gpu < 0 || host < 0 || hpoll < 0 || kept < 0
                        ? " (a call failed: negative values)"
                        : "");
    }
    ctx_destroy(own);
    std::printf("%s\n", fails ? "FAILED" : "PASSED");
    return fails ? 1 : 0;
}
