// Runs reference groups (score_group, ladder_run.hpp) on several scoring contexts at once, with
// a progress bar over every pair, then writes the run's summary: what `vif -r SRC -d ... -o DIR`
// (one group) and `vif batch` (every group of its shard) share.
#ifndef VIF_TOOLS_COMMANDS_GROUP_RUNNER_HPP
#define VIF_TOOLS_COMMANDS_GROUP_RUNNER_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "commands/ladder_run.hpp"

namespace vifcli {

/**
 * Scores `groups` on `workers` contexts at once (a thread each, pulling groups, each split
 * into parts of VIF_MAX_DISTORTED rows at most; no more workers than parts; context w on
 * devices[w % size] when devices are given), recording each finished row in the progress log
 * (batch/progress_log.hpp) and, when base.resume, reusing the rows it vouches for; writes the
 * summary to `summary_path` and returns the exit code. Refuses (before creating anything) when
 * an output would be one of `inputs`, the files the command reads.
 */
int run_groups(const std::vector<std::vector<RungJob>> &groups, const LadderSettings &base,
               const std::vector<int> &devices, size_t workers, const std::string &summary_path,
               const std::vector<std::string> &inputs, bool quiet);

/** `groups` with every group of more than `most` rows split into parts of even size (in order)
 *  of at most `most` rows each. */
std::vector<std::vector<RungJob>> split_groups(const std::vector<std::vector<RungJob>> &groups,
                                               size_t most);

/** The progress log beside a summary: "<summary>.progress". */
std::string progress_log_path(const std::string &summary_path);

} // namespace vifcli

#endif
