#include "maps/heat_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace vifcli {
namespace {

// Five stops of a perceptually even dark-to-light scale (close to matplotlib's "inferno"):
// the lost detail is the dark end, and the order survives printing in grey.
constexpr float kStops[5][3] = {
    {0, 0, 4}, {87, 16, 110}, {188, 55, 84}, {249, 142, 9}, {252, 255, 164}};

// A 5x7 pixel font for the legend: '#' is ink. Only the characters captions and numbers use.
struct Glyph {
    char c;
    const char *rows[7];
};
constexpr Glyph kFont[] = {
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"####.", "....#", "....#", ".###.", "....#", "....#", "####."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'a', {".....", ".....", ".###.", "....#", ".####", "#...#", ".####"}},
    {'b', {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "####."}},
    {'c', {".....", ".....", ".###.", "#....", "#....", "#...#", ".###."}},
    {'d', {"....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####"}},
    {'e', {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."}},
    {'f', {"..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#..."}},
    {'g', {".....", ".####", "#...#", "#...#", ".####", "....#", ".###."}},
    {'h', {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
    {'i', {"..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."}},
    {'k', {"#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."}},
    {'l', {".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'m', {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#...#", "#...#"}},
    {'n', {".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
    {'o', {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."}},
    {'p', {".....", "####.", "#...#", "#...#", "####.", "#....", "#...."}},
    {'r', {".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."}},
    {'s', {".....", ".....", ".###.", "#....", ".###.", "....#", "####."}},
    {'t', {".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."}},
    {'u', {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"}},
    {'v', {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'w', {".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#."}},
    {'x', {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"}},
    {'y', {".....", "#...#", "#...#", ".####", "....#", "#...#", ".###."}},
    {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
};

const Glyph *glyph(char c) {
    for (const Glyph &g : kFont)
        if (g.c == c) return &g;
    return nullptr; // a space, or a character the font lacks: left blank
}

void fill(IndexedImage &img, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint8_t c) {
    x1 = std::min(x1, img.width);
    y1 = std::min(y1, img.height);
    if (x0 >= x1) return;
    for (uint32_t y = y0; y < y1; ++y)
        std::memset(&img.index[size_t(y) * img.width + x0], c, x1 - x0);
}

// Text in black, each font pixel a k x k square; characters that would cross the right edge
// are left out.
void draw_text(IndexedImage &img, uint32_t x, uint32_t y, const std::string &s, uint32_t k) {
    for (char c : s) {
        if (x + 5 * k > img.width) return;
        if (const Glyph *g = glyph(c))
            for (uint32_t r = 0; r < 7; ++r)
                for (uint32_t col = 0; col < 5; ++col)
                    if (g->rows[r][col] == '#')
                        fill(img, x + col * k, y + r * k, x + (col + 1) * k, y + (r + 1) * k,
                             kBlackIndex);
        x += 6 * k;
    }
}

uint32_t text_width(const std::string &s, uint32_t k) {
    return s.empty() ? 0 : uint32_t(s.size()) * 6 * k - k;
}

} // namespace

std::array<uint8_t, 3> heat_colour(float value) {
    float v = value >= 0.0f ? std::min(value, 1.0f) : 0.0f; // NaN fails >= and reads 0
    const float pos = v * 4.0f;
    const int i = std::min(int(pos), 3);
    const float t = pos - float(i);
    std::array<uint8_t, 3> c;
    // Each channel is at least -0.5 (the stops are 0 to 255, t 0 to 1): adding 0.5 in double
    // (exact) and truncating is lround's rounding, half away from zero, without its call.
    for (int ch = 0; ch < 3; ++ch)
        c[ch] = uint8_t(int(double(kStops[i][ch] + t * (kStops[i + 1][ch] - kStops[i][ch])) + 0.5));
    return c;
}

namespace {

// heat_colour of a picture's pixels from a table: [0, 1] in kBins bins (bin k holds the values
// v with floor(v x kBins) = k; 1 is bin kBins), each with its colour where the whole bin has
// one, else marked to be computed. Within a quarter (a pair of stops) each channel is a
// monotone function of the value (4v and 4v - i are exact; a product by a constant, a sum and
// the rounding are monotone), the quarters' edges are bins' edges, so a bin whose first and
// last floats have the same colour has it throughout. About 1,000 of the 65,536 bins hold a
// change of colour. The same colours as heat_colour (checked for every float:
// docs/journal/2026-11-26-vif-maps.md); a 1080p map drew in 36 ms calling heat_colour.
constexpr int kBins = 65536;
struct ColourTable {
    std::vector<std::array<uint8_t, 4>> bins; // r, g, b, and 1 where the bin has one colour
    ColourTable() : bins(kBins + 1) {
        for (int k = 0; k <= kBins; ++k) {
            const float lo = float(k) / kBins;
            const float hi = k == kBins ? 1.0f : std::nextafter(float(k + 1) / kBins, 0.0f);
            const auto a = heat_colour(lo), b = heat_colour(hi);
            bins[size_t(k)] = {a[0], a[1], a[2], uint8_t(a == b ? 1 : 0)};
        }
    }
};

const ColourTable &colour_table() {
    static const ColourTable table; // about 3 ms to make (131,074 colours)
    return table;
}

inline std::array<uint8_t, 3> table_colour(const ColourTable &table, float value) {
    const float v = value >= 0.0f ? std::min(value, 1.0f) : 0.0f; // as heat_colour
    const auto &bin = table.bins[size_t(int(v * float(kBins)))];  // exact: a power of 2
    if (bin[3]) return {bin[0], bin[1], bin[2]};
    return heat_colour(value);
}

// Map row `my` drawn into one picture row of fw pixels by nearest neighbour (pixel x shows map
// pixel min(x >> scale, sw - 1)): each map pixel's colour once into `colours` (sw of them), then
// repeated along the row. Shared by the whole picture and the row-by-row drawing (HeatRows).
void draw_map_row(const std::vector<float> &map, uint32_t sw, uint32_t my, uint32_t scale,
                  uint32_t fw, std::vector<std::array<uint8_t, 3>> &colours, uint8_t *out) {
    const ColourTable &table = colour_table();
    const float *m = &map[size_t(my) * sw];
    colours.resize(sw);
    for (uint32_t mx = 0; mx < sw; ++mx) colours[mx] = table_colour(table, m[mx]);
    for (uint32_t x = 0; x < fw; ++x)
        std::memcpy(out + size_t(x) * 3, colours[std::min(x >> scale, sw - 1)].data(), 3);
}

// draw_heat into the first fh rows of `rgb` (fw x 3 bytes a row).
void draw_heat_into(uint8_t *rgb, const std::vector<float> &map, uint32_t sw, uint32_t sh,
                    uint32_t scale, uint32_t fw, uint32_t fh) {
    if (sw == 0 || sh == 0) return;
    const uint32_t s = scale;
    // Nearest neighbour: the map pixel (min(y >> s, sh - 1), min(x >> s, sw - 1)) at (x, y).
    // Each map row drawn once, and the row copied down.
    std::vector<std::array<uint8_t, 3>> colours;
    const uint8_t *prev = nullptr;
    for (uint32_t y = 0; y < fh; ++y) {
        uint8_t *row = rgb + size_t(y) * fw * 3;
        const uint32_t my = std::min(y >> s, sh - 1);
        if (prev && my == std::min((y - 1) >> s, sh - 1)) {
            std::memcpy(row, prev, size_t(fw) * 3);
            continue;
        }
        draw_map_row(map, sw, my, s, fw, colours, row);
        prev = row;
    }
}

// Map row `my` drawn into one picture row of fw palette indices by nearest neighbour (as
// draw_map_row): each map pixel's index once into `indices` (sw of them), then spread along the
// row, 2^scale pixels each.
void draw_index_row(const std::vector<float> &map, uint32_t sw, uint32_t my, uint32_t scale,
                    uint32_t fw, std::vector<uint8_t> &indices, uint8_t *out) {
    const float *m = &map[size_t(my) * sw];
    if (scale == 0 && sw >= fw) {
        for (uint32_t x = 0; x < fw; ++x) out[x] = heat_index(m[x]);
        return;
    }
    indices.resize(sw);
    for (uint32_t mx = 0; mx < sw; ++mx) indices[mx] = heat_index(m[mx]);
    const uint32_t run = 1u << scale;
    // Whole runs of the map pixels but the last; 2, 4 and 8 bytes as one store each (a memset
    // call a map pixel cost more than the pixels).
    const uint32_t whole = std::min(sw - 1, fw >> scale);
    uint32_t x = 0, mx = 0;
    switch (scale) {
    case 1:
        for (; mx < whole; ++mx, x += 2) {
            const uint16_t v = uint16_t(indices[mx] * 0x0101u);
            std::memcpy(out + x, &v, 2);
        }
        break;
    case 2:
        for (; mx < whole; ++mx, x += 4) {
            const uint32_t v = indices[mx] * 0x01010101u;
            std::memcpy(out + x, &v, 4);
        }
        break;
    case 3:
        for (; mx < whole; ++mx, x += 8) {
            const uint64_t v = indices[mx] * 0x0101010101010101ull;
            std::memcpy(out + x, &v, 8);
        }
        break;
    default:
        for (; mx < whole; ++mx, x += run) std::memset(out + x, indices[mx], run);
    }
    // The rest shows map pixel mx: the last one (to the frame's edge), or one the edge cuts.
    if (x < fw) std::memset(out + x, indices[mx], fw - x);
}

// The legend band into img's rows from `top` on (img.width wide, at least top + legend_height).
void draw_legend(IndexedImage &img, uint32_t top, const std::string &caption) {
    const uint32_t fw = img.width;
    const uint32_t k = legend_height(fw) / 40;
    std::memset(img.index.data() + size_t(fw) * top, kWhiteIndex, size_t(fw) * legend_height(fw));
    draw_text(img, 4 * k, top + 3 * k, caption, k);
    // The colour bar from 0 (left) to 1 (right), 12k rows, with room for the end labels.
    const uint32_t x0 = fw > 40 * k ? 8 * k : 0, x1 = fw > 40 * k ? fw - 8 * k : fw;
    const uint32_t span = x1 - x0 > 1 ? x1 - x0 - 1 : 1;
    for (uint32_t x = x0; x < x1; ++x)
        fill(img, x, top + 13 * k, x + 1, top + 25 * k, heat_index(float(x - x0) / float(span)));
    // Ticks and their numbers; the quarter labels only where they fit.
    struct Tick {
        float v;
        const char *label;
        bool quarter;
    };
    const Tick ticks[] = {{0.0f, "0", false},
                          {0.25f, "0.25", true},
                          {0.5f, "0.5", false},
                          {0.75f, "0.75", true},
                          {1.0f, "1", false}};
    const bool quarters = span / 4 >= text_width("0.25", k) + 4 * k;
    const bool middle = span / 2 >= text_width("0.5", k) + 4 * k;
    for (const Tick &t : ticks) {
        const uint32_t x = x0 + uint32_t(std::lround(t.v * float(span)));
        const bool labelled = t.v == 0.0f || t.v == 1.0f || (t.quarter ? quarters : middle);
        if (!t.quarter || quarters) fill(img, x, top + 25 * k, x + k, top + 29 * k, kBlackIndex);
        if (!labelled) continue;
        const uint32_t w = text_width(t.label, k);
        const uint32_t lx = x >= w / 2 ? std::min(x - w / 2, fw > w ? fw - w : 0) : 0;
        draw_text(img, lx, top + 31 * k, t.label, k);
    }
}

} // namespace

void warm_colour_table() {
    (void)colour_table();
}

const Palette &heat_palette() {
    static const Palette palette = [] {
        Palette p(256);
        for (uint32_t i = 0; i < kHeatSteps; ++i)
            p[i] = heat_colour(float(i) / float(kHeatSteps - 1));
        p[kWhiteIndex] = {255, 255, 255};
        p[kBlackIndex] = {0, 0, 0};
        return p;
    }();
    return palette;
}

RgbImage draw_heat(const std::vector<float> &map, uint32_t sw, uint32_t sh, uint32_t scale,
                   uint32_t fw, uint32_t fh) {
    RgbImage img;
    img.width = fw;
    img.height = fh;
    img.rgb.resize(size_t(fw) * fh * 3);
    draw_heat_into(img.rgb.data(), map, sw, sh, scale, fw, fh);
    return img;
}

uint32_t legend_height(uint32_t fw) {
    return fw >= 640 ? 80 : 40;
}

IndexedImage draw_heat_with_legend(const std::vector<float> &map, uint32_t sw, uint32_t sh,
                                   uint32_t scale, uint32_t fw, uint32_t fh,
                                   const std::string &caption) {
    IndexedImage img;
    img.width = fw;
    img.height = fh + legend_height(fw);
    img.index.assign(size_t(img.width) * img.height, kBlackIndex); // no map: black
    std::vector<uint8_t> indices;
    if (sw > 0 && sh > 0)
        for (uint32_t y = 0; y < fh; ++y)
            draw_index_row(map, sw, std::min(y >> scale, sh - 1), scale, fw, indices,
                           &img.index[size_t(y) * fw]);
    draw_legend(img, fh, caption);
    return img;
}

void HeatRows::start(const std::vector<float> &map, uint32_t sw, uint32_t sh, uint32_t scale,
                     uint32_t fw, uint32_t fh, const std::string &caption) {
    map_ = &map;
    sw_ = sw;
    sh_ = sh;
    scale_ = scale;
    fw_ = fw;
    fh_ = fh;
    legend_.width = fw;
    legend_.height = legend_height(fw);
    legend_.index.resize(size_t(fw) * legend_.height);
    draw_legend(legend_, 0, caption);
    for (auto &r : rows_) r.resize(fw);
    drawn_ = 0;
}

const uint8_t *HeatRows::row(uint32_t y, bool &same) {
    same = false;
    if (y >= fh_) return legend_.index.data() + size_t(y - fh_) * fw_;
    if (sw_ == 0 || sh_ == 0) { // no map: black
        same = y > 0;
        if (!same) std::memset(rows_[0].data(), kBlackIndex, rows_[0].size());
        return rows_[0].data();
    }
    // As draw_heat_with_legend: the map row min(y >> s, sh - 1), each pixel min(x >> s, sw - 1).
    const uint32_t my = std::min(y >> scale_, sh_ - 1);
    if (y > 0 && my == map_row_) {
        same = true;
        return rows_[(drawn_ - 1) & 1].data();
    }
    uint8_t *out = rows_[drawn_ & 1].data();
    draw_index_row(*map_, sw_, my, scale_, fw_, indices_, out);
    map_row_ = my;
    ++drawn_;
    return out;
}

} // namespace vifcli
