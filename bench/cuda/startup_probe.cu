// What CUDA's start-up and shut-down cost on this machine, step by step, in a process of its own
// (the vif CLI's whole-process time is mostly these at 1080p). Not part of the build: compile it
// where it runs, e.g. `nvcc -O2 -arch=sm_90 bench/cuda/startup_probe.cu -o /tmp/probe`, then
//   /tmp/probe [return|reset|quick]    how the process ends (see below)
// Prints each step in ms and the wall-clock time at the end of main, so that a script can take
// the exit's share from a time stamp taken after the process is gone.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace {
__global__ void touch(int* p) {
    p[threadIdx.x] = threadIdx.x;
}

std::chrono::steady_clock::time_point g_last = std::chrono::steady_clock::now();
void step(const char* what, cudaError_t e = cudaSuccess) {
    const auto now = std::chrono::steady_clock::now();
    std::printf("probe: %-38s %8.2f ms%s%s\n", what,
                std::chrono::duration<double, std::milli>(now - g_last).count(),
                e == cudaSuccess ? "" : "  ERROR ", e == cudaSuccess ? "" : cudaGetErrorString(e));
    g_last = now;
}
} // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "return";
    int n = 0;
    step("cudaGetDeviceCount (driver init)", cudaGetDeviceCount(&n));
    step("cudaSetDevice(0)", cudaSetDevice(0));
    step("cudaFree(0) (context)", cudaFree(nullptr));
    void* h = nullptr;
    step("cudaHostAlloc 16 MB", cudaHostAlloc(&h, 16 << 20, cudaHostAllocDefault));
    int* d = nullptr;
    step("cudaMalloc 16 MB", cudaMalloc(&d, 16 << 20));
    touch<<<1, 32>>>(d);
    step("first launch (module load)", cudaDeviceSynchronize());
    step("cudaMemcpy 16 MB pinned H2D", cudaMemcpy(d, h, 16 << 20, cudaMemcpyHostToDevice));
    timespec ts{};
    if (std::strcmp(mode, "reset") == 0) {
        cudaFreeHost(h);
        cudaFree(d);
        step("frees", cudaSuccess);
        step("cudaDeviceReset", cudaDeviceReset());
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    std::printf("probe: mode %s, leaving main at %lld.%09ld\n", mode, (long long)ts.tv_sec,
                ts.tv_nsec);
    std::fflush(stdout);
    if (std::strcmp(mode, "quick") == 0) _exit(0); // no atexit handlers: no runtime teardown
    return 0;
}
