// See decode_choice.hpp.
#include "decode_choice.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vifcli {

namespace {

// The rates of the rule, in one place. Pixels are luma samples of both inputs of a pair.
//
// NVDEC's start-up beyond what software decoding pays: its sessions (three an input) and each
// input's probe on the GPU. Issue 26 (H200 machine, 2026-11-25): a 48-frame 1080p x264 pair took
// 0.69 s with --backend cuda --hwdec cuda and 0.38 s with --hwdec none.
constexpr double kNvdecStartS = 0.30;
// When NVDEC's first frames come, counted from the process's start: CUDA ready at about 0.2 s,
// the NVDEC inputs open at 0.34 s (bench/startup, H200 machine, 2026-11-26).
constexpr double kNvdecFirstFramesS = 0.34;
// NVDEC's steady rate: 1,302 pairs/s of 1080p H.264 in the decode+score loop (same machine),
// 2 x 1920 x 1080 x 1,302 = 5.4e9 pixels/s.
constexpr double kNvdecPixelsPerS = 5.4e9;
// FFmpeg's software H.264 decoding, pixels a second per CPU thread: a lower bound from the same
// day's --backend cpu run of that pair (0.375 s whole process: at least 160 pairs/s decoded on
// 16 threads). bench/startup's encoded curves show where the two paths really cross: correct
// this number from them.
constexpr double kCpuPixelsPerSPerThread = 0.45e8;
// Software decoding cost of other codecs relative to H.264 (HEVC Main10 and AV1 decode slower).
double codec_cost(const std::string &codec) {
    if (codec == "hevc") return 1.6;
    if (codec == "av1") return 1.3;
    return 1.0;
}

// The whole run on the CPU (decoding and scoring, --backend cpu, whole process), luma pixels of
// one frame a second per CPU thread: raw 1080p 1,200 frames at 395-403 fps and the 1080p H.264
// pair at 355 fps on the H200 machine's 16 threads (bench/startup, 2026-11-26).
constexpr double kCpuRunRawPixelsPerSPerThread = 5.1e7;
constexpr double kCpuRunH264PixelsPerSPerThread = 4.6e7;
// Measured up to 16 threads: more are not assumed to add (a many-core machine's long runs would
// otherwise go to the CPU on a straight line nobody measured).
constexpr unsigned kMeasuredThreads = 16;
// A run that starts CUDA: its fixed cost beyond a CPU run's and its rate, luma pixels of one
// frame a second: raw input 3,900 fps of 1080p once started; encoded input runs at NVDEC's
// 1,302-1,437 pairs a second (the same machine). The fixed costs were 0.35 s (a trivial CUDA
// program's whole process) and 0.50 s (NVDEC's sessions on top) while the driver's teardown
// ran in the process's exit; the exit holder (tools/vif/pair/exit_holder.hpp) took 0.06-0.12 s
// of it out (bench/startup, 2026-11-26), the NVDEC path's contexts and sessions are made at
// once since, and a CPU run has its own fixed cost (0.03 s raw, 0.13 s for the probe pair's
// first frames): 0.25 and 0.30 s. The raw curves since (H200, 5cef713 and 58605ee: CUDA 0.17-0.21
// s for one 1080p frame and 0.19-0.21 s for 48, the CPU 0.035-0.049 s for one and 2.4-2.7 ms a
// frame after) put the raw cost at 0.14-0.17 s: 0.15, the crossing at about 66 frames of 1080p
// (the curves: 61-75) where 0.25 put it at 110, so that 70-110-frame raw clips went to the CPU
// 20-40% slower than CUDA (no curve point there showed it). Session 7's sharper points (best of 5
// rotated, main f0d5bb4): raw 1080p CPU 0.211 s / CUDA 0.261 at 64 frames, 0.265 / 0.266 at 80,
// 0.316 / 0.259 at 100: the crossing at 80, CUDA 0.18 s above the CPU run there.
constexpr double kCudaFixedS = 0.18;
constexpr double kCudaRawPixelsPerS = 8.0e9;
constexpr double kNvdecFixedS = 0.30;
constexpr double kNvdecRunPixelsPerS = 2.7e9;
// A CPU run's first frames of big encoded frames: frame threads each decoding a frame before
// the first comes out. One 2160p HEVC Main10 frame took 0.49 s on the CPU, one 1080p H.264
// frame 0.13 s (H200 machine, bench/startup's curves, 2026-11-26): seconds a luma pixel of a
// frame, weighted by codec_cost, beyond the 1080p H.264 frame's 4e6 (whose cost the fixed costs
// above already net out).
constexpr double kCpuFirstFramesSPerPixel = 3.5e-8;
constexpr double kCpuFirstFramesFreePixels = 4.0e6;
// The same for raw input: a frame is scored on one thread, so a run waits at least for one
// frame's time there. Beyond 1080p it shows: one raw 2160p frame took 0.12-0.17 s whole process
// on the CPU against 0.035-0.049 s for 1080p, and the 2160p curve is about 0.116 s + 9-10 ms a
// frame from 1 to 200 frames (H200 machine, bench/startup's curves, 2026-11-26): 0.08-0.1 s more
// than the frames' share of the threads, 1.6e-8 s a luma pixel beyond 1080p's (0.1 s at 2160p,
// the crossing where the points put it: CPU 0.254 s / CUDA 0.262 at 8 frames, 0.342 / 0.252 at 16).
constexpr double kCpuRawFirstFrameSPerPixel = 1.6e-8;
constexpr double kCpuRawFirstFrameFreePixels = 2.1e6;
// The hand-over (raw input scored on CPU threads until CUDA is ready): CUDA's contexts are
// ready about 0.23 s after start, and about 0.03 s later (1080p; 0.09 s at 2160p) when every
// core is scoring meanwhile (H200 machine, --verbose timelines, 2026-11-26).
constexpr double kCudaReadyS = 0.23;
constexpr double kHandOverStartCostS = 0.03;
// Encoded input just past the CPU/CUDA crossing: decoded in software, scored on the CPU until
// CUDA is ready and on CUDA after (the host path's hand-over), rather than waiting for NVDEC.
// That path decodes as the CPU run does and moves the scoring off the CPU, so near the crossing
// it takes less than the CPU run, about CUDA's time there, and it does not wait for NVDEC's
// sessions. How far on it stays ahead of NVDEC depends on how much of the CPU run decoding is:
// for bench/nvdec's 1080p H.264 pair (12.5 + 4.2 KB a frame) 0.38 (software decoding with CUDA
// scoring 1.16 ms a frame against the CPU run's 3.1), and it took 0.67-0.77 of NVDEC's time at 150-300
// frames, 1.08 at 600 (H200, session 7's round-1 points): break-even where the CPU run is about
// 2.0 times CUDA's estimate, share x ratio = 0.76. The share is taken to grow with the bits a
// pixel: 0.29 + 1.39 x bits (0.38 at that pair's 0.064; 0.75 at the probe pair's 0.33, whose CRF
// 17 reference decoded alone in 0.75 of its CPU run), and the band ends at 0.9 x 0.76 / share:
// the CPU run 1.8 times CUDA's for that pair (about 370 frames of 1080p on 16 threads), none
// for the probe pair's weight. Not where a CPU run's first frames cost more than CUDA's start-up
// (big frames, 2160p HEVC), nor where the files' sizes are unknown: NVDEC as before.
constexpr double kDecodeShareBase = 0.29;
constexpr double kDecodeSharePerBit = 1.39;
constexpr double kSoftwareBreakEven = 0.76 * 0.9;

} // namespace

namespace {

// H.264's 8-bit-only profiles (the values of profile_idc, as FFmpeg 5.1 to 7.1 give them):
// Baseline (66, constrained 66 | 0x200), Main (77), Extended (88), High (100).
bool h264_8bit_profile(int p) {
    return p == 66 || p == (66 | 0x200) || p == 77 || p == 88 || p == 100;
}

// The stream's profile: FFmpeg's where it filled it in, else the one its avcC / hvcC record
// names (Matroska and MP4 keep the record as extradata; the demuxers do not read it).
int header_profile(const AVCodecParameters *par) {
    if (par->profile >= 0) return par->profile;
    const uint8_t *x = par->extradata;
    if (!x || par->extradata_size < 2 || x[0] != 1) return -1; // not a version-1 record
    if (par->codec_id == AV_CODEC_ID_H264) return x[1];        // AVCProfileIndication
    if (par->codec_id == AV_CODEC_ID_HEVC) return x[1] & 0x1f; // general_profile_idc
    return -1;
}

// The luma depth libvif scores a stream at, from its header alone (see ClipShape::bitdepth).
uint32_t header_bitdepth(const AVCodecParameters *par) {
    int depth = 0;
    if (const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(AVPixelFormat(par->format)))
        depth = d->comp[0].depth;
    else if ((par->codec_id == AV_CODEC_ID_H264 && h264_8bit_profile(header_profile(par))) ||
             (par->codec_id == AV_CODEC_ID_HEVC && header_profile(par) == 1)) // HEVC Main
        depth = 8;
    if (depth <= 0) return 0;
    return depth <= 8 ? 8 : depth <= 10 ? 10 : depth <= 12 ? 12 : 16;
}

} // namespace

std::optional<ClipShape> probe_clip_shape(const std::string &path) {
    AVFormatContext *fmt = nullptr;
    if (avformat_open_input(&fmt, path.c_str(), nullptr, nullptr) < 0) return std::nullopt;
    std::optional<ClipShape> out;
    for (unsigned i = 0; i < fmt->nb_streams && !out; ++i) {
        const AVStream *st = fmt->streams[i];
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        if (st->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        ClipShape s;
        s.width = uint32_t(std::max(0, st->codecpar->width));
        s.height = uint32_t(std::max(0, st->codecpar->height));
        s.codec = avcodec_get_name(st->codecpar->codec_id);
        s.bitdepth = header_bitdepth(st->codecpar);
        if (st->nb_frames > 0) {
            s.frames = uint64_t(st->nb_frames);
        } else {
            // No count in the header (Matroska): its duration times its frame rate.
            const AVRational rate = st->avg_frame_rate.num ? st->avg_frame_rate : st->r_frame_rate;
            double secs = 0;
            if (st->duration > 0 && st->duration != AV_NOPTS_VALUE)
                secs = double(st->duration) * av_q2d(st->time_base);
            else if (fmt->duration > 0)
                secs = double(fmt->duration) / AV_TIME_BASE;
            if (rate.num > 0 && rate.den > 0 && secs > 0)
                s.frames = uint64_t(std::llround(secs * av_q2d(rate)));
        }
        if (s.frames && fmt->pb) {
            const int64_t size = avio_size(fmt->pb);
            if (size > 0) s.bytes_per_frame = double(size) / double(s.frames);
        }
        out = s;
    }
    avformat_close_input(&fmt);
    return out;
}

NvdecChoice choose_nvdec(uint64_t frames, const ClipShape &shape, unsigned cores) {
    NvdecChoice c;
    if (frames == 0 || shape.width == 0 || shape.height == 0) {
        c.why = "clip length unknown: NVDEC";
        return c;
    }
    const double pixels = 2.0 * shape.width * shape.height; // a pair
    const double cpu_s = pixels * codec_cost(shape.codec) /
                         (kCpuPixelsPerSPerThread * std::max(1u, cores)); // a pair, software
    const double gpu_s = pixels / kNvdecPixelsPerS;                       // a pair, NVDEC
    // NVDEC from the length where its start-up is paid back; never when software is as fast.
    const double crossing = cpu_s > gpu_s ? kNvdecStartS / (cpu_s - gpu_s) : INFINITY;
    c.nvdec = double(frames) >= crossing;
    char line[200];
    std::snprintf(line, sizeof line,
                  "%llu frames of %ux%u %s: %s (NVDEC pays for its %.2f s start-up from about "
                  "%.0f frames on %u CPU threads)",
                  (unsigned long long)frames, shape.width, shape.height, shape.codec.c_str(),
                  c.nvdec ? "NVDEC" : "software decoding on the CPU", kNvdecStartS, crossing,
                  cores);
    c.why = line;
    return c;
}

StartChoice choose_decoding_start(const ClipShape &shape, unsigned cores, unsigned segment_frames) {
    StartChoice c;
    cores = std::max(1u, cores);
    // Two inputs share the cores; each input's decoder gets half (one decoder an input: 0.955
    // s for the 1,200-frame H.264 pair on the H200 machine, two of 4 threads 0.981 s).
    c.decoders = 1;
    c.threads = std::max(1u, cores / (2 * c.decoders));
    const double pixels = 2.0 * shape.width * shape.height; // a pair
    const double pairs_per_s =
        pixels > 0 ? kCpuPixelsPerSPerThread * cores / (pixels * codec_cost(shape.codec)) : 0;
    // NVDEC's first frames come this long after the process starts: CUDA's start-up and the
    // sessions (H200 machine: decoding began at 0.34 s).
    const double before_nvdec = pairs_per_s * kNvdecFirstFramesS;
    c.software_first = before_nvdec >= double(segment_frames);
    char line[240];
    std::snprintf(line, sizeof line,
                  "decoding %s (about %.0f pairs on %u CPU threads before NVDEC's first frames "
                  "at %.2f s; %u needed)",
                  c.software_first ? "starts in software, NVDEC joins once CUDA is up"
                                   : "waits for NVDEC",
                  before_nvdec, cores, kNvdecFirstFramesS, segment_frames);
    c.why = line;
    return c;
}

CpuChoice choose_cpu_only(uint64_t frames, const ClipShape &shape, unsigned cores,
                          unsigned variants, double software_band) {
    CpuChoice c;
    if (frames == 0 || shape.width == 0 || shape.height == 0) return c;
    const bool raw = shape.codec == "raw";
    const double pixels = double(frames) * shape.width * shape.height;
    const double cpu_rate = (raw ? kCpuRunRawPixelsPerSPerThread
                                 : kCpuRunH264PixelsPerSPerThread / codec_cost(shape.codec)) *
                            std::clamp(cores, 1u, kMeasuredThreads) / std::max(1u, variants);
    const double frame_px = double(shape.width) * shape.height;
    const double first_frames =
        raw ? kCpuRawFirstFrameSPerPixel * std::max(0.0, frame_px - kCpuRawFirstFrameFreePixels)
            : kCpuFirstFramesSPerPixel *
                  std::max(0.0, frame_px * codec_cost(shape.codec) - kCpuFirstFramesFreePixels);
    const double cpu_s = first_frames + pixels / cpu_rate;
    const double gpu_s = raw ? kCudaFixedS + pixels / kCudaRawPixelsPerS
                             : kNvdecFixedS + pixels / kNvdecRunPixelsPerS;
    c.cpu_only = cpu_s <= gpu_s;
    // The hand-over saves the GPU the frames the CPU scores before CUDA is ready and costs the
    // CPU's last frames (each thread finishes the one it holds: a frame's time on one thread)
    // and a slower start-up. On the H200 machine it saves 0.02 s and costs 0.07 s at 1080p.
    const double saved = kCudaReadyS * cpu_rate * std::max(1u, variants) / kCudaRawPixelsPerS;
    const double cost =
        frame_px / (cpu_rate / std::clamp(cores, 1u, kMeasuredThreads)) + kHandOverStartCostS;
    c.cpu_while_cuda_starts = !raw || saved > cost;
    // Bits of both inputs a luma pixel: how heavy the decoding is (bench/nvdec's 1080p H.264
    // pair 0.064, the probe pair with its CRF 17 reference 0.33).
    const double bits = frame_px > 0 ? 8.0 * shape.bytes_per_frame / frame_px : 0.0;
    const double band_end =
        software_band > 0 ? software_band
        : shape.bytes_per_frame > 0
            ? kSoftwareBreakEven / (kDecodeShareBase + kDecodeSharePerBit * bits)
            : 0.0;
    c.software_decoding = !raw && !c.cpu_only && first_frames == 0.0 && cpu_s <= band_end * gpu_s;
    char line[400];
    std::snprintf(line, sizeof line,
                  "%llu frames of %ux%u %s: %s (about %.2f s on %u CPU threads, %.2f s with "
                  "CUDA's start-up)%s",
                  (unsigned long long)frames, shape.width, shape.height,
                  raw ? "raw video" : shape.codec.c_str(),
                  c.cpu_only ? "the CPU alone, CUDA not started" : "CUDA", cpu_s,
                  std::max(1u, cores), gpu_s,
                  c.cpu_only ? ""
                  : c.software_decoding
                      ? "; near the crossing: decoded in software, the CPU scoring while CUDA "
                        "starts, not NVDEC"
                  : !raw ? ""
                  : c.cpu_while_cuda_starts
                      ? "; the CPU scores the first frames while CUDA starts"
                      : "; no CPU frames while CUDA starts (they would save less GPU time than "
                        "the CPU's last frames cost)");
    c.why = line;
    return c;
}

} // namespace vifcli
