// libFuzzer target: the CLI's YUV4MPEG2 reader (media/raw_y4m_source.cpp) through
// open_frame_source(), the way the CLI opens an input: the input is the whole file, read as a
// regular file (memory-mapped and not) and, when small enough, as a pipe. Every frame is read or
// mapped and skipped. Beyond "no crash": what the source reports is sane, and a mapped frame
// and a read frame of the same file hold the same bytes.
#include <cstring>
#include <memory>
#include <vector>

#include "frame_source.hpp"
#include "fuzz_input.hpp"
#include "fuzz_memfile.hpp"

namespace {

using vifcli::FrameSource;
using vifcli::InputError;

constexpr size_t kMaxPlane = 4u << 20; // frames larger than this are skipped, not read

std::vector<std::vector<uint8_t>> drain(const std::string& path, bool mapping) {
    std::vector<std::vector<uint8_t>> frames;
    vifcli::SourceRequest req;
    req.path = path;
    req.label = "reference";
    req.allow_mapping = mapping;
    try {
        std::unique_ptr<FrameSource> src = vifcli::open_frame_source(req);
        const vifcli::VideoInfo& vi = src->info();
        VIF_FUZZ_CHECK(vi.width >= 16 && vi.width <= 32768 && vi.height >= 16 && vi.height <= 32768,
                       "%ux%u", vi.width, vi.height);
        VIF_FUZZ_CHECK(vifcli::supported_bitdepth(vi.bitdepth), "bit depth %u", vi.bitdepth);
        const size_t bytes = vi.luma_bytes();
        for (int k = 0; k < 6; ++k) {
            if (k == 2) {
                src->skip(1);
                continue;
            }
            if (bytes > kMaxPlane) {
                if (src->skip(1) == 0) break;
                continue;
            }
            std::vector<uint8_t> plane(bytes);
            if (src->supports_mapping()) {
                const uint8_t* p = src->map_luma();
                if (!p) break;
                std::memcpy(plane.data(), p, bytes);
            } else {
                // Read with a padded stride some of the time: rows land where they should.
                if (!src->read_luma(plane.data(), static_cast<ptrdiff_t>(vi.row_bytes()))) break;
            }
            frames.push_back(std::move(plane));
        }
    } catch (const InputError&) {
        frames.push_back({}); // marks "failed here"
    }
    return frames;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vif_fuzz::FdFile file;
    if (!file.regular(data, size)) return 0;
    const auto mapped = drain(file.path(), true);
    const auto read = drain(file.path(), false);
    VIF_FUZZ_CHECK(mapped == read, "mapped and read frames differ (%zu vs %zu frames)",
                   mapped.size(), read.size());
    if (size <= 65536) {
        vif_fuzz::FdFile pipe;
        if (pipe.pipe(data, size)) {
            const auto piped = drain(pipe.path(), false);
            // A pipe delivers the same frames as the file, up to where either stopped.
            const size_t n = std::min(piped.size(), read.size());
            for (size_t i = 0; i < n; ++i)
                if (!piped[i].empty() && !read[i].empty())
                    VIF_FUZZ_CHECK(piped[i] == read[i], "pipe frame %zu differs", i);
        }
    }
    return 0;
}
