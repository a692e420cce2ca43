#include "batch/summary.hpp"

#include "batch/csv.hpp"
#include "decimal.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace vif::batch {
namespace {

const char* const kHeader =
    "row,reference,distorted,output,status,frames,width,height,source_width,source_height,"
    "vif,vif_scale0,vif_scale1,vif_scale2,vif_scale3,error,manifest";
constexpr size_t kColumns = 17;

std::string quote(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c; // line breaks stay, inside the quotes (RFC 4180)
    }
    return out + '"';
}

std::string number(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

// A line's fields as written (batch/csv.hpp).
std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    for (CsvField& f : split_csv_line(line)) out.push_back(std::move(f.text));
    return out;
}

template <typename T>
T parse_num(const std::string& s, const std::string& where) {
    T v{};
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        throw SummaryError(where + ": '" + s + "' is not a number");
    return v;
}

// "summary.shard-I-of-N.csv" -> I, N; false for other names. Throws for a shard name whose
// numbers are out of range.
bool shard_of(const std::string& file, uint32_t* index, uint32_t* count) {
    const std::string name = std::filesystem::path(file).filename().string();
    const std::string pre = "summary.shard-", suf = ".csv";
    if (name.size() <= pre.size() + suf.size() || name.compare(0, pre.size(), pre) != 0 ||
        name.compare(name.size() - suf.size(), suf.size(), suf) != 0)
        return false;
    const std::string mid = name.substr(pre.size(), name.size() - pre.size() - suf.size());
    const size_t of = mid.find("-of-");
    if (of == std::string::npos || !vifcli::parse_small_decimal(mid.substr(0, of), index) ||
        !vifcli::parse_small_decimal(mid.substr(of + 4), count) || *count == 0 || *index >= *count)
        throw SummaryError(file + ": not a shard's summary name (summary.shard-I-of-N.csv with "
                                  "0 <= I < N, N at most 9 digits)");
    return true;
}

} // namespace

std::string manifest_identity(const std::string& bytes, size_t rows) {
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return std::string(buf) + ":" + std::to_string(rows);
}

std::string format_summary_row(const SummaryRow& r) {
    std::string out;
    {
        out += std::to_string(r.row) + ',' + quote(r.reference) + ',' + quote(r.distorted) + ',' +
               quote(r.output) + ',' + r.status + ',' + std::to_string(r.frames) + ',' +
               std::to_string(r.width) + ',' + std::to_string(r.height) + ',' +
               std::to_string(r.source_width) + ',' + std::to_string(r.source_height) + ',';
        if (r.has_scores) {
            out += number(r.vif);
            for (double s : r.scale) out += ',' + number(s);
        } else {
            out += ",,,,";
        }
        out += ',' + quote(r.error) + ',' + quote(r.manifest);
    }
    return out;
}

std::string format_summary(const std::vector<SummaryRow>& rows) {
    std::string out = std::string(kHeader) + "\n";
    for (const SummaryRow& r : rows) out += format_summary_row(r) + '\n';
    return out;
}

SummaryRow parse_summary_row(const std::string& line, const std::string& where) {
    const auto f = fields(line);
    if (f.size() != kColumns)
        throw SummaryError(where + ": " + std::to_string(f.size()) + " fields, expected " +
                           std::to_string(kColumns));
    SummaryRow r;
    r.row = parse_num<size_t>(f[0], where);
    r.reference = f[1];
    r.distorted = f[2];
    r.output = f[3];
    r.status = f[4];
    r.frames = parse_num<uint64_t>(f[5], where);
    r.width = parse_num<uint32_t>(f[6], where);
    r.height = parse_num<uint32_t>(f[7], where);
    r.source_width = parse_num<uint32_t>(f[8], where);
    r.source_height = parse_num<uint32_t>(f[9], where);
    r.has_scores = !f[10].empty();
    if (r.has_scores) {
        r.vif = parse_num<double>(f[10], where);
        for (int s = 0; s < 4; ++s) r.scale[s] = parse_num<double>(f[11 + s], where);
    }
    r.error = f[15];
    r.manifest = f[16];
    return r;
}

std::vector<SummaryRow> parse_summary(std::istream& in, const std::string& name) {
    std::string line;
    if (!std::getline(in, line)) throw SummaryError(name + ": empty file");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line != kHeader) throw SummaryError(name + ": not a vif summary (unexpected header)");
    std::vector<SummaryRow> rows;
    size_t n = 1;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line == "\r") continue;
        const std::string where = name + ":" + std::to_string(n);
        // A quoted field may hold line breaks (a path with a newline): join its lines.
        bool open = false;
        split_csv_line(line, &open);
        while (open) {
            std::string more;
            if (!std::getline(in, more))
                throw SummaryError(where + ": a quoted field is not closed at the end of the file");
            ++n;
            line += '\n' + more;
            split_csv_line(line, &open);
        }
        SummaryRow r = parse_summary_row(line, where);
        rows.push_back(std::move(r));
    }
    return rows;
}

MergeResult merge_summaries(const std::vector<std::string>& files) {
    // Shard summaries carry I and N in their names: every shard must be there, once. (A shard
    // may have no rows at all, so the row numbers alone cannot tell that one is missing.)
    std::map<uint32_t, std::string> shard_file;
    uint32_t shards = 0;
    for (const std::string& file : files) {
        uint32_t i = 0, n = 0;
        if (!shard_of(file, &i, &n)) continue;
        if (shards && n != shards)
            throw SummaryError(file + ": a shard of " + std::to_string(n) + ", but " +
                               shard_file.begin()->second + " is a shard of " +
                               std::to_string(shards));
        shards = n;
        if (!shard_file.emplace(i, file).second)
            throw SummaryError("shard " + std::to_string(i) + " is in both " + shard_file[i] +
                               " and " + file);
    }
    MergeResult m;
    m.missing_shard_count = shards - shard_file.size();
    for (uint32_t i = 0; i < shards && m.missing_shards.size() < 20; ++i)
        if (!shard_file.count(i)) m.missing_shards.push_back(i);

    std::map<size_t, std::pair<SummaryRow, std::string>> by_row;
    std::string manifest, manifest_file;
    size_t manifest_rows = 0;
    for (const std::string& file : files) {
        std::ifstream in(file, std::ios::binary);
        if (!in) throw SummaryError(file + ": cannot open");
        for (SummaryRow& r : parse_summary(in, file)) {
            if (manifest_file.empty()) {
                const size_t colon = r.manifest.rfind(':');
                uint32_t count = 0;
                if (colon == std::string::npos ||
                    !vifcli::parse_small_decimal(r.manifest.substr(colon + 1), &count) ||
                    count == 0)
                    throw SummaryError(file + ": row " + std::to_string(r.row) +
                                       " names no manifest (a summary of an older vif?)");
                manifest = r.manifest;
                manifest_file = file;
                manifest_rows = count;
            } else if (r.manifest != manifest) {
                throw SummaryError(file + " and " + manifest_file +
                                   " are summaries of different manifests (" + r.manifest +
                                   " and " + manifest + ")");
            }
            if (r.row == 0 || r.row > manifest_rows)
                throw SummaryError(file + ": row " + std::to_string(r.row) +
                                   " is outside the manifest's rows 1.." +
                                   std::to_string(manifest_rows));
            auto [it, added] = by_row.emplace(r.row, std::make_pair(r, file));
            if (!added)
                throw SummaryError("row " + std::to_string(r.row) + " is in both " +
                                   it->second.second + " and " + file +
                                   " (overlapping shards or the same summary twice)");
        }
    }
    m.missing_rows = manifest_rows - by_row.size();
    size_t expect = 1;
    for (auto& [row, entry] : by_row) {
        for (; expect < row && m.missing.size() < 20; ++expect) m.missing.push_back(expect);
        expect = row + 1;
        m.rows.push_back(std::move(entry.first));
    }
    for (; expect <= manifest_rows && m.missing.size() < 20; ++expect) m.missing.push_back(expect);
    return m;
}

std::vector<std::string> summary_files_in(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string n = e.path().filename().string();
        if (n == "summary.csv" ||
            (n.rfind("summary.shard-", 0) == 0 && e.path().extension() == ".csv"))
            out.push_back(e.path().string());
    }
    if (ec) throw SummaryError(dir + ": cannot list: " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
}

std::string summary_name(uint32_t index, uint32_t count) {
    if (count <= 1) return "summary.csv";
    return "summary.shard-" + std::to_string(index) + "-of-" + std::to_string(count) + ".csv";
}

} // namespace vif::batch
