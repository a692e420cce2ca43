// PNG encoding of an RGB or palette picture, for `vif --map-format png` (palette) and `vif
// report` (RGB): the chunks are written here, the pixels compressed by ISA-L's igzip.
#ifndef VIF_TOOLS_MAPS_PNG_ENCODE_HPP
#define VIF_TOOLS_MAPS_PNG_ENCODE_HPP

#include "maps/heat_image.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace vifcli {

/** Whether this build can write PNG (it was built with ISA-L, libisal-dev). */
bool png_available();

/** The PNG row filter used for every row (PNG filter types 0, 1, 2, 4). */
enum class PngFilter { kNone, kSub, kUp, kPaeth };

/** How the pixels are compressed (ISA-L's igzip, levels 0 to 3). The defaults were measured on
 *  720p and 1080p maps with their legends (docs/journal/2026-11-26-vif-maps.md, sessions 9 and
 *  10): Up, whose repeated rows are zeros, compresses the maps best of the filters for its time;
 *  igzip at level 1 took 1.0 / 2.1 ms a palette file (140 / 306 KB) where libdeflate's fastest
 *  level took 3.2 / 6.9 ms (129 / 284 KB). */
struct PngSettings {
    PngFilter filter = PngFilter::kUp;
    int level = 1; ///< igzip's level, 0 (stored) to 3
};

/** The bytes of an 8-bit RGB PNG of `img` (one IDAT chunk); throws std::runtime_error if the
 *  picture is empty or too large, or the build has no ISA-L. */
std::string encode_png(const RgbImage &img, const PngSettings &settings = PngSettings{});

/** The same of an 8-bit palette picture (colour type 3, a PLTE chunk of `palette`'s 1 to 256
 *  colours; every index must be below its size). */
std::string encode_png(const IndexedImage &img, const Palette &palette,
                       const PngSettings &settings = PngSettings{});

/** A picture's rows, asked for in order from 0: row y's bytes (width x 3 for RGB, width for
 *  palette indices), valid until row y + 2 is asked for; `same` set true where it equals row
 *  y - 1 byte for byte (its Up filter is zeros, written without subtracting). */
using PngRowSource = std::function<const uint8_t *(uint32_t y, bool &same)>;

/** The same from rows given one at a time (HeatRows: a map's PNG without the whole picture):
 *  RGB rows where `palette` is null, else rows of indices into it. */
std::string encode_png(uint32_t width, uint32_t height, const Palette *palette,
                       const PngRowSource &rows, const PngSettings &settings = PngSettings{});

} // namespace vifcli

#endif
