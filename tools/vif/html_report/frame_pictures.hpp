// The pictures of the report's worst frames: the reference's and the distorted's luma and the
// scale-0 local VIF map of the frame (computed here with the library, docs/algorithm.md §12),
// each a PNG data URI small enough to sit three side by side on a page.
#ifndef VIF_TOOLS_HTML_REPORT_FRAME_PICTURES_HPP
#define VIF_TOOLS_HTML_REPORT_FRAME_PICTURES_HPP

#include <vif/vif.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

struct FramePictures {
    uint64_t frame = 0;
    std::string reference, distorted, map; ///< "data:image/png;base64,..."
};

/** The inputs of one pair, as on vif's command line. */
struct PairInputs {
    std::string reference, distorted;
    uint32_t width = 0, height = 0, bitdepth = 0;
    std::string pixel_format;
};

/** Pictures of `frames` (input frame numbers, any order) of the pair, at most `max_width`
 *  pixels wide; the map with the variant of the result file. Throws std::runtime_error (the
 *  input's message) for an input that cannot be read, a frame it does not have, or a
 *  distorted input of another size than the reference. */
std::vector<FramePictures> frame_pictures(const PairInputs &in, VifVariant variant,
                                          std::vector<uint64_t> frames, uint32_t max_width);

/** Base64 of bytes (RFC 4648, with padding). */
std::string base64(const std::string &bytes);

} // namespace vifcli

#endif
