// Samples above the configured bit depth (a 10-bit plane holding 1023+ values: wrong bit depth,
// big-endian or MSB-aligned words declared as plain). VIF would score them silently, so every
// backend checks the pictures it copies: the copy already touches each word, an OR of the words
// costs next to nothing, and only when the OR shows a stray bit is the plane scanned again to
// name the first offending sample. Only LSB-aligned 10- and 12-bit planes can hold such values
// (8-bit bytes and 16-bit words use every bit; MSB-aligned words are shifted down on load).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "backend.hpp"

namespace vif {

// Whether pictures of this depth and layout need the check.
inline bool samples_can_exceed(uint32_t bitdepth, bool msb_aligned) {
    return !msb_aligned && (bitdepth == 10 || bitdepth == 12);
}

// OR of n 16-bit words stored at p (any alignment). Vectorises.
inline uint32_t or_words(const uint8_t* p, size_t n) {
    uint16_t acc = 0;
    for (size_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        acc = static_cast<uint16_t>(acc | v);
    }
    return acc;
}

// The error for the first sample above the maximum in a plane of `width` x `height` 16-bit words
// (rows `stride` bytes apart), or no error when there is none. Only called after the OR showed a
// stray bit, so its cost does not matter.
inline Error find_sample_above(const uint8_t* plane, ptrdiff_t stride, uint32_t width,
                               uint32_t height, uint32_t bitdepth, uint64_t frame,
                               const char* which) {
    const uint32_t max = (1u << bitdepth) - 1;
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            uint16_t v;
            std::memcpy(&v, plane + static_cast<ptrdiff_t>(y) * stride + 2 * size_t(x), 2);
            if (v > max)
                return {VIF_ERROR_INVALID_ARGUMENT,
                        "frame " + std::to_string(frame) + ": " + which + " sample value " +
                            std::to_string(v) + " at (x=" + std::to_string(x) +
                            ", y=" + std::to_string(y) + ") is above the " +
                            std::to_string(bitdepth) + "-bit maximum " + std::to_string(max) +
                            " (wrong bit depth, or big-endian or MSB-aligned words?)"};
        }
    return {};
}

}  // namespace vif
