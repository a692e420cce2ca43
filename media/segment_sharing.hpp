// How a segment decoder (segment_decoder.hpp) shares the segments of an input between its
// NVDEC decoders and software decoders beside them, as a rule on the segments' state alone.
//
// next() hands the segments out in order, so a slow decoder holding an early segment holds up
// every frame after it. NVDEC decoders (and software decoders while no NVDEC one runs) take the
// earliest segment no decoder has taken. A software decoder beside running NVDEC decoders takes
// the earliest segment it will have decoded, at its own measured pace, well before next() gets
// there at NVDEC's pace: its time times kBesideMargin, plus kBesideSlackS, at most the time
// next() needs for the frames before it; and only a segment whose packets are all read and
// whose frames all fit the decoder's free buffers (a software decoder may take a segment before
// one it already holds frames of: waiting for buffers there could wait for itself).
#ifndef VIF_MEDIA_SEGMENT_SHARING_HPP
#define VIF_MEDIA_SEGMENT_SHARING_HPP

#include <cstdint>
#include <vector>

namespace vifcli {

constexpr double kBesideMargin = 1.5;
constexpr double kBesideSlackS = 0.05; // a software decoder's drain and reset, a late start

/** One undelivered segment, in stream order. */
struct SegmentState {
    double frames = 0;   ///< its packets so far (frames of the segment)
    bool closed = false; ///< all its packets are read
    bool taken = false;  ///< a decoder has it
    double handed = 0;   ///< frames next() has handed out of it
};

struct SharingPace {
    bool nvdec_running = false; ///< an NVDEC decoder (or a stand-in) is decoding
    double nvdec = 0;           ///< their frames a second together, 0: not known yet
    double own = 0;             ///< the deciding software decoder's, 0: not measured yet
    double usual_frames = 30;   ///< a segment's frames where one is still being read
    double room = 1e18;         ///< frames the deciding software decoder's buffers still take
};

/** The index of the segment a decoder takes next, or -1 for none now. */
int pick_segment(const std::vector<SegmentState> &segments, bool beside, const SharingPace &pace);

} // namespace vifcli

#endif
