#include "input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vifcli {

namespace {
constexpr size_t kWindowMax = 64 * 1024; // pipe reads up to this size stay re-readable
}

InputFile::InputFile(const std::string &path, const std::string &label)
    : path_(path), label_(label) {
    if (path.empty()) throw InputError(fmt::format("{}: no file given", label));
    if (path == "-") {
        fd_ = STDIN_FILENO;
    } else {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0)
            throw InputError(fmt::format("cannot open {}: {}", name(), std::strerror(errno)));
        own_fd_ = true;
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        int e = errno;
        if (own_fd_) ::close(fd_);
        throw InputError(fmt::format("cannot read {}: {}", name(), std::strerror(e)));
    }
    if (S_ISDIR(st.st_mode)) {
        if (own_fd_) ::close(fd_);
        throw InputError(fmt::format("cannot read {}: it is a directory", name()));
    }
    if (S_ISREG(st.st_mode)) {
        seekable_ = true;
        size_ = uint64_t(st.st_size);
#ifdef POSIX_FADV_SEQUENTIAL
        ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
}

InputFile::~InputFile() {
    if (map_) ::munmap(const_cast<uint8_t *>(map_), size_t(*size_));
    if (own_fd_ && fd_ >= 0) ::close(fd_);
}

const uint8_t *InputFile::map() {
    if (map_tried_) return map_;
    map_tried_ = true;
    if (!seekable_ || !size_ || *size_ == 0) return nullptr;
    void *p = ::mmap(nullptr, size_t(*size_), PROT_READ, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) return nullptr;
    ::madvise(p, size_t(*size_), MADV_SEQUENTIAL);
    map_ = static_cast<const uint8_t *>(p);
    return map_;
}

std::string InputFile::name() const {
    return path_ == "-" ? fmt::format("{} (stdin)", label_) : fmt::format("{} '{}'", label_, path_);
}

size_t InputFile::read_fd(void *dst, size_t n) {
    size_t done = 0;
    auto *p = static_cast<uint8_t *>(dst);
    while (done < n) {
        ssize_t r = ::read(fd_, p + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw InputError(fmt::format("error reading {}: {}", name(), std::strerror(errno)));
        }
        if (r == 0) {
            pipe_end_ = pos_ + done;
            break;
        }
        done += size_t(r);
    }
    pos_ += done;
    return done;
}

size_t InputFile::read_at(uint64_t offset, void *dst, size_t n) {
    if (!seekable_) return read_pipe_at(offset, dst, n);
    size_t done = 0;
    auto *p = static_cast<uint8_t *>(dst);
    while (done < n) {
        ssize_t r = ::pread(fd_, p + done, n - done, off_t(offset + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            throw InputError(fmt::format("error reading {}: {}", name(), std::strerror(errno)));
        }
        if (r == 0) break;
        done += size_t(r);
    }
    return done;
}

size_t InputFile::read_pipe_at(uint64_t offset, void *dst, size_t n) {
    if (offset < win_start_)
        throw InputError(fmt::format("{}: cannot seek backwards in a pipe", name()));
    if (offset >= pos_) {
        // Nothing kept is wanted: drop the window and the bytes up to offset.
        win_.clear();
        if (scratch_.empty()) scratch_.resize(kWindowMax);
        while (pos_ < offset && !pipe_end_) {
            size_t want = size_t(std::min<uint64_t>(offset - pos_, scratch_.size()));
            read_fd(scratch_.data(), want);
        }
        win_start_ = pos_;
        if (pos_ < offset) return 0; // EOF before offset
    } else {
        win_.erase(win_.begin(), win_.begin() + ptrdiff_t(offset - win_start_));
        win_start_ = offset;
    }
    auto *p = static_cast<uint8_t *>(dst);
    if (n <= kWindowMax) {
        if (win_.size() < n && !pipe_end_) {
            size_t have = win_.size();
            win_.resize(n);
            size_t got = read_fd(win_.data() + have, n - have);
            win_.resize(have + got);
        }
        size_t k = std::min(n, win_.size());
        std::memcpy(p, win_.data(), k);
        return k;
    }
    // A large read: whatever is kept, then straight into dst; nothing of it stays kept.
    size_t k = std::min(n, win_.size());
    std::memcpy(p, win_.data(), k);
    win_.clear();
    if (k < n && !pipe_end_) k += read_fd(p + k, n - k);
    win_start_ = pos_;
    return k;
}

} // namespace vifcli
