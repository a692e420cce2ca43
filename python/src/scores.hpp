// Helpers shared by context.cpp and files.cpp: a VifScores as the VIF_METRIC_COUNT values in
// VifMetric order, and libvmaf's key names for them under a configuration.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "errors.hpp"
#include "vif/vif.h"

namespace vifpy {

using MetricValues = std::array<double, VIF_METRIC_COUNT>;

inline MetricValues metric_values(const VifScores &s) {
    MetricValues v{};
    for (int m = 0; m < VIF_METRIC_COUNT; ++m)
        v[size_t(m)] = vif_metric_value(&s, static_cast<VifMetric>(m));
    return v;
}

inline std::vector<std::string> metric_names(const VifConfig &cfg) {
    std::vector<std::string> names;
    for (int m = 0; m < VIF_METRIC_COUNT; ++m) {
        char buf[64];
        VifStatus st = vif_metric_name(&cfg, static_cast<VifMetric>(m), buf, sizeof buf);
        if (st != VIF_OK) throw_last_error(st);
        names.emplace_back(buf);
    }
    return names;
}

} // namespace vifpy
