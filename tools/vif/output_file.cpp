#include "output_file.hpp"

#include "batch/unnamed_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vifcli {

namespace {
// The one pending temporary file (the CLI writes one output), for the signal handler.
char g_pending_tmp[PATH_MAX + 64];
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

// The descriptor a path names directly, for "-", /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N; -1 otherwise. Writing to that descriptor keeps the shell's redirection as it
// is (its offset, O_APPEND), where reopening the path would not.
int named_descriptor(const std::string &path) {
    if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const char *prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const size_t n = std::strlen(prefix);
        if (path.compare(0, n, prefix) != 0 || path.size() == n || path.size() > n + 9) continue;
        const std::string digits = path.substr(n);
        if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
        return std::stoi(digits);
    }
    return -1;
}

std::string dir_of(const std::string &path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Follows a chain of symbolic links to the path of the file they point to (which may not
// exist yet). Throws on a loop.
std::string resolve_links(const std::string &path, const std::string &shown) {
    std::string p = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        std::vector<char> buf(PATH_MAX + 1);
        const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
        if (n < 0)
            throw OutputError(
                fmt::format("cannot write output '{}': {}", shown, std::strerror(errno)));
        std::string link(buf.data(), size_t(n));
        p = link[0] == '/' ? link : dir_of(p) + link;
    }
    throw OutputError(
        fmt::format("cannot write output '{}': too many levels of symbolic links", shown));
}

bool same_file(const struct stat &a, const struct stat &b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
} // namespace

void remove_pending_outputs_signal_safe() {
    if (g_pending) ::unlink(g_pending_tmp);
}

OutputFile::OutputFile(const std::string &path, const std::vector<std::string> &inputs)
    : path_(path) {
    if (path.empty()) throw OutputError("output path is empty");
    const std::string shown = path == "-" ? "standard output" : path;

    // What is there now (following links), and whether it is one of the inputs.
    struct stat target {};
    const int fdn = named_descriptor(path);
    const bool exists = fdn >= 0 ? ::fstat(fdn, &target) == 0 : ::stat(path.c_str(), &target) == 0;
    if (fdn >= 0 && !exists)
        throw OutputError(fmt::format("cannot write output '{}': {}", shown, std::strerror(errno)));
    if (exists && !S_ISCHR(target.st_mode)) {
        for (const std::string &in : inputs) {
            struct stat ist {};
            const int ifd = in == "-" ? STDIN_FILENO : named_descriptor(in);
            const bool ok = ifd >= 0 ? ::fstat(ifd, &ist) == 0 : ::stat(in.c_str(), &ist) == 0;
            if (ok && same_file(ist, target))
                throw OutputError(fmt::format("output '{}' is the input '{}': refusing to "
                                              "overwrite an input",
                                              shown, in));
        }
    }
    if (exists && S_ISDIR(target.st_mode))
        throw OutputError(fmt::format("cannot write output '{}': it is a directory", shown));
    if (exists && S_ISBLK(target.st_mode))
        throw OutputError(fmt::format("cannot write output '{}': it is a block device", shown));

    // Straight through: standard output and the like, devices, FIFOs, sockets.
    if (fdn >= 0) {
        fd_ = ::dup(fdn);
        if (fd_ < 0)
            throw OutputError(
                fmt::format("cannot write output '{}': {}", shown, std::strerror(errno)));
        through_ = true;
        return;
    }
    if (exists && !S_ISREG(target.st_mode)) {
        fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd_ < 0)
            throw OutputError(
                fmt::format("cannot write output '{}': {}", shown, std::strerror(errno)));
        through_ = true;
        return;
    }

    // A regular file (or a new one): a temporary file beside the file itself, renamed over it.
    target_ = resolve_links(path, shown);
    mode_t mode;
    if (exists) {
        // Respect the file's permissions, also when running as root (who may write anything).
        if ((target.st_mode & 0222) == 0 || ::access(target_.c_str(), W_OK) != 0)
            throw OutputError(
                fmt::format("cannot write output '{}': the file is read-only", shown));
        mode = target.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    const std::string dir = dir_of(target_);
    const std::string base = target_.substr(dir.size());
    dir_ = dir.empty() ? "." : dir;
    base_ = base;
    dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    tmp_ = fmt::format("{}.{}.tmp.XXXXXX", dir, base);
    if (tmp_.size() >= sizeof g_pending_tmp)
        throw OutputError(fmt::format("cannot write output '{}': path too long", shown));
    // A file without a name in the folder (batch/unnamed_file.hpp), named when the output is
    // complete: a run that ends before, however it ends (kill -9 too), leaves nothing. (Where
    // there can be none: a temporary file with a name, as below.)
    if (dir_fd_ >= 0) fd_ = vif::batch::open_unnamed(dir_, mode, dir_fd_);
    unnamed_ = fd_ >= 0;
    if (!unnamed_) {
        std::vector<char> buf(tmp_.begin(), tmp_.end());
        buf.push_back('\0');
        fd_ = ::mkstemp(buf.data());
        if (fd_ < 0)
            throw OutputError(
                fmt::format("cannot write output '{}': {}", shown, std::strerror(errno)));
        tmp_.assign(buf.data());
        std::memcpy(g_pending_tmp, tmp_.c_str(), tmp_.size() + 1);
        g_pending = 1;
        tmp_name_ = tmp_.substr(dir.size());
    }
    if (exists && ::fchown(fd_, target.st_uid, target.st_gid) != 0) {
        // Not allowed (not root): the new file is ours, as with any rewrite.
    }
    ::fchmod(fd_, mode);
}

OutputFile::~OutputFile() {
    abandon();
    if (dir_fd_ >= 0) ::close(dir_fd_);
}

namespace {
// Removes the temporary file: through the folder's descriptor when there is one (the folder
// may have been moved), else by its path.
void remove_temporary(int dir_fd, const std::string &name, const std::string &path) {
    if (dir_fd >= 0)
        ::unlinkat(dir_fd, name.c_str(), 0);
    else
        ::unlink(path.c_str());
}

// Whether the folder held open is still the one at its path.
bool folder_in_place(int dir_fd, const std::string &dir) {
    struct stat held {
    }, now{};
    return dir_fd < 0 ||
           (::fstat(dir_fd, &held) == 0 && ::stat(dir.c_str(), &now) == 0 && same_file(held, now));
}
} // namespace

void OutputFile::abandon() {
    if (fd_ < 0) return;
    ::close(fd_);
    fd_ = -1;
    if (!through_ && !unnamed_) {
        g_pending = 0;
        remove_temporary(dir_fd_, tmp_name_, tmp_);
    }
}

void OutputFile::commit(const std::string &content) {
    const std::string shown = path_ == "-" ? "standard output" : "'" + path_ + "'";
    if (fd_ < 0) throw OutputError("output already written");
    if (through_) {
        const int fd = fd_;
        fd_ = -1;
        try {
            write_all(fd, content, fmt::format("output {}", shown));
        } catch (...) {
            ::close(fd);
            throw;
        }
        if (::close(fd) != 0 && errno != EINTR)
            throw OutputError(
                fmt::format("cannot write output {}: {}", shown, std::strerror(errno)));
        return;
    }
    try {
        write_all(fd_, content, fmt::format("output {}", shown));
        const int fd = fd_;
        fd_ = -1;
        // (The unnamed file is named through its descriptor: closed once it has a name.)
        if (!unnamed_ && ::close(fd) != 0)
            throw OutputError(
                fmt::format("cannot write output {}: {}", shown, std::strerror(errno)));
        if (unnamed_) unnamed_fd_ = fd;
        if (!folder_in_place(dir_fd_, dir_))
            throw OutputError(fmt::format("cannot write output {}: its folder was moved or "
                                          "removed during the run",
                                          shown));
        if (unnamed_ && name_unnamed(fd, shown)) return;
        const int renamed = dir_fd_ >= 0
                                ? ::renameat(dir_fd_, tmp_name_.c_str(), dir_fd_, base_.c_str())
                                : ::rename(tmp_.c_str(), target_.c_str());
        if (renamed != 0)
            throw OutputError(
                fmt::format("cannot write output {}: {}", shown, std::strerror(errno)));
        g_pending = 0;
    } catch (...) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        if (unnamed_fd_ >= 0) ::close(unnamed_fd_);
        unnamed_fd_ = -1;
        g_pending = 0;
        if (!tmp_name_.empty()) remove_temporary(dir_fd_, tmp_name_, tmp_);
        throw;
    }
}

bool OutputFile::name_unnamed(int fd, const std::string &shown) {
    // (unnamed_: made through dir_fd_, which is open.)
    int err = vif::batch::link_unnamed(fd, base_, dir_fd_);
    if (err == 0) { // a new file: named whole, in one step
        unnamed_fd_ = -1;
        if (::close(fd) != 0)
            throw OutputError(
                fmt::format("cannot write output {}: {}", shown, std::strerror(errno)));
        return true;
    }
    if (err != EEXIST)
        throw OutputError(fmt::format("cannot write output {}: {}", shown, std::strerror(err)));
    // The target is there: a temporary name beside it (registered for the signal handler),
    // then the rename below replaces the target in one step.
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string name = fmt::format(".{}.tmp.{}.{}", base_, ::getpid(), attempt);
        tmp_ = dir_of(target_) + name;
        if (tmp_.size() >= sizeof g_pending_tmp)
            throw OutputError(fmt::format("cannot write output {}: path too long", shown));
        std::memcpy(g_pending_tmp, tmp_.c_str(), tmp_.size() + 1);
        g_pending = 1;
        err = vif::batch::link_unnamed(fd, name, dir_fd_);
        if (err == 0) {
            tmp_name_ = name;
            unnamed_fd_ = -1;
            if (::close(fd) != 0)
                throw OutputError(
                    fmt::format("cannot write output {}: {}", shown, std::strerror(errno)));
            return false;
        }
        g_pending = 0;
        if (err != EEXIST)
            throw OutputError(fmt::format("cannot write output {}: {}", shown, std::strerror(err)));
    }
    throw OutputError(fmt::format("cannot write output {}: no free temporary name", shown));
}

} // namespace vifcli
