// The PNG encoder of the maps and the report (tools/vif/maps/png_encode.cpp) on its own: every
// file it writes is read back by libpng (which checks the CRC of every critical chunk and the
// zlib stream's checksum) and holds exactly the pixels given, RGB and palette pictures (the
// palette's colours expanded by libpng), for odd widths and heights, one-row and one-column
// pictures, every filter and a range of levels; the chunk layout and each chunk's CRC are also
// checked here against zlib's crc32 (not ISA-L's, which wrote them).
#include "maps/png_encode.hpp"

#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using vifcli::IndexedImage;
using vifcli::Palette;
using vifcli::PngFilter;
using vifcli::PngSettings;
using vifcli::RgbImage;

// A picture with flat runs, repeated rows and noise (what the maps look like, and what defeats
// the filters' shortcuts).
RgbImage test_picture(uint32_t w, uint32_t h, uint32_t seed) {
    RgbImage img;
    img.width = w;
    img.height = h;
    img.rgb.resize(size_t(w) * h * 3);
    uint32_t state = seed;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                state = state * 1664525u + 1013904223u;
                uint8_t v;
                if (y % 7 < 3)
                    v = uint8_t((x / 4) * 37 + (y / 3) * 11 + c * 80); // blocks
                else if (y % 7 == 3)
                    v = uint8_t(state >> 24); // noise
                else
                    v = uint8_t(255 - c * 100); // flat
                img.rgb[(size_t(y) * w + x) * 3 + c] = v;
            }
    return img;
}

// The same pattern as palette indices below `colours`, and a palette of that many colours.
IndexedImage test_indices(uint32_t w, uint32_t h, uint32_t seed, uint32_t colours) {
    const RgbImage rgb = test_picture(w, h, seed);
    IndexedImage img;
    img.width = w;
    img.height = h;
    img.index.resize(size_t(w) * h);
    for (size_t i = 0; i < img.index.size(); ++i) img.index[i] = uint8_t(rgb.rgb[3 * i] % colours);
    return img;
}
Palette test_palette(uint32_t colours, uint32_t seed) {
    Palette p(colours);
    uint32_t state = seed;
    for (auto &c : p)
        for (uint8_t &ch : c) {
            state = state * 1664525u + 1013904223u;
            ch = uint8_t(state >> 24);
        }
    return p;
}
// A palette picture's pixels as RGB: what a decoder must give.
RgbImage expanded(const IndexedImage &img, const Palette &palette) {
    RgbImage o;
    o.width = img.width;
    o.height = img.height;
    o.rgb.resize(img.index.size() * 3);
    for (size_t i = 0; i < img.index.size(); ++i)
        std::memcpy(&o.rgb[3 * i], palette[img.index[i]].data(), 3);
    return o;
}

uint32_t be32(const unsigned char *p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// The chunks' types in order; every chunk's CRC compared with zlib's.
std::vector<std::string> chunks_checked(const std::string &file) {
    std::vector<std::string> types;
    const auto *p = reinterpret_cast<const unsigned char *>(file.data());
    const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    EXPECT_GE(file.size(), 8u);
    EXPECT_EQ(std::memcmp(p, sig, 8), 0) << "PNG signature";
    size_t at = 8;
    while (at + 12 <= file.size()) {
        const uint32_t len = be32(p + at);
        if (at + 12 + size_t(len) > file.size()) {
            ADD_FAILURE() << "a chunk runs past the end of the file";
            break;
        }
        types.emplace_back(reinterpret_cast<const char *>(p + at + 4), 4);
        const uLong crc = crc32(crc32(0L, Z_NULL, 0), p + at + 4, uInt(len + 4));
        EXPECT_EQ(be32(p + at + 8 + len), uint32_t(crc)) << "CRC of " << types.back();
        at += 12 + size_t(len);
    }
    EXPECT_EQ(at, file.size()) << "bytes after the last chunk";
    return types;
}

// The pixels libpng reads from `file` (a failure if it refuses it).
RgbImage decoded(const std::string &file) {
    RgbImage out;
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, file.data(), file.size())) {
        ADD_FAILURE() << "libpng: " << img.message;
        return out;
    }
    img.format = PNG_FORMAT_RGB;
    out.width = img.width;
    out.height = img.height;
    out.rgb.resize(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, nullptr, out.rgb.data(), 0, nullptr))
        ADD_FAILURE() << "libpng: " << img.message;
    png_image_free(&img);
    return out;
}

TEST(PngEncode, EveryFilterAndSizeReadsBackExactly) {
    ASSERT_TRUE(vifcli::png_available());
    const uint32_t sizes[][2] = {{1, 1},  {1, 9},  {9, 1},   {2, 2},    {3, 5},   {17, 1},
                                 {1, 31}, {33, 7}, {255, 3}, {101, 67}, {640, 1}, {1281, 19}};
    const PngFilter filters[] = {PngFilter::kNone, PngFilter::kSub, PngFilter::kUp,
                                 PngFilter::kPaeth};
    uint32_t seed = 1;
    for (const auto &sz : sizes)
        for (PngFilter f : filters)
            for (int level : {0, 1, 2, 3}) {
                const RgbImage img = test_picture(sz[0], sz[1], seed++);
                const std::string file = vifcli::encode_png(img, PngSettings{f, level});
                SCOPED_TRACE(testing::Message() << sz[0] << "x" << sz[1] << " filter " << int(f)
                                                << " level " << level);
                const std::vector<std::string> types = chunks_checked(file);
                EXPECT_EQ(types, (std::vector<std::string>{"IHDR", "IDAT", "IEND"}));
                const RgbImage back = decoded(file);
                EXPECT_EQ(back.width, img.width);
                EXPECT_EQ(back.height, img.height);
                EXPECT_TRUE(back.rgb == img.rgb) << "pixels differ";
            }
}

TEST(PngEncode, EveryFilterAndSizeOfAPaletteReadsBackExactly) {
    // Colour type 3: a PLTE chunk before IDAT, a byte a pixel (Sub and Paeth's left neighbour is
    // the byte before); palettes of 1, 7 and 256 colours.
    const uint32_t sizes[][2] = {{1, 1},  {1, 9},  {9, 1},    {2, 2},   {3, 5},
                                 {17, 1}, {33, 7}, {101, 67}, {640, 1}, {1281, 19}};
    uint32_t seed = 1;
    for (const auto &sz : sizes)
        for (uint32_t colours : {1u, 7u, 256u})
            for (PngFilter f :
                 {PngFilter::kNone, PngFilter::kSub, PngFilter::kUp, PngFilter::kPaeth})
                for (int level : {0, 1, 3}) {
                    const IndexedImage img = test_indices(sz[0], sz[1], seed, colours);
                    const Palette palette = test_palette(colours, seed++);
                    const std::string file =
                        vifcli::encode_png(img, palette, PngSettings{f, level});
                    SCOPED_TRACE(testing::Message()
                                 << sz[0] << "x" << sz[1] << " " << colours << " colours, filter "
                                 << int(f) << " level " << level);
                    const std::vector<std::string> types = chunks_checked(file);
                    EXPECT_EQ(types, (std::vector<std::string>{"IHDR", "PLTE", "IDAT", "IEND"}));
                    EXPECT_EQ(be32(reinterpret_cast<const unsigned char *>(file.data()) + 33),
                              colours * 3)
                        << "PLTE's length";
                    const RgbImage back = decoded(file);
                    EXPECT_EQ(back.width, img.width);
                    EXPECT_EQ(back.height, img.height);
                    EXPECT_TRUE(back.rgb == expanded(img, palette).rgb) << "pixels differ";
                }
}

TEST(PngEncode, NoiseLargerThanAChunkAndThanTheFirstGuessReadsBackExactly) {
    // The rows reach the compressor in chunks of 256 KB and the file grows as the stream does:
    // pictures of noise (which hardly compresses) of several chunks, RGB and palette.
    RgbImage rgb;
    rgb.width = 1000;
    rgb.height = 400;
    rgb.rgb.resize(size_t(rgb.width) * rgb.height * 3);
    uint32_t state = 99;
    for (uint8_t &v : rgb.rgb) {
        state = state * 1664525u + 1013904223u;
        v = uint8_t(state >> 24);
    }
    for (int level : {0, 1, 3}) {
        SCOPED_TRACE(testing::Message() << "level " << level);
        const std::string file = vifcli::encode_png(rgb, PngSettings{PngFilter::kUp, level});
        EXPECT_GT(file.size(), rgb.rgb.size() / 2) << "noise should not compress much";
        chunks_checked(file);
        EXPECT_TRUE(decoded(file).rgb == rgb.rgb) << "pixels differ";
        IndexedImage idx;
        idx.width = 3000;
        idx.height = 200;
        idx.index.assign(rgb.rgb.begin(), rgb.rgb.begin() + 600000);
        const Palette palette = test_palette(256, 5);
        const std::string pfile =
            vifcli::encode_png(idx, palette, PngSettings{PngFilter::kSub, level});
        chunks_checked(pfile);
        EXPECT_TRUE(decoded(pfile).rgb == expanded(idx, palette).rgb) << "palette pixels differ";
    }
}

TEST(PngEncode, DefaultSettingsAndTheMapsPictures) {
    // The settings the CLI uses, on a drawn map with its legend (odd frame size), in the maps'
    // palette.
    std::vector<float> map(size_t(45) * 23);
    for (size_t i = 0; i < map.size(); ++i) map[i] = float(i % 97) / 80.0f - 0.1f;
    const IndexedImage img =
        vifcli::draw_heat_with_legend(map, 45, 23, 1, 91, 47, "frame 3 scale 1");
    const std::string file = vifcli::encode_png(img, vifcli::heat_palette());
    chunks_checked(file);
    const RgbImage back = decoded(file);
    EXPECT_EQ(back.width, 91u);
    EXPECT_TRUE(back.rgb == expanded(img, vifcli::heat_palette()).rgb);
}

TEST(PngEncode, HeatRowsAreTheMapsPictureRowByRow) {
    // The CLI's path (HeatRows: the rows drawn as the encoder asks, a repeated row flagged and
    // its Up filter written as zeros) against the whole picture drawn at once: every scale's
    // block height, frames not a multiple of it, a wide frame (the larger legend), no map.
    struct Case {
        uint32_t sw, sh, scale, fw, fh;
    };
    const Case cases[] = {{91, 47, 0, 91, 47}, {45, 23, 1, 91, 47},   {23, 12, 2, 91, 47},
                          {11, 5, 3, 91, 47},  {80, 45, 3, 640, 360}, {0, 0, 2, 64, 20},
                          {1, 1, 3, 7, 3}};
    vifcli::HeatRows rows;
    const Palette &palette = vifcli::heat_palette();
    for (const Case &c : cases) {
        std::vector<float> map(size_t(c.sw) * c.sh);
        for (size_t i = 0; i < map.size(); ++i) map[i] = float(i % 89) / 70.0f - 0.1f;
        const std::string caption = "frame 7 scale " + std::to_string(c.scale);
        const IndexedImage img =
            vifcli::draw_heat_with_legend(map, c.sw, c.sh, c.scale, c.fw, c.fh, caption);
        rows.start(map, c.sw, c.sh, c.scale, c.fw, c.fh, caption);
        ASSERT_EQ(rows.width(), img.width);
        ASSERT_EQ(rows.height(), img.height);
        for (PngFilter f : {PngFilter::kNone, PngFilter::kSub, PngFilter::kUp, PngFilter::kPaeth}) {
            SCOPED_TRACE(testing::Message() << "scale " << c.scale << " frame " << c.fw << "x"
                                            << c.fh << " filter " << int(f));
            rows.start(map, c.sw, c.sh, c.scale, c.fw, c.fh, caption);
            const std::string file = vifcli::encode_png(
                rows.width(), rows.height(), &palette,
                [&](uint32_t y, bool &same) { return rows.row(y, same); }, PngSettings{f, 2});
            EXPECT_EQ(file, vifcli::encode_png(img, palette, PngSettings{f, 2}))
                << "not the same file";
            const RgbImage back = decoded(file);
            EXPECT_TRUE(back.rgb == expanded(img, palette).rgb) << "pixels differ";
        }
    }
}

TEST(HeatImage, DrawHeatIsHeatColourOfEveryValue) {
    // The RGB pictures (the Y4M video's, the report's) come from a table of 65,537 bins that
    // falls back to heat_colour where a bin holds a change of colour: every float of a bin's
    // edges and of a grid through [0, 1] (and outside it, and NaN) drawn as heat_colour says.
    std::vector<float> values = {-1.0f, -0.0f, 1.0f, 1.5f, std::nanf("")};
    for (int k = 0; k <= 65536; ++k) {
        const float edge = float(k) / 65536;
        values.push_back(edge);
        values.push_back(std::nextafter(edge, 0.0f));
        values.push_back(std::nextafter(edge, 2.0f));
    }
    for (int k = 0; k < 300000; ++k) values.push_back(float(k) / 299999.0f);
    const auto sw = uint32_t(values.size());
    const RgbImage img = vifcli::draw_heat(values, sw, 1, 0, sw, 1);
    for (uint32_t x = 0; x < sw; ++x)
        ASSERT_EQ(img.at(x, 0), vifcli::heat_colour(values[x])) << "value " << values[x];
}

TEST(PngEncode, RefusesAnEmptyOrMismatchedPicture) {
    RgbImage empty;
    EXPECT_THROW(vifcli::encode_png(empty), std::runtime_error);
    RgbImage short_buffer;
    short_buffer.width = 4;
    short_buffer.height = 4;
    short_buffer.rgb.resize(10);
    EXPECT_THROW(vifcli::encode_png(short_buffer), std::runtime_error);
    IndexedImage indices = test_indices(4, 4, 1, 7); // indices 0 to 6
    indices.index[5] = 7;
    EXPECT_THROW(vifcli::encode_png(indices, test_palette(7, 1)), std::runtime_error)
        << "an index past the palette";
    EXPECT_NO_THROW(vifcli::encode_png(indices, test_palette(8, 1)));
    EXPECT_THROW(vifcli::encode_png(indices, Palette{}), std::runtime_error) << "no colours";
    EXPECT_THROW(vifcli::encode_png(indices, test_palette(257, 1)), std::runtime_error)
        << "257 colours";
    for (int level : {-1, 4})
        EXPECT_THROW(
            vifcli::encode_png(indices, test_palette(8, 1), PngSettings{PngFilter::kUp, level}),
            std::runtime_error)
            << "level " << level;
}

} // namespace
