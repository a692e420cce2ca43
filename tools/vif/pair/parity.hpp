// --check-parity: every frame scored on the CPU reference and on CUDA, compared metric by metric
// (integer VIF: identical; float VIF: within 1e-4, relative for num/den). The table goes to
// stderr; a mismatch makes the exit code kExitParity (the scores are still written).
#ifndef VIF_TOOLS_PAIR_PARITY_HPP
#define VIF_TOOLS_PAIR_PARITY_HPP

#include <vif/vif.h>

#include <cstdint>
#include <vector>

namespace vifcli {

/** Prints the comparison of `cpu` and `gpu` (frame numbers `frame_nums`); whether they agree. */
bool check_parity(const VifConfig &cfg, const std::vector<VifScores> &cpu,
                  const std::vector<VifScores> &gpu, const std::vector<uint64_t> &frame_nums);

} // namespace vifcli

#endif
