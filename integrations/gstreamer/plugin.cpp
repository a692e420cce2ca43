// The `vif` GStreamer plugin: registers the element (element.hpp).
#include <gst/gst.h>

#include "element.hpp"
#include "vif/vif.h"

static gboolean plugin_init(GstPlugin *plugin) {
    return gst_element_register(plugin, "vif", GST_RANK_NONE, GST_TYPE_VIF);
}

#define PACKAGE "libvif"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, vif,
                  "Visual Information Fidelity (VIF) as libvmaf computes it, through libvif",
                  plugin_init, VIF_VERSION_STRING, "BSD", "libvif", "https://github.com/libvif")
