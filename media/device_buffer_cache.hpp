// Device memory for NVDEC's decoded luma planes, kept from one input to the next when a process
// decodes many inputs one after the other (`vif batch`): cudaMallocPitch and cudaFree are slow,
// and cudaFree waits for every stream of the device, so with several rows on a GPU each row's
// end would stall the others. Off by default (the memory is freed when its input is closed, as
// for one pair); a batch turns it on.
#ifndef VIF_TOOLS_DEVICE_BUFFER_CACHE_HPP
#define VIF_TOOLS_DEVICE_BUFFER_CACHE_HPP

#include <cstddef>

namespace vifcli {

/** Whether chunks given back are kept for the next input (process-wide; default false). */
void keep_device_buffers(bool on);

/** A chunk of `rows` rows of `row_bytes` bytes on `device` (the calling thread's current CUDA
 *  device): a kept one of that shape, or a new cudaMallocPitch. False when there is no memory. */
bool take_device_chunk(int device, size_t row_bytes, size_t rows, void **base, size_t *pitch);

/** Gives a chunk of take_device_chunk back: kept when keeping is on (up to a bound per device),
 *  else freed. */
void give_back_device_chunk(int device, size_t row_bytes, size_t rows, void *base, size_t pitch);

} // namespace vifcli

#endif
