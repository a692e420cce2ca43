#include "core/log_text.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>

namespace vif::log {

namespace {

// printf into the end of a string.
__attribute__((format(printf, 2, 3))) void appendf(std::string &out, const char *f, ...) {
    char small[256];
    va_list ap;
    va_start(ap, f);
    const int n = std::vsnprintf(small, sizeof small, f, ap);
    va_end(ap);
    if (n < 0) throw std::runtime_error("formatting a log line failed");
    if (size_t(n) < sizeof small) {
        out.append(small, size_t(n));
        return;
    }
    std::string big(size_t(n) + 1, '\0');
    va_start(ap, f);
    std::vsnprintf(&big[0], big.size(), f, ap);
    va_end(ap);
    out.append(big.data(), size_t(n));
}

double pool_one(const std::vector<double> &v, VifPoolMethod m, double param) {
    double out = 0;
    if (vif_pool(v.data(), v.size(), m, param, &out) != VIF_OK)
        throw std::runtime_error(std::string("pooling failed: ") + vif_last_error());
    return out;
}

struct Pooled {
    double min = 0, max = 0, mean = 0, harmonic_mean = 0;
    double p1 = 0, p5 = 0, p10 = 0, median = 0;
};

Pooled pool(const std::vector<double> &v) {
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

std::vector<Pooled> pool_all(const LogTable &t) {
    std::vector<Pooled> pooled;
    for (const auto &c : t.columns) pooled.push_back(pool(c));
    return pooled;
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

std::string json_value(double v, int prec) {
    return std::isfinite(v) ? format_value(v, prec) : "null";
}

// libvmaf's JSON layout exactly (tools/vmaf's output.c): two-space indents, a non-finite frame
// value written as null without its line end (as libvmaf does), an empty aggregate_metrics.
std::string render_json(const LogTable &t, int prec) {
    std::string o;
    const size_t nk = t.keys.size();
    appendf(o, "{\n  \"version\": %s,\n  \"fps\": %s,\n  \"frames\": [",
            json_string(t.version).c_str(), fps_text(t.fps).c_str());
    for (size_t i = 0; i < t.frames(); ++i) {
        appendf(o, "%s    {\n      \"frameNum\": %" PRIu64 ",\n      \"metrics\": {\n",
                i > 0 ? ",\n" : "\n", t.frame_nums[i]);
        for (size_t k = 0; k < nk; ++k) {
            const double v = t.columns[k][i];
            appendf(o, "        \"%s\": %s%s%s", t.keys[k].c_str(), json_value(v, prec).c_str(),
                    k + 1 < nk ? "," : "", std::isfinite(v) ? "\n" : "");
        }
        o += "      }\n    }";
    }
    o += "\n  ],\n  \"pooled_metrics\": {";
    const std::vector<Pooled> pooled = pool_all(t);
    for (size_t k = 0; k < nk; ++k) {
        const Pooled &p = pooled[k];
        appendf(o,
                "%s    \"%s\": {\n      \"min\": %s,\n      \"max\": %s,\n      \"mean\": "
                "%s,\n      \"harmonic_mean\": %s\n    }",
                k > 0 ? ",\n" : "\n", t.keys[k].c_str(), json_value(p.min, prec).c_str(),
                json_value(p.max, prec).c_str(), json_value(p.mean, prec).c_str(),
                json_value(p.harmonic_mean, prec).c_str());
    }
    o += "\n  },\n  \"aggregate_metrics\": {\n  }";
    if (t.details) {
        // libvif's own block (--details): libvmaf readers ignore keys they do not know.
        appendf(o,
                ",\n  \"libvif\": {\n    \"backend\": %s,\n    \"variant\": %s,\n"
                "    \"reference\": %s,\n    \"distorted\": %s,\n    \"width\": %" PRIu32 ",\n"
                "    \"height\": %" PRIu32 ",\n    \"bitdepth\": %" PRIu32 ",\n"
                "    \"subsample\": %" PRIu64 ",\n    \"frames_scored\": %zu,\n"
                "    \"percentiles\": {",
                json_string(t.backend).c_str(), json_string(t.variant).c_str(),
                json_string(t.reference).c_str(), json_string(t.distorted).c_str(), t.width,
                t.height, t.bitdepth, t.subsample, t.frames());
        for (size_t k = 0; k < nk; ++k) {
            const Pooled &p = pooled[k];
            appendf(o,
                    "%s      \"%s\": {\n        \"p1\": %s,\n        \"p5\": %s,\n"
                    "        \"p10\": %s,\n        \"median\": %s\n      }",
                    k > 0 ? ",\n" : "\n", t.keys[k].c_str(), json_value(p.p1, prec).c_str(),
                    json_value(p.p5, prec).c_str(), json_value(p.p10, prec).c_str(),
                    json_value(p.median, prec).c_str());
        }
        o += "\n    }\n  }";
    }
    o += "\n}\n";
    return o;
}

std::string render_csv(const LogTable &t, int prec) {
    // libvmaf's layout, trailing commas included.
    std::string o = "Frame,";
    for (const auto &k : t.keys) o += k + ",";
    o += "\n";
    for (size_t i = 0; i < t.frames(); ++i) {
        appendf(o, "%" PRIu64 ",", t.frame_nums[i]);
        for (size_t k = 0; k < t.keys.size(); ++k) o += format_value(t.columns[k][i], prec) + ",";
        o += "\n";
    }
    return o;
}

std::string render_xml(const LogTable &t, int prec) {
    std::string o;
    appendf(o, "<VMAF version=\"%s\">\n", xml_attr(t.version).c_str());
    appendf(o, "  <params qualityWidth=\"%" PRIu32 "\" qualityHeight=\"%" PRIu32 "\" />\n", t.width,
            t.height);
    appendf(o, "  <fyi fps=\"%.2f\" />\n", t.fps);
    o += "  <frames>\n";
    for (size_t i = 0; i < t.frames(); ++i) {
        appendf(o, "    <frame frameNum=\"%" PRIu64 "\" ", t.frame_nums[i]);
        for (size_t k = 0; k < t.keys.size(); ++k)
            appendf(o, "%s=\"%s\" ", t.keys[k].c_str(),
                    format_value(t.columns[k][i], prec).c_str());
        o += "/>\n";
    }
    o += "  </frames>\n  <pooled_metrics>\n";
    const std::vector<Pooled> pooled = pool_all(t);
    for (size_t k = 0; k < t.keys.size(); ++k) {
        const Pooled &p = pooled[k];
        appendf(o,
                "    <metric name=\"%s\" min=\"%s\" max=\"%s\" mean=\"%s\" "
                "harmonic_mean=\"%s\" />\n",
                t.keys[k].c_str(), format_value(p.min, prec).c_str(),
                format_value(p.max, prec).c_str(), format_value(p.mean, prec).c_str(),
                format_value(p.harmonic_mean, prec).c_str());
    }
    o += "  </pooled_metrics>\n  <aggregate_metrics />\n";
    if (t.details) {
        appendf(o,
                "  <libvif backend=\"%s\" variant=\"%s\" reference=\"%s\" distorted=\"%s\" "
                "bitdepth=\"%" PRIu32 "\" subsample=\"%" PRIu64 "\" frames_scored=\"%zu\">\n",
                xml_attr(t.backend).c_str(), xml_attr(t.variant).c_str(),
                xml_attr(t.reference).c_str(), xml_attr(t.distorted).c_str(), t.bitdepth,
                t.subsample, t.frames());
        for (size_t k = 0; k < t.keys.size(); ++k) {
            const Pooled &p = pooled[k];
            appendf(o,
                    "    <percentiles name=\"%s\" p1=\"%s\" p5=\"%s\" p10=\"%s\" "
                    "median=\"%s\" />\n",
                    t.keys[k].c_str(), format_value(p.p1, prec).c_str(),
                    format_value(p.p5, prec).c_str(), format_value(p.p10, prec).c_str(),
                    format_value(p.median, prec).c_str());
        }
        o += "  </libvif>\n";
    }
    o += "</VMAF>\n";
    return o;
}

std::string render_summary(const LogTable &t, int precision) {
    std::string o;
    appendf(o,
            "vif %s: %zu frame%s of %" PRIu32 "x%" PRIu32 " %" PRIu32
            "-bit, %s VIF on %s, %.1f fps\n",
            t.version.c_str(), t.frames(), t.frames() == 1 ? "" : "s", t.width, t.height,
            t.bitdepth, t.variant.c_str(), t.backend.c_str(), t.fps);
    int w = 6;
    for (const auto &k : t.keys) w = std::max(w, int(k.size()));
    appendf(o, "%-*s  %12s %12s %12s %14s\n", w, "metric", "mean", "min", "max", "harmonic_mean");
    for (size_t k = 0; k < t.keys.size(); ++k) {
        const Pooled p = pool(t.columns[k]);
        appendf(o, "%-*s  %12s %12s %12s %14s\n", w, t.keys[k].c_str(),
                format_value(p.mean, precision).c_str(), format_value(p.min, precision).c_str(),
                format_value(p.max, precision).c_str(),
                format_value(p.harmonic_mean, precision).c_str());
    }
    return o;
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
                appendf(out, "\\u%04x", unsigned(cp));
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

std::string format_value(double v, int precision) {
    char buf[400];
    if (!std::isfinite(v) || precision == VIF_LOG_PRECISION_LIBVMAF) {
        std::snprintf(buf, sizeof buf, libvmaf_prints_16_digits(v) ? "%.16f" : "%.6f", v);
        return buf;
    }
    if (precision == VIF_LOG_PRECISION_MAX) {
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    // A non-zero value that would print as all zeros keeps `precision` significant digits.
    if (v != 0 && std::fabs(v) < 0.5 * std::pow(10.0, -precision))
        std::snprintf(buf, sizeof buf, "%.*g", precision > 0 ? precision : 1, v);
    return buf;
}

std::string render(const LogTable &t, VifLogFormat format, int precision) {
    switch (format) {
    case VIF_LOG_CSV:
        return render_csv(t, precision);
    case VIF_LOG_XML:
        return render_xml(t, precision);
    case VIF_LOG_SUMMARY:
        return render_summary(t, precision);
    case VIF_LOG_JSON:
        break;
    }
    return render_json(t, precision);
}

} // namespace vif::log
