#include "pad.hpp"

G_DEFINE_TYPE(GstVifPad, gst_vif_pad, GST_TYPE_AGGREGATOR_PAD)

static void gst_vif_pad_class_init(GstVifPadClass *) {}

static void gst_vif_pad_init(GstVifPad *pad) {
    pad->index = 0;
    pad->has_info = FALSE;
    gst_video_info_init(&pad->info);
    pad->cuda_memory = FALSE;
    pad->layout = gstvif::LumaLayout{};
    pad->scored = 0;
}
