// Which raw video formats the element scores, and how their luma plane maps onto libvif's
// picture description (bit depth, MSB-aligned words).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>

namespace gstvif {

// The formats of the sink pads' caps, as a caps "format" list (system and CUDA memory alike).
extern const char *const kFormatList;

// The luma layout of a negotiated format: bit depth as libvif counts it and whether the samples
// sit in the top bits of 16-bit words (P010/P012).
struct LumaLayout {
    uint32_t bitdepth = 0;
    bool msb_aligned = false;
};

// The layout of `info`'s format; false for a format the element does not score.
bool luma_layout(const GstVideoInfo &info, LumaLayout *out);

// The sink pads' template caps: system memory, plus CUDA memory when this build can score it.
GstCaps *sink_template_caps();

} // namespace gstvif
