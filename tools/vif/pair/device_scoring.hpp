// The device path of a pair run (--hwdec; builds with FFmpeg): when hw_decode.hpp decides that
// NVDEC decodes an input, both inputs are read into GPU memory (the other one uploaded) and
// scored there by device pointer (device_pairs.hpp), one CUDA context per variant.
#ifndef VIF_TOOLS_PAIR_DEVICE_SCORING_HPP
#define VIF_TOOLS_PAIR_DEVICE_SCORING_HPP

#include "options.hpp"
#include "output_file.hpp"
#include "pair/cuda_warmup.hpp"
#include "pair/inputs.hpp"

#include <optional>

namespace vifcli {

/**
 * Scores the pair on the device path if --hwdec chooses it for these inputs, and writes the
 * report. Returns nullopt when the host path should run instead. When it returns an exit code,
 * the decoders, readers and contexts were left for the process exit to free (tearing them down
 * takes 0.1-0.3 s): the caller must then end the process with _Exit. Throws Failure.
 */
std::optional<int> score_on_device_if_chosen(const Options &o, CudaWarmup &warmup,
                                             const PairRequests &rq,
                                             std::optional<OutputFile> &out);

} // namespace vifcli

#endif
