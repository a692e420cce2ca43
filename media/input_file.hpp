// Low-level input for the built-in sources: positioned reads from a regular file (pread, no
// shared file offset) or sequential reads from a pipe / stdin, behind one interface.
#ifndef VIF_TOOLS_INPUT_FILE_HPP
#define VIF_TOOLS_INPUT_FILE_HPP

#include "frame_source.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vifcli {

class InputFile {
public:
    /** Opens `path` ("-" = stdin). Throws InputError naming `label` if it cannot. */
    InputFile(const std::string &path, const std::string &label);
    ~InputFile();
    InputFile(const InputFile &) = delete;
    InputFile &operator=(const InputFile &) = delete;

    /** Whether reads can go anywhere (a regular file) rather than only forward (a pipe). */
    bool seekable() const { return seekable_; }
    /** Size in bytes of a regular file. */
    std::optional<uint64_t> size() const { return size_; }
    const std::string &path() const { return path_; }
    const std::string &label() const { return label_; }
    /** "reference 'a.yuv'", the prefix of every message about this input. */
    std::string name() const;

    /**
     * Reads up to n bytes at `offset` into dst; returns how many it read (fewer only at the end
     * of the file). On a pipe the offsets of successive calls must not go backwards (bytes
     * skipped over are read and dropped; reads of up to 64 KiB stay available to a later call at
     * the same or a later offset). Throws InputError on a read error.
     */
    size_t read_at(uint64_t offset, void *dst, size_t n);

    /** The whole regular file mapped read-only (mapped on first call), or nullptr when it cannot
     *  be (a pipe, an empty file, mmap failing). */
    const uint8_t *map();

    /** Where the data ends, once known: the size of a regular file, or of a pipe that hit EOF. */
    std::optional<uint64_t> known_end() const { return size_ ? size_ : pipe_end_; }

private:
    size_t read_fd(void *dst, size_t n); // read() until n bytes or EOF
    size_t read_pipe_at(uint64_t offset, void *dst, size_t n);

    int fd_ = -1;
    bool own_fd_ = false;
    const uint8_t *map_ = nullptr;
    bool map_tried_ = false;
    bool seekable_ = false;
    std::optional<uint64_t> size_;
    // Pipe state: bytes [win_start_, win_start_ + win_.size()) read but kept; pos_ = bytes read.
    std::vector<uint8_t> win_;
    uint64_t win_start_ = 0;
    uint64_t pos_ = 0;
    std::optional<uint64_t> pipe_end_;
    std::vector<uint8_t> scratch_;
    std::string path_, label_;
};

/** The built-in sources (raw_y4m_source.cpp); they take the opened file. */
std::unique_ptr<FrameSource> open_raw_source(const SourceRequest &req,
                                             std::unique_ptr<InputFile> file);
std::unique_ptr<FrameSource> open_y4m_source(const SourceRequest &req,
                                             std::unique_ptr<InputFile> file);

} // namespace vifcli

#endif
