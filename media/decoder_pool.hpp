// Decoders kept from one input to the next when a process decodes many inputs (`vif batch`):
// opening a decoder costs an NVDEC session, which the driver creates one at a time for the
// whole machine (tens of milliseconds each, more with many opened together), and freeing one
// frees its surfaces (cuMemFree waits for the device). A decoder that decoded an input to its
// end is flushed, as for a seek, and kept here for the next input of the same shape: the same
// codec, size, format, profile and container parameter sets, on the same device.
//
// Only HEVC: through a flush libavcodec's HEVC decoder keeps its hardware decoder (and NVDEC
// session) while the parameter sets stay the same, where its H.264 decoder re-creates it at the
// next picture (FFmpeg 5.1: the flush resets the H.264 context), so keeping an H.264 decoder
// would save nothing; draining H.264 without the stream's end instead (end-of-sequence units)
// loses the next stream's first frames, whose picture order counts fall below the last one
// output. H.264's NVDEC sessions are kept one level down instead: the NVDEC builds' static
// FFmpeg (scripts/ffmpeg-patches/nvdec-keep-decoders.patch) hands a freed cuvid decoder to the
// next one of the same parameters where VIF_NVDEC_KEEP_DECODERS=1 (vif batch sets it on GPUs).
// Off by default (a single pair gains nothing); a batch turns it on.
#ifndef VIF_MEDIA_DECODER_POOL_HPP
#define VIF_MEDIA_DECODER_POOL_HPP

#include <string>

struct AVCodecContext;
struct AVCodecParameters;

namespace vifcli {

/** An idle decoder: its context and, with NVDEC, the CUDA stream of its device context. */
struct KeptDecoder {
    AVCodecContext *ctx = nullptr;
    void *stream = nullptr;
};

/** Whether decoders are kept (process-wide; default false); turning it off frees those kept. */
void keep_decoders(bool on);
bool keeping_decoders();

/** The shape a decoder is kept under, "" when the input's decoders are not kept: only HEVC,
 *  decoded by NVDEC or by a single-threaded software decoder (tests). */
std::string decoder_shape(const AVCodecParameters *par, bool cuda, int device,
                          unsigned software_threads);

/** A kept decoder of that shape (true), or false. */
bool take_decoder(const std::string &shape, KeptDecoder *out);

/** Keeps `d` for the next input of `shape` (up to a bound per shape; beyond it, or when keeping
 *  is off, it is freed). */
void give_back_decoder(const std::string &shape, KeptDecoder d);

/** Frees a decoder (its context, and its stream with NVDEC). */
void free_decoder(KeptDecoder &d);

} // namespace vifcli

#endif
