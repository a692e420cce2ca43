// Constants and small numeric helpers shared by every backend (host C++ and CUDA device code).
// Everything here follows docs/algorithm.md; the § numbers below are its sections.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define VIF_HD __host__ __device__ __forceinline__
#else
#define VIF_HD inline
#endif

namespace vif {

constexpr int kNumScales = 4;
constexpr int kMinSize = 16;      // smallest accepted width/height (§3, §11.6)
constexpr int kMaxSize = 32768;   // keeps every index and size product in range
constexpr uint32_t kNsq = 131072; // sigma_n^2 = 2 in the integer domain (§6.1)
constexpr int kLogTableFirst = 32768;
constexpr int kLogTableSize = 32768; // entries for i = 32768 .. 65535 (§6.4)

// §5.1: integer filters; each row sums to 65536.
constexpr int kIntFilterWidth[kNumScales] = {17, 9, 5, 3};
constexpr uint16_t kIntFilter0[17] = {489,  935,  1640, 2640, 3896, 5274, 6547, 7455, 7784,
                                      7455, 6547, 5274, 3896, 2640, 1640, 935,  489};
constexpr uint16_t kIntFilter1[9] = {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244};
constexpr uint16_t kIntFilter2[5] = {3571, 16004, 26386, 16004, 3571};
constexpr uint16_t kIntFilter3[3] = {10904, 43728, 10904};

VIF_HD const uint16_t* int_filter(int scale) {
    return scale == 0   ? kIntFilter0
           : scale == 1 ? kIntFilter1
           : scale == 2 ? kIntFilter2
                        : kIntFilter3;
}

// §6.2: vertical rounding shifts. Mean shift V_m and second-moment shift V_q.
VIF_HD int vertical_mean_shift(int scale, int bpc) {
    return scale == 0 ? bpc : 16;
}
VIF_HD int vertical_sq_shift(int scale, int bpc) {
    return scale == 0 ? 2 * (bpc - 8) : 16;
}

// §4.2: reflect-101 index for a tap t on a line of n samples (valid for -n < t < 2n - 1).
VIF_HD int reflect101(int t, int n) {
    return t < 0 ? -t : (t >= n ? 2 * n - 2 - t : t);
}

// §6.4: L(v) itself is pixel::log_l32 / log_l64 (pixel_math.hpp), shared by host and device.

// Fills table[0..32767] with T[32768..65535]: round_half_away(fl32(log2 i) * 2048).
inline void build_log_table(uint16_t* table) {
    for (int i = 0; i < kLogTableSize; ++i) {
        const float l = std::log2(static_cast<float>(kLogTableFirst + i));
        table[i] = static_cast<uint16_t>(std::lround(static_cast<double>(l) * 2048.0));
    }
}

// §7.5: libvmaf's approximate log2 for positive normal floats. Each step rounded on its
// own; callers must compile this without FP contraction.
VIF_HD float log2_approx(float x) {
    constexpr float c[9] = {-0.012671635276421f, 0.064841182402670f,  -0.157048836463065f,
                            0.257167726303123f,  -0.353800560300520f, 0.480131410397451f,
                            -0.721314327952201f, 1.442694803896991f,  0.0f};
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const int e = static_cast<int>((bits >> 23) & 0xff) - 127;
    const uint32_t mbits = (bits & 0x007fffffu) | 0x3f800000u;
    float m;
    std::memcpy(&m, &mbits, sizeof m);
    const float z = m - 1.0f;
    float p = c[0];
    for (int i = 1; i < 9; ++i) p = p * z + c[i];
    return static_cast<float>(e) + p;
}

// §5.3: the kernel scales libvmaf accepts (|ks - value| < 1e-3, compared as floats).
constexpr double kAcceptedKernelScales[] = {
    1.0,       0.5,       1.5,        2.0,        2.0 / 3.0, 2.4,      360.0 / 97.0,
    4.0 / 3.0, 3.5 / 3.0, 3.75 / 3.0, 4.25 / 3.0, 5.0 / 3.0, 3.0,      1.0 / 2.25,
    1.4746,    1.54,      1.6,        1.06667,    1.111111,  0.711111, 0.740740};

inline bool kernelscale_accepted(double ks) {
    for (double v : kAcceptedKernelScales)
        if (std::fabs(static_cast<float>(ks) - static_cast<float>(v)) < 1e-3f) return true;
    return false;
}

// §5.2: float filter width for scale s and kernel scale ks.
inline int float_filter_width(int scale, float ks) {
    const int n = (1 << (4 - scale)) + 1;
    const float v = static_cast<float>(n) * ks;
    int c = static_cast<int>(std::ceil(v));
    if (c % 2 == 0) ++c;
    return c < 3 ? 3 : c;
}

constexpr int kMaxFloatFilterWidth = 65; // ks = 360/97 at scale 0

// §5.2: float taps for scale s; writes float_filter_width(s, ks) values.
inline void build_float_filter(int scale, float ks, float* taps) {
    const int n = float_filter_width(scale, ks);
    const float sigma = static_cast<float>(n / 5.0);
    const float b = static_cast<float>(1.0 / (static_cast<double>(sigma) * std::sqrt(2.0 * M_PI)));
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
        const double d = k - (n - 1) / 2;
        const double e = (((-0.5 * d) / sigma) * d) / sigma;
        const float a = static_cast<float>(std::exp(e));
        taps[k] = a / b;
        sum += taps[k];
    }
    for (int k = 0; k < n; ++k) taps[k] = taps[k] / sum;
}

// Scale sizes (§4.1).
VIF_HD int scale_dim(int full, int scale) {
    return full >> scale;
}

// Smallest width/height a frame may have for the given filter widths (reflection needs each
// scale's size to exceed the half-width of every filter applied there, docs/algorithm.md §3).
inline int min_frame_size(const int widths[4]) {
    // Scale s sees its statistics filter and the next scale's downsampling filter; its size
    // must exceed both half-widths: full size >= (half-width + 1) << s.
    int need = 16;
    for (int s = 0; s < 4; ++s) {
        int r = widths[s] / 2;
        if (s + 1 < 4) r = std::max(r, widths[s + 1] / 2);
        need = std::max(need, (r + 1) << s);
    }
    return need;
}

} // namespace vif
