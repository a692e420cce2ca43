// Frame sources (media/, used by the `vif` CLI, the Python module and the tests): where the luma
// planes scored come from.
//
// A FrameSource delivers the luma plane of one frame after another, in display order, into a
// buffer the caller owns. The CLI runs each source on a reader thread of its own (see
// prefetch.hpp), so a source is used from one thread at a time but not always the same one, and
// must not touch global state.
//
// Built in: raw planar YUV (sizes from the command line) and YUV4MPEG2 (Y4M, sizes from its
// header), both in raw_y4m_source.cpp. Both touch only the luma bytes of each frame (the chroma
// planes of a regular file are never read). A regular file is memory-mapped and its luma planes
// handed out in place (map_luma); a pipe is read with read() into the caller's buffers. Neither
// allocates per frame.
//
// Adding a source (e.g. FFmpeg-decoded input):
//   1. Implement FrameSource in a file of its own (media/ffmpeg_source.cpp).
//   2. Define the factory declared below (open_ffmpeg_source). media/CMakeLists.txt compiles
//      ffmpeg_source.cpp into vif_media when VIF_WITH_FFMPEG is on, links PkgConfig::FFMPEG and
//      defines VIF_WITH_FFMPEG=1 for vif_media and everything that links it.
//   3. open_frame_source() (frame_source.cpp) opens the input once (InputFile, also for pipes,
//      FIFOs, /dev/stdin and process substitution), looks at its first 4 KiB and picks, in
//      order: the built-in Y4M reader for any input starting "YUV4MPEG2 "; raw for names ending
//      in .yuv/.raw; FFmpeg for other inputs unless -w/-h were given and ffmpeg_recognises() (in
//      ffmpeg_source.hpp) says those bytes are not media; raw otherwise. The source chosen reads
//      the input from its start again (the bytes looked at are kept), never from where the
//      look stopped.
// Report problems by throwing InputError with a one-line message that names the input
// (SourceRequest::label, e.g. "reference 'a.mp4': ..."); the CLI prints it and exits non-zero.
#ifndef VIF_TOOLS_FRAME_SOURCE_HPP
#define VIF_TOOLS_FRAME_SOURCE_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace vifcli {

/** A problem with an input (missing file, broken header, truncated frame...): one line. */
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/** What a source delivers. Fixed for the life of the source. */
struct VideoInfo {
    uint32_t width = 0;             ///< luma samples per row
    uint32_t height = 0;            ///< luma rows
    uint32_t bitdepth = 0;          ///< 8 (one byte a sample) or 10, 12, 16 (LE 16-bit words)
    uint32_t picture_flags = 0;     ///< VifPicture flags for the planes (VIF_PICTURE_MSB_ALIGNED)
    std::optional<uint64_t> frames; ///< frame count if known up front (raw, most Y4M); else empty
    std::string format;             ///< short description for messages, e.g. "raw 4:2:0 8-bit"
    uint32_t rate_num = 0, rate_den = 0; ///< frames a second, rate_num / rate_den; 0: unknown

    uint32_t bytes_per_sample() const { return bitdepth > 8 ? 2u : 1u; }
    size_t row_bytes() const { return size_t(width) * bytes_per_sample(); }
    size_t luma_bytes() const { return row_bytes() * height; }
};

/** What the user asked for one input. */
struct SourceRequest {
    std::string path;  ///< file name; "-" is standard input
    std::string label; ///< "reference" or "distorted", for messages
    // Raw-video parameters from the command line; 0 / empty when not given. For Y4M (and any
    // self-describing input) they are optional and, when given, must agree with the file.
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t bitdepth = 0;
    std::string pixel_format;  ///< "420", "422", "444" or "400"
    bool allow_mapping = true; ///< false: never offer map_luma (--no-mmap)
    bool verbose = false;      ///< --verbose: let FFmpeg's own error lines through
    /// Encoded inputs: libavcodec threads of the decoder, 0 = FFmpeg's choice (one per core).
    /// Many inputs decoded at once (a catalogue) do better with a share of the cores each.
    int decoder_threads = 0;
};

class FrameSource {
public:
    virtual ~FrameSource() = default;

    virtual const VideoInfo &info() const = 0;

    /**
     * Reads the luma plane of the next frame into dst: info().height rows of info().row_bytes()
     * bytes, `stride` bytes apart (stride >= row_bytes()). Returns false, writing nothing, when
     * the stream ended cleanly before this frame; throws InputError for anything else (an
     * incomplete last frame, a read error, a bad frame header). Must not allocate per call.
     */
    virtual bool read_luma(uint8_t *dst, ptrdiff_t stride) = 0;

    /** Skips up to n frames without delivering them; returns how many it skipped (fewer only at
     *  the end of the stream). Throws InputError like read_luma. */
    virtual uint64_t skip(uint64_t n) = 0;

    /**
     * Optional zero-copy path. When supports_mapping() is true the CLI calls map_luma() instead
     * of read_luma(): it returns the next frame's luma plane, packed (row_bytes() apart), in
     * memory the source keeps readable until it is destroyed (a memory mapping of a regular
     * file), or nullptr at a clean end of the stream; errors as read_luma. The CLI hands that
     * pointer straight to vif_submit, which copies it: one copy per plane instead of two.
     */
    virtual bool supports_mapping() const { return false; }
    virtual const uint8_t *map_luma() { return nullptr; }
};

/**
 * Opens an input, choosing the source as described at the top of this file. Throws InputError
 * (missing or unreadable file, bad sizes, size not a whole number of frames, broken header...).
 */
std::unique_ptr<FrameSource> open_frame_source(const SourceRequest &req);

#if defined(VIF_WITH_FFMPEG)
class InputFile;
/** FFmpeg-decoded input (media/ffmpeg_source.cpp, owned by the FFmpeg integration). `file`
 *  is the input, already opened and read from (its first bytes are re-readable): a regular file
 *  is reopened by FFmpeg by name (to seek), anything else is read through `file`. */
std::unique_ptr<FrameSource> open_ffmpeg_source(const SourceRequest &req,
                                                std::unique_ptr<InputFile> file);
#endif

/** Checks a frame size the way libvif will (16..32768 each way); throws InputError naming
 *  `what` ("reference", "-w/-h") otherwise. */
void check_frame_size(const std::string &what, uint64_t width, uint64_t height);

/** Whether `bitdepth` is one libvif scores (8, 10, 12, 16). */
bool supported_bitdepth(uint32_t bitdepth);

/** A self-describing (decoded) input's size and bit depth: ones libvif scores, and equal to any
 *  -w/-h/-b given on the command line; throws InputError naming `name` otherwise. */
void check_decoded_info(const std::string &name, const VideoInfo &info, const SourceRequest &req);

} // namespace vifcli

#endif // VIF_TOOLS_FRAME_SOURCE_HPP
