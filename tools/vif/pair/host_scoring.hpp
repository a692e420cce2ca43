// The scoring loop of a pair run on host frames: each pair the readers deliver is submitted to
// every variant's context and the scores are taken as they come (frame order is kept). The
// backend is the one asked for, with two additions:
//   --backend auto while CUDA is still starting: the CPU scores the first frames and the rest go
//     to a CUDA context once the GPU is ready (the hand-over; docs/design.md, "Start-up in the
//     CLI"); both give the same bits, so the hand-over does not show in the scores.
//   --check-parity: every pair goes to the CPU and to CUDA (pair/parity.hpp).
// --read-only reads the pairs and scores nothing (the input speed alone).
#ifndef VIF_TOOLS_PAIR_HOST_SCORING_HPP
#define VIF_TOOLS_PAIR_HOST_SCORING_HPP

#include "options.hpp"
#include "output_file.hpp"
#include "pair/cuda_warmup.hpp"
#include "pair/early_contexts.hpp"
#include "pair/inputs.hpp"

#include <optional>

namespace vifcli {

/** Scores the pairs of `in` and writes the report to `out`; the exit code. Throws Failure.
 *  early: CPU contexts made while the inputs opened, taken where they fit (may be null). */
int score_host_pairs(const Options &o, HostInputs &in, CudaWarmup &warmup,
                     std::optional<OutputFile> &out, EarlyContexts *early = nullptr);

} // namespace vifcli

#endif
