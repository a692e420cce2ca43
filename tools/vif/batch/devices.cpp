#include "batch/devices.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace vif::batch {
namespace {

// A whole decimal number (no sign, no spaces, no trailing text), at most `most`.
bool number(const std::string &s, unsigned long long most, unsigned long long *v) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
    *v = std::strtoull(s.c_str(), nullptr, 10);
    return *v <= most;
}

std::string found_text(int found, const std::string &what) {
    if (found <= 0) return "no " + what + " device was found";
    if (found == 1) return "1 " + what + " device was found: 0";
    return std::to_string(found) + " " + what + " devices were found: 0 to " +
           std::to_string(found - 1);
}

} // namespace

bool resolve_devices(const std::string &text, int found, const std::string &what,
                     std::vector<int> *out, std::string *err) {
    out->clear();
    if (text.empty() || text == "all") {
        if (found <= 0) {
            *err = "--devices " + (text.empty() ? std::string("all") : text) + ": " +
                   found_text(found, what);
            return false;
        }
        for (int d = 0; d < found; ++d) out->push_back(d);
        return true;
    }
    std::stringstream ss(text);
    for (std::string d; std::getline(ss, d, ',');) {
        unsigned long long v = 0;
        if (!number(d, 1u << 20, &v)) {
            *err = "--devices '" + text + "': expected all or device numbers such as 0,1";
            return false;
        }
        if (v >= (unsigned long long)(found > 0 ? found : 0)) {
            *err = "--devices " + text + ": there is no device " + d + " (" +
                   found_text(found, what) + ")";
            return false;
        }
        out->push_back(int(v));
    }
    if (text.back() == ',' || out->empty()) {
        *err = "--devices '" + text + "': expected all or device numbers such as 0,1";
        return false;
    }
    return true;
}

std::optional<DeviceFailureHook> parse_device_failure_hook(const std::string &text,
                                                           std::string *err) {
    const size_t colon = text.find(':');
    unsigned long long slot = 0, rows = 0;
    if (colon == std::string::npos || !number(text.substr(0, colon), 1u << 20, &slot) ||
        !number(text.substr(colon + 1), 1ull << 40, &rows)) {
        *err = "VIF_TEST_FAIL_DEVICE='" + text + "': expected <device slot>:<rows>, e.g. 1:3";
        return std::nullopt;
    }
    return DeviceFailureHook{size_t(slot), size_t(rows)};
}

size_t workers_for_gpus(size_t gpus, size_t cores, size_t parts, bool nvdec_rows) {
    if (gpus == 0) return 1;
    // NVDEC rows: one GPU's engines saturate only with many sessions at once (4x H200,
    // 2026-11-27, 16 1080p H.264 rows: one GPU with 8 workers, 16 sessions, kept NVDEC 81% busy;
    // 4 workers a GPU on two and four GPUs 58% and 35%), and the host's cores are nearly idle
    // (2-4 of 64 busy): 8 a GPU, whatever the number of GPUs, within half the cores.
    if (nvdec_rows) {
        const size_t per_gpu = std::clamp<size_t>(std::max<size_t>(cores, 1) / (2 * gpus), 1, 8);
        return std::min(gpus * per_gpu, std::max(gpus * std::min<size_t>(per_gpu, 4), parts / 2));
    }
    // A few a GPU: each decodes its inputs on the host while another's frames are scored (the
    // GPU waits for the host otherwise): a quarter of the cores in all. One GPU takes up to 8:
    // on the 2x H200 host (32 cores, 2026-11-26) one GPU with 8 workers scored 1,000 compact
    // rows in 2.28 s against 3.35 s with 4, and 16 1080p NVDEC rows in 9.49 s against 10.05 s.
    // Several GPUs take up to 4 each: 8 each was slower wherever it was measured (1,000
    // compact rows on two GPUs: 2.43 s against 2.37 s on 32 cores, 2.72 s against 2.56 s on
    // 64; 16 1080p rows on two GPUs of the 32-core host: 6.63 s against 6.07 s), every worker
    // more a host decoder more and its context's pinned buffers mapped for every device.
    // Beyond 4 a GPU, two parts a worker at least: with one part each, every opening (NVDEC
    // sessions, made one at a time for the host) comes first.
    const size_t most = gpus == 1 ? 8 : 4;
    const size_t per_gpu = std::clamp<size_t>(std::max<size_t>(cores, 1) / (4 * gpus), 1, most);
    return std::min(gpus * per_gpu, std::max(gpus * std::min<size_t>(per_gpu, 4), parts / 2));
}

namespace {
// The batch rates, luma pixels of reference frames a second, whole batch (busy time of `vif
// batch --timings`, H200 machines, 2026-11-26, issue 25):
// - the compact catalogue (1,000 rows of 48 576x324 x264 frames, 8.96e9 pixels) decoded on the
//   host binds on the host's decoding: one GPU with 8 workers 1.38 s on 64 cores, 1.98 s on 32
//   (6.5e9 and 4.5e9), with 4 workers 2.11 s and 2.83 s: about 0.7e9 a worker. More devices
//   (and their workers) made it slower, never faster (4x H200: 2.88 s on four, 2.72 s on two,
//   against 2.33 s on one). The GPU was busy 26-37% of that time: its own share at least
//   1.2e10 pixels a second;
// - the 1080p H.264 catalogue decoded by NVDEC (16 rows of 1,200 frames, 3.98e10 pixels) 9.43
//   s on one GPU with 8 workers (4.2e9), the host's cores nearly idle (2.4 busy);
// - raw input has no decoding: the single 1080p pair's rate (about 1,900 fps = 3.9e9).
constexpr double kHostDecodedPixelsPerSPerWorker = 0.7e9;
constexpr double kHostDecodedDevicePixelsPerS = 1.2e10;
constexpr double kNvdecPixelsPerS = 4.2e9;
constexpr double kRawPixelsPerS = 3.9e9;

std::string seconds_text(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", s);
    return b;
}
} // namespace

DeviceWork row_work(RowPath path, double frames, double pixels, size_t host_workers) {
    const double px = frames * pixels;
    DeviceWork w;
    switch (path) {
    case RowPath::host_decoded:
        w.host_s =
            px / (kHostDecodedPixelsPerSPerWorker * double(std::clamp<size_t>(host_workers, 1, 8)));
        w.device_s = px / kHostDecodedDevicePixelsPerS;
        break;
    case RowPath::nvdec:
        w.device_s = px / kNvdecPixelsPerS;
        break;
    case RowPath::raw:
        w.device_s = px / kRawPixelsPerS;
        break;
    }
    return w;
}

size_t devices_that_pay(const DeviceWork &work, double startup_s, size_t others, std::string *why) {
    auto pays = [&](size_t k) {
        return work.device_s - double(k) * work.host_s >= 2.0 * double(k) * startup_s;
    };
    size_t k = 0;
    while (k < others && pays(k + 1)) ++k;
    std::string s = std::to_string(k) + " of " + std::to_string(others) + " more device" +
                    (others == 1 ? "" : "s") + " started: ";
    const std::string numbers = "about " + seconds_text(work.device_s) +
                                " s of one device's own work left and " +
                                seconds_text(work.host_s) + " s of the host's decoding, " +
                                seconds_text(startup_s) + " s a start-up";
    if (k == others)
        s += numbers + " (the k-th more from 2 k start-ups of device work beyond k times the "
                       "host's decoding)";
    else if (work.device_s >= 2.0 * double(k + 1) * startup_s ||
             work.device_s < double(k + 1) * work.host_s) // (k + 1 devices would wait for it)
        s += "the host's decoding binds: " + numbers +
             "; one more device would wait for the host "
             "(device work " +
             seconds_text(work.device_s) + " - " + std::to_string(k + 1) + " x " +
             seconds_text(work.host_s) + " under " + std::to_string(2 * (k + 1)) + " start-ups)";
    else
        s += "too little work: " + numbers + " (one more from " + std::to_string(2 * (k + 1)) +
             " start-ups of device work)";
    *why = s;
    return k;
}

std::vector<size_t> worker_slots(size_t workers, const std::vector<bool> &running, size_t target) {
    std::vector<size_t> out(workers, kNoSlot);
    const size_t n = running.size();
    if (n == 0) return out;
    std::vector<size_t> on; // the running slots, in order
    for (size_t i = 0; i < n; ++i)
        if (running[i]) on.push_back(i);
    size_t busy = 0;
    for (size_t w = 0; w < workers; ++w)
        if (running[w % n]) out[w] = w % n, ++busy;
    if (on.empty()) return out;
    size_t next = 0;
    for (size_t w = 0; w < workers && busy < target; ++w)
        if (!running[w % n]) out[w] = on[next++ % on.size()], ++busy;
    return out;
}

} // namespace vif::batch
