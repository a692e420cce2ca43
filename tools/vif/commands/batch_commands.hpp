// The CLI's many-pair subcommands, each with its own options (CLI11):
//   vif -r SRC -d R1 -d R2 ... -o DIR     a ladder: every rung against one reference, one pass
//   vif batch MANIFEST --out-dir DIR       a catalogue: every manifest row, one start-up
//   vif merge DIR... [-o FILE]             the summaries of a sharded batch joined
// main.cpp dispatches here (is_ladder_command_line / the first argument) before its own parser.
// One file each: ladder_command.cpp, batch_command.cpp, merge_command.cpp.
#ifndef VIF_TOOLS_BATCH_COMMANDS_HPP
#define VIF_TOOLS_BATCH_COMMANDS_HPP

namespace vifcli {

/** Whether argv names more than one distorted input (-d/--distorted given twice or more). */
bool is_ladder_command_line(int argc, const char *const *argv);

int ladder_main(int argc, const char *const *argv);
/** argv[0] is "batch" / "merge". */
int batch_main(int argc, const char *const *argv);
/** stdout_closed: standard output was closed when vif started (std_streams.hpp): "-o -" is
 *  then refused rather than written to /dev/null. */
int merge_main(int argc, const char *const *argv, bool stdout_closed);

} // namespace vifcli

#endif
