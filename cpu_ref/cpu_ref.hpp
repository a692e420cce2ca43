// The reference backend's per-frame engines. Each engine owns its scratch buffers (sized once at
// construction for the largest frame) and computes one frame at a time; the backend runs one
// engine per worker thread, so frames in flight never share scratch.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.hpp"

namespace vif::cpu_ref {

// One plane of samples in a compute-ready layout: LSB-aligned, 8-bit bytes or 16-bit words.
struct Plane {
    const void* data = nullptr;
    ptrdiff_t stride = 0;  // bytes
    int width = 0, height = 0;
};

// Integer VIF (libvmaf's `vif`), spec section 5. Bit-exact.
class IntegerVif {
public:
    IntegerVif(int max_width, int max_height, int bitdepth, double gain_limit);
    void compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]);

private:
    int bitdepth_;
    double gain_limit_;
    std::vector<uint32_t> log_table_;  // T[32768..65535] widened to 32 bits for gathers
    // Decimated images of scales 1..3 (16-bit domain), ref and dist, ping-ponged per scale.
    std::vector<uint16_t> down_[2][2];
    // Row scratch: vertical results padded by the filter half-width on each side.
    std::vector<uint32_t> v_mu_x_, v_mu_y_, v_xx_, v_yy_, v_xy_;
    std::vector<uint64_t> acc_xx_, acc_yy_, acc_xy_;
    std::vector<int32_t> sig_x_, sig_y_, sig_xy_;
    std::vector<uint32_t> d_row_x_, d_row_y_;
};

// Float VIF (libvmaf's `float_vif`), spec section 6. Bit-exact by construction.
class FloatVif {
public:
    FloatVif(int max_width, int max_height, int bitdepth, double gain_limit, float kernelscale);
    void compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]);
private:
    int bitdepth_;
    float gain_limit_;
    int width_[4];
    std::vector<float> taps_[4];
    std::vector<float> img_[2][2];      // scale images ref/dist, ping-pong
    std::vector<float> t_mu_x_, t_mu_y_, t_xx_, t_yy_, t_xy_;  // padded vertical rows
    std::vector<float> mu_x_, mu_y_, e_xx_, e_yy_, e_xy_;       // horizontal results (one row)
    std::vector<float> num_row_, den_row_;
};

// Smallest width/height a frame may have for the given filter widths (reflection needs each
// scale's size to exceed the half-width of every filter applied there, spec section 2).
int min_frame_size(const int widths[4]);

}  // namespace vif::cpu_ref
