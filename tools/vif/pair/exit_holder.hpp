// Leaving CUDA's driver teardown out of the process's own exit.
//
// The driver tears a process's GPU contexts down when the process's last reference to the
// driver's device files goes: 0.1-0.2 s on the H200 machine after main() has left (_Exit does
// not spare it), which whoever waits for the process (a script scoring many short probes) waits
// for too. start_exit_holder(), called before CUDA starts, makes a child process that shares
// this process's table of open files (clone with CLONE_FILES) and does nothing but wait. When
// this process ends, the table -- and the driver's files opened into it meanwhile -- stays with
// the child, which the kernel kills at once (PR_SET_PDEATHSIG): the teardown then runs in the
// child's exit, after this process has been reaped. The child's exit closes the files in order
// from 0, so a pipe on standard output or error sees its end before the driver's files go.
// Experimental (VIF_EXIT_HOLDER=1) until bench/startup has measured it on the GPU machine.
#ifndef VIF_TOOLS_PAIR_EXIT_HOLDER_HPP
#define VIF_TOOLS_PAIR_EXIT_HOLDER_HPP

namespace vifcli {

/** Whether VIF_EXIT_HOLDER=1 asks for the holder. */
bool exit_holder_wanted();

/** Makes the holder child; false when it could not be made (nothing else changes then). */
bool start_exit_holder();

} // namespace vifcli

#endif
