// What the many-pair subcommands (ladder, batch, merge) share: their common options, parsing,
// and the one way a subcommand turns its failures into an exit code.
#ifndef VIF_TOOLS_COMMANDS_SUBCOMMAND_OPTIONS_HPP
#define VIF_TOOLS_COMMANDS_SUBCOMMAND_OPTIONS_HPP

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "commands/ladder_run.hpp"
#include "options.hpp"

namespace vifcli {

/** The options `vif -r SRC -d R1 -d R2 ...` and `vif batch` have in common. */
struct CommonOptions {
    std::string backend = "auto", scaler = "bicubic", variant = "integer", precision;
    uint32_t threads = 0;
    bool json = false, csv = false, xml = false, quiet = false, verbose = false;
    MapArgs map; ///< --map DIR: one map folder per rung or row, DIR/<output stem>/
};

void add_common(CLI::App &app, CommonOptions &c);

/** The scoring settings of a run (throws std::invalid_argument for a bad value). */
LadderSettings settings_from(const CommonOptions &c, const std::string &out_dir);

/** SIGINT, SIGTERM, SIGHUP, SIGQUIT: the temporary files being written are removed and the
 *  process ends (128 + the signal); SIGPIPE ignored. parse_subcommand installs them. */
void install_subcommand_signal_handlers();

/** Parses argv: -1 to go on, else the exit code (0 after --help, kExitUsage after an error). */
int parse_subcommand(CLI::App &app, int argc, const char *const *argv);

// Runs a subcommand once its options are parsed: its exit code, or one "vif: error:" line and
// kExitUsage for a bad option value (std::invalid_argument), kExitError for anything else.
template <typename Body>
int exit_code_of(Body &&body) {
    try {
        return body();
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitError;
    }
}

/** Ends a many-pair run's process with `code` once every output is written and closed: stdio
 *  flushed (an error if it cannot be), then _Exit, leaving the scoring contexts and the CUDA
 *  driver's teardown (0.1 s and more a GPU) to the process exit, as a pair run does. Sanitizer
 *  builds return `code` instead (their leak check runs at exit). */
int leave_process(int code);

/** Creates the output folder (and its parents); throws with the reason if it cannot. */
void make_dir(const std::string &dir);

} // namespace vifcli

#endif
