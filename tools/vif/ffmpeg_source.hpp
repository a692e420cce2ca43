// FFmpeg-decoded input for the vif CLI (ffmpeg_source.cpp; built when VIF_WITH_FFMPEG).
// The factory open_ffmpeg_source() is declared in frame_source.hpp; this header adds the probe.
#ifndef VIF_TOOLS_FFMPEG_SOURCE_HPP
#define VIF_TOOLS_FFMPEG_SOURCE_HPP

#include <string>

#include "frame_source.hpp"

namespace vifcli {

/**
 * Whether FFmpeg recognises the file's content as a container or stream it can demux (MP4, MKV,
 * Y4M, IVF, Annex-B H.264/HEVC, ...) with confidence; false for headerless raw YUV, missing or
 * empty files. Reads the first 4 KiB only. Lets open_frame_source() tell raw from encoded input
 * when the extension says nothing.
 */
bool ffmpeg_recognises(const std::string &path);

} // namespace vifcli

#endif // VIF_TOOLS_FFMPEG_SOURCE_HPP
