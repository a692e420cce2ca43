#include "std_streams.hpp"

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

namespace vifcli {

StdStreams guard_std_streams() {
    StdStreams s;
    for (int fd = 0; fd < 3; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        s.closed[fd] = true;
        const int n = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (n >= 0 && n != fd) {
            ::dup2(n, fd);
            ::close(n);
        }
    }
    return s;
}

bool names_std_fd(const std::string &path, int fd) {
    if (fd == 0 && path == "-") return true;
    static const char *const kStdin[] = {"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"};
    static const char *const kStdout[] = {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
    for (const char *p : fd == 0 ? kStdin : kStdout)
        if (path == p) return true;
    return false;
}

} // namespace vifcli
