// `vif --map DIR`: picks the frames whose local VIF maps are written (all, the N worst, a list),
// computes the maps (vif_local_map) of the scales asked for as each frame's scores are received,
// and writes them into a temporary folder beside DIR that becomes DIR only when the run succeeds
// (commit). A failed run, an unwritable folder or a frame list outside the clip leaves nothing.
#ifndef VIF_TOOLS_MAPS_MAP_WRITER_HPP
#define VIF_TOOLS_MAPS_MAP_WRITER_HPP

#include "options.hpp"

#include <vif/vif.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

class MapWriter {
public:
    /** Checks DIR (new, or an empty folder) and creates the temporary folder; throws Failure. */
    explicit MapWriter(const MapOptions &m);
    ~MapWriter(); ///< removes the temporary folder unless committed
    MapWriter(const MapWriter &) = delete;
    MapWriter &operator=(const MapWriter &) = delete;

    /** Frame numbers as the report writes them, by submission index (filled as frames go in). */
    void set_frame_numbers(const std::vector<uint64_t> *nums) { frame_nums_ = nums; }
    /** One received frame: its maps are written now (all, list) or kept if among the worst. */
    void take(const VifScores &s, const VifMaps &maps);
    /** After every frame: writes the worst frames' maps, checks the list, renames the folder to
     *  DIR; throws Failure (nothing left behind) for a listed frame that was not scored. */
    void commit();
    size_t files_written() const { return files_; }

private:
    struct Kept {
        double score;
        uint64_t frame;
        std::vector<std::vector<float>> maps; ///< one per selected scale
        std::vector<uint32_t> w, h;
    };
    Kept compute(const VifScores &s, const VifMaps &maps, uint64_t frame) const;
    void write(const Kept &k);

    MapOptions m_;
    std::string dir_, tmp_;
    bool committed_ = false;
    const std::vector<uint64_t> *frame_nums_ = nullptr;
    std::vector<Kept> worst_;      ///< kWorst: a max-heap on (score, frame), at most m_.worst
    std::vector<uint64_t> listed_; ///< kList: the listed frames seen
    size_t files_ = 0;
};

} // namespace vifcli

#endif
