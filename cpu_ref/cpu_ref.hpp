// The CPU reference: the scorer interface every CPU scorer implements, and the plain scalar
// scorers written to be read against docs/algorithm.md. They are the oracle of the tests: the
// fast CPU backend (cpu_fast/) and the CUDA kernels must give the same bits. The CPU backend
// runs them instead of the fast scorers when Params::cpu.reference is set (tests only).
//
// A scorer owns its scratch buffers (sized once at construction for the largest frame) and scores
// one frame at a time; the backend runs one scorer per worker thread, so frames in flight never
// share scratch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/backend.hpp"
#include "core/frame_maps.hpp"

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
    // compute() that also keeps every pixel's terms (docs/algorithm.md §12) in `maps`; the
    // totals in `out` are the same bits as compute()'s. A separate entry point so that
    // compute() itself is untouched by maps. False: this scorer has no maps.
    virtual bool compute_maps(const Plane& /*ref*/, const Plane& /*dist*/, ScaleRaw /*out*/[4],
                              FrameMaps& /*maps*/) {
        return false;
    }
};

// Integer VIF (libvmaf's `vif`), docs/algorithm.md §6, in plain scalar code (integer_vif.cpp).
std::unique_ptr<FrameScorer> make_integer(int max_w, int max_h, int bpc, double gain);
// Float VIF (libvmaf's `float_vif`), docs/algorithm.md §7 (float_vif_impl.hpp: plain loops in a
// fixed rounding order; cpu_fast/float_vif.cpp compiles the same body per instruction-set level).
std::unique_ptr<FrameScorer> make_float(int max_w, int max_h, int bpc, double gain,
                                        float kernelscale);

} // namespace vif::cpu_ref
