#include "batch/outputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace vif::batch {
namespace {
std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}
} // namespace

std::vector<std::string> output_stems(const std::vector<ManifestRow>& rows) {
    std::vector<std::string> stems;
    std::map<std::string, int> uses;
    for (const ManifestRow& r : rows) {
        std::string stem = std::filesystem::path(r.distorted).stem().string();
        if (stem.empty() || stem == "summary") stem = "row" + std::to_string(r.row);
        stems.push_back(stem);
        ++uses[lower(stem)];
    }
    std::set<std::string> taken;
    for (size_t i = 0; i < rows.size(); ++i)
        if (uses[lower(stems[i])] > 1) stems[i] += ".row" + std::to_string(rows[i].row);
    // A suffixed name may still meet a file really called that: add the row again until unique.
    for (size_t i = 0; i < rows.size(); ++i) {
        while (!taken.insert(lower(stems[i])).second)
            stems[i] += ".row" + std::to_string(rows[i].row);
    }
    return stems;
}

bool output_complete(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return false;
    const std::streamoff size = in.tellg();
    if (size <= 0) return false;
    if (std::filesystem::path(path).extension() != ".json") return true;
    const std::streamoff tail = std::min<std::streamoff>(size, 64);
    in.seekg(size - tail);
    std::string end(static_cast<size_t>(tail), '\0');
    in.read(&end[0], tail);
    const size_t last = end.find_last_not_of(" \t\r\n");
    return last != std::string::npos && end[last] == '}';
}

void write_atomically(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            throw std::runtime_error(tmp + ": write failed (disk full?)");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path +
                                 ": cannot rename the finished file into place: " + ec.message());
    }
}

} // namespace vif::batch
