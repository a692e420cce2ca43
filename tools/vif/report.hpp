// The scores of a run as the CLI writes them. The text itself (libvmaf's JSON, CSV and XML
// layouts, libvif's details block, the human summary) is libvif's result log (vif/vif_log.h), so
// the CLI and the library's integrations (FFmpeg filter, GStreamer element) write the same bytes.
#ifndef VIF_TOOLS_REPORT_HPP
#define VIF_TOOLS_REPORT_HPP

#include "options.hpp"

#include <vif/vif.h>
#include <vif/vif_log.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

static_assert(kPrecisionMax == VIF_LOG_PRECISION_MAX &&
                  kPrecisionLibvmaf == VIF_LOG_PRECISION_LIBVMAF,
              "the CLI's precision codes are the log's");

struct Report {
    double fps = 0;
    uint32_t width = 0, height = 0, bitdepth = 0;
    std::string backend, reference, distorted;
    uint64_t subsample = 1;
    bool details = false; ///< add libvif's own block (--details)
    struct Variant {
        VifConfig cfg;
        std::vector<VifScores> scores;
        int metrics;
    };
    std::vector<Variant> variants;    ///< in output order
    std::vector<uint64_t> frame_nums; ///< frameNum of each scored frame

    size_t frames() const { return frame_nums.size(); }
};

/**
 * Appends one variant's scores to `r`: a column per metric 0 .. metrics-1 (VifMetric order) under
 * libvmaf's key for `cfg` (vif_metric_name). VIF_OK, or the status of a key name that could not
 * be had (vif_last_error() says why).
 */
VifStatus add_variant_columns(Report &r, const VifConfig &cfg, const std::vector<VifScores> &scores,
                              int metrics);

/** A finite value as text (vif_log_format_value: kPrecisionLibvmaf is libvmaf's %.6f/%.16f rule,
 *  kPrecisionMax %.17g, otherwise that many digits). */
std::string format_value(double v, int precision);

/** The report as a file's text; throws std::runtime_error with libvif's message. */
std::string render(const Report &r, Format f, int precision);
/** The human summary for standard output; throws std::runtime_error. */
std::string render_summary(const Report &r, int precision);

} // namespace vifcli

#endif
