// Leaving the teardown of the process's memory and of CUDA's driver state out of its own exit.
//
// A process's exit frees its memory (tens of milliseconds for the probe pair's buffers) and,
// when its last reference to the driver's device files goes, the driver tears its GPU contexts
// down (0.1-0.2 s on the H200 machine; _Exit does not spare it): whoever waits for the process
// (a script scoring many short probes) waits for both. start_exit_holder() makes a holder: a
// process of its own (not a thread of this one, so this one's exit does not end it) sharing
// this process's memory and table of open files (clone with CLONE_VM | CLONE_FILES), which
// waits on a pidfd of this process. When this process ends, its memory and files, the driver's
// among them, stay with the holder; the holder then closes standard input, output and error (a
// reader of a pipe sees its end) and exits, and the teardown runs in its exit, after this
// process has been reaped. Its signals are blocked, so this process's handlers (which remove
// output files) never run there; a SIGKILL ends it as it would end any process.
// On by default; VIF_EXIT_HOLDER=0 leaves the teardown in the process's exit as before. On the
// H200 machine (bench/startup, 2026-11-26, the holder then sharing the file table only): the
// 1,200-frame H.264 pair 1.421 -> 1.302 s, raw 1080p 1,200 frames 0.683 -> 0.628 s.
#ifndef VIF_TOOLS_PAIR_EXIT_HOLDER_HPP
#define VIF_TOOLS_PAIR_EXIT_HOLDER_HPP

namespace vifcli {

/** Whether to make the holder: unless the environment has VIF_EXIT_HOLDER=0, or a CUDA tool
 *  injects itself (CUDA_INJECTION64_PATH: compute-sanitizer, Nsight). */
bool exit_holder_wanted();

/** Makes the holder child; false when it could not be made (nothing else changes then). */
bool start_exit_holder();

} // namespace vifcli

#endif
