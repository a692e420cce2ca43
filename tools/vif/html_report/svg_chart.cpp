#include "html_report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace vifcli {
namespace {

constexpr double kWidth = 960, kHeight = 300;
constexpr double kLeft = 56, kRight = 16, kTop = 30, kBottom = 44;

// About 5 round steps between lo and hi.
double nice_step(double span) {
    const double raw = span / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * mag) return m * mag;
    return 10 * mag;
}

std::string tick_label(double v, double step) {
    const int digits = std::max(0, -int(std::floor(std::log10(step))) + (step < 1 ? 1 : 0));
    return fmt::format("{:.{}f}", v, std::min(digits, 4));
}

} // namespace

std::string html_escape(const std::string &s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) switch (c) {
        case '&':
            o += "&amp;";
            break;
        case '<':
            o += "&lt;";
            break;
        case '>':
            o += "&gt;";
            break;
        case '"':
            o += "&quot;";
            break;
        case '\'':
            o += "&#39;";
            break;
        default:
            o += c;
        }
    return o;
}

std::string line_chart(const ChartSpec &spec) {
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    size_t points = 0;
    for (const ChartSeries &s : spec.series)
        for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
            if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
            x0 = std::min(x0, s.x[i]);
            x1 = std::max(x1, s.x[i]);
            y0 = std::min(y0, s.y[i]);
            y1 = std::max(y1, s.y[i]);
            ++points;
        }
    if (points == 0) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    if (spec.y_from_zero) y0 = std::min(0.0, y0);
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 - y0 < 1e-3) y0 -= 0.05, y1 += 0.05;
    const double ystep = nice_step(y1 - y0);
    y0 = std::floor(y0 / ystep) * ystep;
    y1 = std::ceil(y1 / ystep) * ystep;
    const double xstep = spec.integer_x ? std::max(1.0, nice_step(x1 - x0)) : nice_step(x1 - x0);
    const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
    auto px = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * pw; };
    auto py = [&](double y) { return kTop + (y1 - y) / (y1 - y0) * ph; };

    std::string o =
        fmt::format("<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
                    "data-points=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
                    kWidth, kHeight, html_escape(spec.title), points);
    o += fmt::format("<text class=\"title\" x=\"{}\" y=\"18\">{}</text>\n", kLeft,
                     html_escape(spec.title));
    // Grid and ticks.
    o += "<g class=\"axes\">\n";
    for (double y = y0; y <= y1 + ystep / 2; y += ystep)
        o += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" "
                         "y2=\"{:.1f}\"/><text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" "
                         "text-anchor=\"end\">{}</text>\n",
                         kLeft, kLeft + pw, py(y), py(y), kLeft - 6, py(y) + 4,
                         tick_label(y, ystep));
    for (double x = std::ceil(x0 / xstep) * xstep; x <= x1 + xstep / 1e6; x += xstep)
        o += fmt::format("<line class=\"tickmark\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" "
                         "y2=\"{:.1f}\"/><text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" "
                         "text-anchor=\"middle\">{}</text>\n",
                         px(x), px(x), kTop + ph, kTop + ph + 5, px(x), kTop + ph + 18,
                         tick_label(x, xstep));
    o += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                     kLeft, kTop, pw, ph);
    o += fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     kLeft + pw / 2, kHeight - 6, html_escape(spec.x_label));
    o += fmt::format("<text class=\"label\" transform=\"translate(14 {:.1f}) rotate(-90)\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     kTop + ph / 2, html_escape(spec.y_label));
    o += "</g>\n";
    // The series: at most one point per pixel column (the lowest).
    const size_t columns = size_t(pw);
    for (const ChartSeries &s : spec.series) {
        const size_t n = std::min(s.x.size(), s.y.size());
        std::string pts;
        pts.reserve(std::min(n, 2 * columns) * 14);
        if (n > 2 * columns && !spec.markers) {
            std::vector<double> low(columns + 1, std::numeric_limits<double>::infinity());
            std::vector<double> at(columns + 1, 0);
            for (size_t i = 0; i < n; ++i) {
                if (!std::isfinite(s.y[i])) continue;
                const size_t c = size_t((px(s.x[i]) - kLeft) / pw * double(columns));
                const size_t k = std::min(c, columns);
                if (s.y[i] < low[k]) low[k] = s.y[i], at[k] = s.x[i];
            }
            for (size_t k = 0; k <= columns; ++k)
                if (std::isfinite(low[k]))
                    pts += fmt::format("{:.1f},{:.1f} ", px(at[k]), py(low[k]));
        } else {
            for (size_t i = 0; i < n; ++i)
                if (std::isfinite(s.y[i]))
                    pts += fmt::format("{:.1f},{:.1f} ", px(s.x[i]), py(s.y[i]));
        }
        o += fmt::format("<polyline class=\"series\" data-name=\"{}\" stroke=\"{}\" "
                         "points=\"{}\"/>\n",
                         html_escape(s.name), s.colour, pts);
        if (n == 1 && !spec.markers) // one frame: a dot, as a line of one point shows nothing
            o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n",
                             px(s.x[0]), py(s.y[0]), s.colour);
        if (spec.markers)
            for (size_t i = 0; i < n; ++i)
                o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>"
                                 "<text class=\"point\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                                 px(s.x[i]), py(s.y[i]), s.colour, px(s.x[i]) + 6, py(s.y[i]) - 6,
                                 html_escape(i < s.labels.size() ? s.labels[i] : s.name));
    }
    // The legend, top right.
    double lx = kLeft + pw;
    if (!spec.markers)
        for (auto it = spec.series.rbegin(); it != spec.series.rend(); ++it) {
            lx -= 14 + 7.0 * double(it->name.size()) + 16;
            o += fmt::format("<rect x=\"{:.1f}\" y=\"8\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                             "<text class=\"legend\" x=\"{:.1f}\" y=\"18\">{}</text>\n",
                             lx, it->colour, lx + 16, html_escape(it->name));
        }
    o += "</svg>\n";
    return o;
}

} // namespace vifcli
