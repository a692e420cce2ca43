// An encoder loop scoring each reconstructed frame against its source with libvif, in C++.
//
// Same stand-in encoder and the same output as encoder_loop.c (the two must print identical
// scores), through the header-only C++ wrapper vif/vif.hpp (RAII context, vif::Error
// exceptions).
//
//   encoder_loop_cpp [width height frames bitdepth]     (default 640 360 12 8; bitdepth 8 or 10)
//
// Build against an installed libvif:
//   c++ -std=c++17 encoder_loop.cpp $(pkg-config --cflags --libs vif) -o encoder_loop_cpp
//   or CMake: find_package(vif CONFIG REQUIRED) + target_link_libraries(app PRIVATE vif::vif)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <vif/vif.hpp>

namespace {

// One luma plane: 8-bit samples in bytes, 10-bit in 16-bit words.
struct Plane {
    int width, height, bitdepth;
    ptrdiff_t stride;
    std::vector<uint8_t> bytes;

    Plane(int w, int h, int bd)
        : width(w), height(h), bitdepth(bd),
          stride((ptrdiff_t(w) * (bd == 8 ? 1 : 2) + 63) / 64 * 64),
          bytes(size_t(stride) * size_t(h)) {}

    int get(int x, int y) const {
        x = std::clamp(x, 0, width - 1);
        y = std::clamp(y, 0, height - 1);
        const uint8_t* row = bytes.data() + y * stride;
        return bitdepth == 8 ? row[x] : reinterpret_cast<const uint16_t*>(row)[x];
    }
    void put(int x, int y, int v) {
        uint8_t* row = bytes.data() + y * stride;
        if (bitdepth == 8)
            row[x] = uint8_t(v);
        else
            reinterpret_cast<uint16_t*>(row)[x] = uint16_t(v);
    }
    VifPicture picture() const {
        return VifPicture{bytes.data(),       stride, uint32_t(width), uint32_t(height),
                          uint32_t(bitdepth), 0};
    }
};

// Source frame t: blocks, texture, a flat area and grain, moving from frame to frame.
void make_source(Plane& p, int t) {
    const int max = (1 << p.bitdepth) - 1;
    uint32_t seed = 12345u + uint32_t(t);
    for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) {
            const int xx = x + 3 * t, yy = y + t;
            int v = ((xx / 24 + yy / 24) & 1) ? 160 : 70;
            v += ((xx * xx + yy * 7) >> 6) & 31;
            if (y > p.height / 2 && x > p.width / 2) v = 128;
            seed = seed * 1664525u + 1013904223u;
            v += int(seed >> 29) - 4;
            v = v * max / 255;
            p.put(x, y, std::clamp(v, 0, max));
        }
}

// The stand-in encoder: a 3-tap blur and a coarser quantiser on some frames.
void fake_encode(const Plane& src, Plane& rec, int t) {
    const int step = (t % 4 == 0) ? 4 : 12;
    const int q = step * (1 << (src.bitdepth - 8));
    const int max = (1 << src.bitdepth) - 1;
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) {
            int v = (src.get(x - 1, y) + 2 * src.get(x, y) + src.get(x + 1, y) + 2) / 4;
            v = (v + q / 2) / q * q;
            rec.put(x, y, std::min(v, max));
        }
}

void print_scores(const VifScores& s) {
    std::printf("frame %llu: vif %.9f  scales %.9f %.9f %.9f %.9f\n",
                static_cast<unsigned long long>(s.frame_index), s.combined, s.scale[0], s.scale[1],
                s.scale[2], s.scale[3]);
}

int run(int width, int height, int frames, int bitdepth) {
    vif::Config cfg; // vif_default_config's values
    cfg.max_width = uint32_t(width);
    cfg.max_height = uint32_t(height);
    cfg.bitdepth = uint32_t(bitdepth);
    cfg.backend = VIF_BACKEND_AUTO;
    cfg.queue_depth = 4;
    vif::Context ctx(cfg);
    std::fprintf(stderr, "libvif %s on %s\n", vif_version(), ctx.backend());

    Plane src(width, height, bitdepth), rec(width, height, bitdepth);
    std::vector<double> combined;
    auto use = [&](const VifScores& s) {
        print_scores(s);
        combined.push_back(s.combined);
    };
    for (int t = 0; t < frames; ++t) {
        make_source(src, t);
        fake_encode(src, rec, t);
        // Copies both planes; when queue_depth frames' scores wait to be received, it hands the
        // oldest to `use` first.
        ctx.submit(src.picture(), rec.picture(), use);
        while (auto s = ctx.receive(false)) use(*s); // poll, never waits
    }
    while (auto s = ctx.receive(true)) use(*s); // drain

    double mean = 0, hmean = 0;
    vif::check(vif_pool(combined.data(), combined.size(), VIF_POOL_MEAN, 0, &mean));
    vif::check(vif_pool(combined.data(), combined.size(), VIF_POOL_HARMONIC_MEAN, 0, &hmean));
    std::printf("%zu frames: mean vif %.9f, harmonic mean %.9f\n", combined.size(), mean, hmean);
    if (combined.size() != size_t(frames))
        throw std::runtime_error("expected " + std::to_string(frames) + " scores, got " +
                                 std::to_string(combined.size()));
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const int width = argc > 1 ? std::atoi(argv[1]) : 640;
    const int height = argc > 2 ? std::atoi(argv[2]) : 360;
    const int frames = argc > 3 ? std::atoi(argv[3]) : 12;
    const int bitdepth = argc > 4 ? std::atoi(argv[4]) : 8;
    if (width < 16 || height < 16 || frames < 1 || (bitdepth != 8 && bitdepth != 10)) {
        std::fprintf(stderr, "usage: %s [width>=16 height>=16 frames>=1 bitdepth(8|10)]\n",
                     argv[0]);
        return 2;
    }
    try {
        return run(width, height, frames, bitdepth);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
