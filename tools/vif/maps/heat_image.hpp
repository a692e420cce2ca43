// The pictures of `vif --map-format png|y4m` (docs/cli.md, "Per-pixel maps"): a local VIF map
// drawn at the frame's size in a fixed colour scale (RGB for the Y4M video and the report, the
// scale's palette indices for PNG), and for PNG a legend band under it (the scale with its
// numbers, the frame and scale named). Drawing only: no files, no libraries.
#ifndef VIF_TOOLS_MAPS_HEAT_IMAGE_HPP
#define VIF_TOOLS_MAPS_HEAT_IMAGE_HPP

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vifcli {

/** 8-bit RGB, row-major, 3 bytes a pixel. */
struct RgbImage {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgb;
    std::array<uint8_t, 3> at(uint32_t x, uint32_t y) const {
        const size_t i = (size_t(y) * width + x) * 3;
        return {rgb[i], rgb[i + 1], rgb[i + 2]};
    }
};

/** The colour of a local VIF value: 0 (detail lost) black, through purple, red and orange, to
 *  pale yellow at 1 (detail kept); values at or above 1 take 1's colour, below 0 or NaN 0's. */
std::array<uint8_t, 3> heat_colour(float value);

/** Makes the colour table the pictures are drawn from (once a process, ~3 ms), so that the
 *  first pictures do not wait for it (MapWriter's writers call it as they start). */
void warm_colour_table();

/** A map of scale `scale` (sw x sh, row-major) drawn at the frame's size (fw x fh) by nearest
 *  neighbour (docs/algorithm.md §12.4), in heat_colour. */
RgbImage draw_heat(const std::vector<float> &map, uint32_t sw, uint32_t sh, uint32_t scale,
                   uint32_t fw, uint32_t fh);

/** 8-bit palette indices, row-major, a byte a pixel (a PNG map's picture: colour type 3). */
struct IndexedImage {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> index;
};

/** The PNG maps' palette (docs/cli.md, "png"): indices 0 to kHeatSteps - 1 are the colour scale
 *  in equal steps (index i is heat_colour(i / 253)), then the legend's white and black. A byte a
 *  pixel is a third of RGB's bytes to draw, filter and compress (issue 24's speed goal). */
constexpr uint32_t kHeatSteps = 254;
constexpr uint8_t kWhiteIndex = 254, kBlackIndex = 255;
using Palette = std::vector<std::array<uint8_t, 3>>;
const Palette &heat_palette();

/** The palette index of a local VIF value: round(v x 253), halves up, v clamped to [0, 1]
 *  (NaN as 0), as heat_colour clamps. */
inline uint8_t heat_index(float value) {
    // Clamped on the float's bits (ordered as the floats are from 0 up; a negative value's are
    // negative), with no branch, so that a row's loop is vectorised (a float compare would not
    // be: it may trap).
    int32_t bits;
    std::memcpy(&bits, &value, 4);
    bits &= -int32_t(bits <= 0x7f800000); // a NaN as 0 (a negative one is negative below)
    bits = std::min(std::max(bits, int32_t(0)), int32_t(0x3f800000)); // 0 to 1.0f
    float v;
    std::memcpy(&v, &bits, 4);
    // v x 253 + 0.5 is exact in double (24 + 8 bits of significand): the exact rounding.
    return uint8_t(int(double(v) * double(kHeatSteps - 1) + 0.5));
}

/** Height of the legend band under a PNG map of a frame `fw` wide (twice as large from 640). */
uint32_t legend_height(uint32_t fw);

/** A PNG map's whole picture in heat_palette's indices: the map drawn at the frame's size (by
 *  nearest neighbour, in heat_index) with the legend band under it: a caption (`caption`,
 *  lower-case letters, digits, spaces and . : , - only), the colour bar from 0 to 1 and its
 *  ticks with their numbers. (The CLI draws it a row at a time: HeatRows.) */
IndexedImage draw_heat_with_legend(const std::vector<float> &map, uint32_t sw, uint32_t sh,
                                   uint32_t scale, uint32_t fw, uint32_t fh,
                                   const std::string &caption);

/** draw_heat_with_legend's picture a row at a time (for encode_png's row source): the map's
 *  rows drawn as asked for, each distinct one once in a buffer of 2 (a repeated row says so),
 *  and the legend drawn once. Without the whole picture in memory. */
class HeatRows {
public:
    /** Starts a picture; `map` must outlive the rows asked for. */
    void start(const std::vector<float> &map, uint32_t sw, uint32_t sh, uint32_t scale, uint32_t fw,
               uint32_t fh, const std::string &caption);
    uint32_t width() const { return fw_; }
    uint32_t height() const { return fh_ + legend_.height; }
    /** Row y (fw indices), asked for in order from 0: valid until row y + 2 is asked for;
     *  `same` is set where it is row y - 1 again. */
    const uint8_t *row(uint32_t y, bool &same);

private:
    const std::vector<float> *map_ = nullptr;
    uint32_t sw_ = 0, sh_ = 0, scale_ = 0, fw_ = 0, fh_ = 0;
    IndexedImage legend_;
    std::vector<uint8_t> rows_[2];
    std::vector<uint8_t> indices_;
    uint32_t map_row_ = 0;
    uint32_t drawn_ = 0;
};

} // namespace vifcli

#endif
