// The reference backend's per-frame scorers. A scorer owns its scratch buffers (sized once at
// construction for the largest frame) and scores one frame at a time; the backend runs one scorer
// per worker thread, so frames in flight never share scratch.
//
// integer_vif.cpp and float_vif.cpp are compiled once per instruction-set level (namespaces
// base, v3 = AVX2, v4 = AVX-512) so the vectoriser can use the wide units without the library
// requiring them; make_*_scorer picks the best level the running CPU supports. All levels give
// the same bits: the arithmetic is integer, or float in a fixed order without contraction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backend.hpp"

namespace vif::cpu_ref {

// One plane of samples in a compute-ready layout: LSB-aligned, 8-bit bytes or 16-bit words.
struct Plane {
    const void* data = nullptr;
    ptrdiff_t stride = 0; // bytes
    int width = 0, height = 0;
};

class FrameScorer {
public:
    virtual ~FrameScorer() = default;
    // Raw per-scale accumulators of one frame (integer: nl/dl/nn/dn; float: num/den).
    virtual void compute(const Plane& ref, const Plane& dist, ScaleRaw out[4]) = 0;
    // One reference against `count` distorted planes of its size (a ladder's rungs): out[k]
    // gets the accumulators of (ref, dists[k]), the same bits as compute(ref, dists[k]). A
    // scorer overrides it to do the reference's own work once; this fallback just loops.
    virtual void compute_multi(const Plane& ref, const Plane* dists, size_t count,
                               ScaleRaw (*out)[4]) {
        for (size_t k = 0; k < count; ++k) compute(ref, dists[k], out[k]);
    }
};

#define VIF_CPU_REF_DECLARE_ISA(ns)                                                                \
    namespace ns {                                                                                 \
    std::unique_ptr<FrameScorer> make_integer(int max_w, int max_h, int bpc, double gain);         \
    std::unique_ptr<FrameScorer> make_float(int max_w, int max_h, int bpc, double gain,            \
                                            float kernelscale);                                    \
    }
VIF_CPU_REF_DECLARE_ISA(base)
VIF_CPU_REF_DECLARE_ISA(v3)
VIF_CPU_REF_DECLARE_ISA(v4)
#undef VIF_CPU_REF_DECLARE_ISA

// Integer VIF (libvmaf's `vif`), docs/algorithm.md §6. Bit-exact.
std::unique_ptr<FrameScorer> make_integer_scorer(int max_w, int max_h, int bpc, double gain);
// Float VIF (libvmaf's `float_vif`), docs/algorithm.md §7. Bit-exact by construction.
std::unique_ptr<FrameScorer> make_float_scorer(int max_w, int max_h, int bpc, double gain,
                                               float kernelscale);
// The instruction-set level the scorers run with: "avx512", "avx2" or "baseline".
const char* isa_name();

// Smallest width/height a frame may have for the given filter widths (reflection needs each
// scale's size to exceed the half-width of every filter applied there, docs/algorithm.md §3).
int min_frame_size(const int widths[4]);

} // namespace vif::cpu_ref
