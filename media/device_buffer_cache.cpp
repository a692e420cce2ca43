#include "device_buffer_cache.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace vifcli {
namespace {

// At most this much kept per device (a few rows' worth of 1080p at the decoders' deepest).
constexpr size_t kKeptPerDevice = size_t(8) << 30;

struct Kept {
    void *base;
    size_t pitch;
};

std::atomic<bool> g_keep{false};
std::mutex g_mu;
std::map<std::tuple<int, size_t, size_t>, std::vector<Kept>> g_kept; // (device, row bytes, rows)
std::map<int, size_t> g_kept_bytes;                                  // by device

} // namespace

void keep_device_buffers(bool on) {
    g_keep = on;
}

bool take_device_chunk(int device, size_t row_bytes, size_t rows, void **base, size_t *pitch) {
    {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_kept.find({device, row_bytes, rows});
        if (it != g_kept.end() && !it->second.empty()) {
            const Kept k = it->second.back();
            it->second.pop_back();
            g_kept_bytes[device] -= k.pitch * rows;
            *base = k.base;
            *pitch = k.pitch;
            return true;
        }
    }
    return cudaMallocPitch(base, pitch, row_bytes, rows) == cudaSuccess;
}

void give_back_device_chunk(int device, size_t row_bytes, size_t rows, void *base, size_t pitch) {
    if (!base) return;
    if (g_keep) {
        std::lock_guard<std::mutex> lock(g_mu);
        if (g_kept_bytes[device] + pitch * rows <= kKeptPerDevice) {
            g_kept[{device, row_bytes, rows}].push_back(Kept{base, pitch});
            g_kept_bytes[device] += pitch * rows;
            return;
        }
    }
    cudaFree(base);
}

} // namespace vifcli
