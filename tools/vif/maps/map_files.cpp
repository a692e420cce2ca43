#include "maps/map_files.hpp"

#include <cmath>
#include <cstring>

namespace vifcli {

uint16_t pgm16_sample(float value) {
    if (!(value > 0.0f)) return 0; // also NaN
    const double s = std::nearbyint(double(value) * 32768.0);
    return s >= 65535.0 ? uint16_t(65535) : uint16_t(s);
}

std::string encode_pgm16(const std::vector<float> &map, uint32_t w, uint32_t h,
                         const std::string &comment) {
    std::string out =
        "P5\n# " + comment + "\n" + std::to_string(w) + " " + std::to_string(h) + "\n65535\n";
    const size_t head = out.size();
    out.resize(head + size_t(w) * h * 2);
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        const uint16_t s = pgm16_sample(map[i]);
        out[head + 2 * i] = char(s >> 8); // PGM samples above 255 are most significant byte first
        out[head + 2 * i + 1] = char(s & 0xff);
    }
    return out;
}

std::string encode_npy(const std::vector<float> &map, uint32_t w, uint32_t h) {
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
    const size_t head = out.size();
    out.resize(head + size_t(w) * h * 4);
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &map[i], 4);
        for (int b = 0; b < 4; ++b) out[head + 4 * i + b] = char((bits >> (8 * b)) & 0xff);
    }
    return out;
}

} // namespace vifcli
