#include "batch/devices.hpp"

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

} // namespace vif::batch
