// Backend registry: one static list of factories; CUDA's entry exists only in CUDA builds.
#include "core/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "core/handover_backend.hpp"

namespace vif {

namespace {

// Tests only: the environment's VIF_TEST_AUTO shapes `auto` (docs/design.md, "auto in the
// library"): a comma-separated list of `standin` (a CPU backend named "standin" starts instead
// of CUDA, in every build), `ms=N` (the stand-in's start-up time, default 50), `fail` /
// `nodevice` (the stand-in's start-up fails with a device error / finds no device) and
// `frame=K` (the hand-over falls exactly before frame K, the start-up waited for there).
// bench/startup's library stage also compares `cpu_threads=N` (the CPU's threads while the GPU
// starts, when VifConfig.threads is 0), `cpu_nice=N` (their nice value's increment) and
// `noearly` (no results taken early).
struct AutoTest {
    bool standin = false, fail = false, nodevice = false, noearly = false;
    unsigned ms = 50, cpu_threads = 0;
    int cpu_nice = -1; // -1: the default
    int64_t frame = -1;
};

AutoTest auto_test() {
    AutoTest t;
    const char* env = std::getenv("VIF_TEST_AUTO");
    if (!env || !*env) return t;
    std::string s(env);
    size_t pos = 0;
    while (pos <= s.size()) {
        const size_t end = std::min(s.find(',', pos), s.size());
        const std::string item = s.substr(pos, end - pos);
        if (item == "standin")
            t.standin = true;
        else if (item == "fail")
            t.fail = true;
        else if (item == "nodevice")
            t.nodevice = true;
        else if (item == "noearly")
            t.noearly = true;
        else if (item.rfind("cpu_nice=", 0) == 0)
            t.cpu_nice = int(std::strtol(item.c_str() + 9, nullptr, 10));
        else if (item.rfind("cpu_threads=", 0) == 0)
            t.cpu_threads = unsigned(std::strtoul(item.c_str() + 12, nullptr, 10));
        else if (item.rfind("ms=", 0) == 0)
            t.ms = unsigned(std::strtoul(item.c_str() + 3, nullptr, 10));
        else if (item.rfind("frame=", 0) == 0)
            t.frame = std::strtoll(item.c_str() + 6, nullptr, 10);
        pos = end + 1;
    }
    return t;
}

// The stand-in "GPU" of the tests: a CPU backend under another name.
class StandinBackend final : public Backend {
public:
    explicit StandinBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    const char* name() const override { return "standin"; }
    Status submit(const HostPlane& r, const HostPlane& d, uint64_t i) override {
        return inner_->submit(r, d, i);
    }
    Status submit_multi(const HostPlane& r, const HostPlane* d, size_t n, uint64_t i) override {
        return inner_->submit_multi(r, d, n, i);
    }
    Status receive(FrameRaw* out, bool block) override { return inner_->receive(out, block); }
    size_t pending() const override { return inner_->pending(); }
    size_t capacity() const override { return inner_->capacity(); }

private:
    std::unique_ptr<Backend> inner_;
};

// The choice (docs/api.md): the environment's VIF_AUTO=handover or VIF_AUTO=wait (the GPU
// started in vif_create and waited for, as before the hand-over); unset: kHandOverByDefault.
// On: on the H200 machine the hand-over was no slower than waiting for the GPU at 48, 300 and
// 1,200 frames of a stream, runs paired round by round (docs/journal/2026-11-26-startup-library.md).
constexpr bool kHandOverByDefault = true;

bool hand_over_wanted() {
    const char* env = std::getenv("VIF_AUTO");
    if (env && std::strcmp(env, "wait") == 0) return false;
    if (env && std::strcmp(env, "handover") == 0) return true;
    return kHandOverByDefault;
}

// The CPU's workers while the GPU starts run at a lower priority (nice + 10): the start-up's
// thread and, after the hand-over, CUDA's host-side copies take the cores they need first.
constexpr int kFirstCpuNice = 10;

// The CPU's share while the GPU starts: with many cores, two are left to the caller's thread
// and to the start-up (busy cores slowed CUDA's start-up on the H200 machine); its queue is its
// thread count, so that at the hand-over no more frames wait on it than it is scoring.
// *reduced: the settings are not what the caller asked for (fewer threads, lower priority), so a
// CPU left alone after a failed start-up gets a backend of the caller's settings.
Params first_cpu_params(const Params& p, unsigned test_threads, int test_nice, bool* reduced) {
    Params c = p;
    *reduced = false;
    if (c.threads == 0) {
        const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
        if (test_threads) {
            c.threads = std::min(test_threads, 256u);
            *reduced = c.threads < hw;
        } else if (hw >= 8) {
            c.threads = hw - 2;
            *reduced = true;
        } else {
            c.threads = hw;
        }
    }
    if (c.queue_depth == 0) c.queue_depth = std::min(c.threads, 256u);
    c.cpu.worker_nice = test_nice >= 0 ? test_nice : kFirstCpuNice;
    if (c.cpu.worker_nice != 0) *reduced = true; // a CPU left alone gets normal threads
    return c;
}

std::unique_ptr<Backend> create_auto_backend(const Params& params, Status* err) {
    const AutoTest test = auto_test();
#if defined(VIF_HAVE_CUDA)
    const bool gpu = true;
#else
    const bool gpu = false;
#endif
    if (!gpu && !test.standin) return create_cpu_backend(params, err); // nothing to hand over to
    if (!test.standin && !hand_over_wanted()) {
#if defined(VIF_HAVE_CUDA)
        if (cuda_device_present()) return create_cuda_backend(params, err);
#endif
        return create_cpu_backend(params, err);
    }
    bool reduced = false;
    const Params first = first_cpu_params(params, test.cpu_threads, test.cpu_nice, &reduced);
    HandoverOptions opts;
    opts.switch_at_frame = test.frame;
    // Automatic queue depth and no maps: results taken early are a few hundred bytes each (1,024:
    // a quarter second of the GPU at 1080p, more than the CPU's last frames take at low priority).
    if (params.queue_depth == 0 && !params.maps && !test.noearly) opts.early_results = 1024;
    auto later = [params, test, reduced](StartControl& ctl, Status* e) -> std::unique_ptr<Backend> {
        Status why;
        if (test.standin) {
            const auto until =
                std::chrono::steady_clock::now() + std::chrono::milliseconds(test.ms);
            while (std::chrono::steady_clock::now() < until) {
                if (ctl.cancelled()) return nullptr;
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
            if (test.fail)
                why = {VIF_ERROR_DEVICE, "stand-in start-up failed (VIF_TEST_AUTO=fail)"};
            else if (test.nodevice)
                why = {VIF_ERROR_NO_DEVICE, "stand-in: no device (VIF_TEST_AUTO=nodevice)"};
            else if (!ctl.next_step())
                return nullptr;
            else if (std::unique_ptr<Backend> b = create_cpu_backend(params, e))
                return std::make_unique<StandinBackend>(std::move(b));
            else
                return nullptr;
        }
#if defined(VIF_HAVE_CUDA)
        else {
            why = cuda_prepare(params.cuda_device); // the driver and the device's context
            if (!why) {
                if (!ctl.next_step()) return nullptr;
                if (std::unique_ptr<Backend> b = create_cuda_backend(params, &why)) return b;
            }
        }
#endif
        // No GPU: the CPU goes on, on a CPU backend of its own settings if the first one was
        // given fewer threads or a lower priority.
        if (why.status != VIF_ERROR_NO_DEVICE)
            std::fprintf(stderr, "libvif: auto: the GPU did not start (%s); scoring on the cpu\n",
                         why.message.c_str());
        if (!reduced || !ctl.next_step()) {
            *e = {VIF_ERROR_NO_DEVICE, why.message}; // said above, not again
            return nullptr;
        }
        return create_cpu_backend(params, e);
    };
    // The GPU's start-up begins first; the CPU backend is made meanwhile.
    return HandoverBackend::create([&first](Status* e) { return create_cpu_backend(first, e); },
                                   std::move(later), std::move(opts), err);
}

} // namespace

std::unique_ptr<Backend> create_backend(const Params& params, VifBackend kind, Status* err) {
    switch (kind) {
    case VIF_BACKEND_CPU:
        return create_cpu_backend(params, err);
    case VIF_BACKEND_CUDA:
#if defined(VIF_HAVE_CUDA)
        return create_cuda_backend(params, err);
#else
        *err = {VIF_ERROR_UNSUPPORTED, "backend cuda: this libvif was built without CUDA"};
        return nullptr;
#endif
    case VIF_BACKEND_AUTO:
        // The CPU at once and the GPU once it has started (handover_backend.hpp); with
        // VIF_AUTO=wait the GPU started here and waited for. No GPU: the CPU.
        return create_auto_backend(params, err);
    }
    *err = {VIF_ERROR_INVALID_ARGUMENT, "unknown backend"};
    return nullptr;
}

} // namespace vif
