// PNG encoding of an RGB or palette picture, for `vif --map-format png` (palette) and `vif
// report` (RGB): the chunks are written here, the pixels compressed by libdeflate.
#ifndef VIF_TOOLS_MAPS_PNG_ENCODE_HPP
#define VIF_TOOLS_MAPS_PNG_ENCODE_HPP

#include "maps/heat_image.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace vifcli {

/** Whether this build can write PNG (it was built with libdeflate). */
bool png_available();

/** The PNG row filter used for every row (PNG filter types 0, 1, 2, 4). */
enum class PngFilter { kNone, kSub, kUp, kPaeth };

/** How the pixels are compressed. The defaults (the report's RGB pictures) were measured on
 *  720p and 1080p RGB maps with their legends (docs/journal/2026-11-26-vif-maps.md, session 9):
 *  Up at level 2 took 5.1 / 10.2 ms a file for 122 / 200 KB; no filter at level 1 was 10%
 *  faster for files 50% larger; Sub, Paeth and the other levels were slower (libdeflate's
 *  level 1 more than its level 2 on these). */
struct PngSettings {
    PngFilter filter = PngFilter::kUp;
    int level = 2; ///< libdeflate's level, 1..12
};

/** The maps' palette pictures (a byte a pixel): Up at level 1, 15-25% less CPU than level 2
 *  for files 3% larger (session 10, the same journal). */
constexpr PngSettings kHeatPngSettings{PngFilter::kUp, 1};

/** The bytes of an 8-bit RGB PNG of `img` (one IDAT chunk); throws std::runtime_error if the
 *  picture is empty or too large, or the build has no libdeflate. */
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
