// Small decimal numbers in text (Y4M stream headers, the CLI's shard file names): 1 to 9 digits,
// no sign, no spaces, so every accepted value fits 32 bits. One helper for media/ and the CLI.
#pragma once

#include <cstdint>
#include <string_view>

namespace vifcli {

// The value of `s` in *out, or false (nothing written) when `s` is not such a number.
inline bool parse_small_decimal(std::string_view s, uint32_t* out) {
    if (s.empty() || s.size() > 9) return false;
    uint32_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + uint32_t(c - '0');
    }
    *out = v;
    return true;
}

} // namespace vifcli
