// Where the CLI writes its scores, opened at start-up (so that an unwritable path fails before
// any scoring) and written once at the end.
//
// - A regular file, or a path that does not exist yet: written to a temporary file beside it and
//   renamed into place when complete, so that a file that looks complete is complete. A symlink
//   is followed: the file it points to is replaced and the link stays. The replaced file keeps
//   its permission bits (and owner, where allowed); a file no one may write is refused.
// - Standard output ("-", /dev/stdout, /dev/fd/N, /proc/self/fd/N), a character device
//   (/dev/null), a FIFO or a socket: written straight through, never replaced.
// - A directory, a block device, or one of the inputs (same device and inode): refused.
// Anything short of commit() removes the temporary file, also when the folder was moved or
// removed during the run (commit() then fails and says so).
#ifndef VIF_TOOLS_OUTPUT_FILE_HPP
#define VIF_TOOLS_OUTPUT_FILE_HPP

#include <stdexcept>
#include <string>
#include <vector>

namespace vifcli {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class OutputFile {
public:
    /** Opens the output for `path` ("-" = standard output); `inputs` are the input paths it
     *  must not be ("-" = standard input). Throws OutputError. */
    OutputFile(const std::string &path, const std::vector<std::string> &inputs);
    ~OutputFile();
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;

    /** Writes `content` (and renames the temporary file to the target). Throws OutputError. */
    void commit(const std::string &content);
    /** Removes the temporary file (also done by the destructor when not committed). */
    void abandon();

    const std::string &path() const { return path_; }

private:
    std::string path_;   // as given, for messages
    std::string target_; // the file replaced (symlinks resolved); empty when writing through
    std::string tmp_;
    int fd_ = -1; // the temporary file, or the descriptor written through
    bool through_ = false;
    // The folder of the temporary file, held open: the temporary file is renamed (or removed)
    // through it, so that a folder moved during the run neither keeps it nor gets the output.
    int dir_fd_ = -1;
    std::string dir_, tmp_name_, base_;
    // The output written without a name (O_TMPFILE) until it is complete; named by
    // name_unnamed(): true when that named the target itself (a new file), false when it made
    // a temporary name (tmp_, tmp_name_) to rename over the target.
    bool unnamed_ = false;
    int unnamed_fd_ = -1; // its descriptor between the writing and the naming
    bool name_unnamed(int fd, const std::string &shown);
};

/** Removes every temporary output file still open; async-signal-safe (for SIGINT, SIGTERM,
 *  SIGHUP, SIGQUIT). */
void remove_pending_outputs_signal_safe();

} // namespace vifcli

#endif
