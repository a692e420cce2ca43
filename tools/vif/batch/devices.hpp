// Which devices a catalogue runs on (`--devices all|0,1,...`), how many workers they get, and
// the test hook that makes one of them fail (VIF_TEST_FAIL_DEVICE): no CUDA here.
#ifndef VIF_TOOLS_BATCH_DEVICES_HPP
#define VIF_TOOLS_BATCH_DEVICES_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace vif::batch {

/**
 * The devices `text` names out of `found` (numbered 0 to found - 1): "" or "all" is every one
 * of them, else a comma list such as "0,2" (a device may be named twice: it then gets two shares
 * of the work). False with a message in *err for a malformed list, a device that is not there
 * (the message names it and says how many `what` devices were found), or "all" when none is.
 */
bool resolve_devices(const std::string &text, int found, const std::string &what,
                     std::vector<int> *out, std::string *err);

/**
 * Scoring workers for `gpus` GPU slots on a host of `cores` cores with `parts` parts to score:
 * a quarter of the cores shared among the GPUs, 1 to 8 each; above 4 a GPU, no more than half
 * the parts (a worker opens its next part while one decodes).
 */
size_t workers_for_gpus(size_t gpus, size_t cores, size_t parts);

/** The test hook VIF_TEST_FAIL_DEVICE=<slot>:<after_rows>: the slot-th device of the run (its
 *  place in --devices, from 0) fails once it has scored `after_rows` rows. */
struct DeviceFailureHook {
    size_t slot = 0;
    size_t after_rows = 0;
};

/** Parses the hook's value; nullopt (and *err set) when it is not "<slot>:<rows>". */
std::optional<DeviceFailureHook> parse_device_failure_hook(const std::string &text,
                                                           std::string *err);

} // namespace vif::batch

#endif
