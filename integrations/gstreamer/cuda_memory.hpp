// GstCudaMemory (memory:CUDAMemory caps, as nvh264dec, nvh265dec and cudaupload produce it)
// scored in place through libvif's device-pointer API (vif_cuda.h). Built only when libvif has
// its CUDA backend and gst-plugins-bad's CUDA library is found (VIF_GST_HAVE_CUDA); otherwise
// every function here says "not supported" and the caps template has no CUDA memory.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vif/vif.h"

namespace gstvif {

// Whether this build of the element can score CUDA memory.
bool cuda_memory_supported();

// A mapped luma plane in device memory; unmapped by cuda_unmap_luma.
struct DeviceLuma {
    const void *data = nullptr;
    ptrdiff_t pitch = 0;
    int device = -1; // the CUDA device ordinal of the memory
    GstMemory *memory = nullptr;
    GstMapInfo map{};
};

// Maps `buffer`'s CUDA memory for reading on the device; the luma plane's offset and pitch are
// the memory's own layout (GstCudaMemory.info), which may differ from the caps' default strides.
// `info`: the negotiated caps, for the size check. False (with *why set) if it is not CUDA
// memory, is too small for the caps or cannot be mapped.
bool cuda_map_luma(GstBuffer *buffer, const GstVideoInfo &info, DeviceLuma *out, const char **why);
void cuda_unmap_luma(DeviceLuma *luma);

// Queues the reference against one distorted plane (vif_cuda_submit) or several, a ladder in
// one call (vif_cuda_submit_multi), on the legacy default stream, which orders it after the
// producer's synchronised writes.
VifStatus cuda_submit(VifContext *ctx, const DeviceLuma &ref, const std::vector<DeviceLuma> &dists,
                      uint32_t width, uint32_t height, uint32_t bitdepth, uint32_t flags);

// Shares the CUDA runtime's primary context of one device with upstream CUDA elements, so that
// the decoder's memory lives in the context libvif computes in (answering "gst.cuda.context"
// context queries). One per element; safe to create without a GPU (then it answers nothing).
class CudaContextShare {
public:
    CudaContextShare() = default;
    ~CudaContextShare();
    CudaContextShare(const CudaContextShare &) = delete;
    CudaContextShare &operator=(const CudaContextShare &) = delete;

    // Makes (or keeps) the shared context of `device`; false without a usable device.
    bool ensure(GstElement *element, int device);
    // Answers a GST_QUERY_CONTEXT for CUDA; false if it is not one or there is no context.
    bool handle_query(GstElement *element, GstQuery *query);
    void release();

private:
    void *gst_context_ = nullptr; // GstCudaContext *
    int device_ = -1;
};

} // namespace gstvif
