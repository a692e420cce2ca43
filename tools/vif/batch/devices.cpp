#include "batch/devices.hpp"

#include <algorithm>
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

size_t workers_for_gpus(size_t gpus, size_t cores, size_t parts) {
    if (gpus == 0) return 1;
    // A few a GPU: each decodes its inputs on the host while another's frames are scored (the
    // GPU waits for the host otherwise): a quarter of the cores in all, 1 to 8 a GPU (4 each on
    // a 16-core host per GPU). On the 2x H200 host (32 cores, 2026-11-26) one GPU with 8
    // workers scored 1,000 compact rows in 2.28 s against 3.35 s with 4 (as fast as two GPUs of
    // 4: the host's decoding binds) and 16 1080p NVDEC rows in 9.49 s against 10.05 s. Beyond 4
    // a GPU, two parts a worker at least: with one part each, every opening (NVDEC sessions,
    // made one at a time for the host) comes first (16 1080p rows on two GPUs: 6.63 s with 8
    // workers a GPU against 6.07 s with 4; four GPUs with 4 each had measured 1.84x one GPU).
    const size_t per_gpu = std::clamp<size_t>(std::max<size_t>(cores, 1) / (4 * gpus), 1, 8);
    return std::min(gpus * per_gpu, std::max(gpus * std::min<size_t>(per_gpu, 4), parts / 2));
}

} // namespace vif::batch
