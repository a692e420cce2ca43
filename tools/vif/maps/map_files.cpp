#include "maps/map_files.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>

namespace vifcli {

uint16_t pgm16_sample(float value) {
    if (!(value > 0.0f)) return 0;            // also NaN
    const double x = double(value) * 32768.0; // exact
    if (x >= 65535.0) return 65535;
    // Rounded to the nearest, ties to even (as nearbyint in the default mode), inline: adding
    // 2^52 leaves no fraction bits (x < 2^16), and subtracting it is exact.
    constexpr double kTwo52 = 4503599627370496.0;
    return uint16_t((x + kTwo52) - kTwo52);
}

std::string pgm16_header(uint32_t w, uint32_t h, const std::string &comment) {
    return "P5\n# " + comment + "\n" + std::to_string(w) + " " + std::to_string(h) + "\n65535\n";
}

void pgm16_samples(const float *map, size_t n, char *out) {
    // pgm16_sample in float and without branches, so that the loop vectorises (built with
    // -fno-trapping-math, tools/vif/CMakeLists.txt): value x 32768 is exact in float too, NaN
    // and values not above 0 fail the first comparison and read 0, and below 2^23 adding and
    // subtracting 2^23 leaves the nearest integer, ties to even. The same sample as
    // pgm16_sample for each of the 2^32 floats (checked once, docs/journal/2026-11-26-vif-maps.md).
    constexpr float kTwo23 = 8388608.0f;
    for (size_t i = 0; i < n; ++i) {
        float v = map[i] * 32768.0f;
        v = v > 0.0f ? v : 0.0f;
        v = v < 65535.0f ? v : 65535.0f;
        const uint32_t s = uint32_t(int32_t((v + kTwo23) - kTwo23));
        out[2 * i] = char(s >> 8); // PGM samples above 255 are most significant byte first
        out[2 * i + 1] = char(s & 0xff);
    }
}

std::string encode_pgm16(const std::vector<float> &map, uint32_t w, uint32_t h,
                         const std::string &comment) {
    std::string out = pgm16_header(w, h, comment);
    const size_t head = out.size();
    out.resize(head + size_t(w) * h * 2);
    pgm16_samples(map.data(), size_t(w) * h, &out[head]);
    return out;
}

std::string npy_header(uint32_t w, uint32_t h) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(h) +
                       ", " + std::to_string(w) + "), }";
    // Magic (6) + version (2) + header length (2) + dict, padded with spaces and ended by a
    // newline so that the data starts on a multiple of 64 bytes (the format asks for 16 at least).
    const size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += char(dict.size() & 0xff);
    out += char(dict.size() >> 8);
    out += dict;
    return out;
}

void npy_samples(const float *map, size_t n, char *out) {
    // Little-endian float32: on a little-endian host the floats' own bytes (a 1080p map's
    // samples in 0.7 ms instead of 5.9 byte by byte).
    if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
        std::memcpy(out, map, 4 * n);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &map[i], 4);
        for (int b = 0; b < 4; ++b) out[4 * i + b] = char((bits >> (8 * b)) & 0xff);
    }
}

std::string encode_npy(const std::vector<float> &map, uint32_t w, uint32_t h) {
    std::string out = npy_header(w, h);
    const size_t head = out.size();
    out.resize(head + size_t(w) * h * 4);
    npy_samples(map.data(), size_t(w) * h, &out[head]);
    return out;
}

} // namespace vifcli

namespace vifcli {

std::string y4m_header(uint32_t w, uint32_t h, uint32_t rate_num, uint32_t rate_den) {
    return "YUV4MPEG2 W" + std::to_string(w) + " H" + std::to_string(h) + " F" +
           std::to_string(rate_num) + ":" + std::to_string(rate_den) + " Ip A1:1 C420jpeg\n";
}

std::string y4m_frame(const RgbImage &img) {
    const uint32_t w = img.width, h = img.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    std::string out = "FRAME\n";
    const size_t head = out.size();
    out.resize(head + size_t(w) * h + 2 * size_t(cw) * ch);
    auto clamp8 = [](double v) {
        return char(uint8_t(std::lround(std::min(255.0, std::max(0.0, v)))));
    };
    // BT.601 in studio range: Y' 16..235, Cb and Cr 16..240.
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const auto c = img.at(x, y);
            out[head + size_t(y) * w + x] =
                clamp8(16.0 + (65.481 * c[0] + 128.553 * c[1] + 24.966 * c[2]) / 255.0);
        }
    char *cb = &out[head + size_t(w) * h], *cr = cb + size_t(cw) * ch;
    for (uint32_t y = 0; y < ch; ++y)
        for (uint32_t x = 0; x < cw; ++x) {
            double r = 0, g = 0, b = 0;
            int n = 0;
            for (uint32_t dy = 0; dy < 2; ++dy)
                for (uint32_t dx = 0; dx < 2; ++dx)
                    if (2 * y + dy < h && 2 * x + dx < w) {
                        const auto c = img.at(2 * x + dx, 2 * y + dy);
                        r += c[0];
                        g += c[1];
                        b += c[2];
                        ++n;
                    }
            r /= n;
            g /= n;
            b /= n;
            cb[size_t(y) * cw + x] = clamp8(128.0 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255.0);
            cr[size_t(y) * cw + x] = clamp8(128.0 + (112.0 * r - 93.786 * g - 18.214 * b) / 255.0);
        }
    return out;
}

} // namespace vifcli
