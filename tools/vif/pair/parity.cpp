#include "pair/parity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vifcli {

bool check_parity(const VifConfig &cfg, const std::vector<VifScores> &cpu,
                  const std::vector<VifScores> &gpu, const std::vector<uint64_t> &frame_nums) {
    const bool integer = cfg.variant == VIF_VARIANT_INTEGER;
    bool ok = cpu.size() == gpu.size();
    std::fprintf(stderr, "parity: %zu frames, cpu against cuda (%s)\n", cpu.size(),
                 integer ? "integer: must be identical"
                         : "float: |diff| <= 1e-4, relative for num/den");
    std::fprintf(stderr, "%-28s %-24s %s\n", "metric", "largest |cpu - cuda|", "at frame");
    for (int m = 0; m < VIF_METRIC_COUNT; ++m) {
        char name[64];
        vif_metric_name(&cfg, VifMetric(m), name, sizeof name);
        double worst = 0;
        uint64_t at = 0;
        bool bad = false;
        for (size_t i = 0; i < std::min(cpu.size(), gpu.size()); ++i) {
            double a = vif_metric_value(&cpu[i], VifMetric(m));
            double b = vif_metric_value(&gpu[i], VifMetric(m));
            if (std::isnan(a) && std::isnan(b)) continue;
            double d = std::isnan(a) || std::isnan(b) ? INFINITY : std::fabs(a - b);
            if (d > worst || (std::isnan(d))) {
                worst = d;
                at = frame_nums[i];
            }
            const bool is_score = m <= VIF_METRIC_COMBINED;
            double tol = integer ? 0.0 : (is_score ? 1e-4 : 1e-4 * std::max(1.0, std::fabs(a)));
            if (!(d <= tol)) bad = true;
        }
        ok = ok && !bad;
        std::fprintf(stderr, "%-28s %-24.17g %llu%s\n", name, worst, (unsigned long long)at,
                     bad ? "  MISMATCH" : "");
    }
    std::fprintf(stderr, "parity: %s\n", ok ? "PASSED" : "FAILED");
    return ok;
}

} // namespace vifcli
