// Inputs for the CLI reader targets: the fuzzer's bytes as a regular file (a memfd, optionally
// grown sparsely to a larger size) or as a pipe, named by a /proc/self/fd path that the readers
// open like any file.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace vif_fuzz {

class FdFile {
public:
    FdFile() = default;
    FdFile(const FdFile&) = delete;
    FdFile& operator=(const FdFile&) = delete;
    ~FdFile() {
        if (fd_ >= 0) ::close(fd_);
    }
    // A regular file holding data, then zeros (a hole) up to total_size when that is larger.
    bool regular(const uint8_t* data, size_t n, uint64_t total_size = 0) {
        fd_ = ::memfd_create("vif-fuzz", MFD_CLOEXEC);
        if (fd_ < 0) return false;
        if (!write_all(fd_, data, n)) return false;
        if (total_size > n && ::ftruncate(fd_, static_cast<off_t>(total_size)) != 0) return false;
        return true;
    }
    // A pipe holding data (at most the pipe's capacity) whose write end is closed: readers see
    // the bytes, then the end of the stream.
    bool pipe(const uint8_t* data, size_t n) {
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0) return false;
        fd_ = p[0];
        if (::fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < 0 && n > 65536) {
            ::close(p[1]);
            return false;
        }
        const bool ok = write_all(p[1], data, n);
        ::close(p[1]);
        return ok;
    }
    std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

private:
    static bool write_all(int fd, const uint8_t* d, size_t n) {
        while (n) {
            const ssize_t k = ::write(fd, d, n);
            if (k <= 0) return false;
            d += k;
            n -= static_cast<size_t>(k);
        }
        return true;
    }
    int fd_ = -1;
};

} // namespace vif_fuzz
