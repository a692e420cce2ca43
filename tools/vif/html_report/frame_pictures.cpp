#include "html_report/frame_pictures.hpp"

#include "frame_source.hpp"
#include "maps/heat_image.hpp"
#include "maps/png_encode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace vifcli {
namespace {

// A box-filtered copy at most max_width wide (the whole picture when it is narrower).
RgbImage shrink(const RgbImage &img, uint32_t max_width) {
    if (img.width <= max_width) return img;
    const uint32_t f = (img.width + max_width - 1) / max_width;
    RgbImage o;
    o.width = img.width / f;
    o.height = std::max(1u, img.height / f);
    o.rgb.resize(size_t(o.width) * o.height * 3);
    for (uint32_t y = 0; y < o.height; ++y)
        for (uint32_t x = 0; x < o.width; ++x)
            for (int c = 0; c < 3; ++c) {
                uint32_t sum = 0;
                for (uint32_t dy = 0; dy < f; ++dy)
                    for (uint32_t dx = 0; dx < f; ++dx)
                        sum += img.rgb[((size_t(y) * f + dy) * img.width + x * f + dx) * 3 + c];
                o.rgb[(size_t(y) * o.width + x) * 3 + c] = uint8_t((sum + f * f / 2) / (f * f));
            }
    return o;
}

// A luma plane as a gray picture (the top 8 bits of deeper samples).
RgbImage gray(const std::vector<uint8_t> &plane, const VideoInfo &vi) {
    RgbImage img;
    img.width = vi.width;
    img.height = vi.height;
    img.rgb.resize(size_t(vi.width) * vi.height * 3);
    const bool wide = vi.bitdepth > 8;
    const bool msb = vi.picture_flags & VIF_PICTURE_MSB_ALIGNED;
    for (size_t i = 0; i < size_t(vi.width) * vi.height; ++i) {
        uint8_t v = plane[i];
        if (wide) {
            const unsigned s = plane[2 * i] | unsigned(plane[2 * i + 1]) << 8;
            v = uint8_t(msb ? s >> 8 : s >> (vi.bitdepth - 8));
        }
        img.rgb[3 * i] = img.rgb[3 * i + 1] = img.rgb[3 * i + 2] = v;
    }
    return img;
}

std::string data_uri(const RgbImage &img) {
    return "data:image/png;base64," + base64(encode_png(img));
}

} // namespace

std::string base64(const std::string &bytes) {
    static const char *const kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string o;
    o.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const size_t n = std::min<size_t>(3, bytes.size() - i);
        uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        if (n > 1) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
        if (n > 2) v |= uint8_t(bytes[i + 2]);
        o += kAlphabet[(v >> 18) & 63];
        o += kAlphabet[(v >> 12) & 63];
        o += n > 1 ? kAlphabet[(v >> 6) & 63] : '=';
        o += n > 2 ? kAlphabet[v & 63] : '=';
    }
    return o;
}

std::vector<FramePictures> frame_pictures(const PairInputs &in, VifVariant variant,
                                          std::vector<uint64_t> frames, uint32_t max_width) {
    std::sort(frames.begin(), frames.end());
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
    std::vector<FramePictures> out;
    if (frames.empty()) return out;
    auto open = [&](const std::string &path, const char *label) {
        SourceRequest q;
        q.path = path;
        q.label = label;
        q.width = in.width;
        q.height = in.height;
        q.bitdepth = in.bitdepth;
        q.pixel_format = in.pixel_format;
        return open_frame_source(q);
    };
    std::unique_ptr<FrameSource> ref = open(in.reference, "reference");
    std::unique_ptr<FrameSource> dis = open(in.distorted, "distorted");
    const VideoInfo ri = ref->info(), di = dis->info();
    if (ri.width != di.width || ri.height != di.height || ri.bitdepth != di.bitdepth)
        throw std::runtime_error(fmt::format(
            "{} is {}x{} {}-bit and {} {}x{} {}-bit: pictures need inputs of one size and depth",
            in.reference, ri.width, ri.height, ri.bitdepth, in.distorted, di.width, di.height,
            di.bitdepth));
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.variant = variant;
    cfg.backend = VIF_BACKEND_CPU;
    cfg.max_width = ri.width;
    cfg.max_height = ri.height;
    cfg.bitdepth = ri.bitdepth;
    cfg.threads = 1;
    cfg.maps = 1;
    VifContext *ctx = nullptr;
    if (vif_create(&ctx, &cfg) != VIF_OK)
        throw std::runtime_error(std::string("the map's VIF context: ") + vif_last_error());
    std::unique_ptr<VifContext, void (*)(VifContext *)> guard(ctx, vif_destroy);
    std::vector<uint8_t> rp(ri.luma_bytes()), dp(di.luma_bytes());
    uint64_t at = 0; // the next frame each source delivers
    for (uint64_t f : frames) {
        if (ref->skip(f - at) != f - at || dis->skip(f - at) != f - at ||
            !ref->read_luma(rp.data(), ptrdiff_t(ri.row_bytes())) ||
            !dis->read_luma(dp.data(), ptrdiff_t(di.row_bytes())))
            throw std::runtime_error(
                fmt::format("frame {} is not in {} and {}", f, in.reference, in.distorted));
        at = f + 1;
        const VifPicture r{rp.data(),   ptrdiff_t(ri.row_bytes()), ri.width, ri.height,
                           ri.bitdepth, ri.picture_flags};
        const VifPicture d{dp.data(),   ptrdiff_t(di.row_bytes()), di.width, di.height,
                           di.bitdepth, di.picture_flags};
        VifScores s;
        VifMaps m;
        if (vif_submit(ctx, &r, &d, nullptr) != VIF_OK ||
            vif_receive_maps(ctx, &s, &m, 1) != VIF_OK)
            throw std::runtime_error(std::string("the map of frame ") + std::to_string(f) + ": " +
                                     vif_last_error());
        const VifScaleMap &sm = m.scale[0];
        std::vector<float> local(size_t(sm.width) * sm.height);
        if (vif_local_map(&sm, local.data()) != VIF_OK)
            throw std::runtime_error(std::string("the local map: ") + vif_last_error());
        FramePictures p;
        p.frame = f;
        p.reference = data_uri(shrink(gray(rp, ri), max_width));
        p.distorted = data_uri(shrink(gray(dp, di), max_width));
        p.map = data_uri(
            shrink(draw_heat(local, sm.width, sm.height, 0, ri.width, ri.height), max_width));
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace vifcli
