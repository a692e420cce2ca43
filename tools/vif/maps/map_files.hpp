// The file formats of `vif --map` (docs/cli.md, "Per-pixel maps"): one local VIF map of one
// scale, row-major floats, written as a 16-bit PGM or a NumPy .npy; the heat-map video's Y4M
// stream header and frames. Pure encoding: the bytes of a file (or of its header and samples),
// no I/O, so that tests can check them.
#ifndef VIF_TOOLS_MAPS_MAP_FILES_HPP
#define VIF_TOOLS_MAPS_MAP_FILES_HPP

#include "maps/heat_image.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

/** The PGM sample of a local VIF value: round(value x 32768), clamped to 0..65535 (1.0 is 32768,
 *  a step is 2^-15; values at or above 2 saturate, NaN reads 0). */
uint16_t pgm16_sample(float value);

/** A binary PGM's header (P5, maxval 65535) with a comment line saying how to read the samples
 *  back, and `n` of its samples (2 bytes each, big-endian per the format) into `out`: a file is
 *  written in pieces this way (MapWriter) without the whole file in memory. */
std::string pgm16_header(uint32_t w, uint32_t h, const std::string &comment);
void pgm16_samples(const float *map, size_t n, char *out);

/** A NumPy .npy's header (format 1.0, float32 little-endian, shape (h, w), the data 64-byte
 *  aligned) and `n` of its values (4 bytes each) into `out`. */
std::string npy_header(uint32_t w, uint32_t h);
void npy_samples(const float *map, size_t n, char *out);

/** A binary PGM (P5, maxval 65535, big-endian samples per the format) of a w x h map, with a
 *  comment line saying how to read the samples back. */
std::string encode_pgm16(const std::vector<float> &map, uint32_t w, uint32_t h,
                         const std::string &comment);

/** A NumPy .npy (format 1.0) of a little-endian float32 array of shape (h, w): the exact
 *  values. */
std::string encode_npy(const std::vector<float> &map, uint32_t w, uint32_t h);

/** The stream header of a Y4M heat-map video: w x h, 4:2:0 8-bit (C420jpeg), progressive,
 *  square pixels, `rate_num`/`rate_den` frames a second. */
std::string y4m_header(uint32_t w, uint32_t h, uint32_t rate_num, uint32_t rate_den);

/** One Y4M frame ("FRAME\n" and the planes) of an RGB picture: BT.601 limited-range Y'CbCr
 *  (what players assume for an untagged Y4M), chroma the mean of each 2x2 block. */
std::string y4m_frame(const RgbImage &img);

} // namespace vifcli

#endif
