// An encode's bitrate read from its container with FFmpeg (libavformat), without decoding: the
// video stream's bit rate when the container records it, else the file's (format bit rate, or
// its size over its duration). `vif report` draws its score-against-bitrate chart with it.
#ifndef VIF_MEDIA_CONTAINER_BITRATE_HPP
#define VIF_MEDIA_CONTAINER_BITRATE_HPP

#include <optional>
#include <string>

namespace vifcli {

/** Bits a second, or nothing for a file FFmpeg cannot open, raw video (no container), or a
 *  build without FFmpeg. */
std::optional<double> container_bitrate(const std::string &path);

} // namespace vifcli

#endif
