// What `vif report` reads (docs/cli.md, "vif report"): `vif` JSON result files (libvmaf's
// layout), and ladder or batch folders (their summary.csv names each pair's result file, its
// reference and distorted inputs). Checks that they are of one clip.
#ifndef VIF_TOOLS_HTML_REPORT_RESULT_FILE_HPP
#define VIF_TOOLS_HTML_REPORT_RESULT_FILE_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vifcli {

/** A report input that cannot be used: the message names the file and the problem. */
struct ReportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/** One pair's per-frame scores. */
struct ResultFile {
    std::string path;   ///< the JSON file
    std::string label;  ///< its name in charts and tables: the file name without .json
    std::string prefix; ///< "integer_vif" or "float_vif": the variant's metric names
    std::vector<uint64_t> frame_nums;
    std::array<std::vector<double>, 4> scale; ///< per frame, by scale
    std::vector<double> combined;             ///< per frame; empty if the file has none
    struct Pooled {
        std::string metric;
        double min = 0, max = 0, mean = 0, harmonic_mean = 0;
    };
    std::vector<Pooled> pooled;    ///< the file's pooled_metrics, in its order
    std::optional<double> bitrate; ///< bits a second: a "bitrate" key of the file, if any
    // From a summary.csv row (empty / 0 for a file given alone).
    std::string reference, distorted;
    uint32_t width = 0, height = 0;
    std::optional<double> summary_vif; ///< the summary's pooled combined score (mean)

    /** The score frames are ranked by: the combined one if the file has it, else scale 0. */
    const std::vector<double> &ranking() const { return combined.empty() ? scale[0] : combined; }
    std::string ranking_name() const { return combined.empty() ? prefix + "_scale0" : prefix; }
};

/** Parses one result file (JSON text `text`, named `path` in messages). */
ResultFile parse_result(const std::string &text, const std::string &path);

/** Every argument read: a JSON file, or a folder with a summary.csv (a ladder or a batch):
 *  each "ok" row's result file. Throws ReportError. */
std::vector<ResultFile> load_results(const std::vector<std::string> &args);

/** Throws ReportError unless the results are of one clip: the same frame count and frame
 *  numbers, and, where summaries say, the same reference and size. */
void check_one_clip(const std::vector<ResultFile> &results);

} // namespace vifcli

#endif
