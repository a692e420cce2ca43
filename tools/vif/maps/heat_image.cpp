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

void fill(RgbImage &img, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
          std::array<uint8_t, 3> c) {
    x1 = std::min(x1, img.width);
    y1 = std::min(y1, img.height);
    for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x)
            std::memcpy(&img.rgb[(size_t(y) * img.width + x) * 3], c.data(), 3);
}

// Text in black, each font pixel a k x k square; characters that would cross the right edge
// are left out.
void draw_text(RgbImage &img, uint32_t x, uint32_t y, const std::string &s, uint32_t k) {
    for (char c : s) {
        if (x + 5 * k > img.width) return;
        if (const Glyph *g = glyph(c))
            for (uint32_t r = 0; r < 7; ++r)
                for (uint32_t col = 0; col < 5; ++col)
                    if (g->rows[r][col] == '#')
                        fill(img, x + col * k, y + r * k, x + (col + 1) * k, y + (r + 1) * k,
                             {0, 0, 0});
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
    for (int ch = 0; ch < 3; ++ch)
        c[ch] = uint8_t(std::lround(kStops[i][ch] + t * (kStops[i + 1][ch] - kStops[i][ch])));
    return c;
}

RgbImage draw_heat(const std::vector<float> &map, uint32_t sw, uint32_t sh, uint32_t scale,
                   uint32_t fw, uint32_t fh) {
    RgbImage img;
    img.width = fw;
    img.height = fh;
    img.rgb.resize(size_t(fw) * fh * 3);
    if (sw == 0 || sh == 0) return img;
    const uint32_t s = scale;
    std::vector<std::array<uint8_t, 3>> row(fw);
    for (uint32_t y = 0; y < fh; ++y) {
        const uint32_t my = std::min(y >> s, sh - 1);
        if (y == 0 || my != std::min((y - 1) >> s, sh - 1))
            for (uint32_t x = 0; x < fw; ++x)
                row[x] = heat_colour(map[size_t(my) * sw + std::min(x >> s, sw - 1)]);
        std::memcpy(&img.rgb[size_t(y) * fw * 3], row.data(), size_t(fw) * 3);
    }
    return img;
}

uint32_t legend_height(uint32_t fw) {
    return fw >= 640 ? 80 : 40;
}

RgbImage draw_heat_with_legend(const std::vector<float> &map, uint32_t sw, uint32_t sh,
                               uint32_t scale, uint32_t fw, uint32_t fh,
                               const std::string &caption) {
    RgbImage heat = draw_heat(map, sw, sh, scale, fw, fh);
    const uint32_t k = legend_height(fw) / 40;
    RgbImage img;
    img.width = fw;
    img.height = fh + legend_height(fw);
    img.rgb = std::move(heat.rgb);
    img.rgb.resize(size_t(img.width) * img.height * 3, 255); // the band: white
    const uint32_t top = fh;
    draw_text(img, 4 * k, top + 3 * k, caption, k);
    // The colour bar from 0 (left) to 1 (right), 12k rows, with room for the end labels.
    const uint32_t x0 = fw > 40 * k ? 8 * k : 0, x1 = fw > 40 * k ? fw - 8 * k : fw;
    const uint32_t span = x1 - x0 > 1 ? x1 - x0 - 1 : 1;
    for (uint32_t x = x0; x < x1; ++x)
        fill(img, x, top + 13 * k, x + 1, top + 25 * k, heat_colour(float(x - x0) / float(span)));
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
        if (!t.quarter || quarters) fill(img, x, top + 25 * k, x + k, top + 29 * k, {0, 0, 0});
        if (!labelled) continue;
        const uint32_t w = text_width(t.label, k);
        const uint32_t lx = x >= w / 2 ? std::min(x - w / 2, fw > w ? fw - w : 0) : 0;
        draw_text(img, lx, top + 31 * k, t.label, k);
    }
    return img;
}

} // namespace vifcli
