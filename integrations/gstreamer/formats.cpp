#include "formats.hpp"

#include "cuda_memory.hpp"

namespace gstvif {

const char *const kFormatList =
    "{ GRAY8, GRAY16_LE, I420, Y42B, Y444, NV12, P010_10LE, I420_10LE, I422_10LE, Y444_10LE, "
    "I420_12LE, I422_12LE, Y444_12LE, P012_LE, Y444_16LE, P016_LE }";

bool luma_layout(const GstVideoInfo &info, LumaLayout *out) {
    const GstVideoFormatInfo *f = info.finfo;
    if (!f || GST_VIDEO_FORMAT_INFO_FORMAT(f) == GST_VIDEO_FORMAT_UNKNOWN) return false;
    if (!GST_VIDEO_FORMAT_INFO_IS_YUV(f) && !GST_VIDEO_FORMAT_INFO_IS_GRAY(f)) return false;
    if (GST_VIDEO_FORMAT_INFO_IS_LE(f) == FALSE && GST_VIDEO_FORMAT_INFO_BITS(f) > 8) return false;
    const uint32_t depth = GST_VIDEO_FORMAT_INFO_DEPTH(f, 0);
    const uint32_t pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE(f, 0);
    // libvif reads one byte a sample at 8 bits and one 16-bit word otherwise: packed or
    // interleaved-luma formats (YUY2, v210, ...) are not in the template and fail here.
    if (!(depth == 8 && pstride == 1) && !(depth > 8 && depth <= 16 && pstride == 2)) return false;
    if (depth != 8 && depth != 10 && depth != 12 && depth != 16) return false;
    out->bitdepth = depth;
    out->msb_aligned = GST_VIDEO_FORMAT_INFO_SHIFT(f, 0) != 0;
    return true;
}

GstCaps *sink_template_caps() {
    gchar *sys = g_strdup_printf("video/x-raw, format=(string)%s, width=(int)[1, 32768], "
                                 "height=(int)[1, 32768], framerate=(fraction)[0/1, MAX]",
                                 kFormatList);
    GstCaps *caps = gst_caps_from_string(sys);
    g_free(sys);
    if (cuda_memory_supported()) {
        gchar *cuda = g_strdup_printf("video/x-raw(memory:CUDAMemory), format=(string)%s, "
                                      "width=(int)[1, 32768], height=(int)[1, 32768], "
                                      "framerate=(fraction)[0/1, MAX]",
                                      kFormatList);
        gst_caps_append(caps, gst_caps_from_string(cuda));
        g_free(cuda);
    }
    return caps;
}

} // namespace gstvif
