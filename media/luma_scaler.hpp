// Upscaling a ladder rung's luma plane to the reference size with libswscale, so that the scores
// equal the usual workflow's (`ffmpeg -i rung -vf scale=W:H:flags=bicubic ...` then libvmaf) bit
// for bit. The ffmpeg CLI hands its scale filter exactly the named kernel flag (cmdutils sets
// "flags=bicubic"; the filter's own `flags` option replaces it): no accurate_rnd, no
// full_chroma_int, default kernel parameters. Luma is scaled on its own (GRAY8 / GRAY10..16):
// libswscale's luma path does not depend on the chroma planes, and tests/batch checks the result
// against the ffmpeg CLI's yuv420p output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct SwsContext; // libswscale's

namespace vifcli {

enum class ScalerKernel { kBicubic, kLanczos, kBilinear };

// "bicubic", "lanczos", "bilinear" -> kernel; false for anything else.
bool parse_scaler(const std::string& name, ScalerKernel* out);
const char* scaler_name(ScalerKernel k);

class LumaScaler {
public:
    // Scales src_w x src_h planes of `bitdepth` (8: bytes; 10/12/16: little-endian LSB-aligned
    // words) to dst_w x dst_h. Throws std::runtime_error when libswscale refuses the sizes.
    LumaScaler(uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h, uint32_t bitdepth,
               ScalerKernel kernel);
    ~LumaScaler();
    LumaScaler(const LumaScaler&) = delete;
    LumaScaler& operator=(const LumaScaler&) = delete;

    // Scales one plane (src_stride bytes per row) into the scaler's own buffer, tightly packed
    // (dst_w samples a row); the pointer stays valid until the next call.
    const uint8_t* scale(const uint8_t* src, ptrdiff_t src_stride);
    ptrdiff_t out_stride() const { return out_stride_; }

private:
    ::SwsContext* ctx_ = nullptr;
    uint32_t src_h_ = 0;
    ptrdiff_t out_stride_ = 0;
    std::vector<uint8_t> out_;
};

} // namespace vifcli
