// Internal (not installed): demux + decode any FFmpeg input into luma planes at the native bit
// depth. Used by the vif CLI's FFmpeg FrameSource and by tests/ffmpeg. Converts pixels only when
// the decoded format has no luma plane libvif can take as is (packed YUV, RGB, big-endian, ...).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vif/vif.h"

struct AVFrame;
struct AVIOContext;

namespace vif::ffmpeg {

class VideoReader {
public:
    VideoReader();
    ~VideoReader();
    VideoReader(const VideoReader&) = delete;
    VideoReader& operator=(const VideoReader&) = delete;

    // Opens path, picks its best video stream and decodes the first frame (so that the size
    // and bit depth are known). threads: decoder threads, 0 = FFmpeg's automatic choice.
    // path "-" reads standard input. io, when given, is read instead of opening path (a custom
    // AVIOContext the caller owns and keeps alive until the reader is destroyed; path is then
    // only a name). On failure returns false and sets *error to one line (without the file
    // name: callers prefix it).
    bool open(const std::string& path, int threads, std::string* error, AVIOContext* io = nullptr);

    uint32_t width() const;
    uint32_t height() const;
    uint32_t bitdepth() const;
    // "h264 (yuv420p) in matroska,webm", for messages and --verbose output.
    std::string description() const;
    // The stream's average frame rate as a fraction; false (and 0/0) when the container does
    // not say.
    bool frame_rate(uint32_t* num, uint32_t* den) const;
    // Frame count the container announces, or -1 when it does not say.
    int64_t frame_count_hint() const;

    // The next frame's luma plane, valid until the next call to next() or until the reader is
    // destroyed. Returns 1 with a frame, 0 at the end of the stream, -1 on error (*error set;
    // e.g. a decoding error or a frame whose size or bit depth differs from the first one).
    int next(VifPicture* picture, std::string* error);
    // The decoded AVFrame behind the last picture (before any conversion), or null.
    const AVFrame* frame() const;
    // Frames returned by next() so far.
    uint64_t frames_read() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Cheap content probe: whether FFmpeg recognises path as a container or stream it can demux
// (false for headerless raw YUV). Does not decode.
bool probe_is_media(const std::string& path);
// The same on bytes already read (the first bytes of an input; up to 4 KiB is plenty).
bool probe_is_media(const void* head, size_t size);

} // namespace vif::ffmpeg
