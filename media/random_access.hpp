// Where an encoded stream may be cut into segments that decode apart: the packets at which
// decoding can start with nothing before it, and nothing after refers to anything before.
#pragma once

struct AVCodecParameters;
struct AVPacket;

namespace vif::media {

/** Whether `pkt` of a stream with parameters `par` is a clean random-access point: an IDR
 *  picture alone (H.264, HEVC) or an AV1 key frame. Other codecs: never (the stream is then one
 *  segment). */
bool clean_random_access(const AVCodecParameters *par, const AVPacket *pkt);

} // namespace vif::media
