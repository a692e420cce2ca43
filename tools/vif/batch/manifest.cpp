#include "batch/manifest.hpp"

#include "batch/csv.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace vif::batch {
namespace {

[[noreturn]] void bad(const std::string& name, size_t line, const std::string& what) {
    throw ManifestError(name + ":" + std::to_string(line) + ": " + what);
}

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// A line's fields (batch/csv.hpp): unquoted ones trimmed, an open quote refused.
std::vector<std::string> csv_fields(const std::string& line, const std::string& name, size_t n) {
    bool unterminated = false;
    std::vector<std::string> out;
    for (CsvField& f : split_csv_line(line, &unterminated))
        out.push_back(f.quoted ? std::move(f.text) : trim(f.text));
    if (unterminated) bad(name, n, "unterminated quote");
    return out;
}

uint32_t to_uint(const std::string& v, const char* key, const std::string& name, size_t n) {
    if (v.empty()) return 0;
    size_t used = 0;
    unsigned long x = 0;
    try {
        x = std::stoul(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != v.size() || v[0] == '-' || x > 65535)
        bad(name, n, std::string(key) + " '" + v + "' is not a whole number in [0, 65535]");
    return static_cast<uint32_t>(x);
}

ManifestRow make_row(const std::map<std::string, std::string>& f, const std::string& name,
                     size_t line, size_t row) {
    auto get = [&](const char* k) {
        auto it = f.find(k);
        return it == f.end() ? std::string() : it->second;
    };
    ManifestRow r;
    r.row = row;
    r.reference = get("reference");
    r.distorted = get("distorted");
    if (r.reference.empty()) bad(name, line, "empty reference");
    if (r.distorted.empty()) bad(name, line, "empty distorted");
    r.width = to_uint(get("width"), "width", name, line);
    r.height = to_uint(get("height"), "height", name, line);
    r.bitdepth = to_uint(get("bitdepth"), "bitdepth", name, line);
    r.pixel_format = get("pixel_format");
    if ((r.width == 0) != (r.height == 0)) bad(name, line, "width and height go together");
    return r;
}

std::vector<ManifestRow> parse_csv(std::istream& in, const std::string& name) {
    std::string line;
    size_t n = 0;
    std::vector<std::string> header;
    while (header.empty() && std::getline(in, line)) {
        ++n;
        if (!trim(line).empty()) header = csv_fields(line, name, n);
    }
    if (header.empty()) bad(name, n, "empty manifest (no header)");
    if (!header.empty() && header[0].rfind("\xEF\xBB\xBF", 0) == 0) header[0].erase(0, 3); // BOM
    bool has_ref = false, has_dist = false;
    for (const auto& h : header) has_ref |= h == "reference", has_dist |= h == "distorted";
    if (!has_ref || !has_dist) bad(name, n, "the header must name the columns reference,distorted");
    std::vector<ManifestRow> rows;
    while (std::getline(in, line)) {
        ++n;
        if (trim(line).empty()) continue;
        const auto f = csv_fields(line, name, n);
        if (f.size() != header.size())
            bad(name, n,
                std::to_string(f.size()) + " fields but the header has " +
                    std::to_string(header.size()));
        std::map<std::string, std::string> m;
        for (size_t i = 0; i < f.size(); ++i) m[header[i]] = f[i];
        rows.push_back(make_row(m, name, n, rows.size() + 1));
    }
    return rows;
}

// One flat JSON object: string, number, true/false/null values (nested values refused).
std::map<std::string, std::string> json_object(const std::string& s, const std::string& name,
                                               size_t n) {
    size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    };
    auto expect = [&](char c) {
        ws();
        if (i >= s.size() || s[i] != c) bad(name, n, std::string("expected '") + c + "'");
        ++i;
    };
    auto string = [&] {
        expect('"');
        std::string out;
        for (;;) {
            if (i >= s.size()) bad(name, n, "unterminated string");
            char c = s[i++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i >= s.size()) bad(name, n, "unterminated string");
            c = s[i++];
            switch (c) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                if (i + 4 > s.size()) bad(name, n, "bad \\u escape");
                const unsigned cp = std::stoul(s.substr(i, 4), nullptr, 16);
                i += 4;
                if (cp < 0x80)
                    out += static_cast<char>(cp);
                else if (cp < 0x800)
                    out += static_cast<char>(0xC0 | (cp >> 6)),
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                else
                    out += static_cast<char>(0xE0 | (cp >> 12)),
                        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                break;
            }
            default:
                out += c; // \" \\ \/
            }
        }
    };
    std::map<std::string, std::string> m;
    expect('{');
    ws();
    if (i < s.size() && s[i] == '}') {
        ++i;
    } else {
        for (;;) {
            const std::string key = string();
            expect(':');
            ws();
            if (i < s.size() && s[i] == '"') {
                m[key] = string();
            } else {
                const size_t a = i;
                while (i < s.size() && s[i] != ',' && s[i] != '}' &&
                       !std::isspace(static_cast<unsigned char>(s[i])))
                    ++i;
                std::string v = s.substr(a, i - a);
                if (v.empty() || v[0] == '{' || v[0] == '[')
                    bad(name, n, "value of '" + key + "' must be a string or a number");
                m[key] = v == "null" ? "" : v;
            }
            ws();
            if (i < s.size() && s[i] == ',') {
                ++i;
                continue;
            }
            expect('}');
            break;
        }
    }
    ws();
    if (i != s.size()) bad(name, n, "text after the object");
    return m;
}

std::vector<ManifestRow> parse_jsonl(std::istream& in, const std::string& name) {
    std::vector<ManifestRow> rows;
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (trim(line).empty()) continue;
        rows.push_back(make_row(json_object(trim(line), name, n), name, n, rows.size() + 1));
    }
    return rows;
}

} // namespace

std::vector<ManifestRow> parse_manifest(std::istream& in, const std::string& name) {
    std::ostringstream all;
    all << in.rdbuf();
    const std::string text = all.str();
    const size_t first = text.find_first_not_of(" \t\r\n");
    std::istringstream s(text);
    std::vector<ManifestRow> rows = first != std::string::npos && text[first] == '{'
                                        ? parse_jsonl(s, name)
                                        : parse_csv(s, name);
    if (rows.empty()) throw ManifestError(name + ": no pairs listed");
    return rows;
}

std::vector<ManifestRow> read_manifest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ManifestError(path + ": cannot open the manifest");
    std::vector<ManifestRow> rows = parse_manifest(in, path);
    const std::filesystem::path base = std::filesystem::path(path).parent_path();
    for (ManifestRow& r : rows)
        for (std::string* p : {&r.reference, &r.distorted})
            if (std::filesystem::path(*p).is_relative())
                *p = (base / *p).lexically_normal().string();
    return rows;
}

std::vector<ReferenceGroup> group_by_reference(const std::vector<ManifestRow>& rows) {
    std::vector<ReferenceGroup> groups;
    std::map<std::string, size_t> index;
    for (const ManifestRow& r : rows) {
        // The raw format is part of the key: the same file read two ways is two references.
        const std::string key = r.reference + '\n' + std::to_string(r.width) + 'x' +
                                std::to_string(r.height) + '\n' + r.pixel_format + '\n' +
                                std::to_string(r.bitdepth);
        auto [it, added] = index.emplace(key, groups.size());
        if (added) groups.push_back({r.reference, {}});
        groups[it->second].rows.push_back(r);
    }
    return groups;
}

std::string canonical_rows(const std::vector<ManifestRow>& rows) {
    std::string out;
    for (const ManifestRow& r : rows) {
        for (const std::string* f : {&r.reference, &r.distorted, &r.pixel_format}) out += *f + '\0';
        out += std::to_string(r.row) + '\0' + std::to_string(r.width) + '\0' +
               std::to_string(r.height) + '\0' + std::to_string(r.bitdepth) + '\n';
    }
    return out;
}

} // namespace vif::batch
