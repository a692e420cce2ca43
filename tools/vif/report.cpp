#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace vifcli {

namespace {

double pool_one(const std::vector<double> &v, VifPoolMethod m, double param) {
    double out = 0;
    VifStatus st = vif_pool(v.data(), v.size(), m, param, &out);
    if (st != VIF_OK) throw std::runtime_error(fmt::format("pooling failed: {}", vif_last_error()));
    return out;
}

// Length of the valid UTF-8 sequence at s[i], or 0 if the bytes there are not one; *cp gets
// the code point.
size_t utf8_sequence(const std::string &s, size_t i, uint32_t *cp) {
    const auto b = [&](size_t k) { return i + k < s.size() ? (unsigned char)s[i + k] : 0u; };
    const unsigned c = b(0);
    const auto cont = [&](size_t k) { return (b(k) & 0xC0u) == 0x80u; };
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF && cont(1)) {
        *cp = ((c & 0x1Fu) << 6) | (b(1) & 0x3Fu);
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF && cont(1) && cont(2)) {
        *cp = ((c & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
        // Overlong forms and UTF-16 surrogates are not valid UTF-8.
        return *cp >= 0x800 && (*cp < 0xD800 || *cp > 0xDFFF) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4 && cont(1) && cont(2) && cont(3)) {
        *cp = ((c & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
        return *cp >= 0x10000 && *cp <= 0x10FFFF ? 4 : 0;
    }
    return 0;
}

const char kReplacement[] = "\xEF\xBF\xBD"; // U+FFFD in UTF-8

std::string fps_text(double fps) {
    if (!std::isfinite(fps)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", fps);
    return buf;
}

} // namespace

std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = 0;
        const size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) { // not UTF-8: one byte becomes U+FFFD
            out += "\\ufffd";
            ++i;
            continue;
        }
        switch (cp) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (cp < 0x20 || cp == 0x7F)
                out += fmt::format("\\u{:04x}", cp);
            else
                out.append(s, i, n);
        }
        i += n;
    }
    return out + "\"";
}

std::string xml_attr(const std::string &s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = 0;
        const size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) {
            out += kReplacement;
            ++i;
            continue;
        }
        switch (cp) {
        case '"':
            out += "&quot;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '\t':
            out += "&#9;";
            break;
        case '\n':
            out += "&#10;";
            break;
        case '\r':
            out += "&#13;";
            break;
        default:
            // XML 1.0 has no way to write the other control characters, nor U+FFFE/U+FFFF.
            if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF)
                out += kReplacement;
            else
                out.append(s, i, n);
        }
        i += n;
    }
    return out;
}

Pooled pool(const Report &r, size_t key) {
    const std::vector<double> &v = r.columns[key];
    Pooled p;
    p.min = pool_one(v, VIF_POOL_MIN, 0);
    p.max = pool_one(v, VIF_POOL_MAX, 0);
    p.mean = pool_one(v, VIF_POOL_MEAN, 0);
    p.harmonic_mean = pool_one(v, VIF_POOL_HARMONIC_MEAN, 0);
    p.p1 = pool_one(v, VIF_POOL_PERCENTILE, 1);
    p.p5 = pool_one(v, VIF_POOL_PERCENTILE, 5);
    p.p10 = pool_one(v, VIF_POOL_PERCENTILE, 10);
    p.median = pool_one(v, VIF_POOL_PERCENTILE, 50);
    return p;
}

VifStatus add_variant_columns(Report &r, const VifConfig &cfg, const std::vector<VifScores> &scores,
                              int metrics) {
    const char *vname = cfg.variant == VIF_VARIANT_INTEGER ? "integer" : "float";
    r.variant += (r.variant.empty() ? "" : "+") + std::string(vname);
    for (int m = 0; m < metrics; ++m) {
        char name[64];
        const VifStatus st = vif_metric_name(&cfg, VifMetric(m), name, sizeof name);
        if (st != VIF_OK) return st;
        r.keys.emplace_back(name);
        std::vector<double> column(scores.size());
        for (size_t i = 0; i < column.size(); ++i)
            column[i] = vif_metric_value(&scores[i], VifMetric(m));
        r.columns.push_back(std::move(column));
    }
    return VIF_OK;
}

namespace {

// libvmaf's choice between %.6f and %.16f: how many times the fractional part of a non-negative
// value is multiplied by ten before it reaches 1 (0 for a whole number or a negative value).
// The same double arithmetic as libvmaf's, so that the boundary falls where libvmaf's does.
bool libvmaf_prints_16_digits(double v) {
    if (!(v >= 0) || !std::isfinite(v)) return false;
    double frac = v - std::trunc(v);
    int steps = 0;
    while (frac < 1.0 && frac != 0) {
        frac *= 10;
        ++steps;
    }
    return steps > 6;
}

} // namespace

std::string format_value(double v, int precision) {
    char buf[400];
    if (!std::isfinite(v) || precision == kPrecisionLibvmaf) {
        std::snprintf(buf, sizeof buf, libvmaf_prints_16_digits(v) ? "%.16f" : "%.6f", v);
        return buf;
    }
    if (precision == kPrecisionMax) {
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    // A non-zero value that would print as all zeros keeps `precision` significant digits.
    if (v != 0 && std::fabs(v) < 0.5 * std::pow(10.0, -precision))
        std::snprintf(buf, sizeof buf, "%.*g", precision > 0 ? precision : 1, v);
    return buf;
}

static std::string json_value(double v, int prec) {
    return std::isfinite(v) ? format_value(v, prec) : "null";
}

static std::vector<Pooled> pool_all(const Report &r) {
    std::vector<Pooled> pooled;
    for (size_t k = 0; k < r.keys.size(); ++k) pooled.push_back(pool(r, k));
    return pooled;
}

// libvmaf's JSON layout exactly (tools/vmaf's output.c): two-space indents, a non-finite frame
// value written as null without its line end (as libvmaf does), an empty aggregate_metrics.
static std::string render_json(const Report &r, int prec) {
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    const size_t nk = r.keys.size();
    fmt::format_to(out, "{{\n  \"version\": {},\n  \"fps\": {},\n  \"frames\": [",
                   json_string(r.version), fps_text(r.fps));
    for (size_t i = 0; i < r.frames(); ++i) {
        fmt::format_to(out, "{}    {{\n      \"frameNum\": {},\n      \"metrics\": {{\n",
                       i > 0 ? ",\n" : "\n", r.frame_nums[i]);
        for (size_t k = 0; k < nk; ++k) {
            const double v = r.value(i, k);
            fmt::format_to(out, "        \"{}\": {}{}{}", r.keys[k], json_value(v, prec),
                           k + 1 < nk ? "," : "", std::isfinite(v) ? "\n" : "");
        }
        fmt::format_to(out, "      }}\n    }}");
    }
    fmt::format_to(out, "\n  ],\n  \"pooled_metrics\": {{");
    const std::vector<Pooled> pooled = pool_all(r);
    for (size_t k = 0; k < nk; ++k) {
        const Pooled &p = pooled[k];
        fmt::format_to(out,
                       "{}    \"{}\": {{\n      \"min\": {},\n      \"max\": {},\n      \"mean\": "
                       "{},\n      \"harmonic_mean\": {}\n    }}",
                       k > 0 ? ",\n" : "\n", r.keys[k], json_value(p.min, prec),
                       json_value(p.max, prec), json_value(p.mean, prec),
                       json_value(p.harmonic_mean, prec));
    }
    fmt::format_to(out, "\n  }},\n  \"aggregate_metrics\": {{\n  }}");
    if (r.details) {
        // libvif's own block (--details): libvmaf readers ignore keys they do not know.
        fmt::format_to(out,
                       ",\n  \"libvif\": {{\n    \"backend\": {},\n    \"variant\": {},\n"
                       "    \"reference\": {},\n    \"distorted\": {},\n    \"width\": {},\n"
                       "    \"height\": {},\n    \"bitdepth\": {},\n    \"subsample\": {},\n"
                       "    \"frames_scored\": {},\n    \"percentiles\": {{",
                       json_string(r.backend), json_string(r.variant), json_string(r.reference),
                       json_string(r.distorted), r.width, r.height, r.bitdepth, r.subsample,
                       r.frames());
        for (size_t k = 0; k < nk; ++k) {
            const Pooled &p = pooled[k];
            fmt::format_to(out,
                           "{}      \"{}\": {{\n        \"p1\": {},\n        \"p5\": {},\n"
                           "        \"p10\": {},\n        \"median\": {}\n      }}",
                           k > 0 ? ",\n" : "\n", r.keys[k], json_value(p.p1, prec),
                           json_value(p.p5, prec), json_value(p.p10, prec),
                           json_value(p.median, prec));
        }
        fmt::format_to(out, "\n    }}\n  }}");
    }
    fmt::format_to(out, "\n}}\n");
    return fmt::to_string(o);
}

static std::string render_csv(const Report &r, int prec) {
    // libvmaf's layout, trailing commas included.
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    fmt::format_to(out, "Frame,");
    for (const auto &k : r.keys) fmt::format_to(out, "{},", k);
    fmt::format_to(out, "\n");
    for (size_t i = 0; i < r.frames(); ++i) {
        fmt::format_to(out, "{},", r.frame_nums[i]);
        for (size_t k = 0; k < r.keys.size(); ++k)
            fmt::format_to(out, "{},", format_value(r.value(i, k), prec));
        fmt::format_to(out, "\n");
    }
    return fmt::to_string(o);
}

static std::string render_xml(const Report &r, int prec) {
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    char fps[64];
    std::snprintf(fps, sizeof fps, "%.2f", r.fps);
    fmt::format_to(out, "<VMAF version=\"{}\">\n", xml_attr(r.version));
    fmt::format_to(out, "  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />\n", r.width,
                   r.height);
    fmt::format_to(out, "  <fyi fps=\"{}\" />\n", fps);
    fmt::format_to(out, "  <frames>\n");
    for (size_t i = 0; i < r.frames(); ++i) {
        fmt::format_to(out, "    <frame frameNum=\"{}\" ", r.frame_nums[i]);
        for (size_t k = 0; k < r.keys.size(); ++k)
            fmt::format_to(out, "{}=\"{}\" ", r.keys[k], format_value(r.value(i, k), prec));
        fmt::format_to(out, "/>\n");
    }
    fmt::format_to(out, "  </frames>\n  <pooled_metrics>\n");
    const std::vector<Pooled> pooled = pool_all(r);
    for (size_t k = 0; k < r.keys.size(); ++k) {
        const Pooled &p = pooled[k];
        fmt::format_to(out,
                       "    <metric name=\"{}\" min=\"{}\" max=\"{}\" mean=\"{}\" "
                       "harmonic_mean=\"{}\" />\n",
                       r.keys[k], format_value(p.min, prec), format_value(p.max, prec),
                       format_value(p.mean, prec), format_value(p.harmonic_mean, prec));
    }
    fmt::format_to(out, "  </pooled_metrics>\n  <aggregate_metrics />\n");
    if (r.details) {
        fmt::format_to(out,
                       "  <libvif backend=\"{}\" variant=\"{}\" reference=\"{}\" distorted=\"{}\" "
                       "bitdepth=\"{}\" subsample=\"{}\" frames_scored=\"{}\">\n",
                       xml_attr(r.backend), xml_attr(r.variant), xml_attr(r.reference),
                       xml_attr(r.distorted), r.bitdepth, r.subsample, r.frames());
        for (size_t k = 0; k < r.keys.size(); ++k) {
            const Pooled &p = pooled[k];
            fmt::format_to(out,
                           "    <percentiles name=\"{}\" p1=\"{}\" p5=\"{}\" p10=\"{}\" "
                           "median=\"{}\" />\n",
                           r.keys[k], format_value(p.p1, prec), format_value(p.p5, prec),
                           format_value(p.p10, prec), format_value(p.median, prec));
        }
        fmt::format_to(out, "  </libvif>\n");
    }
    fmt::format_to(out, "</VMAF>\n");
    return fmt::to_string(o);
}

std::string render(const Report &r, Format f, int precision) {
    switch (f) {
    case Format::kCsv:
        return render_csv(r, precision);
    case Format::kXml:
        return render_xml(r, precision);
    case Format::kJson:
        break;
    }
    return render_json(r, precision);
}

std::string render_summary(const Report &r, int precision) {
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    fmt::format_to(out, "vif {}: {} frame{} of {}x{} {}-bit, {} VIF on {}, {:.1f} fps\n", r.version,
                   r.frames(), r.frames() == 1 ? "" : "s", r.width, r.height, r.bitdepth, r.variant,
                   r.backend, r.fps);
    size_t w = 6;
    for (const auto &k : r.keys) w = std::max(w, k.size());
    fmt::format_to(out, "{:<{}}  {:>12} {:>12} {:>12} {:>14}\n", "metric", w, "mean", "min", "max",
                   "harmonic_mean");
    for (size_t k = 0; k < r.keys.size(); ++k) {
        Pooled p = pool(r, k);
        fmt::format_to(out, "{:<{}}  {:>12} {:>12} {:>12} {:>14}\n", r.keys[k], w,
                       format_value(p.mean, precision), format_value(p.min, precision),
                       format_value(p.max, precision), format_value(p.harmonic_mean, precision));
    }
    return fmt::to_string(o);
}

} // namespace vifcli
