#include "output_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vifcli {

namespace {
// The one pending temporary file (the CLI writes one output), for the signal handler.
char g_pending_tmp[4096];
volatile sig_atomic_t g_pending = 0;

void write_all(int fd, const std::string &s, const std::string &what) {
    size_t done = 0;
    while (done < s.size()) {
        ssize_t r = ::write(fd, s.data() + done, s.size() - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw OutputError(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
        }
        done += size_t(r);
    }
}
} // namespace

void remove_pending_outputs_signal_safe() {
    if (g_pending) ::unlink(g_pending_tmp);
}

OutputFile::OutputFile(const std::string &path) : path_(path) {
    if (path == "-") {
        stdout_ = true;
        return;
    }
    if (path.empty()) throw OutputError("output path is empty");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw OutputError(fmt::format("cannot write output '{}': it is a directory", path));
    size_t slash = path.find_last_of('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    tmp_ = fmt::format("{}.{}.tmp.XXXXXX", dir, base);
    if (tmp_.size() >= sizeof g_pending_tmp)
        throw OutputError(fmt::format("cannot write output '{}': path too long", path));
    std::vector<char> buf(tmp_.begin(), tmp_.end());
    buf.push_back('\0');
    fd_ = ::mkstemp(buf.data());
    if (fd_ < 0)
        throw OutputError(fmt::format("cannot write output '{}': {}", path, std::strerror(errno)));
    tmp_.assign(buf.data());
    std::memcpy(g_pending_tmp, tmp_.c_str(), tmp_.size() + 1);
    g_pending = 1;
    // mkstemp makes the file 0600; give it the mode a plain fopen would.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
}

OutputFile::~OutputFile() { abandon(); }

void OutputFile::abandon() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
        g_pending = 0;
        ::unlink(tmp_.c_str());
    }
}

void OutputFile::commit(const std::string &content) {
    if (stdout_) {
        if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
            std::fflush(stdout) != 0)
            throw OutputError(fmt::format("cannot write to standard output: {}",
                                          std::strerror(errno)));
        return;
    }
    if (fd_ < 0) throw OutputError("output already written");
    try {
        write_all(fd_, content, fmt::format("output '{}'", path_));
        int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0)
            throw OutputError(fmt::format("cannot write output '{}': {}", path_,
                                          std::strerror(errno)));
        if (::rename(tmp_.c_str(), path_.c_str()) != 0)
            throw OutputError(fmt::format("cannot write output '{}': {}", path_,
                                          std::strerror(errno)));
        g_pending = 0;
    } catch (...) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        g_pending = 0;
        ::unlink(tmp_.c_str());
        throw;
    }
}

} // namespace vifcli
