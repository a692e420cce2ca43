// Which exit handlers the CUDA runtime (static cudart) registers, and when: before main (at load)
// or during its start-up (lazily). The library's `auto` waits for its start-up thread in an exit
// handler that must run before the runtime's own teardown (docs/design.md, "auto in the library:
// the hand-over"): a handler registered lazily during a step would run before that wait.
// Built and run by `bench/startup/gpu_run.sh ctest` (g++ -Wl,--wrap=atexit,--wrap=__cxa_atexit).
#include <cuda_runtime_api.h>

#include <cstdio>

namespace {
const char* g_phase = "before main (at load)";
int g_count = 0;
} // namespace

extern "C" int __real_atexit(void (*f)());
extern "C" int __real___cxa_atexit(void (*f)(void*), void* arg, void* dso);

extern "C" int __wrap_atexit(void (*f)()) {
    std::printf("  atexit        %-28s %p\n", g_phase, reinterpret_cast<void*>(f));
    ++g_count;
    return __real_atexit(f);
}

extern "C" int __wrap___cxa_atexit(void (*f)(void*), void* arg, void* dso) {
    std::printf("  __cxa_atexit  %-28s %p\n", g_phase, reinterpret_cast<void*>(f));
    ++g_count;
    return __real___cxa_atexit(f, arg, dso);
}

int main() {
    const int at_load = g_count;
    int n = 0;
    g_phase = "cudaGetDeviceCount";
    const cudaError_t e1 = cudaGetDeviceCount(&n);
    g_phase = "cudaSetDevice + cudaFree(0)";
    const cudaError_t e2 = cudaSetDevice(0);
    const cudaError_t e3 = cudaFree(nullptr);
    g_phase = "cudaStreamCreate";
    cudaStream_t s = nullptr;
    const cudaError_t e4 = cudaStreamCreate(&s);
    std::printf("devices %d (%d %d %d %d); handlers at load %d, during the start-up %d\n", n,
                int(e1), int(e2), int(e3), int(e4), at_load, g_count - at_load);
    std::printf("%s\n", g_count == at_load
                            ? "PASS: the runtime registers nothing during its start-up"
                            : "INFO: the runtime registers exit handlers during its "
                              "start-up (the lines above)");
    return 0;
}
