// Files written without a name and named only once complete (O_TMPFILE, then linkat through
// /proc/self/fd): a process that ends before, however it ends, leaves nothing behind. Used by the
// batch's outputs (outputs.hpp) and the pair command's -o file (output_file.hpp).
#ifndef VIF_TOOLS_BATCH_UNNAMED_FILE_HPP
#define VIF_TOOLS_BATCH_UNNAMED_FILE_HPP

#include <fcntl.h>
#include <sys/types.h>

#include <string>

namespace vif::batch {

/** A file open for writing, without a name, in the folder `dir_fd` names (AT_FDCWD: `dir`);
 *  -1 where the filesystem has no O_TMPFILE or the process no /proc/self/fd (a chroot), or the
 *  folder cannot take it (errno says): the caller writes under a temporary name instead. */
int open_unnamed(const std::string &dir, mode_t mode, int dir_fd = AT_FDCWD);

/** Gives the unnamed file `fd` the name `name` (relative to `dir_fd`, AT_FDCWD: a path): 0, or
 *  the errno (EEXIST: the name is taken; the file stays unnamed). */
int link_unnamed(int fd, const std::string &name, int dir_fd = AT_FDCWD);

} // namespace vif::batch

#endif
