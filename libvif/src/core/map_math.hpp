// Per-pixel VIF maps (docs/algorithm.md §12): each pixel's share of a scale's numerator and
// denominator, and the local VIF map made from them. The terms are what the frame totals sum, so
// a map can be checked against the scores it explains (sum_terms gives the totals back exactly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/backend.hpp"
#include "core/frame_maps.hpp"

namespace vif {

// One scale's terms wherever they live (a ScaleMap, or the arrays of a public VifScaleMap).
struct TermsView {
    int width = 0, height = 0;
    const int32_t *nl = nullptr, *dl = nullptr, *nn = nullptr, *dn = nullptr; // integer
    const float *num = nullptr, *den = nullptr;                               // float
    bool integer() const { return nl != nullptr; }
    size_t pixels() const { return static_cast<size_t>(width) * height; }
};
TermsView view(const ScaleMap& m);

// The scale's totals from its terms (§12.2): NL, DL, NN, DN by integer addition; float num and
// den in the order of §7.6 (a float partial per row from column 0, then the rows in order).
ScaleRaw sum_terms(const TermsView& m);

// One pixel's numerator and denominator in the units of the scale's num_s and den_s (§12.3).
double pixel_num(const TermsView& m, size_t p);
double pixel_den(const TermsView& m, size_t p);

// Half-width of the local VIF window: (2·r + 1)² pixels of the scale, clipped at the borders.
constexpr int kLocalVifRadius = 2;

// The local VIF map of one scale (§12.3), at the scale's size.
std::vector<float> local_vif(const TermsView& m, int radius = kLocalVifRadius);
// The same into m.pixels() floats at `out`.
void local_vif(const TermsView& m, float* out, int radius = kLocalVifRadius);

// A scale-`scale` map brought to the frame's size by nearest neighbour (§12.4).
std::vector<float> to_frame_size(const std::vector<float>& map, int map_w, int map_h, int scale,
                                 int frame_w, int frame_h);

} // namespace vif
