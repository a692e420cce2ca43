// The synthetic pictures of the ladder benches (ladder_bench.cpp, ladder_kernels.cpp): a smooth
// texture with a checker and noise; seed and noise_amp give each rung more noise than the
// reference, so that the rungs differ from it and from each other.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace vif::bench {

inline std::vector<uint8_t> ladder_plane(int w, int h, int bpc, int seed, int noise_amp) {
    const int bps = bpc == 8 ? 1 : 2, maxv = (1 << bpc) - 1;
    std::vector<uint8_t> out(size_t(w) * h * bps);
    std::mt19937 rng(1234), rng2(99 + seed);
    std::uniform_int_distribution<int> noise(-6, 6), extra(-noise_amp, noise_amp);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const double base = 0.5 + 0.35 * std::sin(i * 0.02) * std::cos(j * 0.013) +
                                0.1 * (((i / 32) + (j / 32)) % 2);
            int v = int(base * maxv) + noise(rng) * (maxv / 255);
            if (noise_amp) v += extra(rng2) * (maxv / 255);
            v = std::clamp(v, 0, maxv);
            const size_t k = size_t(i) * w + j;
            if (bps == 1)
                out[k] = uint8_t(v);
            else
                reinterpret_cast<uint16_t*>(out.data())[k] = uint16_t(v);
        }
    return out;
}

} // namespace vif::bench
