// How many devices a batch's work pays for. Each device more costs its start-up (the driver's
// start of the device, then a scoring context per worker) before it scores anything; a catalogue
// shorter than that finishes sooner on the devices already running. The work is estimated before
// anything is decoded, from a sample of the rows' inputs (their headers and sizes only) and the
// batch rates measured on the H200 machines (device_plan.cpp holds them), as `--backend auto`
// decides from a clip's length (media/decode_choice.hpp).
#ifndef VIF_TOOLS_COMMANDS_DEVICE_PLAN_HPP
#define VIF_TOOLS_COMMANDS_DEVICE_PLAN_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "commands/ladder_run.hpp"

namespace vifcli {

struct WorkEstimate {
    bool known = false; ///< false: an input could not say its length (every device starts)
    double seconds = 0; ///< one device's scoring time for every row
    size_t rows = 0;
    std::string why; ///< "about 1.20 s on one device: 100 rows of about 48 frames of 576x324"
};

/**
 * One device's time for `groups`, from up to `sample` rows spread over them (each row's inputs
 * opened for their header or size only); `nvdec`: rows of one that NVDEC may decode (`vif batch
 * --hwdec auto`). Test hook: VIF_TEST_BATCH_WORK_S=<seconds> is the estimate.
 */
WorkEstimate estimate_work(const std::vector<std::vector<RungJob>> &groups, bool nvdec,
                           size_t sample = 8);

/**
 * How many of `others` more devices to start, with `work_left_s` of one device's work still
 * queued and one running: the k-th more starts only when the work left is at least twice k
 * start-ups (`startup_s` each, the first device's plus its contexts'): with k devices running,
 * one more finishes sooner only once the work is over k start-ups, and the factor 2 keeps a
 * wrong estimate from making the run slower than one device. *why: one line for --verbose.
 */
size_t devices_that_pay(double work_left_s, double startup_s, size_t others, std::string *why);

/** What making the scoring contexts of a fresh device adds to its start-up (seconds). */
double context_startup_seconds();

} // namespace vifcli

#endif
