#include "luma_scaler.hpp"

#include <stdexcept>

extern "C" {
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
}

namespace vifcli {

namespace {
int sws_flags(ScalerKernel k) {
    switch (k) {
    case ScalerKernel::kLanczos:
        return SWS_LANCZOS;
    case ScalerKernel::kBilinear:
        return SWS_BILINEAR;
    case ScalerKernel::kBicubic:
        break;
    }
    return SWS_BICUBIC;
}

AVPixelFormat gray_format(uint32_t bitdepth) {
    switch (bitdepth) {
    case 8:
        return AV_PIX_FMT_GRAY8;
    case 10:
        return AV_PIX_FMT_GRAY10LE;
    case 12:
        return AV_PIX_FMT_GRAY12LE;
    case 16:
        return AV_PIX_FMT_GRAY16LE;
    }
    throw std::runtime_error("scaler: unsupported bit depth " + std::to_string(bitdepth));
}
} // namespace

LumaScaler::LumaScaler(uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h,
                       uint32_t bitdepth, ScalerKernel kernel)
    : src_h_(src_h) {
    const AVPixelFormat fmt = gray_format(bitdepth);
    ctx_ = sws_getContext(static_cast<int>(src_w), static_cast<int>(src_h), fmt,
                          static_cast<int>(dst_w), static_cast<int>(dst_h), fmt, sws_flags(kernel),
                          nullptr, nullptr, nullptr);
    if (!ctx_)
        throw std::runtime_error("scaler: libswscale cannot scale " + std::to_string(src_w) + "x" +
                                 std::to_string(src_h) + " to " + std::to_string(dst_w) + "x" +
                                 std::to_string(dst_h));
    out_stride_ = static_cast<ptrdiff_t>(dst_w) * (bitdepth == 8 ? 1 : 2);
    out_.resize(static_cast<size_t>(out_stride_) * dst_h);
}

LumaScaler::~LumaScaler() {
    sws_freeContext(ctx_);
}

const uint8_t* LumaScaler::scale(const uint8_t* src, ptrdiff_t src_stride) {
    const uint8_t* const in[4] = {src, nullptr, nullptr, nullptr};
    const int in_stride[4] = {static_cast<int>(src_stride), 0, 0, 0};
    uint8_t* const out[4] = {out_.data(), nullptr, nullptr, nullptr};
    const int out_stride[4] = {static_cast<int>(out_stride_), 0, 0, 0};
    if (sws_scale(ctx_, in, in_stride, 0, static_cast<int>(src_h_), out, out_stride) <= 0)
        throw std::runtime_error("scaler: sws_scale failed");
    return out_.data();
}

} // namespace vifcli
