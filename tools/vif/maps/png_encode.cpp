#include "maps/png_encode.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#if VIF_WITH_PNG
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
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
    put_be32(p + 8 + len, crc32_gzip_refl(0, p + 4, uint64_t(len) + 4)); // PNG's (zlib's) CRC-32
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

// A thread's buffer that grows and is never cleared: every byte used is written first.
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

// The filtered rows go to the compressor in chunks of about this many bytes (at least a row):
// a writer's rows stay in its cache (not a whole picture's 1 MB of filtered rows at 720p).
constexpr size_t kChunk = size_t(1) << 18;

// The level buffer ISA-L's igzip needs at each level (its own defaults).
size_t level_buffer_size(int level) {
    switch (level) {
    case 0:
        return ISAL_DEF_LVL0_DEFAULT;
    case 1:
        return ISAL_DEF_LVL1_DEFAULT;
    case 2:
        return ISAL_DEF_LVL2_DEFAULT;
    default:
        return ISAL_DEF_LVL3_DEFAULT;
    }
}

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
    if (settings.level < 0 || settings.level > ISAL_DEF_MAX_LEVEL)
        throw std::runtime_error("PNG encoding failed: no such compression level");
    const size_t bpp = palette ? 1 : 3;
    const size_t row = size_t(width) * bpp;
    if (row + 1 > 0x7fffffffu)
        throw std::runtime_error("PNG encoding failed: the picture is too large");
    const size_t raw_size = (row + 1) * height;

    // The chunks before IDAT, then IDAT's length and type; its data (the zlib stream) is
    // written straight after them as it is compressed, in a file that grows as needed.
    const size_t plte_len = palette ? palette->size() * 3 : 0;
    const size_t head =
        sizeof kSignature + kChunkOverhead + 13 + (palette ? kChunkOverhead + plte_len : 0);
    std::string file(head + 8 + raw_size / 4 + 4096, '\0');
    auto *p = reinterpret_cast<unsigned char *>(&file[0]);
    std::memcpy(p, kSignature, sizeof kSignature);
    p += sizeof kSignature;
    unsigned char *ihdr = p + 8;
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;               // bits a sample (a palette index: a byte)
    ihdr[9] = palette ? 3 : 2; // colour type: palette, or RGB
    ihdr[10] = 0;              // compression method: deflate (zlib)
    ihdr[11] = 0;              // filter method 0 (a filter type byte a row)
    ihdr[12] = 0;              // no interlace
    p = close_chunk(p, "IHDR", 13);
    if (palette) { // PLTE: the colours, 3 bytes each, before IDAT
        for (size_t i = 0; i < palette->size(); ++i)
            std::memcpy(p + 8 + 3 * i, (*palette)[i].data(), 3);
        close_chunk(p, "PLTE", uint32_t(plte_len));
    }

    // Per thread, made once and reused: the compressor's state and level buffer, and the
    // buffer of a chunk of filtered rows.
    thread_local std::unique_ptr<isal_zstream> stream;
    thread_local std::unique_ptr<unsigned char[]> level_buf;
    thread_local size_t level_buf_size = 0;
    thread_local Scratch chunk;
    if (!stream) stream.reset(new isal_zstream);
    const size_t need = level_buffer_size(settings.level);
    if (level_buf_size < need) {
        level_buf.reset(new unsigned char[need]);
        level_buf_size = need;
    }
    isal_zstream &z = *stream;
    isal_deflate_init(&z);
    z.gzip_flag = IGZIP_ZLIB; // the zlib header and Adler-32 PNG's IDAT holds
    z.level = uint32_t(settings.level);
    z.level_buf = level_buf.get();
    z.level_buf_size = uint32_t(level_buf_size);
    z.flush = NO_FLUSH;
    size_t out = head + 8; // the stream's end in `file`
    auto compress = [&](const unsigned char *in, size_t n, bool last) {
        z.next_in = const_cast<unsigned char *>(in);
        z.avail_in = uint32_t(n);
        z.end_of_stream = last ? 1 : 0;
        for (;;) {
            if (file.size() - out < 4096 + n / 2) file.resize(file.size() * 2);
            z.next_out = reinterpret_cast<unsigned char *>(&file[out]);
            z.avail_out = uint32_t(std::min<size_t>(file.size() - out, 0x7fffffffu));
            const size_t before = z.avail_out;
            if (isal_deflate(&z) != COMP_OK)
                throw std::runtime_error("PNG encoding failed: the compressor refused the rows");
            out += before - z.avail_out;
            if (z.avail_in == 0 && (!last || z.internal_state.state == ZSTATE_END)) return;
        }
    };
    const size_t rows_a_chunk = std::max<size_t>(1, kChunk / (row + 1));
    unsigned char *filtered = chunk.get(std::min<size_t>(rows_a_chunk, height) * (row + 1));
    const uint8_t *up = nullptr;
    size_t in_chunk = 0;
    for (uint32_t y = 0; y < height; ++y) {
        bool same = false;
        const uint8_t *src = rows(y, same);
        filter_row(src, up, same && up, row, bpp, settings.filter, filtered + in_chunk * (row + 1));
        up = src;
        if (++in_chunk == rows_a_chunk || y + 1 == height) {
            compress(filtered, in_chunk * (row + 1), y + 1 == height);
            in_chunk = 0;
        }
    }
    const size_t idat_len = out - head - 8;
    if (idat_len > 0x7fffffffu)
        throw std::runtime_error("PNG encoding failed: the picture is too large");
    file.resize(out + 4 + kChunkOverhead); // IDAT's CRC, IEND
    p = reinterpret_cast<unsigned char *>(&file[head]);
    p = close_chunk(p, "IDAT", uint32_t(idat_len));
    close_chunk(p, "IEND", 0);
    return file;
}
#else
bool png_available() {
    return false;
}

std::string encode_png(const RgbImage &, const PngSettings &) {
    throw std::runtime_error("this vif was built without ISA-L (libisal-dev): no PNG output");
}

std::string encode_png(const IndexedImage &, const Palette &, const PngSettings &) {
    throw std::runtime_error("this vif was built without ISA-L (libisal-dev): no PNG output");
}

std::string encode_png(uint32_t, uint32_t, const Palette *, const PngRowSource &,
                       const PngSettings &) {
    throw std::runtime_error("this vif was built without ISA-L (libisal-dev): no PNG output");
}
#endif

} // namespace vifcli
