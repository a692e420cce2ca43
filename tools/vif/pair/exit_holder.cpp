// See exit_holder.hpp.
#include "pair/exit_holder.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

// Sanitizer builds leave through exit() for their checks, and their interceptors do not expect
// a process sharing the memory: no holder there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VIF_NO_EXIT_HOLDER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define VIF_NO_EXIT_HOLDER 1
#endif
#endif

namespace vifcli {

#if !defined(VIF_NO_EXIT_HOLDER) && defined(SYS_pidfd_open)
namespace {

// The holder's whole life, on a stack of its own in the process's memory. Only system calls
// that cannot fail while the process lives (the holder shares its errno with the main thread),
// then, once the process has gone: standard input, output and error closed first (a reader of
// a pipe sees its end now), and its own exit, which frees the memory and the driver's files.
int hold(void *arg) {
    const long pidfd = long(reinterpret_cast<intptr_t>(arg));
    sigset_t all;
    sigfillset(&all);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, nullptr, sizeof(unsigned long));
    struct pollfd p {};
    p.fd = int(pidfd);
    p.events = POLLIN;
    while (syscall(SYS_ppoll, &p, 1, nullptr, nullptr, 0) != 1) {}
    for (int fd = 0; fd < 3; ++fd) syscall(SYS_close, fd);
    syscall(SYS_exit_group, 0);
    return 0;
}

} // namespace
#endif

bool exit_holder_wanted() {
    const char *v = std::getenv("VIF_EXIT_HOLDER");
    if (v && std::strcmp(v, "0") == 0) return false;
    // Under a CUDA tool that injects itself (compute-sanitizer, Nsight Systems or Compute), the
    // process's CUDA teardown stays where the tool expects it.
    return std::getenv("CUDA_INJECTION64_PATH") == nullptr;
}

bool start_exit_holder() {
#if defined(VIF_NO_EXIT_HOLDER) || !defined(SYS_pidfd_open)
    return false;
#else
    // A file that becomes readable when this process has ended (Linux 5.3+), in the table the
    // holder shares.
    const long pidfd = syscall(SYS_pidfd_open, syscall(SYS_getpid), 0);
    if (pidfd < 0) return false;
    constexpr size_t kStack = 64 << 10;
    void *stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) {
        close(int(pidfd));
        return false;
    }
    // Its own process (no CLONE_THREAD: the process's exit does not end it), sharing the memory
    // and the table of open files; no signal on its exit.
    const int pid = clone(hold, static_cast<char *>(stack) + kStack, CLONE_VM | CLONE_FILES,
                          reinterpret_cast<void *>(intptr_t(pidfd)));
    if (pid < 0) {
        munmap(stack, kStack);
        close(int(pidfd));
        return false;
    }
    return true;
#endif
}

} // namespace vifcli
