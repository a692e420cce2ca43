// See exit_holder.hpp.
#include "pair/exit_holder.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace vifcli {

bool exit_holder_wanted() {
    const char *v = std::getenv("VIF_EXIT_HOLDER");
    return v && std::strcmp(v, "1") == 0;
}

bool start_exit_holder() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return false;
#else
    const long parent = syscall(SYS_getpid);
    // A raw clone: no atfork handlers, and the child makes nothing but system calls.
    const long pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (pid != 0) return pid > 0;
    // The child: no signal may run the parent's handlers here (they would remove the parent's
    // output files); SIGKILL, which cannot be blocked, ends it when the parent goes.
    sigset_t all;
    sigfillset(&all);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, nullptr, sizeof(unsigned long));
    syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (syscall(SYS_getppid) != parent) syscall(SYS_exit_group, 0); // the parent went already
    for (;;) syscall(SYS_ppoll, nullptr, 0, nullptr, nullptr, 0);
#endif
}

} // namespace vifcli
