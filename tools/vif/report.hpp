// The scores of a run and how they are written: libvmaf's JSON, CSV and XML layouts, and a short
// human summary.
#ifndef VIF_TOOLS_REPORT_HPP
#define VIF_TOOLS_REPORT_HPP

#include <vif/vif.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

enum class Format { kJson, kCsv, kXml };

/** Digits after the point for values; kPrecisionMax prints every bit (%.17g). */
constexpr int kPrecisionMax = -1;

struct Report {
    std::string version;               ///< written as "version" (libvif's version)
    double fps = 0;
    uint32_t width = 0, height = 0, bitdepth = 0;
    std::string backend, variant, reference, distorted;
    uint64_t subsample = 1;
    std::vector<std::string> keys;     ///< libvmaf key of each metric, in output order
    std::vector<VifMetric> metrics;    ///< the metric each key is
    std::vector<uint64_t> frame_nums;  ///< frameNum of each scored frame
    std::vector<VifScores> scores;     ///< one per scored frame

    double value(size_t frame, size_t key) const {
        return vif_metric_value(&scores[frame], metrics[key]);
    }
};

struct Pooled {
    double min = 0, max = 0, mean = 0, harmonic_mean = 0;
    double p1 = 0, p5 = 0, p10 = 0, median = 0;
};

/** Pools metric `key` of every frame with vif_pool(). Needs at least one frame. */
Pooled pool(const Report &r, size_t key);

/** A value as libvmaf prints it: %.<precision>f, or more digits when that would show only zeros
 *  of a non-zero value; %.17g for kPrecisionMax. JSON writes non-finite values as null. */
std::string format_value(double v, int precision, bool json);

std::string render(const Report &r, Format f, int precision);
std::string render_summary(const Report &r, int precision);

} // namespace vifcli

#endif
