#include "cuda_memory.hpp"

#ifdef VIF_GST_HAVE_CUDA
#define GST_USE_UNSTABLE_API 1
#include <cuda.h>
#include <dlfcn.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "vif/vif_cuda.h"
#endif

namespace gstvif {

#ifdef VIF_GST_HAVE_CUDA

bool cuda_memory_supported() {
    return true;
}

bool cuda_map_luma(GstBuffer *buffer, const GstVideoInfo &info, DeviceLuma *out, const char **why) {
    GstMemory *mem = gst_buffer_n_memory(buffer) > 0 ? gst_buffer_peek_memory(buffer, 0) : nullptr;
    if (!mem || !gst_is_cuda_memory(mem)) {
        *why = "the buffer is not CUDA memory although the caps say memory:CUDAMemory";
        return false;
    }
    GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST(mem);
    if (GST_VIDEO_INFO_WIDTH(&cmem->info) < GST_VIDEO_INFO_WIDTH(&info) ||
        GST_VIDEO_INFO_HEIGHT(&cmem->info) < GST_VIDEO_INFO_HEIGHT(&info)) {
        *why = "the CUDA memory holds a smaller picture than the caps say";
        return false;
    }
    guint device = 0;
    g_object_get(cmem->context, "cuda-device-id", &device, nullptr);
    // GST_MAP_CUDA: the mapped address is the device allocation (uploaded first if the host
    // copy is newer).
    if (!gst_memory_map(mem, &out->map, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
        *why = "the CUDA memory could not be mapped";
        return false;
    }
#if GST_CHECK_VERSION(1, 24, 0)
    // 1.24+: the producer (nvh264dec's copy out of NVDEC's surface) may still be running on
    // the memory's own CUDA stream; libvif reads on another stream, so wait for it first (a
    // no-op when the memory is marked as synchronized).
    gst_cuda_memory_sync(cmem);
#endif
    out->memory = mem;
    out->data = out->map.data + GST_VIDEO_INFO_PLANE_OFFSET(&cmem->info, 0);
    out->pitch = GST_VIDEO_INFO_PLANE_STRIDE(&cmem->info, 0);
    out->device = static_cast<int>(device);
    return true;
}

void cuda_unmap_luma(DeviceLuma *luma) {
    if (luma->memory) gst_memory_unmap(luma->memory, &luma->map);
    luma->memory = nullptr;
}

VifStatus cuda_submit(VifContext *ctx, const DeviceLuma &ref, const std::vector<DeviceLuma> &dists,
                      uint32_t width, uint32_t height, uint32_t bitdepth, uint32_t flags) {
    const VifDevicePicture r = {ref.data, ref.pitch, width, height, bitdepth, flags};
    std::vector<VifDevicePicture> d;
    std::vector<const VifDevicePicture *> dp;
    d.reserve(dists.size());
    for (const DeviceLuma &l : dists) {
        d.push_back(VifDevicePicture{l.data, l.pitch, width, height, bitdepth, flags});
        dp.push_back(&d.back());
    }
    if (d.size() == 1) return vif_cuda_submit(ctx, &r, &d[0], nullptr, nullptr);
    return vif_cuda_submit_multi(ctx, &r, dp.data(), dp.size(), nullptr, nullptr);
}

namespace {

// The four driver calls the context sharing needs, loaded at run time as gst-plugins-bad's own
// CUDA library does: a plugin linked to libcuda.so.1 fails to load where no NVIDIA driver is
// installed, and would take the element's system-memory path down with it.
struct DriverApi {
    decltype(&::cuInit) init = nullptr;
    decltype(&::cuDeviceGet) device_get = nullptr;
    decltype(&::cuDevicePrimaryCtxRetain) primary_retain = nullptr;
    decltype(&::cuDevicePrimaryCtxRelease) primary_release = nullptr; // the _v2 entry point
    bool ok() const { return init && device_get && primary_retain && primary_release; }
};

const DriverApi &driver_api() {
    static const DriverApi api = [] {
        DriverApi a;
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return a;
        a.init = reinterpret_cast<decltype(a.init)>(dlsym(lib, "cuInit"));
        a.device_get = reinterpret_cast<decltype(a.device_get)>(dlsym(lib, "cuDeviceGet"));
        a.primary_retain =
            reinterpret_cast<decltype(a.primary_retain)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
        a.primary_release = reinterpret_cast<decltype(a.primary_release)>(
            dlsym(lib, "cuDevicePrimaryCtxRelease_v2"));
        return a;
    }();
    return api;
}

} // namespace

CudaContextShare::~CudaContextShare() {
    release();
}

bool CudaContextShare::ensure(GstElement *element, int device) {
    if (gst_context_ && device_ == device) return true;
    release();
    const DriverApi &cu = driver_api();
    if (!gst_cuda_load_library() || !cu.ok()) {
        GST_WARNING_OBJECT(element, "the CUDA driver library could not be loaded");
        return false;
    }
    CUdevice dev = 0;
    CUcontext primary = nullptr;
    if (cu.init(0) != CUDA_SUCCESS || cu.device_get(&dev, device) != CUDA_SUCCESS ||
        cu.primary_retain(&primary, dev) != CUDA_SUCCESS) {
        GST_WARNING_OBJECT(element, "CUDA device %d has no usable primary context", device);
        return false;
    }
    GstCudaContext *wrapped = gst_cuda_context_new_wrapped(primary, dev);
    if (!wrapped) {
        cu.primary_release(dev);
        return false;
    }
    gst_context_ = wrapped;
    device_ = device;
    return true;
}

bool CudaContextShare::handle_query(GstElement *element, GstQuery *query) {
    if (!gst_context_) return false;
    return gst_cuda_handle_context_query(element, query,
                                         static_cast<GstCudaContext *>(gst_context_)) != FALSE;
}

void CudaContextShare::release() {
    if (!gst_context_) return;
    gst_object_unref(static_cast<GstCudaContext *>(gst_context_));
    gst_context_ = nullptr;
    const DriverApi &cu = driver_api();
    CUdevice dev = 0;
    if (cu.ok() && cu.device_get(&dev, device_) == CUDA_SUCCESS) cu.primary_release(dev);
    device_ = -1;
}

#else // no CUDA in this build: CUDA memory is not in the caps, so none of this is reached.

bool cuda_memory_supported() {
    return false;
}
bool cuda_map_luma(GstBuffer *, const GstVideoInfo &, DeviceLuma *, const char **why) {
    *why = "this build of the vif element has no CUDA support";
    return false;
}
void cuda_unmap_luma(DeviceLuma *) {}
VifStatus cuda_submit(VifContext *, const DeviceLuma &, const std::vector<DeviceLuma> &, uint32_t,
                      uint32_t, uint32_t, uint32_t) {
    return VIF_ERROR_UNSUPPORTED;
}
CudaContextShare::~CudaContextShare() = default;
bool CudaContextShare::ensure(GstElement *, int) {
    return false;
}
bool CudaContextShare::handle_query(GstElement *, GstQuery *) {
    return false;
}
void CudaContextShare::release() {}

#endif

} // namespace gstvif
