// AV_PIX_FMT_CUDA frames -> vif_cuda_submit (CUDA builds only).
#pragma once

#include <string>

#include "vif/vif.h"

struct AVFrame;

namespace vif::ffmpeg {

// Submits the luma planes of two CUDA frames (already checked to be AV_PIX_FMT_CUDA) with no
// host copy; `kept`: the caller keeps the frames until their scores are received
// (VIF_FFMPEG_FRAMES_KEPT). On failure returns the status and sets *message.
VifStatus submit_cuda(VifContext* ctx, const AVFrame* ref, const AVFrame* dist, bool kept,
                      uint64_t* frame_index, std::string* message);

} // namespace vif::ffmpeg
