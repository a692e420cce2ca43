// The scores of a run and how they are written: libvmaf's JSON, CSV and XML layouts (byte for
// byte, version and fps aside), optionally with libvif's own block, and a short human summary.
#ifndef VIF_TOOLS_REPORT_HPP
#define VIF_TOOLS_REPORT_HPP

#include "options.hpp"

#include <vif/vif.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

struct Report {
    std::string version; ///< written as "version" (libvif's version)
    double fps = 0;
    uint32_t width = 0, height = 0, bitdepth = 0;
    std::string backend, variant, reference, distorted;
    uint64_t subsample = 1;
    bool details = false;                     ///< add libvif's own block (--details)
    std::vector<std::string> keys;            ///< libvmaf key of each column, in output order
    std::vector<std::vector<double>> columns; ///< columns[key][frame]
    std::vector<uint64_t> frame_nums;         ///< frameNum of each scored frame

    size_t frames() const { return frame_nums.size(); }
    double value(size_t frame, size_t key) const { return columns[key][frame]; }
};

/**
 * Appends one variant's scores to `r`: a column per metric 0 .. metrics-1 (VifMetric order) under
 * libvmaf's key for `cfg` (vif_metric_name), and the variant's name to r.variant ("integer",
 * "float", joined by '+'). VIF_OK, or the status of a key name that could not be had.
 */
VifStatus add_variant_columns(Report &r, const VifConfig &cfg, const std::vector<VifScores> &scores,
                              int metrics);

struct Pooled {
    double min = 0, max = 0, mean = 0, harmonic_mean = 0;
    double p1 = 0, p5 = 0, p10 = 0, median = 0;
};

/** Pools column `key` over every frame with vif_pool(). Needs at least one frame. */
Pooled pool(const Report &r, size_t key);

/**
 * A finite value as text. kPrecisionLibvmaf: libvmaf's rule: %.6f, unless the fractional part
 * (of a non-negative value) needs more than six multiplications by ten to reach 1, i.e. it is
 * below about 1e-6 but not 0; then %.16f (0.0000008855523106, 1.0000000270185687).
 * kPrecisionMax: %.17g. Otherwise %.<precision>f, or <precision> significant digits when that
 * would show only zeros of a non-zero value. Non-finite: "nan", "inf", "-inf".
 */
std::string format_value(double v, int precision);

/** A string as a JSON string literal: quotes, backslash and control characters escaped, bytes
 *  that are not valid UTF-8 replaced by \ufffd. Always valid UTF-8. */
std::string json_string(const std::string &s);
/** A string as XML attribute text: markup characters escaped, tab/LF/CR as character
 *  references, other control characters and bytes that are not valid UTF-8 as U+FFFD. */
std::string xml_attr(const std::string &s);

std::string render(const Report &r, Format f, int precision);
std::string render_summary(const Report &r, int precision);

} // namespace vifcli

#endif
