// Where a pair run's scores go and how they get there: the output file is opened before any
// input (an unwritable path fails at once, not after the scoring), the report is built from every
// variant's scores and written in one piece at the end (report.hpp renders it; output_file.hpp
// makes it appear complete or not at all), or the summary goes to standard output.
#ifndef VIF_TOOLS_PAIR_PAIR_REPORT_HPP
#define VIF_TOOLS_PAIR_PAIR_REPORT_HPP

#include "frame_source.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "pair/variants.hpp"
#include "std_streams.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vifcli {

/**
 * Opens into *out the output that -o and --json/--csv/--xml ask for (none: the summary on
 * standard output, or nothing with -q; none for --read-only). Refuses standard output when it
 * was closed at start-up. Throws Failure.
 */
void open_output(const Options &o, const StdStreams &streams, std::optional<OutputFile> *out);

/**
 * Writes the report of every variant's primary scores to `out` (or the summary on stdout), after
 * the --check-parity comparison. Returns the exit code: 0, or kExitParity. Throws Failure.
 */
int write_report(const Options &o, const Variants &variants, std::vector<uint64_t> frame_nums,
                 double fps, const VideoInfo &ri, const std::string &backend,
                 std::optional<OutputFile> &out);

/** Flushes what was printed on stdout (a --read-only line); throws Failure if it failed. */
void flush_stdout();

} // namespace vifcli

#endif
