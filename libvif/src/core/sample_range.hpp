// Samples above the configured bit depth (a 10-bit plane holding 1023+ values: wrong bit depth,
// big-endian or MSB-aligned words declared as plain). VIF would score them silently, so every
// backend checks the pictures it copies: the copy already loads each word, ORing them as they
// pass costs next to nothing, and only when the OR shows a stray bit is the plane scanned again
// to name the first offending sample. Only LSB-aligned 10- and 12-bit planes can hold such values
// (8-bit bytes and 16-bit words use every bit; MSB-aligned words are shifted down on load).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/backend.hpp"

namespace vif {

// Whether pictures of this depth and layout need the check.
inline bool samples_can_exceed(uint32_t bitdepth, bool msb_aligned) {
    return !msb_aligned && (bitdepth == 10 || bitdepth == 12);
}

// On x86-64 the copy below also comes in an AVX2 build, picked at load time: the baseline
// (SSE2) loop copies a third slower than glibc's memcpy, the AVX2 one within a few percent.
// (Not under ThreadSanitizer: a clone's resolver runs while the library is relocated, before the
// TSan runtime has started, and crashes in it.)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) &&                            \
    !defined(__SANITIZE_THREAD__)
#define VIF_COPY_CLONES __attribute__((target_clones("avx2", "default"))) static
#else
#define VIF_COPY_CLONES inline
#endif

// Copies n 16-bit words from src to dst (any alignment) and returns the OR of all of them. One
// pass, 8 bytes at a time (it vectorises): the OR rides on the copy's loads instead of reading
// the plane again (figures: docs/api.md).
VIF_COPY_CLONES uint32_t copy_and_or_words(uint8_t* dst, const uint8_t* src, size_t n) {
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t v;
        std::memcpy(&v, src + 2 * i, 8);
        std::memcpy(dst + 2 * i, &v, 8);
        acc |= v;
    }
    for (; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, src + 2 * i, 2);
        std::memcpy(dst + 2 * i, &v, 2);
        acc |= v;
    }
    acc |= acc >> 32;
    acc |= acc >> 16;
    return static_cast<uint32_t>(acc & 0xffff);
}

// The error for the first sample above the maximum in a plane of `width` x `height` 16-bit words
// (rows `stride` bytes apart), or no error when there is none. Only called after the OR showed a
// stray bit, so its cost does not matter.
inline Status find_sample_above(const uint8_t* plane, ptrdiff_t stride, uint32_t width,
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

} // namespace vif
