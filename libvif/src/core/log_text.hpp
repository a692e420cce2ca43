// The text of a result log: libvmaf's JSON, XML and CSV layouts (byte for byte, version and fps
// aside), libvif's optional details block, and the CLI's human summary. Pure functions of a
// LogTable; log_api.cpp fills the table from VifScores and log_file.cpp puts the text on disk.
#ifndef VIF_SRC_LOG_LOG_TEXT_HPP
#define VIF_SRC_LOG_LOG_TEXT_HPP

#include <vif/vif_log.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vif::log {

struct LogTable {
    std::string version;
    double fps = 0;
    uint32_t width = 0, height = 0, bitdepth = 0;
    std::string backend, variant, reference, distorted; ///< variant: "integer+float", ...
    uint64_t subsample = 1;
    bool details = false;
    std::vector<std::string> keys;            ///< libvmaf key of each column, in output order
    std::vector<std::vector<double>> columns; ///< columns[key][frame]
    std::vector<uint64_t> frame_nums;         ///< frameNum of each frame

    size_t frames() const { return frame_nums.size(); }
};

/** A value as text (vif_log_format_value's rule). */
std::string format_value(double v, int precision);
/** A JSON string literal: quotes, backslash, control characters escaped, invalid UTF-8 bytes
 *  as \ufffd. */
std::string json_string(const std::string &s);
/** XML attribute text: markup escaped, tab/LF/CR as references, other control characters and
 *  invalid UTF-8 bytes as U+FFFD. */
std::string xml_attr(const std::string &s);

/** The table as `format`. Needs at least one key and one frame; throws std::runtime_error if a
 *  pooling fails. */
std::string render(const LogTable &t, VifLogFormat format, int precision);

} // namespace vif::log

#endif
