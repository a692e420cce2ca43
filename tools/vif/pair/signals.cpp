#include "pair/signals.hpp"

#include "output_file.hpp"

#include <csignal>

#include <signal.h>
#include <unistd.h>

namespace vifcli {
namespace {

// SIGINT/SIGTERM/SIGHUP/SIGQUIT: remove the temporary output file and leave at once (the library may be busy
// inside a call; nothing else needs cleaning up).
void on_signal(int sig) {
    remove_pending_outputs_signal_safe();
    static const char msg[] = "\nvif: interrupted\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(128 + sig);
}

// SIGBUS: a mapped input file shrank under us (truncated by another process while being read).
void on_sigbus(int) {
    remove_pending_outputs_signal_safe();
    static const char msg[] =
        "\nvif: error: an input file shrank while it was being read (SIGBUS)\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(1);
}

} // namespace

void install_signal_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
    struct sigaction sb {};
    sb.sa_handler = on_sigbus;
    sigemptyset(&sb.sa_mask);
    sigaction(SIGBUS, &sb, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

} // namespace vifcli
