#include "core/log_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace vif::log {

namespace {

[[noreturn]] void fail(const std::string &path, const std::string &what, int err) {
    throw std::runtime_error(path + ": " + what + ": " + std::strerror(err));
}

std::string dir_of(const std::string &p) {
    const size_t slash = p.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : p.substr(0, slash);
}

// Writes all of `text` to fd, retrying short writes and EINTR; errno on failure.
bool write_all(int fd, const std::string &text) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += size_t(n);
    }
    return true;
}

} // namespace

LogFile::LogFile(const std::string &path) : path_(path) {
    if (path.empty()) throw std::runtime_error("the log path is empty");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) throw std::runtime_error(path + ": is a directory");
        if (!S_ISREG(st.st_mode)) {
            // A device, FIFO or socket: written straight through, never replaced.
            fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd_ < 0) fail(path, "cannot open for writing", errno);
            return;
        }
        if (::access(path.c_str(), W_OK) != 0) fail(path, "cannot be written", errno);
        char resolved[PATH_MAX];
        if (!::realpath(path.c_str(), resolved)) fail(path, "cannot resolve", errno);
        target_ = resolved;
        mode_ = st.st_mode & 07777;
    } else if (errno == ENOENT) {
        target_ = path; // a dangling link: lstat tells; its target is created (as open would)
        char link[PATH_MAX];
        const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            target_ = link[0] == '/' ? std::string(link) : dir_of(path) + "/" + link;
        }
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode_ = 0666u & ~unsigned(mask);
    } else {
        fail(path, "cannot be written", errno);
    }
    std::string tmpl = dir_of(target_) + "/.vif-log-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd_ = ::mkostemp(buf.data(), O_CLOEXEC);
    if (fd_ < 0) fail(path, "cannot create a file in " + dir_of(target_), errno);
    tmp_ = buf.data();
}

LogFile::~LogFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void LogFile::commit(const std::string &text) {
    if (fd_ < 0) throw std::runtime_error(path_ + ": already written");
    const bool through = tmp_.empty();
    int err = 0;
    if (!write_all(fd_, text)) err = errno;
    if (!err && !through && ::fchmod(fd_, mode_t(mode_)) != 0) err = errno;
    if (!err && !through && ::fsync(fd_) != 0) err = errno;
    if (::close(fd_) != 0 && !err && !through) err = errno;
    fd_ = -1;
    if (err) fail(path_, through ? "write failed" : "write failed (disk full?)", err);
    if (through) return;
    if (::rename(tmp_.c_str(), target_.c_str()) != 0)
        fail(path_, "cannot rename the finished file into place", errno);
    tmp_.clear();
}

} // namespace vif::log
