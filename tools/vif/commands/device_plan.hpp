// How many devices a batch's work pays for. Each device more costs its start-up (the driver's
// start of the device, then a scoring context per worker) before it scores anything; a catalogue
// shorter than that finishes sooner on the devices already running. The work is estimated before
// anything is decoded, from a sample of the rows' inputs (their headers and sizes only) and the
// batch rates measured on the H200 machines (batch/devices.cpp holds them and the rule), as
// `--backend auto` decides from a clip's length (media/decode_choice.hpp). Work the host's
// decoding binds (encoded inputs decoded on the host) pays for no device more.
#ifndef VIF_TOOLS_COMMANDS_DEVICE_PLAN_HPP
#define VIF_TOOLS_COMMANDS_DEVICE_PLAN_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "batch/devices.hpp"
#include "commands/ladder_run.hpp"

namespace vifcli {

struct WorkEstimate {
    bool known = false;          ///< false: an input could not say its length (every device starts)
    vif::batch::DeviceWork work; ///< one device's time for every row, by what binds it
    size_t rows = 0;
    size_t sampled = 0;  ///< rows of the sample whose inputs said their length
    size_t on_nvdec = 0; ///< of those, rows NVDEC decodes (the device path)
    std::string why; ///< "100 rows of about 48 frames of 1.9e+05 pixels, 100 decoded on the host"
    /// Most sampled rows decode on NVDEC: the workers a GPU follow its rule (batch/devices.hpp).
    bool nvdec_rows() const { return known && 2 * on_nvdec > sampled; }
};

/**
 * One device's time for `groups`, from up to `sample` rows spread over them (each row's inputs
 * opened for their header or size only); `nvdec`: rows of two encoded inputs, alone in their
 * group or of their reference's size (a ladder's rungs go with it), may be decoded by NVDEC
 * (`vif batch --hwdec auto`: where media/decode_choice.hpp's choose_nvdec says so for the row's
 * length, as the row's own opening decides; `nvdec_always`, --hwdec cuda:
 * whatever its length); `host_workers`: the workers one GPU gets (they decode the host's share).
 * Test hooks: VIF_TEST_BATCH_WORK_S=<seconds> is the estimate (device work, none on the host);
 * VIF_TEST_NVDEC_ROWS=1 counts every sampled row as NVDEC's.
 */
WorkEstimate estimate_work(const std::vector<std::vector<RungJob>> &groups, bool nvdec,
                           bool nvdec_always, size_t host_workers, size_t sample = 8);

/** What making the scoring contexts of a fresh device adds to its start-up (seconds). */
double context_startup_seconds();

} // namespace vifcli

#endif
