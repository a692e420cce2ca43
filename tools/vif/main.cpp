// vif: score a reference/distorted pair of videos with libvif, libvmaf-compatible output.
//
// main() only dispatches: the many-pair subcommands (commands/batch_commands.hpp: `vif batch`,
// `vif merge`, and a ladder `vif -r SRC -d R1 -d R2 ... -o DIR`) and `vif report`
// (commands/report_command.hpp) parse options of their own;
// otherwise the command line is parsed (options.hpp) and the pair is scored (pair/run_pair.hpp).
#include "commands/batch_commands.hpp"
#include "commands/report_command.hpp"
#include "options.hpp"
#include "pair/run_pair.hpp"
#include "std_streams.hpp"

#include <vif/vif.h>

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
    using namespace vifcli;
    // Before anything is opened: no file may land on a closed fd 0, 1 or 2.
    const StdStreams streams = guard_std_streams();

    if (argc > 1 && std::strcmp(argv[1], "batch") == 0) return batch_main(argc, argv);
    if (argc > 1 && std::strcmp(argv[1], "merge") == 0)
        return merge_main(argc, argv, streams.closed[1]);
    if (argc > 1 && std::strcmp(argv[1], "report") == 0) return report_main(argc, argv);
    if (is_ladder_command_line(argc, argv)) return ladder_main(argc, argv);

    const ParsedOptions parsed = parse_options(argc, argv);
    switch (parsed.action) {
    case ParsedOptions::Action::kHelp:
        std::fputs(parsed.text.c_str(), stdout);
        return std::fflush(stdout) == 0 ? 0 : kExitError;
    case ParsedOptions::Action::kVersion:
        std::printf("vif %s (libvif, cuda %s)\n", vif_version(),
                    vif_cuda_available() ? "available" : "not available");
        return std::fflush(stdout) == 0 ? 0 : kExitError;
    case ParsedOptions::Action::kError:
        std::fprintf(stderr, "vif: error: %s\n", parsed.text.c_str());
        return parsed.exit_code;
    case ParsedOptions::Action::kRun:
        break;
    }
    return run_pair(parsed.options, streams);
}
