// libFuzzer target: the CLI's raw YUV reader's size logic (media/raw_y4m_source.cpp) through
// open_frame_source(): -w/-h/-p/-b from the input, and a file of the input's remaining bytes
// grown sparsely to a size from the input (up to 16 GiB, costing nothing), so that frame sizes
// up to 32768x32768 and file sizes that are or are not whole numbers of frames are reached.
// Oracle: the frame count and each delivered frame are computed here independently (frame size
// = luma + chroma as FFmpeg lays out planar YUV) and must match what the reader says.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "frame_source.hpp"
#include "fuzz_input.hpp"
#include "fuzz_memfile.hpp"

namespace {

// Bytes of one frame, as the raw reader must compute them; 0 for an unknown pixel format.
uint64_t expected_frame_bytes(const std::string& pf, uint64_t w, uint64_t h, uint32_t bitdepth) {
    const uint64_t bps = bitdepth > 8 ? 2 : 1;
    uint64_t chroma = 0;
    if (pf == "420")
        chroma = 2 * ((w + 1) / 2) * ((h + 1) / 2);
    else if (pf == "422")
        chroma = 2 * ((w + 1) / 2) * h;
    else if (pf == "444")
        chroma = 2 * w * h;
    else if (pf == "400")
        chroma = 0;
    else
        return 0;
    return bps * (w * h + chroma);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vif_fuzz::Input in(data, size);
    static const char* const kFormats[] = {"420", "422", "444", "400", "411", "444alpha", "", "42"};
    static const uint32_t kDepths[] = {8, 10, 12, 16, 0, 9, 14, 32};
    const uint8_t sel = in.u8();
    vifcli::SourceRequest req;
    req.label = "distorted";
    // Mostly small frames (fast), sometimes anything a uint16 holds (up to 65535: above the limit).
    req.width = sel & 1 ? in.u16() : 16 + in.u8() % 64;
    req.height = sel & 2 ? in.u16() : 16 + in.u8() % 64;
    req.pixel_format = kFormats[in.u8() % 8];
    req.bitdepth = kDepths[in.u8() % 8];
    req.allow_mapping = sel & 4;
    const uint64_t skip = in.u8() % 5;
    // File size: whole frames, whole frames +- a few bytes, or anything up to 16 GiB.
    const uint64_t fb = expected_frame_bytes(req.pixel_format, req.width, req.height, req.bitdepth);
    uint64_t file_size;
    const uint8_t smode = in.u8();
    switch (smode & 3) {
    case 0:
        file_size = fb * (in.u8() % 4);
        break;
    case 1:
        file_size = fb * (1 + in.u8() % 3) + (in.u8() % 7) - 3;
        break;
    case 2:
        file_size = in.u64() % (uint64_t(16) << 30);
        break;
    default:
        file_size = 0;
        break; // just the bytes below
    }
    size_t content_n = 0;
    const uint8_t* content = in.rest(&content_n);
    // A file that opens with the Y4M signature is read as Y4M whatever the request says
    // (media/frame_source.cpp): fuzz_y4m's ground, not this oracle's.
    if (content_n >= 9 && std::memcmp(content, "YUV4MPEG2", 9) == 0) return 0;
    if (file_size > (uint64_t(16) << 30)) file_size = 0; // wrapped: fb + small negative
    vif_fuzz::FdFile file;
    if (!file.regular(content, content_n, file_size)) return 0;
    const uint64_t real_size = std::max<uint64_t>(file_size, content_n);
    req.path = file.path();

    std::unique_ptr<vifcli::FrameSource> src;
    try {
        src = vifcli::open_frame_source(req);
    } catch (const vifcli::InputError&) {
        return 0; // refused with a message: fine, as long as it was not a valid whole file
    }
    // Accepted: the parameters were valid, and the size a whole number of frames.
    VIF_FUZZ_CHECK(fb != 0, "accepted pixel format '%s' bit depth %u", req.pixel_format.c_str(),
                   req.bitdepth);
    VIF_FUZZ_CHECK(req.width >= 16 && req.width <= 32768 && req.height >= 16 && req.height <= 32768,
                   "accepted %ux%u", req.width, req.height);
    VIF_FUZZ_CHECK(req.bitdepth == 8 || req.bitdepth == 10 || req.bitdepth == 12 ||
                       req.bitdepth == 16,
                   "accepted bit depth %u", req.bitdepth);
    const vifcli::VideoInfo& vi = src->info();
    VIF_FUZZ_CHECK(real_size % fb == 0, "accepted a size of %llu with %llu-byte frames",
                   (unsigned long long)real_size, (unsigned long long)fb);
    VIF_FUZZ_CHECK(vi.frames && *vi.frames == real_size / fb, "frame count");
    VIF_FUZZ_CHECK(vi.width == req.width && vi.height == req.height && vi.bitdepth == req.bitdepth,
                   "video info differs from the request");
    try {
        const uint64_t skipped = src->skip(skip);
        VIF_FUZZ_CHECK(skipped == std::min<uint64_t>(skip, *vi.frames), "skipped %llu of %llu",
                       (unsigned long long)skipped, (unsigned long long)skip);
        if (vi.luma_bytes() > (4u << 20)) return 0;
        std::vector<uint8_t> plane(vi.luma_bytes());
        for (uint64_t f = skipped; f < std::min<uint64_t>(*vi.frames, skipped + 2); ++f) {
            const uint8_t* p = nullptr;
            if (src->supports_mapping()) {
                p = src->map_luma();
                VIF_FUZZ_CHECK(p != nullptr, "frame %llu missing", (unsigned long long)f);
            } else {
                VIF_FUZZ_CHECK(src->read_luma(plane.data(), static_cast<ptrdiff_t>(vi.row_bytes())),
                               "frame %llu missing", (unsigned long long)f);
                p = plane.data();
            }
            // Frame f's luma starts at f * fb: the input's bytes there, zeros in the hole.
            for (size_t i = 0; i < vi.luma_bytes(); i += 97) {
                const uint64_t off = f * fb + i;
                const uint8_t want = off < content_n ? content[off] : 0;
                VIF_FUZZ_CHECK(p[i] == want, "frame %llu byte %zu", (unsigned long long)f, i);
            }
        }
    } catch (const vifcli::InputError& e) {
        VIF_FUZZ_CHECK(false, "a whole file failed while reading: %s", e.what());
    }
    return 0;
}
