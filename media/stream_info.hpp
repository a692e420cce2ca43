// Stream information without FFmpeg's decoding pass, where the container already gives it.
//
// avformat_find_stream_info decodes frames on one thread (as many as 7 for H.264 with B-frames)
// to learn the pixel format, the frame rate and the decoder's delay. The readers of media/ decode
// the first frame themselves right after, which tells them the pixel format, and a Matroska,
// MP4/MOV or IVF header already holds the codec, the frame size, the decoder's configuration and
// the frame rate: for those the pass is only start-up time (a 48-frame 1080p x264 probe pair
// spent 46 ms in it on one core). Anything else still gets the pass.
#pragma once

struct AVFormatContext;

namespace vif::media {

/** Whether fmt's header alone says what the readers need: a Matroska/WebM, MP4/MOV or IVF
 *  input with exactly one video stream (a cover picture counts as one) whose codec has a decoder, with
 *  a frame size, a frame rate, and the decoder's configuration where the codec keeps it out of
 *  band (H.264 and HEVC in these containers). */
bool header_is_enough(const AVFormatContext *fmt);

/** avformat_find_stream_info(fmt), unless header_is_enough(fmt): its result, or 0 when the pass
 *  was skipped. */
int read_stream_info(AVFormatContext *fmt);

} // namespace vif::media
