// LumaScaler in a build without FFmpeg: rungs of the reference's size still score; a rung of
// another size is a clear error (its upscale must be libswscale's to equal the usual workflow).
#include "luma_scaler.hpp"

#include <stdexcept>

namespace vifcli {

LumaScaler::LumaScaler(uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h, uint32_t,
                       ScalerKernel) {
    throw std::runtime_error("scaler: a " + std::to_string(src_w) + "x" + std::to_string(src_h) +
                             " rung needs upscaling to " + std::to_string(dst_w) + "x" +
                             std::to_string(dst_h) +
                             " with FFmpeg's libswscale, and this build has no FFmpeg");
}

LumaScaler::~LumaScaler() = default;

const uint8_t* LumaScaler::scale(const uint8_t*, ptrdiff_t) {
    throw std::runtime_error("scaler: this build has no FFmpeg");
}

} // namespace vifcli
