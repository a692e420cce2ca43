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

std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20)
                out += fmt::format("\\u{:04x}", unsigned(c));
            else
                out += char(c);
        }
    }
    return out + "\"";
}

std::string xml_attr(const std::string &s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '"': out += "&quot;"; break;
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string fps_text(double fps) {
    if (!std::isfinite(fps)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", fps);
    return buf;
}

} // namespace

Pooled pool(const Report &r, size_t key) {
    std::vector<double> v(r.scores.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = r.value(i, key);
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

std::string format_value(double v, int precision, bool json) {
    if (!std::isfinite(v)) {
        if (json) return "null";
        return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    }
    char buf[128];
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

static std::string render_json(const Report &r, int prec) {
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    const size_t nk = r.keys.size();
    fmt::format_to(out, "{{\n  \"version\": {},\n  \"fps\": {},\n  \"frames\": [",
                   json_string(r.version), fps_text(r.fps));
    for (size_t i = 0; i < r.scores.size(); ++i) {
        fmt::format_to(out, "{}    {{\n      \"frameNum\": {},\n      \"metrics\": {{\n",
                       i > 0 ? ",\n" : "\n", r.frame_nums[i]);
        for (size_t k = 0; k < nk; ++k)
            fmt::format_to(out, "        \"{}\": {}{}\n", r.keys[k],
                           format_value(r.value(i, k), prec, true), k + 1 < nk ? "," : "");
        fmt::format_to(out, "      }}\n    }}");
    }
    fmt::format_to(out, "\n  ],\n  \"pooled_metrics\": {{");
    std::vector<Pooled> pooled;
    for (size_t k = 0; k < nk; ++k) {
        Pooled p = pool(r, k);
        pooled.push_back(p);
        fmt::format_to(out,
                       "{}    \"{}\": {{\n      \"min\": {},\n      \"max\": {},\n      \"mean\": "
                       "{},\n      \"harmonic_mean\": {}\n    }}",
                       k > 0 ? ",\n" : "\n", r.keys[k], format_value(p.min, prec, true),
                       format_value(p.max, prec, true), format_value(p.mean, prec, true),
                       format_value(p.harmonic_mean, prec, true));
    }
    fmt::format_to(out, "\n  }},\n  \"aggregate_metrics\": {{\n  }},\n");
    // Our own block: libvmaf readers ignore keys they do not know.
    fmt::format_to(out,
                   "  \"libvif\": {{\n    \"backend\": {},\n    \"variant\": {},\n"
                   "    \"reference\": {},\n    \"distorted\": {},\n    \"width\": {},\n"
                   "    \"height\": {},\n    \"bitdepth\": {},\n    \"subsample\": {},\n"
                   "    \"frames_scored\": {},\n    \"percentiles\": {{",
                   json_string(r.backend), json_string(r.variant), json_string(r.reference),
                   json_string(r.distorted), r.width, r.height, r.bitdepth, r.subsample,
                   r.scores.size());
    for (size_t k = 0; k < nk; ++k) {
        const Pooled &p = pooled[k];
        fmt::format_to(out,
                       "{}      \"{}\": {{\n        \"p1\": {},\n        \"p5\": {},\n"
                       "        \"p10\": {},\n        \"median\": {}\n      }}",
                       k > 0 ? ",\n" : "\n", r.keys[k], format_value(p.p1, prec, true),
                       format_value(p.p5, prec, true), format_value(p.p10, prec, true),
                       format_value(p.median, prec, true));
    }
    fmt::format_to(out, "\n    }}\n  }}\n}}\n");
    return fmt::to_string(o);
}

static std::string render_csv(const Report &r, int prec) {
    // libvmaf's layout, trailing commas included.
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    fmt::format_to(out, "Frame,");
    for (const auto &k : r.keys) fmt::format_to(out, "{},", k);
    fmt::format_to(out, "\n");
    for (size_t i = 0; i < r.scores.size(); ++i) {
        fmt::format_to(out, "{},", r.frame_nums[i]);
        for (size_t k = 0; k < r.keys.size(); ++k)
            fmt::format_to(out, "{},", format_value(r.value(i, k), prec, false));
        fmt::format_to(out, "\n");
    }
    return fmt::to_string(o);
}

static std::string render_xml(const Report &r, int prec) {
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    fmt::format_to(out, "<VMAF version=\"{}\">\n", xml_attr(r.version));
    fmt::format_to(out, "  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />\n", r.width,
                   r.height);
    fmt::format_to(out, "  <fyi fps=\"{}\" />\n", fps_text(r.fps));
    fmt::format_to(out, "  <frames>\n");
    for (size_t i = 0; i < r.scores.size(); ++i) {
        fmt::format_to(out, "    <frame frameNum=\"{}\" ", r.frame_nums[i]);
        for (size_t k = 0; k < r.keys.size(); ++k)
            fmt::format_to(out, "{}=\"{}\" ", r.keys[k], format_value(r.value(i, k), prec, false));
        fmt::format_to(out, "/>\n");
    }
    fmt::format_to(out, "  </frames>\n  <pooled_metrics>\n");
    std::vector<Pooled> pooled;
    for (size_t k = 0; k < r.keys.size(); ++k) {
        Pooled p = pool(r, k);
        pooled.push_back(p);
        fmt::format_to(out,
                       "    <metric name=\"{}\" min=\"{}\" max=\"{}\" mean=\"{}\" "
                       "harmonic_mean=\"{}\" />\n",
                       r.keys[k], format_value(p.min, prec, false),
                       format_value(p.max, prec, false), format_value(p.mean, prec, false),
                       format_value(p.harmonic_mean, prec, false));
    }
    fmt::format_to(out, "  </pooled_metrics>\n  <aggregate_metrics />\n");
    fmt::format_to(out,
                   "  <libvif backend=\"{}\" variant=\"{}\" reference=\"{}\" distorted=\"{}\" "
                   "bitdepth=\"{}\" subsample=\"{}\" frames_scored=\"{}\">\n",
                   xml_attr(r.backend), xml_attr(r.variant), xml_attr(r.reference),
                   xml_attr(r.distorted), r.bitdepth, r.subsample, r.scores.size());
    for (size_t k = 0; k < r.keys.size(); ++k) {
        const Pooled &p = pooled[k];
        fmt::format_to(out,
                       "    <percentiles name=\"{}\" p1=\"{}\" p5=\"{}\" p10=\"{}\" "
                       "median=\"{}\" />\n",
                       r.keys[k], format_value(p.p1, prec, false), format_value(p.p5, prec, false),
                       format_value(p.p10, prec, false), format_value(p.median, prec, false));
    }
    fmt::format_to(out, "  </libvif>\n</VMAF>\n");
    return fmt::to_string(o);
}

std::string render(const Report &r, Format f, int precision) {
    switch (f) {
    case Format::kCsv: return render_csv(r, precision);
    case Format::kXml: return render_xml(r, precision);
    case Format::kJson: break;
    }
    return render_json(r, precision);
}

std::string render_summary(const Report &r, int precision) {
    fmt::memory_buffer o;
    auto out = std::back_inserter(o);
    fmt::format_to(out, "vif {}: {} frame{} of {}x{} {}-bit, {} VIF on {}, {:.1f} fps\n",
                   r.version, r.scores.size(), r.scores.size() == 1 ? "" : "s", r.width,
                   r.height, r.bitdepth, r.variant, r.backend, r.fps);
    size_t w = 6;
    for (const auto &k : r.keys) w = std::max(w, k.size());
    fmt::format_to(out, "{:<{}}  {:>12} {:>12} {:>12} {:>14}\n", "metric", w, "mean", "min", "max",
                   "harmonic_mean");
    for (size_t k = 0; k < r.keys.size(); ++k) {
        Pooled p = pool(r, k);
        fmt::format_to(out, "{:<{}}  {:>12} {:>12} {:>12} {:>14}\n", r.keys[k], w,
                       format_value(p.mean, precision, false), format_value(p.min, precision, false),
                       format_value(p.max, precision, false),
                       format_value(p.harmonic_mean, precision, false));
    }
    return fmt::to_string(o);
}

} // namespace vifcli
