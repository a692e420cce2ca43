// The scoring loop of `--hwdec cuda`: frame pairs whose planes are on the GPU go to the CUDA
// backend by device pointer (vif_cuda_submit), without crossing PCIe.
//
// Each input is either a SegmentDecoder (encoded input: NVDEC frames already in device memory;
// a decoder that fell back to software hands host frames, uploaded here) or a host FrameSource
// read through a Prefetcher (raw/Y4M input next to an encoded one: uploaded here). A decoded
// frame stays the loop's until a CUDA event recorded after the submission that read it has
// completed; only then is it given back to its decoder (so a buffer is never overwritten while
// VIF may still read it).
#ifndef VIF_TOOLS_DEVICE_PAIRS_HPP
#define VIF_TOOLS_DEVICE_PAIRS_HPP

#include "frame_source.hpp"
#include "prefetch.hpp"
#include "segment_decoder.hpp"

#include <vif/vif.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vifcli {

struct DeviceInput {
    SegmentDecoder *decoder = nullptr; ///< encoded input, or
    Prefetcher *prefetcher = nullptr;  ///< a host source (already applies skip/subsample)
    VideoInfo info;
    std::string name;  ///< "reference 'a.mp4'"
    uint64_t skip = 0; ///< decoder inputs: frames to drop first
};

struct DeviceRunResult {
    std::vector<std::vector<VifScores>> scores; ///< one list per context, in frame order
    std::vector<uint64_t> frame_nums;
    uint64_t submitted = 0;
    std::string short_input;       ///< "reference"/"distorted" when one ended before the other
    uint64_t short_frames = 0;     ///< frames the shorter one had (after the skip)
    double input_wait_seconds = 0; ///< time spent waiting for the inputs' frames (decoding)
};

/**
 * Scores pairs until an input ends (or max_pairs / the subsample plan say stop). ctxs: contexts
 * on the CUDA backend (one per VIF variant), each given every pair; none for a decode-only run
 * (frames read and given back, nothing scored). Throws InputError for input problems and
 * std::runtime_error for scoring failures.
 */
DeviceRunResult run_device_pairs(const std::vector<VifContext *> &ctxs, int cuda_device,
                                 DeviceInput &ref, DeviceInput &dist, uint64_t subsample,
                                 uint64_t max_pairs, void (*progress)(uint64_t done, void *arg),
                                 void *arg);

/** What run_device_group scored, by rung. */
struct DeviceGroupResult {
    std::vector<std::vector<VifScores>> scores; ///< by rung, in frame order
    /// By rung: "" (as long as the reference), "distorted" (it ended first: short_frames is
    /// its frame count) or "reference" (the reference ended first, short_frames frames).
    std::vector<std::string> short_input;
    std::vector<uint64_t> short_frames;
    std::vector<std::string> error; ///< by rung: its input's failure ("" none)
    uint64_t submitted = 0;         ///< reference frames scored against at least one rung
    double input_wait_seconds = 0;
};

/**
 * A ladder on the device path: each frame of `ref` scored against the same frame of every rung
 * still going, by one vif_cuda_submit_multi call (the reference copied once). ctx: a CUDA
 * context whose queue_depth holds two submissions of every rung. A rung that ends before the
 * reference stops there; a rung whose input fails stops with its error (the others go on).
 * Throws InputError when the reference fails and std::runtime_error for scoring failures.
 */
DeviceGroupResult run_device_group(VifContext *ctx, int cuda_device, DeviceInput &ref,
                                   const std::vector<DeviceInput *> &rungs);

} // namespace vifcli

#endif
