// The process's standard streams as vif found them. A closed stdin, stdout or stderr (`<&-`,
// `>&-`) gets /dev/null before anything else is opened, so that no input or output file can land
// on fd 0, 1 or 2 and be read or written as if it were standard input or output; which were
// closed is remembered, so that `-` (or /dev/stdout) can then be refused with a clear message.
#ifndef VIF_TOOLS_STD_STREAMS_HPP
#define VIF_TOOLS_STD_STREAMS_HPP

#include <string>

namespace vifcli {

/** Which of stdin, stdout and stderr were closed when vif started. */
struct StdStreams {
    bool closed[3] = {false, false, false};
};

/** Puts /dev/null on fds 0, 1 and 2 where they are closed; call first thing in main(). */
StdStreams guard_std_streams();

/** Whether `path` names standard input (fd 0) or output (fd 1), however it is spelt. */
bool names_std_fd(const std::string &path, int fd);

} // namespace vifcli

#endif
