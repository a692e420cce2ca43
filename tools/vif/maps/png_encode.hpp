// PNG encoding of an RGB picture (libpng), for `vif --map-format png` and `vif report`.
#ifndef VIF_TOOLS_MAPS_PNG_ENCODE_HPP
#define VIF_TOOLS_MAPS_PNG_ENCODE_HPP

#include "maps/heat_image.hpp"

#include <string>

namespace vifcli {

/** Whether this build can write PNG (it was built with libpng). */
bool png_available();

/** The bytes of an 8-bit RGB PNG of `img`; throws std::runtime_error (libpng's message) if
 *  encoding fails or the build has no libpng. */
std::string encode_png(const RgbImage &img);

} // namespace vifcli

#endif
