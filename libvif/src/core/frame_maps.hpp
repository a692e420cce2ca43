// Per-pixel VIF terms of one frame (docs/algorithm.md §12.1), as the CPU scorers keep them and a
// received frame carries them when the context was created with VifConfig.maps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vif {

// The terms of one scale, row-major at that scale's size. One set is filled, the other is empty.
struct ScaleMap {
    int width = 0, height = 0;
    // Integer VIF: what the pixel adds to NL, DL, NN and DN (§6.5). Each fits 32 bits (§12.1).
    std::vector<int32_t> nl, dl, nn, dn;
    // Float VIF: the pixel's num and den terms (§7.4), before any summation.
    std::vector<float> num, den;

    bool integer() const { return !nl.empty(); }
    size_t pixels() const { return static_cast<size_t>(width) * height; }
};

struct FrameMaps {
    ScaleMap scale[4];
    // CUDA backend, frames submitted with vif_cuda_submit: the terms stay in device memory (the
    // backend's, valid until the next receive); `scale` then holds only the sizes and `device`
    // points at the arrays.
    bool on_device = false;
    struct DeviceTerms {
        const int32_t *nl, *dl, *nn, *dn;
        const float *num, *den;
    } device[4] = {};
};

} // namespace vif
