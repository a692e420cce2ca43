// Reading the golden test data (testdata/MANIFEST.csv, raw YUV cases, expected CSVs) for tests.
// Header-only so every test folder can use it.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace vif::testing {

struct GoldenCase {
    std::string name, dir, ref_file, dist_file, pix; // pix: "420", "422", "444"
    uint32_t width = 0, height = 0, bitdepth = 8, frames = 0;

    uint32_t bytes_per_sample() const { return bitdepth == 8 ? 1 : 2; }
    size_t luma_bytes() const { return size_t(width) * height * bytes_per_sample(); }
    size_t frame_bytes() const {
        const uint32_t sx = pix == "444" ? 1 : 2, sy = pix == "420" ? 2 : 1;
        const size_t cw = (width + sx - 1) / sx, ch = (height + sy - 1) / sy;
        return luma_bytes() + 2 * cw * ch * bytes_per_sample();
    }
    std::string ref_path() const { return dir + "/" + ref_file; }
    std::string dist_path() const { return dir + "/" + dist_file; }
    std::string expected_path() const { return dir + "/expected/" + name + ".csv"; }
};

// Test listings show the case name instead of GoogleTest's byte dump (found by ADL).
inline void PrintTo(const GoldenCase& c, std::ostream* os) {
    *os << c.name;
}

inline std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (char ch : line) {
        if (ch == '"')
            quoted = !quoted;
        else if (ch == ',' && !quoted) {
            out.push_back(cur);
            cur.clear();
        } else if (ch != '\r')
            cur += ch;
    }
    out.push_back(cur);
    return out;
}

// Cases listed in dir/MANIFEST.csv; empty if the folder or manifest is missing.
inline std::vector<GoldenCase> load_manifest(const std::string& dir) {
    std::vector<GoldenCase> cases;
    std::ifstream in(dir + "/MANIFEST.csv");
    std::string line;
    if (!std::getline(in, line)) return cases;
    const auto header = split_csv_line(line);
    auto col = [&](const char* name) {
        for (size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        return size_t(0);
    };
    const size_t c_case = col("case"), c_ref = col("ref_file"), c_dist = col("dist_file"),
                 c_w = col("width"), c_h = col("height"), c_p = col("vmaf_p"),
                 c_bd = col("bitdepth"), c_n = col("frames");
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto f = split_csv_line(line);
        GoldenCase c;
        c.name = f[c_case];
        c.dir = dir;
        c.ref_file = f[c_ref];
        c.dist_file = f[c_dist];
        c.width = std::stoul(f[c_w]);
        c.height = std::stoul(f[c_h]);
        c.pix = f[c_p];
        c.bitdepth = std::stoul(f[c_bd]);
        c.frames = std::stoul(f[c_n]);
        cases.push_back(c);
    }
    return cases;
}

// The luma plane of frame `frame` (tightly packed); empty on a read error.
inline std::vector<uint8_t> read_luma(const GoldenCase& c, const std::string& path,
                                      uint32_t frame) {
    std::vector<uint8_t> buf(c.luma_bytes());
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(c.frame_bytes() * frame));
    if (!in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size())))
        buf.clear();
    return buf;
}

// Rows of the expected CSV: one map column -> value per frame.
inline std::vector<std::map<std::string, double>> load_expected(const std::string& path) {
    std::vector<std::map<std::string, double>> rows;
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return rows;
    const auto header = split_csv_line(line);
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto f = split_csv_line(line);
        std::map<std::string, double> row;
        for (size_t i = 0; i < header.size() && i < f.size(); ++i)
            row[header[i]] = std::strtod(f[i].c_str(), nullptr);
        rows.push_back(row);
    }
    return rows;
}

} // namespace vif::testing
