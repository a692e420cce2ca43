// FFmpeg-decoded input for the vif CLI (ffmpeg_source.cpp; built when VIF_WITH_FFMPEG).
// The factory open_ffmpeg_source() is declared in frame_source.hpp; this header adds the probe.
#ifndef VIF_TOOLS_FFMPEG_SOURCE_HPP
#define VIF_TOOLS_FFMPEG_SOURCE_HPP

#include <cstddef>
#include <string>

#include "frame_source.hpp"

namespace vifcli {

/**
 * Whether FFmpeg recognises `head` (the first bytes of an input) as a container or stream it can
 * demux (MP4, MKV, Y4M, IVF, Annex-B H.264/HEVC, ...) with confidence; false for headerless raw
 * YUV. Lets open_frame_source() tell raw from encoded input when the extension says nothing.
 */
bool ffmpeg_recognises(const char *head, size_t size);

} // namespace vifcli

#endif // VIF_TOOLS_FFMPEG_SOURCE_HPP
