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
 * Scores `groups` on `workers` contexts at once (a thread each, pulling groups; context w on
 * devices[w % size] when devices are given), writes the summary to `summary_path` (rows
 * skipped as complete keep the earlier summary's scores) and returns the exit code.
 */
int run_groups(const std::vector<std::vector<RungJob>> &groups, const LadderSettings &base,
               const std::vector<int> &devices, size_t workers, const std::string &summary_path,
               bool quiet);

} // namespace vifcli

#endif
