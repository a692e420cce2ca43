// See sample_check.hpp.
#include "engine/sample_check.hpp"

#include <algorithm>
#include <cstdint>

#include "engine/cuda_check.hpp"

namespace vif::cuda {

namespace {

__global__ void __launch_bounds__(256) or_words_kernel(const unsigned char* plane, size_t pitch,
                                                       int width, int height, unsigned* out) {
    unsigned acc = 0;
    // Rows are spread over blockIdx.y; the words of a row over the threads of blockIdx.x.
    for (int y = blockIdx.y; y < height; y += gridDim.y) {
        const uint16_t* row = reinterpret_cast<const uint16_t*>(plane + size_t(y) * pitch);
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < width; x += gridDim.x * blockDim.x)
            acc |= row[x];
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    for (int o = 16; o > 0; o >>= 1)
        acc |= __shfl_xor_sync(0xffffffffu, acc, o); // no REDUX on sm_75
#else
    acc = __reduce_or_sync(0xffffffffu, acc);
#endif
    if ((threadIdx.x & 31) == 0 && acc != 0) atomicOr(out, acc);
}

} // namespace

Status enqueue_or_words(const void* plane, size_t pitch, int width, int height, unsigned* out,
                        cudaStream_t stream) {
    const dim3 block(256);
    const dim3 grid(std::max(1, std::min((width + 255) / 256, 8)), std::min(height, 64));
    or_words_kernel<<<grid, block, 0, stream>>>(static_cast<const unsigned char*>(plane), pitch,
                                                width, height, out);
    VIF_CUDA_TRY(cudaGetLastError());
    return {};
}

} // namespace vif::cuda
