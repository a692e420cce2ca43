// A distorted encode's bitrate for the report's score-against-bitrate chart, read from its
// container with FFmpeg (libavformat): the video stream's bit rate when the container records
// it, else the file's (format bit rate, or its size over its duration).
#ifndef VIF_TOOLS_HTML_REPORT_BITRATE_HPP
#define VIF_TOOLS_HTML_REPORT_BITRATE_HPP

#include <optional>
#include <string>

namespace vifcli {

/** Bits a second, or nothing for a file FFmpeg cannot open, raw video (no container), or a
 *  build without FFmpeg. */
std::optional<double> container_bitrate(const std::string &path);

} // namespace vifcli

#endif
