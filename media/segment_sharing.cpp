// See segment_sharing.hpp.
#include "segment_sharing.hpp"

#include <algorithm>

namespace vifcli {

int pick_segment(const std::vector<SegmentState> &segments, bool beside, const SharingPace &pace) {
    if (!beside || !pace.nvdec_running) {
        for (size_t i = 0; i < segments.size(); ++i)
            if (!segments[i].taken) return int(i);
        return -1;
    }
    if (pace.nvdec <= 0) return -1; // NVDEC's pace unknown: nothing is safe yet
    // An unmeasured software decoder is assumed six times slower than NVDEC's decoders
    // together (about one software decoder of a few threads against three NVDEC sessions).
    const double own = pace.own > 0 ? pace.own : pace.nvdec / 6;
    double before = 0; // frames next() hands out before segment i
    for (size_t i = 0; i < segments.size(); ++i) {
        const SegmentState &s = segments[i];
        const double frames = s.closed ? s.frames : std::max(s.frames, pace.usual_frames);
        if (!s.taken && s.closed && s.frames <= pace.room &&
            frames / own * kBesideMargin + kBesideSlackS <= before / pace.nvdec)
            return int(i);
        before += std::max(0.0, frames - s.handed);
    }
    return -1;
}

} // namespace vifcli
