// The HTML page of `vif report` (docs/cli.md, "vif report"): one self-contained file (styles,
// charts as inline SVG, pictures as data URIs, a Content-Security-Policy that forbids loading
// anything), which prints legibly. A small script of its own checks, once loaded, that every
// chart has its lines and every picture decoded, and writes the outcome into the page
// (#vif-report-check), where a headless browser's --dump-dom reads it.
#ifndef VIF_TOOLS_HTML_REPORT_REPORT_PAGE_HPP
#define VIF_TOOLS_HTML_REPORT_REPORT_PAGE_HPP

#include "html_report/frame_pictures.hpp"
#include "html_report/result_file.hpp"

#include <optional>
#include <string>
#include <vector>

namespace vifcli {

struct ReportPair {
    ResultFile result;
    std::optional<double> bitrate;       ///< bits a second, if known
    std::vector<size_t> worst;           ///< indices into result's frames, worst first
    std::vector<FramePictures> pictures; ///< for the worst frames, when the inputs were given
    std::string note;                    ///< why there are no pictures, if there are none
};

struct ReportPage {
    std::string title;
    std::vector<ReportPair> pairs;
    std::string generator; ///< "vif 1.0.0"
};

/** The N worst frames of a result (lowest ranking score first; ties: the earlier frame). */
std::vector<size_t> worst_frames(const ResultFile &r, size_t n);

/** The page. */
std::string render_report(const ReportPage &page);

} // namespace vifcli

#endif
