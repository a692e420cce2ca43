#include "batch/progress_log.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "batch/outputs.hpp"

namespace vif::batch {
namespace {

constexpr const char *kMagic = "vif-progress-1";

std::string hex(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// Percent-encoding of the bytes that would end a field or a line: a field is then one token.
std::string escape(const std::string &s) {
    std::string out;
    for (unsigned char c : s) {
        if (c < 0x20 || c == '%' || c == ',' || c == 0x7f) {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out;
}

bool unescape(const std::string &s, std::string *out) {
    out->clear();
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            *out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return false;
        char *end = nullptr;
        const std::string h = s.substr(i + 1, 2);
        const long v = std::strtol(h.c_str(), &end, 16);
        if (*end) return false;
        *out += char(v);
        i += 2;
    }
    return true;
}

// Hashes a file: its first `limit` bytes (or all of it); false when it cannot be read.
bool hash_file(const std::string &path, uint64_t limit, uint64_t *out) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    uint64_t h = fnv1a(nullptr, 0);
    std::vector<char> buf(1 << 16);
    uint64_t done = 0;
    bool ok = true;
    while (done < limit) {
        const ssize_t n =
            ::read(fd, buf.data(), size_t(std::min<uint64_t>(buf.size(), limit - done)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) ok = false;
        if (n <= 0) break;
        h = fnv1a(buf.data(), size_t(n), h);
        done += uint64_t(n);
    }
    ::close(fd);
    *out = h;
    return ok;
}

} // namespace

uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
    const auto *p = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

std::string input_identity(const std::string &path, uint64_t fingerprint_bytes) {
    struct stat st {};
    if (path.empty() || path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return "";
    uint64_t h = 0;
    if (!hash_file(path, fingerprint_bytes, &h)) return "";
    return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + ":" + hex(h);
}

std::string content_identity(const std::string &path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    uint64_t h = 0;
    if (!hash_file(path, UINT64_MAX, &h)) return "";
    return std::to_string(st.st_size) + ":" + hex(h);
}

std::string format_progress_line(const ProgressRecord &r) {
    const std::string body = std::string(kMagic) + ',' + escape(r.key) + ',' + escape(r.output) +
                             ',' + escape(format_summary_row(r.row));
    return body + ',' + hex(fnv1a(body.data(), body.size())) + '\n';
}

bool parse_progress_line(const std::string &line, ProgressRecord *out) {
    const size_t last = line.rfind(',');
    if (last == std::string::npos) return false;
    const std::string body = line.substr(0, last);
    if (line.substr(last + 1) != hex(fnv1a(body.data(), body.size()))) return false;
    std::vector<std::string> f;
    size_t start = 0;
    for (size_t i = 0; i <= body.size(); ++i)
        if (i == body.size() || body[i] == ',') {
            f.push_back(body.substr(start, i - start));
            start = i + 1;
        }
    std::string row;
    if (f.size() != 4 || f[0] != kMagic || !unescape(f[1], &out->key) ||
        !unescape(f[2], &out->output) || !unescape(f[3], &row))
        return false;
    try {
        out->row = parse_summary_row(row, "progress");
    } catch (const SummaryError &) {
        return false;
    }
    return true;
}

ProgressLog::ProgressLog(const std::string &path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw std::runtime_error(path + ": cannot open the progress log: " + std::strerror(errno));
    // A run killed a moment ago may still hold the lock for a little while: its exit holder
    // (tools/vif/pair/exit_holder.hpp) keeps its files until the GPU teardown is done. Wait up
    // to 3 s before saying that another run is writing the folder.
    bool locked = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
    for (int i = 0; !locked && errno == EWOULDBLOCK && i < 150; ++i) {
        ::usleep(20000);
        locked = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
    }
    if (!locked) {
        ::close(fd_);
        throw std::runtime_error(path + ": another vif run is writing this folder (its progress "
                                        "log is locked)");
    }
    std::ifstream in(path, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
        ProgressRecord r;
        if (parse_progress_line(line, &r)) records_[r.row.row] = std::move(r);
    }
}

ProgressLog::~ProgressLog() {
    if (fd_ >= 0) ::close(fd_);
}

const ProgressRecord *ProgressLog::find(size_t row) const {
    const auto it = records_.find(row);
    return it == records_.end() ? nullptr : &it->second;
}

void ProgressLog::append(const ProgressRecord &r) {
    const std::string line = format_progress_line(r);
    int fd;
    {
        std::lock_guard<std::mutex> lock(mu_);
        fd = fd_;
        size_t done = 0;
        while (done < line.size()) {
            const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                throw std::runtime_error(
                    path_ + ": cannot record progress: " + std::strerror(n < 0 ? errno : ENOSPC));
            done += size_t(n);
        }
    }
    // On disk before the row counts as recorded; outside the lock, so that the workers' lines
    // wait for one disk write together instead of one after the other.
    if (::fdatasync(fd) != 0)
        throw std::runtime_error(path_ + ": cannot record progress: " + std::strerror(errno));
}

void ProgressLog::rewrite(const std::vector<ProgressRecord> &keep) {
    std::string text;
    for (const ProgressRecord &r : keep) text += format_progress_line(r);
    std::lock_guard<std::mutex> lock(mu_);
    write_atomically(path_, text);
    // The lock stays on the old inode, now unlinked; take it on the new one.
    const int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
        ::flock(fd, LOCK_EX | LOCK_NB);
        ::close(fd_);
        fd_ = fd;
    }
}

} // namespace vif::batch
