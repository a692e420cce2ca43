#include "html_report/report_page.hpp"

#include "html_report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

namespace vifcli {
namespace {

// Scales 0..3, then the combined score; distinct in grey print too (lightness steps).
const char *const kScaleColours[4] = {"#1b4f9c", "#2a9d8f", "#e9a23b", "#b5179e"};
const char *const kCombinedColour = "#111111";
const char *const kRungColours[] = {"#1b4f9c", "#d1495b", "#2a9d8f", "#e9a23b", "#6a4c93",
                                    "#00798c", "#8d6a9f", "#edae49", "#3d405b", "#81b29a"};

const char *kStyle = R"(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111;
       max-width: 1000px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 28px 0 8px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
.meta { color: #444; margin: 0 0 12px; } .note { color: #7a4b00; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid #ccc; padding: 3px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
svg.chart { width: 100%; height: auto; display: block; margin: 8px 0; }
svg .title { font-weight: 600; font-size: 14px; } svg .tick, svg .legend, svg .point { font-size: 12px; }
svg .label { font-size: 12px; fill: #333; } svg .grid { stroke: #e3e3e3; } svg .tickmark { stroke: #888; }
svg .frame { fill: none; stroke: #888; } svg .series { fill: none; stroke-width: 1.5; }
.pictures { display: flex; gap: 8px; margin: 4px 0 14px; } .pictures figure { margin: 0; flex: 1; }
.pictures img { width: 100%; image-rendering: auto; border: 1px solid #ccc; }
figcaption { font-size: 12px; color: #444; }
#vif-report-check { font-size: 11px; color: #777; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  section, figure, table, svg.chart, .pictures { break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; page-break-after: avoid; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  #vif-report-check { display: none; }
}
)";

// Checks the page once loaded and says so in #vif-report-check (the tests read it).
const char *kScript = R"(
(function () {
  var errors = 0;
  window.addEventListener('error', function () { errors++; check(); });
  function check() {
    var charts = document.querySelectorAll('svg.chart'), drawn = 0;
    charts.forEach(function (svg) {
      var lines = svg.querySelectorAll('polyline.series'), ok = lines.length > 0;
      lines.forEach(function (l) { if (l.points.numberOfItems < 1) ok = false; });
      var box = svg.getBoundingClientRect();
      if (ok && box.width > 0 && box.height > 0) drawn++;
    });
    var images = document.querySelectorAll('img'), decoded = 0;
    images.forEach(function (i) { if (i.complete && i.naturalWidth > 0) decoded++; });
    var m = document.getElementById('vif-report-check');
    m.setAttribute('data-charts', charts.length);
    m.setAttribute('data-charts-drawn', drawn);
    m.setAttribute('data-images', images.length);
    m.setAttribute('data-images-decoded', decoded);
    m.setAttribute('data-errors', errors);
    var ok = drawn === charts.length && decoded === images.length && errors === 0;
    m.setAttribute('data-status', ok ? 'ok' : 'failed');
    m.textContent = 'page check: ' + drawn + ' of ' + charts.length + ' charts drawn, ' +
        decoded + ' of ' + images.length + ' pictures decoded, ' + errors + ' script errors';
  }
  window.addEventListener('load', check);
})();
)";

std::string num(double v) {
    return fmt::format("{:.6f}", v);
}

std::string kbps(double bits) {
    return fmt::format("{:.0f}", bits / 1000.0);
}

std::vector<double> frame_axis(const ResultFile &r) {
    std::vector<double> x(r.frame_nums.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = double(r.frame_nums[i]);
    return x;
}

std::string pair_section(const ReportPair &p) {
    const ResultFile &r = p.result;
    std::string o = fmt::format("<section class=\"pair\">\n<h2>{}</h2>\n", html_escape(r.label));
    o += fmt::format("<p class=\"meta\">{} frames · {}{}{}</p>\n", r.frame_nums.size(),
                     html_escape(std::filesystem::path(r.path).filename().string()),
                     r.distorted.empty() ? "" : " · distorted " + html_escape(r.distorted),
                     p.bitrate ? " · " + kbps(*p.bitrate) + " kbit/s" : "");
    ChartSpec c;
    c.title = "Per-frame VIF by scale" + std::string(r.combined.empty() ? "" : " and combined");
    c.x_label = "frame";
    c.y_label = "VIF";
    c.integer_x = true;
    const auto x = frame_axis(r);
    for (int s = 0; s < 4; ++s)
        c.series.push_back(
            {"scale " + std::to_string(s), kScaleColours[s], x, r.scale[size_t(s)], {}});
    if (!r.combined.empty()) c.series.push_back({"combined", kCombinedColour, x, r.combined, {}});
    o += line_chart(c);

    if (!r.pooled.empty()) {
        o += "<h3>Pooled</h3>\n<table>\n<tr><th>metric</th><th>mean</th><th>harmonic "
             "mean</th><th>min</th><th>max</th></tr>\n";
        for (const auto &m : r.pooled) {
            // The scores only (--debug-metrics adds the numerators and denominators).
            if (m.metric.find("_num") != std::string::npos ||
                m.metric.find("_den") != std::string::npos)
                continue;
            o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                             html_escape(m.metric), num(m.mean), num(m.harmonic_mean), num(m.min),
                             num(m.max));
        }
        o += "</table>\n";
    }
    if (!p.worst.empty()) {
        o += fmt::format("<h3>The {} (lowest {})</h3>\n",
                         p.worst.size() == 1 ? std::string("worst frame")
                                             : fmt::format("{} worst frames", p.worst.size()),
                         html_escape(r.ranking_name()));
        o += "<table>\n<tr><th>frame</th>";
        if (!r.combined.empty()) o += "<th>combined</th>";
        for (int s = 0; s < 4; ++s) o += fmt::format("<th>scale {}</th>", s);
        o += "</tr>\n";
        for (size_t i : p.worst) {
            o += fmt::format("<tr><td>{}</td>", r.frame_nums[i]);
            if (!r.combined.empty()) o += "<td>" + num(r.combined[i]) + "</td>";
            for (int s = 0; s < 4; ++s) o += "<td>" + num(r.scale[size_t(s)][i]) + "</td>";
            o += "</tr>\n";
        }
        o += "</table>\n";
        for (const FramePictures &f : p.pictures) {
            o += fmt::format("<h3>Frame {}</h3>\n<div class=\"pictures\">\n", f.frame);
            o += fmt::format("<figure><img alt=\"reference, frame {0}\" src=\"{1}\">"
                             "<figcaption>reference</figcaption></figure>\n"
                             "<figure><img alt=\"distorted, frame {0}\" src=\"{2}\">"
                             "<figcaption>distorted</figcaption></figure>\n"
                             "<figure><img alt=\"local VIF map, frame {0}\" src=\"{3}\">"
                             "<figcaption>local VIF, scale 0 (dark: detail lost)"
                             "</figcaption></figure>\n</div>\n",
                             f.frame, f.reference, f.distorted, f.map);
        }
        if (p.pictures.empty() && !p.note.empty())
            o += "<p class=\"note\">" + html_escape(p.note) + "</p>\n";
    }
    o += "</section>\n";
    return o;
}

std::string ladder_section(const std::vector<ReportPair> &pairs) {
    std::string o = "<section class=\"ladder\">\n<h2>Every rung</h2>\n";
    const bool combined = std::all_of(
        pairs.begin(), pairs.end(), [](const ReportPair &p) { return !p.result.combined.empty(); });
    ChartSpec c;
    c.title =
        std::string("Per-frame ") + (combined ? "combined VIF" : "VIF of scale 0") + ", every rung";
    c.x_label = "frame";
    c.y_label = "VIF";
    c.integer_x = true;
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ResultFile &r = pairs[i].result;
        c.series.push_back(
            {r.label, kRungColours[i % 10], frame_axis(r), combined ? r.combined : r.scale[0], {}});
    }
    o += line_chart(c);
    // Score against bitrate, where the bitrates are known (the pooled mean of each rung).
    std::vector<size_t> with_rate;
    for (size_t i = 0; i < pairs.size(); ++i)
        if (pairs[i].bitrate) with_rate.push_back(i);
    // The rungs' pooled score: the combined mean (the files', or their summary's), else scale 0's.
    const bool summary_combined =
        !combined && std::all_of(pairs.begin(), pairs.end(), [](const ReportPair &p) {
            return p.result.summary_vif.has_value();
        });
    const std::string pooled_name =
        combined || summary_combined ? "mean combined VIF" : "mean VIF of scale 0";
    auto mean_of = [&](const ResultFile &r) {
        if (summary_combined) return *r.summary_vif;
        const auto &v = combined ? r.combined : r.scale[0];
        return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    };
    if (with_rate.size() >= 2) {
        std::sort(with_rate.begin(), with_rate.end(),
                  [&](size_t a, size_t b) { return *pairs[a].bitrate < *pairs[b].bitrate; });
        ChartSpec b;
        b.title = pooled_name + " against bitrate";
        b.title[0] = 'M';
        b.x_label = "bitrate (kbit/s)";
        b.y_label = "VIF";
        b.markers = true;
        ChartSeries s{"rungs", "#1b4f9c", {}, {}, {}};
        for (size_t i : with_rate) {
            s.x.push_back(*pairs[i].bitrate / 1000.0);
            s.y.push_back(mean_of(pairs[i].result));
            s.labels.push_back(pairs[i].result.label);
        }
        b.series.push_back(s);
        o += line_chart(b);
    } else {
        o += "<p class=\"note\">No score-against-bitrate chart: the bitrates of fewer than two "
             "rungs are known (they are read from the encodes' containers, or a result file's "
             "\"bitrate\").</p>\n";
    }
    o += "<table>\n<tr><th>rung</th><th>bitrate (kbit/s)</th><th>" + pooled_name +
         "</th><th>lowest frame" + (combined ? "" : ", scale 0") + "</th></tr>\n";
    for (const ReportPair &p : pairs) {
        const auto &v = combined ? p.result.combined : p.result.scale[0];
        o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         html_escape(p.result.label), p.bitrate ? kbps(*p.bitrate) : "",
                         num(mean_of(p.result)),
                         v.empty() ? "" : num(*std::min_element(v.begin(), v.end())));
    }
    o += "</table>\n</section>\n";
    return o;
}

} // namespace

std::vector<size_t> worst_frames(const ResultFile &r, size_t n) {
    const auto &v = r.ranking();
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), size_t(0));
    n = std::min(n, idx.size());
    std::partial_sort(idx.begin(), idx.begin() + std::ptrdiff_t(n), idx.end(),
                      [&](size_t a, size_t b) { return v[a] < v[b] || (v[a] == v[b] && a < b); });
    idx.resize(n);
    return idx;
}

std::string render_report(const ReportPage &page) {
    std::string o;
    o.reserve(1 << 16);
    o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // Nothing may be fetched: pictures are data URIs, styles and the script are inline.
    o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
         "data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n";
    o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    o += "<title>" + html_escape(page.title) + "</title>\n<style>" + kStyle + "</style>\n";
    o += "</head>\n<body>\n";
    o += "<h1>" + html_escape(page.title) + "</h1>\n";
    const ResultFile &first = page.pairs.front().result;
    o += fmt::format("<p class=\"meta\">{} · {} {} · {} frames{}</p>\n",
                     html_escape(page.generator), page.pairs.size(),
                     page.pairs.size() == 1 ? "pair" : "rungs", first.frame_nums.size(),
                     first.reference.empty() ? "" : " · reference " + html_escape(first.reference));
    if (page.pairs.size() > 1) o += ladder_section(page.pairs);
    for (const ReportPair &p : page.pairs) o += pair_section(p);
    o += "<p id=\"vif-report-check\" data-status=\"pending\">page check: not run (scripts "
         "off)</p>\n";
    o += std::string("<script>") + kScript + "</script>\n</body>\n</html>\n";
    return o;
}

} // namespace vifcli
