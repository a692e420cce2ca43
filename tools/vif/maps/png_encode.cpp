#include "maps/png_encode.hpp"

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
    // libpng's simplified API: sizes the buffer on a first call, fills it on the second.
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = img.width;
    image.height = img.height;
    image.format = PNG_FORMAT_RGB;
    // libpng's fast zlib settings: 20 frames of 720p maps (80 files) were written in half the
    // time of the default level, for files 45% larger (docs/journal/2026-11-26-feature-figures.md).
    image.flags = PNG_IMAGE_FLAG_FAST;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, nullptr, &size, 0, img.rgb.data(), 0, nullptr))
        throw std::runtime_error(std::string("PNG encoding failed: ") + image.message);
    std::string out(size, '\0');
    if (!png_image_write_to_memory(&image, out.data(), &size, 0, img.rgb.data(), 0, nullptr))
        throw std::runtime_error(std::string("PNG encoding failed: ") + image.message);
    out.resize(size);
    png_image_free(&image);
    return out;
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
