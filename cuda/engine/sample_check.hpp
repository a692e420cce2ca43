// Device side of the check for samples above the bit depth (libvif/src/core/sample_range.hpp explains
// why): pictures handed over in device memory never pass through the host, so a small kernel ORs
// the 16-bit words of the backend's own copy of a plane into a device-visible word.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/backend.hpp"

namespace vif::cuda {

// ORs every 16-bit word of a width x height plane (rows `pitch` bytes apart) into *out, which
// must be device-accessible and start at 0. One launch of a few hundred blocks; it reads the
// plane the VIF kernels read next, so it mostly hits L2.
Status enqueue_or_words(const void* plane, size_t pitch, int width, int height, unsigned* out,
                        cudaStream_t stream);

} // namespace vif::cuda
