// VIF_TEST_CUDA_RULES=sm_75: every CUDA backend the parity tests create runs the Turing rules
// (CudaOptions::sm75_rules: CUDA-core kernels only), so a newer GPU checks what a T4 runs
// (scripts/gpu-sm75.sh). Unset or "auto": the device's own rules. The library itself reads no
// environment; only these tests do.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace vif::testing {

inline bool sm75_rules_forced() {
    static const bool forced = [] {
        const char* s = std::getenv("VIF_TEST_CUDA_RULES");
        const std::string v = s ? s : "";
        if (v.empty() || v == "auto") return false;
        if (v == "sm_75") {
            std::printf("[parity] VIF_TEST_CUDA_RULES=sm_75: the Turing rules on every backend\n");
            return true;
        }
        std::fprintf(stderr, "VIF_TEST_CUDA_RULES=%s: unknown (sm_75 or auto)\n", v.c_str());
        std::exit(2);
    }();
    return forced;
}

} // namespace vif::testing
