// How the single-pair command fails: every problem becomes a Failure, thrown up to run_pair(),
// which prints "vif: error: <message>" and exits with its code. The output file is then removed
// (OutputFile's destructor), so a failed run never leaves a partial output behind.
#ifndef VIF_TOOLS_PAIR_FAILURE_HPP
#define VIF_TOOLS_PAIR_FAILURE_HPP

#include "options.hpp"

#include <vif/vif.h>

#include <string>

namespace vifcli {

/** A one-line failure: printed as "vif: error: <message>". */
struct Failure {
    std::string message;
    int code = kExitError;
};

/** "<what>: <status>[: <the library's message>]" for a library call that failed. */
inline std::string vif_error(const char *what, VifStatus st) {
    const char *msg = vif_last_error();
    return std::string(what) + ": " + vif_status_string(st) + (msg && *msg ? ": " : "") +
           (msg ? msg : "");
}

} // namespace vifcli

#endif
