// open_frame_source(): picks the source for an input.
#include "frame_source.hpp"
#include "input_file.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "ffmpeg_source.hpp"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace vifcli {

namespace {

std::string lower_extension(const std::string &path) {
    size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

} // namespace

std::unique_ptr<FrameSource> open_frame_source(const SourceRequest &req) {
    const std::string ext = lower_extension(req.path);
    const bool raw_params = req.width || req.height;
    const bool raw_name = ext == "yuv" || ext == "raw";
    // Every input is opened once and read once from its start: the bytes looked at here to
    // decide what it is stay in the file's window (InputFile keeps the first 64 KiB of a pipe
    // re-readable) and are read again by the source chosen, whatever kind of file it is.
    auto file = std::make_unique<InputFile>(req.path, req.label);
    char head[4096];
    const size_t n = file->read_at(0, head, sizeof head);
    // Y4M by signature, whatever the name: the built-in reader reads only luma.
    if (n >= 10 && std::memcmp(head, "YUV4MPEG2 ", 10) == 0)
        return open_y4m_source(req, std::move(file));
    if (n >= 9 && std::memcmp(head, "YUV4MPEG2", 9) == 0)
        throw InputError(fmt::format("{}: broken Y4M header: no parameters after the "
                                     "YUV4MPEG2 signature",
                                     file->name()));
    if (n == 0)
        throw InputError(
            fmt::format("{}: the {} is empty", file->name(), file->seekable() ? "file" : "input"));
#if defined(VIF_WITH_FFMPEG)
    // Anything not named raw goes to FFmpeg, unless raw sizes were given and FFmpeg does not
    // recognise the content (headerless YUV under another name).
    if (!raw_name && (!raw_params || ffmpeg_recognises(head, n)))
        return open_ffmpeg_source(req, std::move(file));
#else
    if (!raw_name && !raw_params)
        throw InputError(fmt::format(
            "{}: not a Y4M file, and raw YUV needs -w/-h/-p/-b (this build has no FFmpeg input)",
            file->name()));
#endif
    return open_raw_source(req, std::move(file));
}

} // namespace vifcli
