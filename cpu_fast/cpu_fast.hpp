// The fast CPU scorers: the ones the CPU backend runs. integer_vif.cpp (vectorised passes and
// AVX-512 intrinsics) and float_vif.cpp (the reference's body, cpu_ref/float_vif_impl.hpp) are
// compiled once per instruction-set level (namespaces base, v3 = AVX2, v4 = AVX-512) so the wide
// units are used without the library requiring them; make_*_scorer picks the best level the running CPU supports (dispatch.cpp).
// Every level gives the bits of the reference scorers of cpu_ref/ (tests/unit/isa_test.cpp): the
// arithmetic is integer, or float in a fixed order without contraction.
#pragma once

#include <memory>

#include "cpu_ref/cpu_ref.hpp"

namespace vif::cpu_fast {

using cpu_ref::FrameScorer;
using cpu_ref::Plane;

#define VIF_CPU_FAST_DECLARE_ISA(ns)                                                               \
    namespace ns {                                                                                 \
    std::unique_ptr<FrameScorer> make_integer(int max_w, int max_h, int bpc, double gain);         \
    std::unique_ptr<FrameScorer> make_float(int max_w, int max_h, int bpc, double gain,            \
                                            float kernelscale);                                    \
    }
VIF_CPU_FAST_DECLARE_ISA(base)
VIF_CPU_FAST_DECLARE_ISA(v3)
VIF_CPU_FAST_DECLARE_ISA(v4)
#undef VIF_CPU_FAST_DECLARE_ISA

// Integer VIF (libvmaf's `vif`), docs/algorithm.md §6. Bit-exact.
std::unique_ptr<FrameScorer> make_integer_scorer(int max_w, int max_h, int bpc, double gain);
// Float VIF (libvmaf's `float_vif`), docs/algorithm.md §7. Bit-exact by construction.
std::unique_ptr<FrameScorer> make_float_scorer(int max_w, int max_h, int bpc, double gain,
                                               float kernelscale);
// The instruction-set level the scorers run with: "avx512", "avx2" or "baseline".
const char* isa_name();

} // namespace vif::cpu_fast
