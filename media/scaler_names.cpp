// The names of the --scaler kernels; compiled in every build (with or without FFmpeg).
#include "luma_scaler.hpp"

namespace vifcli {

bool parse_scaler(const std::string& name, ScalerKernel* out) {
    if (name == "bicubic")
        *out = ScalerKernel::kBicubic;
    else if (name == "lanczos")
        *out = ScalerKernel::kLanczos;
    else if (name == "bilinear")
        *out = ScalerKernel::kBilinear;
    else
        return false;
    return true;
}

const char* scaler_name(ScalerKernel k) {
    switch (k) {
    case ScalerKernel::kBicubic:
        return "bicubic";
    case ScalerKernel::kLanczos:
        return "lanczos";
    case ScalerKernel::kBilinear:
        return "bilinear";
    }
    return "?";
}

} // namespace vifcli
