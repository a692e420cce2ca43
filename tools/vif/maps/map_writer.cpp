#include "maps/map_writer.hpp"

#include "maps/map_files.hpp"
#include "pair/failure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <stdlib.h>
#include <sys/stat.h>

namespace vifcli {
namespace fs = std::filesystem;

namespace {

bool heap_less(const double as, uint64_t af, const double bs, uint64_t bf) {
    // The heap's top is the frame to drop first: the highest score, the later frame on a tie.
    return as < bs || (as == bs && af < bf);
}

} // namespace

MapWriter::MapWriter(const MapOptions &m) : m_(m) {
    dir_ = m.dir;
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    std::error_code ec;
    const fs::file_status st = fs::status(dir_, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(st))
            throw Failure{fmt::format("--map {}: exists and is not a folder", m.dir)};
        if (!fs::is_empty(dir_, ec) || ec)
            throw Failure{fmt::format("--map {}: the folder is not empty (give a new or empty "
                                      "folder: the maps replace it as a whole)",
                                      m.dir)};
    }
    const fs::path p(dir_);
    const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::string templ = (parent / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
    if (!::mkdtemp(templ.data()))
        throw Failure{fmt::format("--map {}: cannot create a folder in {}: {}", m.dir,
                                  parent.string(), std::strerror(errno))};
    // mkdtemp makes it 0700; the folder the user gets has the usual mode (0777 less the umask).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::chmod(templ.c_str(), 0777 & ~mask);
    tmp_ = templ;
}

MapWriter::~MapWriter() {
    if (committed_ || tmp_.empty()) return;
    std::error_code ec;
    fs::remove_all(tmp_, ec);
}

MapWriter::Kept MapWriter::compute(const VifScores &s, const VifMaps &maps, uint64_t frame) const {
    Kept k{s.combined, frame, {}, {}, {}};
    for (uint32_t sc : m_.scales) {
        const VifScaleMap &sm = maps.scale[sc];
        std::vector<float> out(size_t(sm.width) * sm.height);
        const VifStatus st = vif_local_map(&sm, out.data());
        if (st != VIF_OK) throw Failure{vif_error("--map: the local VIF map", st)};
        k.maps.push_back(std::move(out));
        k.w.push_back(sm.width);
        k.h.push_back(sm.height);
    }
    return k;
}

void MapWriter::write(const Kept &k) {
    for (size_t i = 0; i < m_.scales.size(); ++i) {
        const bool npy = m_.format == MapOptions::Format::kNpy;
        const std::string name =
            fmt::format("frame{:06}_scale{}.{}", k.frame, m_.scales[i], npy ? "npy" : "pgm");
        const std::string bytes =
            npy ? encode_npy(k.maps[i], k.w[i], k.h[i])
                : encode_pgm16(k.maps[i], k.w[i], k.h[i],
                               fmt::format("libvif local VIF, frame {} scale {}: value = sample "
                                           "/ 32768",
                                           k.frame, m_.scales[i]));
        const std::string path = tmp_ + "/" + name;
        std::FILE *f = std::fopen(path.c_str(), "wb");
        bool ok = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
        const int err = errno;
        if (f && std::fclose(f) != 0) ok = false;
        if (!ok)
            throw Failure{fmt::format("--map {}: cannot write {}: {}", m_.dir, name,
                                      std::strerror(err ? err : EIO))};
        ++files_;
    }
}

void MapWriter::take(const VifScores &s, const VifMaps &maps) {
    const uint64_t idx = maps.frame_index;
    const uint64_t frame =
        frame_nums_ && idx < frame_nums_->size() ? (*frame_nums_)[size_t(idx)] : idx;
    switch (m_.frames) {
    case MapOptions::Frames::kAll:
        write(compute(s, maps, frame));
        return;
    case MapOptions::Frames::kList:
        if (!std::binary_search(m_.list.begin(), m_.list.end(), frame)) return;
        listed_.push_back(frame);
        write(compute(s, maps, frame));
        return;
    case MapOptions::Frames::kWorst: {
        auto less = [](const Kept &a, const Kept &b) {
            return heap_less(a.score, a.frame, b.score, b.frame);
        };
        if (worst_.size() == m_.worst) {
            const Kept &top = worst_.front();
            if (!heap_less(s.combined, frame, top.score, top.frame)) return; // not among them
            std::pop_heap(worst_.begin(), worst_.end(), less);
            worst_.pop_back();
        }
        worst_.push_back(compute(s, maps, frame));
        std::push_heap(worst_.begin(), worst_.end(), less);
        return;
    }
    }
}

void MapWriter::commit() {
    if (m_.frames == MapOptions::Frames::kList) {
        std::vector<uint64_t> missing;
        std::sort(listed_.begin(), listed_.end());
        std::set_difference(m_.list.begin(), m_.list.end(), listed_.begin(), listed_.end(),
                            std::back_inserter(missing));
        if (!missing.empty()) {
            const uint64_t last = frame_nums_ && !frame_nums_->empty() ? frame_nums_->back() : 0;
            throw Failure{fmt::format("--map-frames: frame {} is not in the scored clip (its "
                                      "last scored frame is {}); no maps written",
                                      missing.front(), last)};
        }
    }
    for (const Kept &k : worst_) write(k);
    worst_.clear();
    // A new or empty DIR: rename() replaces an empty folder in one step.
    if (std::rename(tmp_.c_str(), dir_.c_str()) != 0)
        throw Failure{fmt::format("--map {}: cannot move the maps into place: {}", m_.dir,
                                  std::strerror(errno))};
    committed_ = true;
}

} // namespace vifcli
