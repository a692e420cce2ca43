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

/** The devices a run scores on: one slot per entry of `devices` (a device named twice has two
 *  slots), or, when it is empty, the settings' backend as it is (one slot: the CPU, or the
 *  automatic backend's choice). */
struct DeviceSet {
    std::vector<int> devices; ///< CUDA device numbers
    /// Test stand-ins (VIF_TEST_CPU_DEVICES): the slots score on the CPU backend, so that the
    /// scheduling and the failure handling can be tested on a machine without a GPU.
    bool cpu_standins = false;
};

/**
 * Scores `groups` on `workers` contexts at once, recording each finished row in the progress
 * log (batch/progress_log.hpp) and, when base.resume, reusing the rows it vouches for; writes
 * the summary to `summary_path` and returns the exit code. Refuses (before creating anything)
 * when an output would be one of `inputs`, the files the command reads.
 *
 * Scheduling: groups are split into parts of VIF_MAX_DISTORTED rows at most (and, with several
 * devices, into at least as many parts as devices, so that one ladder spreads over all of
 * them, and with many workers small enough that their open files stay within half the open-file
 * limit); worker w scores on slot w % slots (when the device plan leaves slots out, their workers
 * score on the running slots, as many as that many GPUs get by default: batch/devices.hpp's
 * worker_slots; a lent worker whose slot fails goes back to its own); every worker pulls the
 * next part from one queue, so
 * a device that finishes sooner takes more (the least-loaded device gets the next part). The
 * outputs and the summary do not depend on which device scored a row.
 *
 * Faults: a device that fails (DeviceFailure) takes no more parts; the rows of its part that
 * were not finished go back to the queue for the other devices, and stderr says which rows were
 * re-run and why. When every device has failed the rows left are not scored: an error, exit
 * status non-zero and no summary (the rows scored stay in the progress log for a resumed run).
 * Test hook: VIF_TEST_FAIL_DEVICE=<slot>:<rows> fails slot <slot> once it has scored <rows>
 * rows (batch/devices.hpp).
 *
 * Start-up and reuse: the first device starts at once, the others as the work pays for
 * (device_startup.hpp, device_plan.hpp); each worker keeps one
 * scoring context from group to group (context_cache.hpp), and after a finished run leaves it
 * to the process exit: the caller ends the process right after (leave_process).
 */
int run_groups(const std::vector<std::vector<RungJob>> &groups, const LadderSettings &base,
               const DeviceSet &devices, size_t workers, const std::string &summary_path,
               const std::vector<std::string> &inputs, bool quiet);

/** The devices `text` (--devices: "", "all" or "0,1,...") names for `backend`: by default
 *  every CUDA device (none: an empty set, the backend as it is); an error (false, *err) for a
 *  device that is not there or --devices with the CPU backend. VIF_TEST_CPU_DEVICES=N (tests)
 *  makes N CPU stand-in devices. */
bool choose_devices(const std::string &text, VifBackend backend, DeviceSet *out, std::string *err);

/** Workers when --workers is not given for `parts` parts to score (reference groups, cut at
 *  VIF_MAX_DISTORTED rows): 1 on the CPU; on GPUs batch/devices.hpp's workers_for_gpus. */
size_t default_workers(const DeviceSet &devices, size_t parts);

/** `groups` with every group of more than `most` rows split into parts of even size (in order)
 *  of at most `most` rows each. */
std::vector<std::vector<RungJob>> split_groups(const std::vector<std::vector<RungJob>> &groups,
                                               size_t most);

/** The progress log beside a summary: "<summary>.progress". */
std::string progress_log_path(const std::string &summary_path);

} // namespace vifcli

#endif
