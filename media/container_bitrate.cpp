#include "container_bitrate.hpp"

#if defined(VIF_WITH_FFMPEG)
extern "C" {
#include <libavformat/avformat.h>
}
#endif

#include <filesystem>

namespace vifcli {

#if defined(VIF_WITH_FFMPEG)
std::optional<double> container_bitrate(const std::string &path) {
    // Raw YUV and Y4M carry no coded size worth a bitrate: only containers of encodes count.
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext == ".yuv" || ext == ".raw" || ext == ".y4m" || ext == ".YUV" || ext == ".Y4M")
        return std::nullopt;
    AVFormatContext *fmt = nullptr;
    if (avformat_open_input(&fmt, path.c_str(), nullptr, nullptr) < 0) return std::nullopt;
    std::optional<double> rate;
    if (avformat_find_stream_info(fmt, nullptr) >= 0) {
        const int v = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
        if (v >= 0 && fmt->streams[v]->codecpar->bit_rate > 0)
            rate = double(fmt->streams[v]->codecpar->bit_rate);
        else if (fmt->bit_rate > 0)
            rate = double(fmt->bit_rate);
        else if (fmt->duration > 0) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(path, ec);
            if (!ec) rate = double(size) * 8.0 / (double(fmt->duration) / AV_TIME_BASE);
        }
    }
    avformat_close_input(&fmt);
    return rate;
}
#else
std::optional<double> container_bitrate(const std::string &) {
    return std::nullopt;
}
#endif

} // namespace vifcli
