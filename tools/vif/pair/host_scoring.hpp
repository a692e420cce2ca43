// The scoring loop of a pair run on host frames: each pair the readers deliver is submitted to
// every variant's context and the scores are taken as they come (frame order is kept). The
// backend is the one asked for (`auto`: the library's own hand-over from the CPU to CUDA once it
// has started, docs/design.md "auto: the hand-over"), and --check-parity sends every pair to the
// CPU and to CUDA (pair/parity.hpp).
// --read-only reads the pairs and scores nothing (the input speed alone).
#ifndef VIF_TOOLS_PAIR_HOST_SCORING_HPP
#define VIF_TOOLS_PAIR_HOST_SCORING_HPP

#include "options.hpp"
#include "output_file.hpp"
#include "pair/cuda_warmup.hpp"
#include "pair/inputs.hpp"

#include <optional>

namespace vifcli {

/** Scores the pairs of `in` and writes the report to `out`; the exit code. Throws Failure. */
int score_host_pairs(const Options &o, HostInputs &in, CudaWarmup &warmup,
                     std::optional<OutputFile> &out);

} // namespace vifcli

#endif
