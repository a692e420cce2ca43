// The single-pair command, `vif -r REF -d DIST`, from checked options to the exit code:
//
//   options --> output opened (pair_report.hpp) --> inputs: --hwdec's device path
//   (device_scoring.hpp) or the host pipeline (inputs.hpp) --> the scoring loop
//   (host_scoring.hpp; --check-parity: parity.hpp) --> report written (pair_report.hpp)
//
// CUDA starts on a thread of its own meanwhile (cuda_warmup.hpp). Every failure is one line,
// "vif: error: ...", and a non-zero exit, with no output file left behind.
#ifndef VIF_TOOLS_PAIR_RUN_PAIR_HPP
#define VIF_TOOLS_PAIR_RUN_PAIR_HPP

#include "options.hpp"
#include "std_streams.hpp"

namespace vifcli {

/** Scores the pair the options name and ends the process with the exit code once every output
 *  is complete (sanitizer builds return it instead, for the leak check). */
int run_pair(const Options &o, const StdStreams &streams);

} // namespace vifcli

#endif
