#include "maps/png_encode.hpp"

#include <memory>
#include <stdexcept>

#if VIF_WITH_PNG
#include <png.h>
#endif

namespace vifcli {

#if VIF_WITH_PNG
bool png_available() {
    return true;
}

std::string encode_png(const RgbImage &img) {
    // libpng's simplified API, one pass into a buffer of libpng's bound for the image (a first
    // call with no buffer to learn the size compresses the whole image too).
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = img.width;
    image.height = img.height;
    image.format = PNG_FORMAT_RGB;
    // libpng's fast zlib settings: 20 frames of 720p maps (80 files) were written in half the
    // time of the default level, for files 45% larger (docs/journal/2026-11-26-feature-figures.md).
    // No other filter, level or strategy of the classic API encoded 1080p maps faster by more
    // than the spread (no filter and Z_RLE took twice as long: docs/journal/2026-11-26-vif-maps.md,
    // session 8).
    image.flags = PNG_IMAGE_FLAG_FAST;
    png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
    std::unique_ptr<char[]> buf(new char[size]); // not cleared: libpng writes what is used
    const bool ok =
        png_image_write_to_memory(&image, buf.get(), &size, 0, img.rgb.data(), 0, nullptr);
    png_image_free(&image);
    if (!ok) throw std::runtime_error(std::string("PNG encoding failed: ") + image.message);
    return std::string(buf.get(), size);
}
#else
bool png_available() {
    return false;
}

std::string encode_png(const RgbImage &) {
    throw std::runtime_error("this vif was built without libpng (libpng-dev): no PNG output");
}
#endif

} // namespace vifcli
