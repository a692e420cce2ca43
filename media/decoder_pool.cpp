// See decoder_pool.hpp.
#include "decoder_pool.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}
#if defined(VIF_WITH_NVDEC)
#include <cuda_runtime_api.h>
#endif

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

namespace vifcli {
namespace {

// Idle decoders kept per shape: enough for the inputs a device's workers decode at once.
constexpr size_t kKeptPerShape = 16;

std::atomic<bool> g_keep{false};
std::mutex g_mu;
std::map<std::string, std::deque<KeptDecoder>> g_kept;

} // namespace

void keep_decoders(bool on) {
    g_keep = on;
    if (on) return;
    std::map<std::string, std::deque<KeptDecoder>> kept;
    {
        std::lock_guard<std::mutex> lock(g_mu);
        kept.swap(g_kept);
    }
    for (auto &[shape, list] : kept)
        for (KeptDecoder &d : list) free_decoder(d);
}

bool keeping_decoders() {
    return g_keep;
}

std::string decoder_shape(const AVCodecParameters *par, bool cuda, int device,
                          unsigned software_threads) {
    if (!g_keep || !par || par->codec_id != AV_CODEC_ID_HEVC) return "";
    if (!cuda && software_threads != 1) return "";
    std::string s = (cuda ? "nvdec:" + std::to_string(device) : std::string("sw")) + ":" +
                    std::to_string(par->width) + "x" + std::to_string(par->height) + ":" +
                    std::to_string(par->format) + ":" + std::to_string(par->profile) + ":";
    if (par->extradata_size > 0)
        s.append(reinterpret_cast<const char *>(par->extradata), size_t(par->extradata_size));
    return s;
}

bool take_decoder(const std::string &shape, KeptDecoder *out) {
    if (shape.empty()) return false;
    std::lock_guard<std::mutex> lock(g_mu);
    const auto it = g_kept.find(shape);
    if (it == g_kept.end() || it->second.empty()) return false;
    *out = it->second.back();
    it->second.pop_back();
    return true;
}

void give_back_decoder(const std::string &shape, KeptDecoder d) {
    if (g_keep && !shape.empty()) {
        std::lock_guard<std::mutex> lock(g_mu);
        auto &kept = g_kept[shape];
        if (kept.size() < kKeptPerShape) {
            kept.push_back(d);
            return;
        }
    }
    free_decoder(d);
}

void free_decoder(KeptDecoder &d) {
    avcodec_free_context(&d.ctx);
#if defined(VIF_WITH_NVDEC)
    if (d.stream) cudaStreamDestroy(static_cast<cudaStream_t>(d.stream));
#endif
    d.stream = nullptr;
}

} // namespace vifcli
