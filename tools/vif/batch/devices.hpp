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
 * Scoring workers for `gpus` GPU slots on a host of `cores` cores with `parts` parts to score.
 * Rows decoded on the host: a quarter of the cores shared among the GPUs, 1 to 8 for one GPU,
 * 1 to 4 each for several. Rows NVDEC decodes (`nvdec_rows`: the GPUs' decoding engines bind,
 * the host's cores stay nearly idle): 8 a GPU, within half the cores (1 a GPU at least).
 * Either way, above 4 a GPU no more than half the parts (a worker opens its next part while one
 * decodes).
 */
size_t workers_for_gpus(size_t gpus, size_t cores, size_t parts, bool nvdec_rows = false);

/** One device's time for (part of) a catalogue, split by what binds it. */
struct DeviceWork {
    /// Decoding on the host's cores (encoded inputs NVDEC does not take): as long whatever the
    /// number of devices, its rate that of one GPU's workers (more workers on more devices
    /// measured no faster).
    double host_s = 0;
    /// The devices' own time: scoring, NVDEC decoding, raw input's copies; shared among them.
    double device_s = 0;
    DeviceWork &operator+=(const DeviceWork &o) {
        host_s += o.host_s;
        device_s += o.device_s;
        return *this;
    }
};

/** How a row's frames reach its device. */
enum class RowPath { host_decoded, nvdec, raw };

/**
 * One device's work for a row of `frames` frames of `pixels` luma pixels on `path`, from the
 * batch rates measured on the H200 machines (devices.cpp holds them); `host_workers`: the
 * workers one GPU gets on this host (workers_for_gpus(1, ...)), who decode host_decoded rows.
 */
DeviceWork row_work(RowPath path, double frames, double pixels, size_t host_workers);

/**
 * How many of `others` more devices pay for their start-up (`startup_s` each: the driver's
 * start of a device and its scoring contexts) with `work` left and one device running. With m
 * devices the work takes about max(host_s, device_s / m): the k-th more starts only when the
 * device work that k devices do not hide under the host's decoding, device_s - k host_s, is at
 * least 2k start-ups. (Without host decoding: one more device finishes sooner once the work is
 * over k start-ups; the factor 2 keeps a wrong estimate from making the run slower than one
 * device.) *why: one line for --verbose and --timings that says what stopped the count.
 */
size_t devices_that_pay(const DeviceWork &work, double startup_s, size_t others, std::string *why);

/** No slot: a worker that waits (its device left out) while the running ones have enough. */
constexpr size_t kNoSlot = static_cast<size_t>(-1);

/**
 * The slot of each of `workers` workers once the plan is known: worker w's own slot is
 * w % running.size(); a worker whose slot does not run (`running[slot]` false) joins the
 * running slots (in turn) while they have fewer than `target` workers in all, else it waits
 * (kNoSlot). So that one device left running gets the workers one device would have.
 */
std::vector<size_t> worker_slots(size_t workers, const std::vector<bool> &running, size_t target);

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
