#include "batch/unnamed_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace vif::batch {

int open_unnamed(const std::string &dir, mode_t mode, int dir_fd) {
    // (The file is named through /proc/self/fd, which a chroot may lack.)
    static const bool proc_fds = ::access("/proc/self/fd", X_OK) == 0;
    if (!proc_fds) return -1;
    const std::string where = dir_fd == AT_FDCWD ? (dir.empty() ? "." : dir) : ".";
    return ::openat(dir_fd, where.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
}

int link_unnamed(int fd, const std::string &name, int dir_fd) {
    char self[64];
    std::snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    return ::linkat(AT_FDCWD, self, dir_fd, name.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

} // namespace vif::batch
