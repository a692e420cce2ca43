// An output file that appears only when complete: the CLI opens a temporary file beside the
// target at start-up (so an unwritable path fails before any scoring), writes the whole report
// into it at the end and renames it into place. Anything short of commit() removes it.
#ifndef VIF_TOOLS_OUTPUT_FILE_HPP
#define VIF_TOOLS_OUTPUT_FILE_HPP

#include <stdexcept>
#include <string>

namespace vifcli {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class OutputFile {
public:
    /** Opens the temporary file for `path` ("-" = standard output). Throws OutputError. */
    explicit OutputFile(const std::string &path);
    ~OutputFile();
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;

    /** Writes `content` and renames the temporary file to the target. Throws OutputError. */
    void commit(const std::string &content);
    /** Removes the temporary file (also done by the destructor when not committed). */
    void abandon();

    const std::string &path() const { return path_; }

private:
    std::string path_, tmp_;
    int fd_ = -1;
    bool stdout_ = false;
};

/** Removes every temporary output file still open; async-signal-safe (for SIGINT/SIGTERM). */
void remove_pending_outputs_signal_safe();

} // namespace vifcli

#endif
