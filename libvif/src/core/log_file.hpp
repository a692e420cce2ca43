// Where a result log goes on disk, prepared when the log is created (an unwritable path fails
// before any scoring) and written once at the end:
// - a regular file, or a name not there yet: a temporary file beside it (mkstemp), written,
//   flushed and renamed over the path, so that what is at the path is the old file or the whole
//   new one. A symbolic link is followed: its target is replaced and the link stays. A replaced
//   file keeps its permission bits; a new one gets 0666 less the umask.
// - a character device, FIFO or socket (/dev/stdout, /dev/null, a pipe): opened now and written
//   straight through.
// - a directory: refused.
// Destroying the object before commit() removes the temporary file.
#ifndef VIF_SRC_LOG_LOG_FILE_HPP
#define VIF_SRC_LOG_LOG_FILE_HPP

#include <string>

namespace vif::log {

class LogFile {
public:
    /** Prepares `path`; throws std::runtime_error naming the path and the reason. */
    explicit LogFile(const std::string &path);
    ~LogFile();
    LogFile(const LogFile &) = delete;
    LogFile &operator=(const LogFile &) = delete;

    /** Writes `text` and puts it in place; throws std::runtime_error (the temporary file is
     *  removed, the path untouched). */
    void commit(const std::string &text);

private:
    std::string path_;   // as given, for messages
    std::string target_; // the file the rename replaces; empty when written straight through
    std::string tmp_;    // the temporary file, until committed
    int fd_ = -1;
    unsigned mode_ = 0;
};

} // namespace vif::log

#endif
