#include "batch/outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
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
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
    size_t done = 0;
    int err = 0;
    while (done < content.size() && !err) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            err = n < 0 ? errno : ENOSPC;
        else
            done += size_t(n);
    }
    // On disk before the rename: after a crash the name holds the old file or the whole new one.
    if (!err && ::fsync(fd) != 0) err = errno;
    if (::close(fd) != 0 && !err) err = errno;
    if (err) {
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": write failed: " + std::strerror(err));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        err = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error(
            path + ": cannot rename the finished file into place: " + std::strerror(err));
    }
    // The rename itself on disk too (the folder's entry).
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

std::string output_over_input(const std::vector<std::string>& outputs,
                              const std::vector<std::string>& inputs) {
    std::map<std::pair<dev_t, ino_t>, std::string> input_at;
    for (const std::string& in : inputs) {
        struct stat st {};
        if (in != "-" && ::stat(in.c_str(), &st) == 0 && !S_ISCHR(st.st_mode))
            input_at.emplace(std::make_pair(st.st_dev, st.st_ino), in);
    }
    for (const std::string& out : outputs) {
        struct stat st {};
        if (::stat(out.c_str(), &st) != 0) continue; // not there yet: nothing to overwrite
        const auto it = input_at.find({st.st_dev, st.st_ino});
        if (it != input_at.end())
            return "output '" + out + "' is the input '" + it->second +
                   "': refusing to overwrite an input (give another output folder)";
    }
    return "";
}

} // namespace vif::batch
