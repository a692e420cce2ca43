// See hw_decode.hpp.
#include "hw_decode.hpp"

#include "decode_choice.hpp"
#include "ffmpeg_source.hpp"

#include <vif/vif_ffmpeg.h>

extern "C" {
#include <libavutil/log.h>
}

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <system_error>
#include <thread>
#include <tuple>

#include <sys/stat.h>

namespace vifcli {

bool encoded_input(const SourceRequest &r) {
    if (r.path == "-" || r.path.empty()) return false;
    std::string ext;
    const size_t dot = r.path.find_last_of('.'), slash = r.path.find_last_of('/');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
        ext = r.path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (ext == "yuv" || ext == "raw") return false;
    // Only a regular file may be looked at here: a pipe, FIFO or process substitution would lose
    // the bytes read; those are read once, on the host path (docs/cli.md).
    struct stat st {};
    if (::stat(r.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    char head[4096];
    std::ifstream f(r.path, std::ios::binary);
    if (!f) return false;
    f.read(head, sizeof head);
    const size_t n = size_t(f.gcount());
    if (n < 9 || std::memcmp(head, "YUV4MPEG2", 9) == 0) return false;
    return ffmpeg_recognises(head, n);
}

namespace {

std::string input_name(const SourceRequest &r) {
    return r.label + " '" + r.path + "'";
}

} // namespace

std::optional<HwDecode> parse_hwdec(const std::string &s) {
    if (s == "auto") return HwDecode::kAuto;
    if (s == "cuda") return HwDecode::kCuda;
    if (s == "none") return HwDecode::kNone;
    return std::nullopt;
}

namespace {

// Packets an input's decoders need for a run of --frames N: the frames read (after the skip)
// and the most a picture can be reordered (H.264's and HEVC's DPB hold at most 16; an AV1
// temporal unit shows its own frame). 0: the whole stream.
uint64_t packets_needed(const HwDecodeRequest &req) {
    if (!req.max_frames) return 0;
    constexpr uint64_t kReorderMargin = 32;
    const uint64_t sub = std::max<uint64_t>(1, req.subsample);
    if (req.max_frames > (UINT64_MAX - kReorderMargin) / sub / 2) return 0; // no sensible cap
    return std::max(req.skip_ref, req.skip_dist) + req.max_frames * sub + kReorderMargin;
}

// The segment decoder of a pair's start in software with NVDEC joining later: the request's
// device, decoders and packets.
SegmentDecoderOptions software_first_options(const HwDecodeRequest &req) {
    SegmentDecoderOptions o;
    o.cuda = true;
    o.cuda_device = req.cuda_device;
    o.verbose = req.verbose;
    o.decoders = req.decoders ? req.decoders : 3;
    o.nvdec_later = true;
    o.max_packets = packets_needed(req);
    o.session_turn = req.session_turn;
    return o;
}

// Both inputs opened at once with their software decoders started (encoded ones), the other
// read on the host; NVDEC joins later (HwDecodeInputs::nvdec_joins_later).
template <typename Say>
HwDecodeInputs open_software_first(const SegmentDecoderOptions &o, const SourceRequest &ref,
                                   const SourceRequest &dist, bool ref_enc, bool dist_enc,
                                   const Say &say) {
    auto open = [o](SourceRequest r) {
        return std::make_unique<SegmentDecoder>(r.path, input_name(r), o);
    };
    HwDecodeInputs in;
    in.nvdec_joins_later = true;
    std::future<std::unique_ptr<SegmentDecoder>> dist_open;
    if (dist_enc) dist_open = std::async(std::launch::async, open, dist);
    try {
        if (ref_enc)
            in.ref_decoder = open(ref);
        else
            in.ref_source = open_frame_source(ref);
    } catch (...) {
        if (dist_open.valid()) dist_open.wait(); // its thread reads `dist`
        throw;
    }
    if (dist_enc)
        in.dist_decoder = dist_open.get();
    else
        in.dist_source = open_frame_source(dist);
    for (const auto &[r, d, src] : {std::tuple{&ref, in.ref_decoder.get(), in.ref_source.get()},
                                    std::tuple{&dist, in.dist_decoder.get(), in.dist_source.get()}})
        say(input_name(*r) + ": " +
            (d ? d->description() : src->info().format + ", read on the host and uploaded"));
    return in;
}

} // namespace

std::optional<HwDecodeInputs> open_hw_decode(const HwDecodeRequest &req, const SourceRequest &ref,
                                             const SourceRequest &dist) {
    if (req.mode == HwDecode::kNone) return std::nullopt;
    // FFmpeg's own log, as for software input (ffmpeg_source.cpp): the CLI's messages name the
    // input and the frame; --verbose lets FFmpeg's errors through.
    av_log_set_level(req.verbose ? AV_LOG_ERROR : AV_LOG_QUIET);
    const bool cuda_mode = req.mode == HwDecode::kCuda;
    const bool ref_enc = encoded_input(ref), dist_enc = encoded_input(dist);
    auto say = [&](const std::string &what) {
        if (req.verbose) std::fprintf(stderr, "vif: hwdec: %s\n", what.c_str());
    };
    if (!ref_enc && !dist_enc) {
        if (cuda_mode)
            throw HwDecodeError{"--hwdec cuda: neither input is an encoded video file NVDEC could "
                                "decode (raw YUV, Y4M and standard input are read on the host)"};
        say("no encoded input: host path");
        return std::nullopt;
    }
    if (!nvdec_built_in()) {
        if (cuda_mode)
            throw HwDecodeError{"--hwdec cuda: this build has no NVDEC support (it needs the CUDA "
                                "backend and an FFmpeg with the cuda hwaccel)"};
        say("this build has no NVDEC support: software decoding");
        return std::nullopt;
    }
    if (req.host_only) {
        if (cuda_mode) throw HwDecodeError{"--hwdec cuda needs the cuda backend"};
        say("scoring does not run on CUDA: software decoding");
        return std::nullopt;
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (!cuda_mode) {
        // A short clip is decoded on the CPU: it is done before NVDEC would have started.
        uint64_t frames = 0; // the most pairs the run scores; 0: unknown
        std::optional<ClipShape> shape;
        for (int i = 0; i < 2; ++i) {
            const SourceRequest &r = i ? dist : ref;
            if (!(i ? dist_enc : ref_enc)) continue;
            std::optional<ClipShape> s = probe_clip_shape(r.path);
            if (!s || s->frames == 0) {
                frames = 0;
                shape = std::nullopt;
                break;
            }
            const uint64_t skip = i ? req.skip_dist : req.skip_ref;
            const uint64_t n = s->frames > skip ? s->frames - skip : 0;
            frames = shape ? std::min(frames, n) : n;
            if (!shape || uint64_t(s->width) * s->height > uint64_t(shape->width) * shape->height)
                shape = s;
        }
        if (shape && req.max_frames) frames = std::min(frames, req.max_frames);
        const char *forced = std::getenv("VIF_TEST_SOFTWARE_FIRST");
        const bool force_first = forced && std::strcmp(forced, "1") == 0;
        const NvdecChoice choice =
            shape && frames ? choose_nvdec(frames, *shape, cores) : NvdecChoice{};
        if (!choice.why.empty()) say(choice.why);
        if (!choice.nvdec && !(force_first && req.may_start_in_software)) return std::nullopt;
        // Software first unless --cpu-decoders 0: on the H200 machine the 1,200-frame H.264 pair
        // took 0.955 s that way (one software decoder an input) against 1.126 s with NVDEC
        // alone (bench/startup, 2026-11-26, round 2; the contexts made early, the sessions
        // opened at once: in round 1, before those, it was slower).
        if (req.may_start_in_software && (req.cpu_decoders != 0 || force_first) &&
            (shape || force_first)) {
            SegmentDecoderOptions o;
            const StartChoice start =
                choose_decoding_start(shape ? *shape : ClipShape{}, cores, o.min_segment_frames);
            say(start.why);
            if (start.software_first || force_first) {
                o = software_first_options(req);
                // Experiment for bench/startup: VIF_SOFTWARE_BESIDE_NVDEC=0 stops the software
                // decoders once NVDEC runs.
                const char *beside = std::getenv("VIF_SOFTWARE_BESIDE_NVDEC");
                o.software_beside_nvdec = !(beside && std::strcmp(beside, "0") == 0);
                o.software_decoders =
                    req.cpu_decoders > 0 ? unsigned(req.cpu_decoders) : start.decoders;
                // Half the cores an input, shared by its software decoders.
                o.threads_per_decoder =
                    std::max(1u, start.threads * start.decoders / o.software_decoders);
                return open_software_first(o, ref, dist, ref_enc, dist_enc, say);
            }
        }
    }
    SegmentDecoderOptions o;
    o.cuda = true;
    o.cuda_device = req.cuda_device;
    o.verbose = req.verbose;
    o.max_packets = packets_needed(req);
    o.session_turn = req.session_turn;
    // Three NVDEC sessions an input keep the seven engines of an H200 busy with two inputs
    // (measured: docs/journal/2026-11-25-performance.md; more sessions only add start-up time).
    o.decoders = req.decoders ? req.decoders : 3;
    // Software decoders beside NVDEC: none unless asked for (their threads slow NVDEC's host
    // side: docs/journal/2026-11-26-startup.md, "Round 1").
    o.software_decoders = req.cpu_decoders < 0 ? 0u : unsigned(req.cpu_decoders);
    if (req.cpu_decoders > 0)
        o.threads_per_decoder =
            std::max(1u, (std::max(1u, std::thread::hardware_concurrency()) / 2) /
                             unsigned(req.cpu_decoders));
    // Both inputs are opened at once, while CUDA starts (opening probes the stream and its first
    // frame with NVDEC: a few hundred milliseconds each).
    struct Opened {
        std::unique_ptr<SegmentDecoder> dec;
        std::string why_not;        // NVDEC cannot decode it
        std::exception_ptr failure; // anything else
    };
    auto open_nvdec = [o](SourceRequest r) {
        Opened x;
        try {
            x.dec = std::make_unique<SegmentDecoder>(r.path, input_name(r), o);
        } catch (const NvdecUnsupported &e) {
            x.why_not = e.why;
        } catch (...) {
            x.failure = std::current_exception();
        }
        return x;
    };
    std::future<Opened> ref_open, dist_open;
    if (ref_enc) ref_open = std::async(std::launch::async, open_nvdec, ref);
    if (dist_enc) dist_open = std::async(std::launch::async, open_nvdec, dist);
    std::string gpu_problem;
    if (!req.gpu_ready || !req.gpu_ready(&gpu_problem)) {
        if (cuda_mode)
            throw HwDecodeError{"--hwdec cuda: " +
                                (gpu_problem.empty() ? std::string("no usable GPU") : gpu_problem)};
        say("scoring does not run on CUDA: software decoding");
        return std::nullopt;
    }
    HwDecodeInputs in;
    bool any_nvdec = false;
    std::string why_not[2];
    Opened opened[2];
    if (ref_enc) opened[0] = ref_open.get();
    if (dist_enc) opened[1] = dist_open.get();
    auto take = [&](const SourceRequest &r, std::unique_ptr<SegmentDecoder> *dec, int i) {
        Opened &x = opened[i];
        if (x.failure) std::rethrow_exception(x.failure);
        if (x.dec) {
            *dec = std::move(x.dec);
            any_nvdec = true;
            say(input_name(r) + ": " + (*dec)->description());
        } else {
            if (cuda_mode) throw HwDecodeError{"--hwdec cuda: " + input_name(r) + ": " + x.why_not};
            why_not[i] = x.why_not;
            say(input_name(r) + ": software decoding (" + x.why_not + ")");
        }
    };
    if (ref_enc) take(ref, &in.ref_decoder, 0);
    if (dist_enc) take(dist, &in.dist_decoder, 1);
    if (!any_nvdec) {
        say("no input goes to NVDEC: host path");
        return std::nullopt;
    }
    // The other input: software-decoded segments (encoded) or the host source (raw/Y4M).
    SegmentDecoderOptions sw = o;
    sw.cuda = false;
    sw.decoders = std::max(1u, std::min(4u, cores / 4));
    sw.threads_per_decoder = std::max(1u, cores / (2 * sw.decoders));
    auto other = [&](const SourceRequest &r, bool enc, std::unique_ptr<SegmentDecoder> *dec,
                     std::unique_ptr<FrameSource> *src) {
        if (*dec) return;
        if (enc) {
            *dec = std::make_unique<SegmentDecoder>(r.path, input_name(r), sw);
            say(input_name(r) + ": " + (*dec)->description() + ", uploaded");
        } else {
            *src = open_frame_source(r);
            say(input_name(r) + ": " + (*src)->info().format + ", read on the host and uploaded");
        }
    };
    other(ref, ref_enc, &in.ref_decoder, &in.ref_source);
    other(dist, dist_enc, &in.dist_decoder, &in.dist_source);
    return in;
}

std::optional<NvdecGroup> open_nvdec_group(const HwDecodeRequest &req, const SourceRequest &ref,
                                           const std::vector<SourceRequest> &rungs) {
    if (req.mode == HwDecode::kNone || req.host_only || rungs.empty() || !nvdec_built_in())
        return std::nullopt;
    av_log_set_level(req.verbose ? AV_LOG_ERROR : AV_LOG_QUIET);
    auto host_path = [&](const std::string &why) -> std::optional<NvdecGroup> {
        if (req.verbose)
            std::fprintf(stderr, "vif: hwdec: group of %s: host path (%s)\n",
                         input_name(ref).c_str(), why.c_str());
        return std::nullopt;
    };
    std::vector<const SourceRequest *> inputs{&ref};
    for (const SourceRequest &r : rungs) inputs.push_back(&r);
    // The headers first, before any session: a rung of another size (a ladder's smaller
    // encodes) is upscaled on the host, and its group with it.
    std::optional<ClipShape> ref_shape;
    uint64_t frames = 0; // the group's shortest input, 0: unknown
    for (const SourceRequest *r : inputs) {
        if (!encoded_input(*r)) return host_path(input_name(*r) + " is not an encoded file");
        const std::optional<ClipShape> s = probe_clip_shape(r->path);
        if (!s) return host_path(input_name(*r) + " does not open");
        if (r == &ref) {
            ref_shape = s;
            frames = s->frames;
        } else if (s->width != ref_shape->width || s->height != ref_shape->height ||
                   (s->bitdepth && ref_shape->bitdepth && s->bitdepth != ref_shape->bitdepth)) {
            return host_path(input_name(*r) + " differs from the reference in size or depth");
        }
        if (r != &ref) frames = s->frames && frames ? std::min(frames, s->frames) : 0;
    }
    if (req.mode == HwDecode::kAuto) {
        // A short ladder is decoded on the CPU, as a short pair is (decode_choice.hpp).
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const NvdecChoice choice = choose_nvdec(frames, *ref_shape, cores);
        if (!choice.nvdec) return host_path(choice.why);
    }
    SegmentDecoderOptions o;
    o.cuda = true;
    o.cuda_device = req.cuda_device;
    o.verbose = req.verbose;
    o.session_turn = req.session_turn;
    o.decoders = req.decoders ? req.decoders : 3;
    // Every input opened at once, while CUDA starts (an open decodes the first frame on NVDEC).
    auto open = [o](SourceRequest r) {
        return std::make_unique<SegmentDecoder>(r.path, input_name(r), o);
    };
    std::vector<std::future<std::unique_ptr<SegmentDecoder>>> opening;
    for (const SourceRequest *r : inputs) {
        try {
            opening.push_back(std::async(std::launch::async, open, *r));
        } catch (const std::system_error &) {
            opening.push_back(std::async(std::launch::deferred, open, *r));
        }
    }
    std::string gpu_problem;
    const bool gpu = req.gpu_ready && req.gpu_ready(&gpu_problem);
    NvdecGroup g;
    std::string why;
    for (size_t i = 0; i < opening.size(); ++i) {
        std::unique_ptr<SegmentDecoder> d;
        try {
            d = opening[i].get(); // (every future is waited for: their threads read `inputs`)
        } catch (const NvdecUnsupported &e) {
            if (why.empty()) why = input_name(*inputs[i]) + ": " + e.why;
        } catch (const std::exception &e) {
            if (why.empty()) why = e.what();
        } catch (...) {
            if (why.empty()) why = input_name(*inputs[i]) + " failed to open";
        }
        if (!d) continue;
        if (i == 0) {
            g.ref = std::move(d);
        } else {
            if (g.ref &&
                (d->width() != g.ref->width() || d->height() != g.ref->height() ||
                 d->bitdepth() != g.ref->bitdepth()) &&
                why.empty())
                why = input_name(*inputs[i]) + " differs from the reference in size or depth";
            g.rungs.push_back(std::move(d));
        }
    }
    if (!gpu) why = gpu_problem.empty() ? "no usable GPU" : gpu_problem;
    if (!why.empty()) return host_path(why);
    if (req.verbose)
        std::fprintf(stderr, "vif: hwdec: group of %s: %zu rungs on NVDEC (%s)\n",
                     input_name(ref).c_str(), g.rungs.size(), g.ref->description().c_str());
    return g;
}

} // namespace vifcli

// ---- Software decoding in segments (host path) ------------------------------------------------

namespace vifcli {

namespace {

class SegmentedSource final : public FrameSource {
public:
    SegmentedSource(const SourceRequest &req, std::unique_ptr<SegmentDecoder> dec)
        : name_(input_name(req)), dec_(std::move(dec)) {
        info_.width = dec_->width();
        info_.height = dec_->height();
        info_.bitdepth = dec_->bitdepth();
        info_.format = dec_->description();
        check_decoded_info(name_, info_, req);
    }
    ~SegmentedSource() override { dec_->stop(); }

    const VideoInfo &info() const override { return info_; }

    bool read_luma(uint8_t *dst, ptrdiff_t stride) override {
        DecodedFrame f;
        if (!dec_->next(&f)) return false;
        struct Release {
            SegmentDecoder &d;
            DecodedFrame &f;
            ~Release() { d.release(&f); }
        } release{*dec_, f};
        VifPicture pic;
        if (vif_ffmpeg_picture(f.frame, &pic) != VIF_OK)
            throw InputError(name_ + ": frame " + std::to_string(f.index) + ": " +
                             vif_ffmpeg_last_error());
        if (pic.width != info_.width || pic.height != info_.height ||
            pic.bitdepth != info_.bitdepth)
            throw InputError(name_ + ": frame " + std::to_string(f.index) + " is " +
                             std::to_string(pic.width) + "x" + std::to_string(pic.height) + " " +
                             std::to_string(pic.bitdepth) + "-bit, but the stream started " +
                             std::to_string(info_.width) + "x" + std::to_string(info_.height) +
                             " " + std::to_string(info_.bitdepth) + "-bit");
        if (!first_) {
            first_ = true;
            flags_ = pic.flags;
        }
        if (pic.flags != flags_)
            throw InputError(name_ + ": frame " + std::to_string(f.index) +
                             " changes its sample alignment");
        const size_t row = info_.row_bytes();
        const auto *src = static_cast<const uint8_t *>(pic.data);
        for (uint32_t y = 0; y < info_.height; ++y)
            std::memcpy(dst + ptrdiff_t(y) * stride, src + ptrdiff_t(y) * pic.stride, row);
        return true;
    }

    uint64_t skip(uint64_t n) override {
        uint64_t done = 0;
        DecodedFrame f;
        while (done < n && dec_->next(&f)) {
            dec_->release(&f);
            ++done;
        }
        return done;
    }

    VideoInfo info_;

private:
    std::string name_;
    std::unique_ptr<SegmentDecoder> dec_;
    bool first_ = false;
    uint32_t flags_ = 0;
};

} // namespace

std::unique_ptr<FrameSource> open_segmented_source(const SourceRequest &req, unsigned decoders,
                                                   unsigned threads) {
    if (!encoded_input(req)) return nullptr;
    av_log_set_level(req.verbose ? AV_LOG_ERROR : AV_LOG_QUIET); // as ffmpeg_source.cpp
    SegmentDecoderOptions o;
    o.cuda = false;
    o.decoders = std::max(1u, decoders);
    o.threads_per_decoder = std::max(1u, threads);
    auto dec = std::make_unique<SegmentDecoder>(req.path, input_name(req), o);
    if (!vif_ffmpeg_pix_fmt_supported(dec->sw_format())) return nullptr;
    auto src = std::make_unique<SegmentedSource>(req, std::move(dec));
    return src;
}

} // namespace vifcli
