// GstVif: the `vif` element. A GstAggregator whose request sink pads sink_%u carry the reference
// (sink_0) and distorted streams (sink_1, ...) of the same frames; frames are matched by running
// time and scored through libvif (a ladder through vif_submit_multi), scores are posted as
// element messages (messages.hpp), and the reference's buffers leave on the src pad unchanged.
#pragma once

#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

#define GST_TYPE_VIF (gst_vif_get_type())
G_DECLARE_FINAL_TYPE(GstVif, gst_vif, GST, VIF, GstAggregator)

G_END_DECLS

namespace gstvif {
struct ElementState; // element.cpp
}

struct _GstVif {
    GstAggregator parent;
    gstvif::ElementState *state;
};
