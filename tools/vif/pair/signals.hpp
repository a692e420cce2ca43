// Signals during a scoring run: SIGINT/SIGTERM/SIGHUP/SIGQUIT and SIGBUS remove the temporary output file
// (output_file.hpp) and end the process at once; SIGPIPE is ignored, so that a reader of our
// output that went away is a write() error with a message, not a silent kill.
#ifndef VIF_TOOLS_PAIR_SIGNALS_HPP
#define VIF_TOOLS_PAIR_SIGNALS_HPP

namespace vifcli {

void install_signal_handlers();

} // namespace vifcli

#endif
