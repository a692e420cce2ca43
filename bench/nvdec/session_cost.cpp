// What making an NVDEC session costs, by its parameters and by how many threads make them at
// once: the driver's cuvidGetDecoderCaps, cuvidCreateDecoder and cuvidDestroyDecoder on a
// device's primary context, timed call by call, for the 1080p 8-bit H.264 decoders that FFmpeg's
// nvdec asks for (its decode and output surfaces both the frame pool's size). A batch on several
// GPUs makes its first rows' sessions one at a time for the whole host (batch/session_turns.hpp);
// this says what a session's making is spent on.
//
// Build (no CUDA toolkit needed: the driver is loaded at run time):
//   g++ -O2 -std=c++17 -I/usr/include/ffnvcodec bench/nvdec/session_cost.cpp -ldl -lpthread
//   (-o session_cost)
// Run: ./session_cost [device]   (prints one line per measure)
//      ./session_cost all          (threads on every device at once: is the making serialised
//                                   for the host or per device?)
#include <dynlink_loader.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

CudaFunctions *cu = nullptr;
CuvidFunctions *cv = nullptr;
CUcontext ctx = nullptr;          // the device's (main's argument) primary context
std::vector<CUcontext> every_ctx; // every device's, for `all`

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

void check(CUresult r, const char *what) {
    if (r != CUDA_SUCCESS) {
        const char *name = nullptr;
        cu->cuGetErrorName(r, &name);
        std::fprintf(stderr, "session_cost: %s failed: %s\n", what, name ? name : "?");
        std::exit(1);
    }
}

CUVIDDECODECREATEINFO params(unsigned decode_surfaces, unsigned output_surfaces, unsigned w,
                             unsigned h) {
    CUVIDDECODECREATEINFO p{};
    p.ulWidth = p.ulTargetWidth = p.ulMaxWidth = w;
    p.ulHeight = p.ulTargetHeight = p.ulMaxHeight = h;
    p.ulNumDecodeSurfaces = decode_surfaces;
    p.ulNumOutputSurfaces = output_surfaces;
    p.CodecType = cudaVideoCodec_H264;
    p.ChromaFormat = cudaVideoChromaFormat_420;
    p.OutputFormat = cudaVideoSurfaceFormat_NV12;
    p.DeinterlaceMode = cudaVideoDeinterlaceMode_Weave;
    p.ulCreationFlags = cudaVideoCreate_PreferCUVID;
    return p;
}

// The capabilities FFmpeg's nvdec asks for before a session (1080p 8-bit 4:2:0 H.264).
void ask_caps() {
    CUVIDDECODECAPS caps{};
    caps.eCodecType = cudaVideoCodec_H264;
    caps.eChromaFormat = cudaVideoChromaFormat_420;
    check(cv->cuvidGetDecoderCaps(&caps), "cuvidGetDecoderCaps");
}

struct Stats {
    double median = 0, lo = 0, hi = 0;
};

Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (v.empty()) return {};
    return {v[v.size() / 2], v.front(), v.back()};
}

// Makes `n` decoders with these parameters one after the other (all alive at the end, as a
// batch's rows are), then destroys them; per-call times in ms.
void sequential(unsigned d, unsigned o, unsigned w, unsigned h, int n) {
    std::vector<double> caps_ms, make_ms, gone_ms;
    std::vector<CUvideodecoder> decs;
    check(cu->cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
    for (int i = 0; i < n; ++i) {
        double t = now_ms();
        ask_caps();
        caps_ms.push_back(now_ms() - t);
        CUVIDDECODECREATEINFO p = params(d, o, w, h);
        CUvideodecoder dec = nullptr;
        t = now_ms();
        check(cv->cuvidCreateDecoder(&dec, &p), "cuvidCreateDecoder");
        make_ms.push_back(now_ms() - t);
        decs.push_back(dec);
    }
    for (CUvideodecoder dec : decs) {
        const double t = now_ms();
        check(cv->cuvidDestroyDecoder(dec), "cuvidDestroyDecoder");
        gone_ms.push_back(now_ms() - t);
    }
    CUcontext dummy;
    cu->cuCtxPopCurrent(&dummy);
    const Stats c = stats(caps_ms), m = stats(make_ms), g = stats(gone_ms);
    std::printf("sequential %ux%u decode %2u output %2u x%d: caps %.2f ms, create %.2f ms "
                "(%.2f-%.2f), destroy %.2f ms (%.2f-%.2f)\n",
                w, h, d, o, n, c.median, m.median, m.lo, m.hi, g.median, g.lo, g.hi);
}

// `threads` threads each make `n` decoders at once (thread k on ctxs[k % size]); wall and
// per-call times.
void parallel(unsigned d, unsigned o, int threads, int n,
              const std::vector<CUcontext> &ctxs = {ctx}, bool with_caps = false) {
    std::vector<std::vector<double>> times{size_t(threads)};
    std::vector<std::vector<CUvideodecoder>> decs{size_t(threads)};
    const double t0 = now_ms();
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
        pool.emplace_back([&, k] {
            check(cu->cuCtxPushCurrent(ctxs[size_t(k) % ctxs.size()]), "cuCtxPushCurrent");
            for (int i = 0; i < n; ++i) {
                CUVIDDECODECREATEINFO p = params(d, o, 1920, 1080);
                CUvideodecoder dec = nullptr;
                const double t = now_ms();
                if (with_caps) { // as FFmpeg's nvdec does before every cuvidCreateDecoder
                    ask_caps();
                }
                check(cv->cuvidCreateDecoder(&dec, &p), "cuvidCreateDecoder");
                times[size_t(k)].push_back(now_ms() - t);
                decs[size_t(k)].push_back(dec);
            }
            CUcontext dummy;
            cu->cuCtxPopCurrent(&dummy);
        });
    for (auto &t : pool) t.join();
    const double wall = now_ms() - t0;
    std::vector<double> all;
    for (auto &v : times) all.insert(all.end(), v.begin(), v.end());
    const Stats s = stats(all);
    std::printf("parallel on %zu device(s)%s, decode %2u output %2u, %d threads x %d: wall %.1f ms "
                "= %.2f ms a "
                "session; each call %.2f ms (%.2f-%.2f)\n",
                ctxs.size(), with_caps ? ", caps first" : "", d, o, threads, n, wall,
                wall / (threads * n), s.median, s.lo, s.hi);
    for (int k = 0; k < threads; ++k) {
        check(cu->cuCtxPushCurrent(ctxs[size_t(k) % ctxs.size()]), "cuCtxPushCurrent");
        for (CUvideodecoder dec : decs[size_t(k)]) cv->cuvidDestroyDecoder(dec);
        CUcontext dummy;
        cu->cuCtxPopCurrent(&dummy);
    }
}

// `threads` threads each ask for the decoder caps `n` times at once: is the call serialised?
void parallel_caps(int threads, int n) {
    const double t0 = now_ms();
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
        pool.emplace_back([&] {
            check(cu->cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
            for (int i = 0; i < n; ++i) {
                ask_caps();
            }
            CUcontext dummy;
            cu->cuCtxPopCurrent(&dummy);
        });
    for (auto &t : pool) t.join();
    const double wall = now_ms() - t0;
    std::printf("caps only, %d threads x %d: wall %.1f ms = %.2f ms a call\n", threads, n, wall,
                wall / (threads * n));
}

} // namespace

int main(int argc, char **argv) {
    const bool all = argc > 1 && std::string(argv[1]) == "all";
    const int ordinal = argc > 1 && !all ? std::atoi(argv[1]) : 0;
    if (cuda_load_functions(&cu, nullptr) < 0 || cuvid_load_functions(&cv, nullptr) < 0) {
        std::fprintf(stderr, "session_cost: the CUDA driver or libnvcuvid could not be loaded\n");
        return 1;
    }
    double t = now_ms();
    check(cu->cuInit(0), "cuInit");
    std::printf("cuInit %.1f ms\n", now_ms() - t);
    CUdevice dev;
    check(cu->cuDeviceGet(&dev, ordinal), "cuDeviceGet");
    t = now_ms();
    check(cu->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cu->cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
    CUdeviceptr probe;
    check(cu->cuMemAlloc(&probe, 1 << 20), "cuMemAlloc"); // the context made for real
    cu->cuMemFree(probe);
    CUcontext dummy;
    cu->cuCtxPopCurrent(&dummy);
    std::printf("primary context %.1f ms\n", now_ms() - t);

    if (all) {
        int count = 0;
        check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount");
        for (int i = 0; i < count; ++i) {
            CUdevice di;
            CUcontext ci;
            check(cu->cuDeviceGet(&di, i), "cuDeviceGet");
            t = now_ms();
            check(cu->cuDevicePrimaryCtxRetain(&ci, di), "cuDevicePrimaryCtxRetain");
            check(cu->cuCtxPushCurrent(ci), "cuCtxPushCurrent");
            CUdeviceptr p;
            check(cu->cuMemAlloc(&p, 1 << 20), "cuMemAlloc");
            cu->cuMemFree(p);
            cu->cuCtxPopCurrent(&dummy);
            std::printf("device %d primary context %.1f ms\n", i, now_ms() - t);
            every_ctx.push_back(ci);
        }
        parallel(12, 12, 1, 4, {every_ctx[0]}); // warm-up
        for (int threads : {1, 2, 4, 8}) parallel(12, 12, threads, 4, {every_ctx[0]});
        for (int threads : {count, 2 * count, 4 * count}) parallel(12, 12, threads, 4, every_ctx);
        return 0;
    }
    sequential(12, 12, 1920, 1080, 3); // warm-up
    // FFmpeg 5.1's nvdec: decode = output = the pool (dpb + 2 + extra frames).
    for (unsigned d : {4u, 8u, 12u, 20u, 32u}) sequential(d, d, 1920, 1080, 8);
    // Output surfaces: FFmpeg maps one frame at a time and copies it out at once.
    for (unsigned o : {1u, 2u, 4u}) sequential(12, o, 1920, 1080, 8);
    sequential(12, 12, 640, 360, 8);
    sequential(12, 12, 3840, 2160, 8);
    for (int threads : {1, 2, 4, 8}) parallel(12, 12, threads, 4);
    for (int threads : {1, 4, 8}) parallel(12, 2, threads, 4);
    for (int threads : {1, 4, 8}) parallel_caps(threads, 8);
    for (int threads : {1, 4, 8}) parallel(12, 12, threads, 4, {ctx}, true);
    for (int threads : {1, 4, 8}) parallel(12, 12, threads, 4, {ctx}, false);
    cu->cuDevicePrimaryCtxRelease(dev);
    return 0;
}
