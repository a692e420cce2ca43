// GstVifPad: the element's request sink pad (sink_0 reference, sink_N distorted). It keeps the
// negotiated video info of its stream.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

#include "formats.hpp"

G_BEGIN_DECLS

#define GST_TYPE_VIF_PAD (gst_vif_pad_get_type())
G_DECLARE_FINAL_TYPE(GstVifPad, gst_vif_pad, GST, VIF_PAD, GstAggregatorPad)

struct _GstVifPad {
    GstAggregatorPad parent;

    guint index;          // N of sink_N: 0 is the reference
    gboolean has_info;    // caps received and understood
    GstVideoInfo info;    // from the caps
    gboolean cuda_memory; // memory:CUDAMemory caps
    gstvif::LumaLayout layout;
    guint64 scored; // frames scored on this pad (the next frame index)
};

G_END_DECLS
