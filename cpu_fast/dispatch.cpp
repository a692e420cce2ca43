// Picks the instruction-set build of the fast scorers for the running CPU (see cpu_fast.hpp).
#include "cpu_fast.hpp"

namespace vif::cpu_fast {
namespace {

enum class Isa { kBase, kV3, kV4 };

Isa detect() {
#if defined(VIF_CPU_FAST_HAVE_X86_LEVELS)
    __builtin_cpu_init();
#if defined(__clang__) && __clang_major__ < 16
    // Older clang (Debian 12's 14, used by scripts/fuzz.sh) knows no level names: the levels'
    // defining features instead.
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    if (v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        return Isa::kV4;
    if (v3) return Isa::kV3;
#else
    if (__builtin_cpu_supports("x86-64-v4")) return Isa::kV4;
    if (__builtin_cpu_supports("x86-64-v3")) return Isa::kV3;
#endif
#endif
    return Isa::kBase;
}

Isa isa() {
    static const Isa level = detect();
    return level;
}

} // namespace

std::unique_ptr<FrameScorer> make_integer_scorer(int w, int h, int bpc, double gain) {
    switch (isa()) {
#if defined(VIF_CPU_FAST_HAVE_X86_LEVELS)
    case Isa::kV4:
        return v4::make_integer(w, h, bpc, gain);
    case Isa::kV3:
        return v3::make_integer(w, h, bpc, gain);
#endif
    default:
        return base::make_integer(w, h, bpc, gain);
    }
}

std::unique_ptr<FrameScorer> make_float_scorer(int w, int h, int bpc, double gain, float ks) {
    switch (isa()) {
#if defined(VIF_CPU_FAST_HAVE_X86_LEVELS)
    case Isa::kV4:
        return v4::make_float(w, h, bpc, gain, ks);
    case Isa::kV3:
        return v3::make_float(w, h, bpc, gain, ks);
#endif
    default:
        return base::make_float(w, h, bpc, gain, ks);
    }
}

const char* isa_name() {
    switch (isa()) {
    case Isa::kV4:
        return "avx512";
    case Isa::kV3:
        return "avx2";
    default:
        return "baseline";
    }
}

} // namespace vif::cpu_fast
