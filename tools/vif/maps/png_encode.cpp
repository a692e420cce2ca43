#include "maps/png_encode.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#if VIF_WITH_PNG
#include <libdeflate.h>
#endif

namespace vifcli {

#if VIF_WITH_PNG
namespace {

// The PNG file format (ISO/IEC 15948, the W3C PNG specification): an 8-byte signature, then
// chunks, each a 4-byte big-endian length, a 4-byte type, the data and a CRC-32 of type and
// data. An 8-bit RGB picture needs IHDR, its pixels' zlib stream in IDAT, and IEND.
constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr size_t kChunkOverhead = 12; // length, type, CRC

void put_be32(unsigned char *p, uint32_t v) {
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
}

// Writes a chunk whose data already lies at p + 8 (`len` bytes); returns the byte after it.
unsigned char *close_chunk(unsigned char *p, const char type[4], uint32_t len) {
    put_be32(p, len);
    std::memcpy(p + 4, type, 4);
    put_be32(p + 8 + len, uint32_t(libdeflate_crc32(0, p + 4, size_t(len) + 4)));
    return p + kChunkOverhead + len;
}

// Each row is stored behind a filter-type byte (PNG filter method 0). The filter is what makes
// the maps compress: they are drawn by nearest neighbour (every row of a coarser scale's block
// repeats the one above, every pixel its left neighbour), and the legend is flat bands.
// `up` is the prior row (nullptr for the first: zeros); `same` says src equals it byte for byte;
// `bpp` is the bytes of a pixel (3 for RGB, 1 for palette indices): Sub and Paeth's left byte.
void filter_row(const uint8_t *src, const uint8_t *up, bool same, size_t row, size_t bpp,
                PngFilter filter, unsigned char *o) {
    switch (filter) {
    case PngFilter::kNone:
        o[0] = 0;
        std::memcpy(o + 1, src, row);
        break;
    case PngFilter::kSub: // each byte less the byte of the pixel to its left (0 off the edge)
        o[0] = 1;
        for (size_t i = 0; i < row && i < bpp; ++i) o[1 + i] = src[i];
        for (size_t i = bpp; i < row; ++i) o[1 + i] = uint8_t(src[i] - src[i - bpp]);
        break;
    case PngFilter::kUp: // each byte less the byte above it
        o[0] = 2;
        if (up && same)
            std::memset(o + 1, 0, row); // a repeated row: no subtracting
        else if (up)
            for (size_t i = 0; i < row; ++i) o[1 + i] = uint8_t(src[i] - up[i]);
        else
            std::memcpy(o + 1, src, row);
        break;
    case PngFilter::kPaeth: { // less whichever of left, above, upper-left is nearest a+b-c
        o[0] = 4;
        for (size_t i = 0; i < row; ++i) {
            const int a = i >= bpp ? src[i - bpp] : 0;
            const int b = up ? up[i] : 0;
            const int c = up && i >= bpp ? up[i - bpp] : 0;
            const int p = a + b - c;
            const int pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p,
                      pc = p > c ? p - c : c - p;
            const int pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            o[1 + i] = uint8_t(src[i] - pred);
        }
        break;
    }
    }
}

// A thread's buffer that grows and is never cleared: every byte used is written first (a
// zero-filled vector touched all of a 720p picture's 2.8 MB deflate bound, a page fault a 4 KB,
// where the stream takes ~200 KB).
struct Scratch {
    std::unique_ptr<unsigned char[]> data;
    size_t size = 0;
    unsigned char *get(size_t n) {
        if (size < n) {
            data.reset(new unsigned char[n]);
            size = n;
        }
        return data.get();
    }
};

struct CompressorFree {
    void operator()(libdeflate_compressor *c) const { libdeflate_free_compressor(c); }
};

} // namespace

bool png_available() {
    return true;
}

std::string encode_png(const RgbImage &img, const PngSettings &settings) {
    if (img.rgb.size() != size_t(img.width) * img.height * 3)
        throw std::runtime_error("PNG encoding failed: the picture is empty or too large");
    const size_t row = size_t(img.width) * 3;
    return encode_png(
        img.width, img.height, nullptr,
        [&](uint32_t y, bool &same) {
            same = false;
            return img.rgb.data() + size_t(y) * row;
        },
        settings);
}

std::string encode_png(const IndexedImage &img, const Palette &palette,
                       const PngSettings &settings) {
    if (img.index.size() != size_t(img.width) * img.height)
        throw std::runtime_error("PNG encoding failed: the picture is empty or too large");
    for (uint8_t i : img.index)
        if (i >= palette.size())
            throw std::runtime_error("PNG encoding failed: an index past the palette");
    return encode_png(
        img.width, img.height, &palette,
        [&](uint32_t y, bool &same) {
            same = false;
            return img.index.data() + size_t(y) * img.width;
        },
        settings);
}

std::string encode_png(uint32_t width, uint32_t height, const Palette *palette,
                       const PngRowSource &rows, const PngSettings &settings) {
    if (width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu)
        throw std::runtime_error("PNG encoding failed: the picture is empty or too large");
    if (palette && (palette->empty() || palette->size() > 256))
        throw std::runtime_error("PNG encoding failed: a palette holds 1 to 256 colours");
    const size_t bpp = palette ? 1 : 3;
    const size_t row = size_t(width) * bpp;
    const size_t raw_size = (row + 1) * height;

    // Per thread, made once and reused: a compressor (a few hundred KB of tables) and the
    // buffers of the filtered rows and of the compressed stream (a fresh 2.7 MB for each 720p
    // picture was page faults and clearing on every file).
    thread_local std::unique_ptr<libdeflate_compressor, CompressorFree> compressor;
    thread_local int compressor_level = -1;
    thread_local Scratch raw, packed;
    if (compressor_level != settings.level) {
        compressor.reset(libdeflate_alloc_compressor(settings.level));
        compressor_level = compressor ? settings.level : -1;
        if (!compressor) throw std::runtime_error("PNG encoding failed: no compressor (level)");
    }
    unsigned char *filtered = raw.get(raw_size);
    const uint8_t *up = nullptr;
    for (uint32_t y = 0; y < height; ++y) {
        bool same = false;
        const uint8_t *src = rows(y, same);
        filter_row(src, up, same && up, row, bpp, settings.filter,
                   filtered + size_t(y) * (row + 1));
        up = src;
    }
    const size_t bound = libdeflate_zlib_compress_bound(compressor.get(), raw_size);
    if (bound > 0x7fffffffu)
        throw std::runtime_error("PNG encoding failed: the picture is too large");
    unsigned char *stream = packed.get(bound);
    const size_t idat_len =
        libdeflate_zlib_compress(compressor.get(), filtered, raw_size, stream, bound);
    if (idat_len == 0) throw std::runtime_error("PNG encoding failed: deflate found no room");

    const size_t plte_len = palette ? palette->size() * 3 : 0;
    std::string file(sizeof kSignature + kChunkOverhead + 13 +
                         (palette ? kChunkOverhead + plte_len : 0) + kChunkOverhead + idat_len +
                         kChunkOverhead,
                     '\0');
    auto *p = reinterpret_cast<unsigned char *>(&file[0]);
    std::memcpy(p, kSignature, sizeof kSignature);
    p += sizeof kSignature;

    unsigned char *ihdr = p + 8;
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;                // bits a sample (a palette index: a byte)
    ihdr[9] = palette ? 3 : 2;  // colour type: palette, or RGB
    ihdr[10] = 0;               // compression method: deflate (zlib)
    ihdr[11] = 0;               // filter method 0 (a filter type byte a row)
    ihdr[12] = 0;               // no interlace
    p = close_chunk(p, "IHDR", 13);
    if (palette) { // PLTE: the colours, 3 bytes each, before IDAT
        for (size_t i = 0; i < palette->size(); ++i)
            std::memcpy(p + 8 + 3 * i, (*palette)[i].data(), 3);
        p = close_chunk(p, "PLTE", uint32_t(plte_len));
    }
    std::memcpy(p + 8, stream, idat_len);
    p = close_chunk(p, "IDAT", uint32_t(idat_len));
    close_chunk(p, "IEND", 0);
    return file;
}
#else
bool png_available() {
    return false;
}

std::string encode_png(const RgbImage &, const PngSettings &) {
    throw std::runtime_error(
        "this vif was built without libdeflate (libdeflate-dev): no PNG output");
}

std::string encode_png(const IndexedImage &, const Palette &, const PngSettings &) {
    throw std::runtime_error(
        "this vif was built without libdeflate (libdeflate-dev): no PNG output");
}

std::string encode_png(uint32_t, uint32_t, const Palette *, const PngRowSource &,
                       const PngSettings &) {
    throw std::runtime_error(
        "this vif was built without libdeflate (libdeflate-dev): no PNG output");
}
#endif

} // namespace vifcli
