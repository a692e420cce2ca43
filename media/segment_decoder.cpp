// See segment_decoder.hpp. Threads: one demuxer, `decoders` decoder threads, and the caller of
// next(). One mutex guards the segment list and the frame queues; a condition variable wakes
// whoever waits (the rates are a few thousand frames a second, so contention is negligible).
//
// NVDEC output: libavcodec maps the decoded surface (AV_PIX_FMT_CUDA). A decoder has few
// surfaces (at most 32), but decoding segments ahead of the one being scored needs room for
// whole segments, so each decoder thread copies the luma plane of a mapped surface into a
// device buffer of its own pool (a few microseconds; docs/decisions/0005) and unmaps the surface
// at once. The frames handed out are those buffers, already written when next() returns them.
#include "segment_decoder.hpp"

#include "decode_loop.hpp"
#include "decoder_pool.hpp"
#include "frame_source.hpp"
#include "random_access.hpp"
#include "segment_sharing.hpp"

#include <vif/vif.h>
#include <vif/vif_ffmpeg.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#if defined(VIF_WITH_NVDEC)
#include <libavutil/hwcontext_cuda.h>
#endif
}
#if defined(VIF_WITH_NVDEC)
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "device_buffer_cache.hpp"
#endif

namespace vifcli {

namespace {
std::atomic<uint64_t> g_decoders_opened{0}, g_decoders_flushed{0}, g_decoders_reused{0};
std::atomic<uint64_t> g_nvdec_probes{0}, g_nvdec_probe_ns{0}, g_nvdec_probe_most_ns{0};
} // namespace

DecoderSessionCounts decoder_session_counts() {
    DecoderSessionCounts c{g_decoders_opened.load(), g_decoders_flushed.load(),
                           g_decoders_reused.load()};
    c.nvdec_probes = g_nvdec_probes.load();
    c.nvdec_probe_seconds = 1e-9 * double(g_nvdec_probe_ns.load());
    c.nvdec_probe_most = 1e-9 * double(g_nvdec_probe_most_ns.load());
    return c;
}

bool nvdec_built_in() {
#if defined(VIF_WITH_NVDEC)
    return true;
#else
    return false;
#endif
}

namespace {

std::string av_err(int err) {
    return vif::media::av_error_text(err);
}

#if defined(VIF_WITH_NVDEC)
// The primary context of `device`, made current on this thread through the runtime; its driver
// handle comes from cuCtxGetCurrent, reached through the runtime (no link to libcuda).
CUcontext current_primary_context(int device) {
    using GetCurrent = CUresult (*)(CUcontext *);
    static const GetCurrent get = [] {
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault,
                                             &q) != cudaSuccess)
            return GetCurrent(nullptr);
#else
        if (cudaGetDriverEntryPoint("cuCtxGetCurrent", &fn, cudaEnableDefault, &q) != cudaSuccess)
            return GetCurrent(nullptr);
#endif
        return q == cudaDriverEntryPointSuccess ? reinterpret_cast<GetCurrent>(fn) : nullptr;
    }();
    CUcontext cu = nullptr;
    if (!get || cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess ||
        get(&cu) != CUDA_SUCCESS)
        return nullptr;
    return cu;
}
#endif

struct Segment {
    uint64_t first_frame = 0;        // index of its first frame (= packets before it)
    std::vector<AVPacket *> packets; // kept until the segment is done (a retry re-reads them)
    bool closed = false;             // no more packets will come
    bool taken = false;              // a decoder works on it
    bool done = false;               // all its frames are in `frames`
    bool by_primary = false;         // taken by an NVDEC decoder (or a stand-in)
    uint64_t handed = 0;             // frames next() has handed out
    std::deque<DecodedFrame> frames; // decoded, waiting for next()
    std::string error;
    ~Segment() {
        for (AVPacket *p : packets) av_packet_free(&p);
    }
};

struct Buffer {
    void *data = nullptr;
    size_t pitch = 0;
};

// What identifies a packet the probe's decoder was fed, to check that the demuxer's copy of the
// input hands out the same one before that decoder goes on after it.
struct PacketMark {
    int64_t pts = 0, dts = 0;
    int size = 0;
    uint64_t hash = 0; // FNV-1a of its first 64 KiB
    static PacketMark of(const AVPacket *p) {
        PacketMark m{p->pts, p->dts, p->size, 1469598103934665603ull};
        const int n = std::min(p->size, 1 << 16);
        for (int i = 0; i < n; ++i) m.hash = (m.hash ^ p->data[i]) * 1099511628211ull;
        return m;
    }
    bool operator==(const PacketMark &o) const {
        return pts == o.pts && dts == o.dts && size == o.size && hash == o.hash;
    }
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Segments the demuxer reads beyond the decoders' own when software decoders work beside
// NVDEC: they take segments this far ahead of the one being handed out.
constexpr size_t kBesideLookahead = 10;
// NVDEC's pace is trusted once its decoders have delivered this many frames.
constexpr uint64_t kPaceFrames = 24;

} // namespace

struct SegmentDecoder::Impl {
    std::string path, name;
    SegmentDecoderOptions opt;
    uint32_t width = 0, height = 0, bitdepth = 0;
    int sw_format = -1;
    std::string description;
    const AVCodec *codec = nullptr;    // what the NVDEC (or, without cuda, all) decoders use
    const AVCodec *sw_codec = nullptr; // the stream's own software decoder
    AVCodecParameters *par = nullptr;
    int stream_index = -1;

    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::unique_ptr<Segment>> segments; // undelivered, in order
    bool demux_done = false, stopping = false;
    std::string demux_error;
    uint64_t segment_count = 0;
    uint64_t next_index = 0;

    // Device buffers per decoder (index = decoder), allocated lazily up to `cap` each.
    struct Pool {
        std::vector<Buffer> free;
        size_t allocated = 0;
    };
    std::vector<Pool> pools;
    size_t cap = 4;      // device buffers a decoder may hold
    size_t host_cap = 4; // host frames a segment's queue may hold
    size_t luma_row_bytes = 0;

    std::thread demuxer;
    std::vector<std::thread> decoders;       // guarded by mu while the joiner may add to it
    std::thread joiner;                      // join_nvdec()'s
    AVCodecContext *first_decoder = nullptr; // the probe's, handed to decoder 0
    // The probe's decoder going on as decoder 0: the packets it was fed and the frame it gave
    // (decoder 0 delivers it as segment 0's first); continuing false: it starts again.
    bool continuing = false;
    std::vector<PacketMark> probe_packets;
    AVFrame *probe_frame = nullptr;
    // Decoders kept for the next input (decoder_pool.hpp): the shape they are kept under ("":
    // not kept).
    std::string keep_shape(bool cuda) const {
        return decoder_shape(par, cuda, opt.cuda_device, opt.threads_per_decoder);
    }

    // Sharing between NVDEC ("primary") decoders and software decoders beside them (guarded
    // by mu). Decoder ids below opt.decoders are primaries, the others software beside them.
    unsigned primaries_running = 0;
    uint64_t primary_frames = 0;     // frames the primaries delivered
    Clock::time_point primary_start; // when the first primary started
    std::vector<double> beside_rate; // frames a second of each decoder's last segment, 0: none
    bool device_upload = false;      // software decoders copy their frames to the GPU
    uint64_t segs_primary = 0, segs_beside = 0;
    std::string nvdec_note;

    bool is_beside(int id) const { return unsigned(id) >= opt.decoders; }

    // NVDEC's pace in frames a second (0 until it has delivered enough to say).
    double primary_pace() const {
        if (primary_frames < kPaceFrames) return 0;
        const double t = seconds_since(primary_start);
        return t > 0 ? double(primary_frames) / t : 0;
    }

    // The segment decoder `id` takes next (caller holds mu), or null for none now
    // (segment_sharing.hpp).
    Segment *pick_segment(int id) {
        std::vector<SegmentState> state;
        state.reserve(segments.size());
        double closed_frames = 0, closed = 0;
        for (auto &x : segments) {
            state.push_back(
                SegmentState{double(x->packets.size()), x->closed, x->taken, double(x->handed)});
            if (x->closed) closed_frames += double(x->packets.size()), ++closed;
        }
        SharingPace pace;
        pace.nvdec_running = primaries_running > 0;
        pace.nvdec = primary_pace();
        pace.own = beside_rate[size_t(id)];
        pace.usual_frames = closed ? closed_frames / closed : double(opt.min_segment_frames);
        if (device_upload) {
            const Pool &p = pools[size_t(id)];
            pace.room = double(p.free.size() + (cap > p.allocated ? cap - p.allocated : 0));
        }
        if (is_beside(id) && pace.nvdec_running && !opt.software_beside_nvdec) return nullptr;
        const int i = vifcli::pick_segment(state, is_beside(id), pace);
        return i < 0 ? nullptr : segments[size_t(i)].get();
    }

    // Whether a segment is left that no decoder has taken (caller holds mu).
    bool any_untaken() const {
        for (auto &x : segments)
            if (!x->taken) return true;
        return false;
    }

    ~Impl() { stop(); }

    void stop() {
        {
            std::lock_guard<std::mutex> lk(mu);
            stopping = true;
        }
        cv.notify_all();
        if (joiner.joinable()) joiner.join(); // no decoder is added after this
        if (demuxer.joinable()) demuxer.join();
        for (auto &t : decoders)
            if (t.joinable()) t.join();
        decoders.clear();
        std::lock_guard<std::mutex> lk(mu);
        for (auto &s : segments)
            for (auto &f : s->frames) av_frame_free(&f.frame);
        segments.clear();
        avcodec_free_context(&first_decoder);
        av_frame_free(&probe_frame);
        avcodec_parameters_free(&par);
#if defined(VIF_WITH_NVDEC)
        for (void *c : chunks)
            give_back_device_chunk(opt.cuda_device, luma_row_bytes, size_t(height) * kChunk, c,
                                   chunk_pitch);
        chunks.clear();
#endif
        pools.clear();
    }

    std::string swname_, container_;
    void describe() {
        description =
            std::string(codec->name) + " (" + swname_ + ", " + std::to_string(width) + "x" +
            std::to_string(height) + ", " + std::to_string(bitdepth) + "-bit, " +
            (opt.cuda ? (opt.nvdec_later ? "software until NVDEC joins" : "NVDEC") : "software") +
            ", " + std::to_string(opt.decoders) + " decoder" + (opt.decoders > 1 ? "s" : "") +
            (opt.software_decoders ? " + " + std::to_string(opt.software_decoders) + " software (" +
                                         std::to_string(opt.threads_per_decoder) + " threads each)"
                                   : std::string()) +
            ") in " + container_;
    }

    // ---- decoders -----------------------------------------------------------------------

    struct DecoderState {
        Impl *impl = nullptr;
        bool want_cuda = false;
        bool cuda_refused = false;
        std::shared_ptr<void> session_turn; // held while its NVDEC session is being made
    };

    // libavcodec initialises the hwaccel (makes the NVDEC session) right after this returns
    // the CUDA format: the session's turn is taken here (SegmentDecoderOptions::session_turn).
    static AVPixelFormat pick_format(AVCodecContext *c, const AVPixelFormat *fmts) {
        auto *st = static_cast<DecoderState *>(c->opaque);
        st->session_turn.reset(); // (a decoder initialised again: a turn of its own)
        const AVPixelFormat *p = fmts;
        for (; *p != AV_PIX_FMT_NONE; ++p)
            if (*p == AV_PIX_FMT_CUDA && st->want_cuda) {
                if (st->impl && st->impl->opt.session_turn)
                    st->session_turn = st->impl->opt.session_turn();
                return AV_PIX_FMT_CUDA;
            }
        if (st->want_cuda) st->cuda_refused = true;
        // Software: the first format that is not a hardware one.
        for (p = fmts; *p != AV_PIX_FMT_NONE; ++p) {
            const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(*p);
            if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
        }
        return AV_PIX_FMT_NONE;
    }

    // A decoder's first frame buffer comes once its hwaccel is initialised: the session is
    // made, its turn given back.
    static int get_buffer_after_session(AVCodecContext *c, AVFrame *f, int flags) {
        if (auto *st = static_cast<DecoderState *>(c->opaque)) st->session_turn.reset();
        return avcodec_default_get_buffer2(c, f, flags);
    }

    // A decoder context; with cuda, on the primary context of the device with its own stream.
    AVCodecContext *open_decoder(DecoderState *st, bool cuda, void **stream, std::string *err) {
        st->impl = this;
        st->want_cuda = cuda;
        if (KeptDecoder kept; take_decoder(keep_shape(cuda), &kept)) {
            kept.ctx->opaque = st;
            *stream = kept.stream;
            ++g_decoders_reused;
            return kept.ctx;
        }
        const AVCodec *c = cuda || !sw_codec ? codec : sw_codec;
        AVCodecContext *ctx = avcodec_alloc_context3(c);
        if (!ctx || avcodec_parameters_to_context(ctx, par) < 0) {
            avcodec_free_context(&ctx);
            *err = "cannot set up the decoder";
            return nullptr;
        }
        ctx->opaque = st;
        ctx->get_format = pick_format;
        if (cuda) ctx->get_buffer2 = get_buffer_after_session; // (the default's, and the turn)
        if (!cuda) {
            ctx->thread_count = int(opt.threads_per_decoder);
            ctx->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
        }
#if defined(VIF_WITH_NVDEC)
        if (cuda) {
            // The device context wraps the primary context that the CUDA runtime (and libvif)
            // already use, with a stream of its own so that decoders do not serialise on the
            // default stream. (av_hwdevice_ctx_create's primary_ctx=1 refuses a primary context
            // that the runtime activated with other flags.)
            const std::string ordinal = std::to_string(opt.cuda_device);
            CUcontext cu = current_primary_context(opt.cuda_device);
            cudaStream_t s = nullptr;
            if (!cu || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
                avcodec_free_context(&ctx);
                *err = "cannot use CUDA device " + ordinal + " for NVDEC";
                return nullptr;
            }
            AVBufferRef *dev = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
            if (!dev) {
                cudaStreamDestroy(s);
                avcodec_free_context(&ctx);
                *err = "out of memory";
                return nullptr;
            }
            auto *hw = static_cast<AVCUDADeviceContext *>(
                reinterpret_cast<AVHWDeviceContext *>(dev->data)->hwctx);
            hw->cuda_ctx = cu;
            hw->stream = s;
            if (int r = av_hwdevice_ctx_init(dev); r < 0) {
                av_buffer_unref(&dev);
                cudaStreamDestroy(s);
                avcodec_free_context(&ctx);
                *err = "cannot open CUDA device " + ordinal + " for NVDEC: " + av_err(r);
                return nullptr;
            }
            *stream = s;
            ctx->hw_device_ctx = dev;
            ctx->extra_hw_frames = 2;
        }
#else
        (void)stream;
#endif
        int r = avcodec_open2(ctx, c, nullptr);
        if (r < 0) {
            avcodec_free_context(&ctx);
            *err = std::string("cannot open the ") + c->name + " decoder: " + av_err(r);
            return nullptr;
        }
        ++g_decoders_opened;
        return ctx;
    }

    // Buffers come in chunks of kChunk planes (one cudaMallocPitch each: the calls are slow and
    // synchronising); *b gets the first, the rest go to the decoder's free list.
    static constexpr size_t kChunk = 16;
    std::vector<void *> chunks; // given back at the end (device_buffer_cache.hpp)
    size_t chunk_pitch = 0;     // (the same for every chunk of the input)
    bool allocate_chunk(int id, Buffer *b) {
#if defined(VIF_WITH_NVDEC)
        void *base = nullptr;
        size_t pitch = 0;
        if (!take_device_chunk(opt.cuda_device, luma_row_bytes, size_t(height) * kChunk, &base,
                               &pitch))
            return false;
        std::lock_guard<std::mutex> lk(mu);
        chunks.push_back(base);
        chunk_pitch = pitch;
        Pool &p = pools[size_t(id)];
        for (size_t i = 1; i < kChunk; ++i)
            p.free.push_back(Buffer{static_cast<uint8_t *>(base) + i * pitch * height, pitch});
        p.allocated += kChunk - 1;
        *b = Buffer{base, pitch};
        return true;
#else
        (void)id, (void)b;
        return false;
#endif
    }

    // Whether an NVDEC frame has the size and bit depth of the first one (the device copy
    // reads exactly that much; software frames are checked where they are read).
    bool same_shape(const AVFrame *f) const {
        if (uint32_t(f->width - int(f->crop_left + f->crop_right)) != width ||
            uint32_t(f->height - int(f->crop_top + f->crop_bottom)) != height || !f->hw_frames_ctx)
            return false;
        const auto *fc = reinterpret_cast<const AVHWFramesContext *>(f->hw_frames_ctx->data);
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fc->sw_format);
        // P016 carries 12-bit streams: compare the storage size, not the depth.
        return d && (d->comp[0].depth > 8) == (bitdepth > 8);
    }

    // A buffer of decoder `id`'s pool for one more frame, waiting for one to be given back when
    // the pool is at its cap. False when stopping, or out of GPU memory (*err set).
    bool take_buffer(int id, Buffer *b, std::string *err) {
        {
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] {
                return stopping || !pools[size_t(id)].free.empty() ||
                       pools[size_t(id)].allocated < cap;
            });
            if (stopping) return false;
            Pool &p = pools[size_t(id)];
            if (!p.free.empty()) {
                *b = p.free.back();
                p.free.pop_back();
                return true;
            }
            ++p.allocated;
        }
        if (allocate_chunk(id, b)) return true;
        std::lock_guard<std::mutex> lk(mu);
        --pools[size_t(id)].allocated;
        *err = "out of GPU memory for decoded frames";
        return false;
    }

    // Puts a decoded frame into `seg`. CUDA frames are copied out of the surface (luma only)
    // into one of decoder `id`'s buffers; so are a software decoder's frames once the device is
    // up (device_upload), from host memory. A decoder's copies go on its own stream (*stream,
    // *event: made here the first time a software decoder needs them). False when stopping.
    bool deliver(int id, Segment *seg, AVFrame *f, void **stream, void **event, std::string *err) {
        DecodedFrame out;
        out.frame = f;
#if defined(VIF_WITH_NVDEC)
        bool upload = false;
        if (f->format != AV_PIX_FMT_CUDA) {
            std::lock_guard<std::mutex> lk(mu);
            upload = device_upload;
        }
        const void *src = nullptr;
        size_t src_pitch = 0;
        uint32_t flags = 0;
        cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;
        if (f->format == AV_PIX_FMT_CUDA) {
            const size_t bytes = bitdepth > 8 ? 2 : 1;
            src = f->data[0] + ptrdiff_t(f->crop_top) * f->linesize[0] +
                  ptrdiff_t(f->crop_left * bytes);
            src_pitch = size_t(f->linesize[0]);
            flags = bitdepth > 8 ? VIF_PICTURE_MSB_ALIGNED : 0u; // NVDEC's 16-bit surfaces
        } else if (upload) {
            // A frame that is not what the stream started with stays a host frame: the
            // consumer's checks name the problem.
            VifPicture hp;
            if (vif_ffmpeg_picture(f, &hp) == VIF_OK && hp.width == width && hp.height == height &&
                hp.bitdepth == bitdepth) {
                src = hp.data;
                src_pitch = size_t(hp.stride);
                flags = hp.flags;
                kind = cudaMemcpyHostToDevice;
            }
            if (src && !*stream) {
                cudaStream_t s = nullptr;
                cudaEvent_t e = nullptr;
                if (cudaSetDevice(opt.cuda_device) != cudaSuccess ||
                    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
                    cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync) !=
                        cudaSuccess) {
                    if (s) cudaStreamDestroy(s);
                    src = nullptr; // stays a host frame: the consumer uploads it
                } else {
                    *stream = s;
                    *event = e;
                }
            }
        }
        if (src) {
            Buffer b;
            if (!take_buffer(id, &b, err)) {
                av_frame_free(&f);
                return false;
            }
            auto s = static_cast<cudaStream_t>(*stream);
            auto ev = static_cast<cudaEvent_t>(*event);
            if (cudaMemcpy2DAsync(b.data, b.pitch, src, src_pitch, luma_row_bytes, height, kind,
                                  s) != cudaSuccess ||
                cudaEventRecord(ev, s) != cudaSuccess || cudaEventSynchronize(ev) != cudaSuccess) {
                std::lock_guard<std::mutex> lk(mu);
                pools[size_t(id)].free.push_back(b);
                av_frame_free(&f);
                *err = "copying a decoded frame failed on the GPU";
                return false;
            }
            av_frame_free(&f); // unmaps the surface (or frees the host frame): the copy is done
            out.frame = nullptr;
            out.data = b.data;
            out.pitch = ptrdiff_t(b.pitch);
            out.on_device = true;
            out.flags = flags;
            out.decoder = id;
        }
#else
        (void)stream;
        (void)event;
#endif
        std::unique_lock<std::mutex> lk(mu);
        if (!out.on_device) {
            // Host frames are bounded like device buffers (per segment queue).
            cv.wait(lk, [&] { return stopping || seg->frames.size() < host_cap; });
        }
        if (stopping) {
            av_frame_free(&out.frame);
            return false;
        }
        seg->frames.push_back(out);
        if (!is_beside(id)) ++primary_frames;
        cv.notify_all();
        (void)err;
        return true;
    }

    // A decoder thread's side of the decode loop (decode_loop.hpp). Its packets are those of
    // the segments it takes, one after the other, without flushing the decoder in between:
    // each segment starts with an IDR / key frame, which makes the decoder output everything
    // before it first, so its output is the segments' frames in order. (Flushing would make
    // libavcodec re-create the NVDEC session for every segment, ~0.1 s each.) The stream ends
    // for it when no segment is left to take. Its frames are attributed to the oldest open
    // segment until one has a later timestamp than any of that segment's packets (or, without
    // timestamps, until it has one frame per packet). A software decoder beside NVDEC ends its
    // stream after each segment instead (decoder_thread drains and resets it), so that the
    // segments it takes need not follow each other.
    struct Worker : vif::media::PacketSource, vif::media::FrameSink {
        struct Open {
            Segment *seg;
            uint64_t produced = 0;
            int64_t max_pts = INT64_MIN; // of its packets fed so far
            bool all_pts = true;         // every packet had a timestamp
            size_t fed = 0;              // packets sent to the decoder
        };
        Impl &impl;
        int id;
        DecoderState *state;
        void *stream, *event;
        std::deque<Open> open;
        Segment *feeding = nullptr; // the segment whose packets read() hands out
        bool noted_fallback = false;
        const bool beside;          // a software decoder beside NVDEC: a segment a stream
        bool took_one = false;      // beside: this stream's segment is taken
        bool ended_segment = false; // beside: the stream ended after its segment, not for good
        Clock::time_point taken_at; // beside: when it took it

        Worker(Impl &i, int id_, DecoderState *st, void *s, void *e)
            : impl(i), id(id_), state(st), stream(s), event(e), beside(i.is_beside(id_)) {}

        // Marks the oldest open segment complete (or failed) for next().
        void finish_front(const std::string &err) {
            Open &o = open.front();
            std::string e = err;
            if (e.empty() && o.produced < o.seg->packets.size())
                e = "frames " + std::to_string(o.seg->first_frame) + " to " +
                    std::to_string(o.seg->first_frame + o.seg->packets.size() - 1) + ": " +
                    std::to_string(o.seg->packets.size() - o.produced) +
                    " of them could not be decoded (damaged stream)";
            {
                std::lock_guard<std::mutex> lk(impl.mu);
                if (!e.empty()) o.seg->error = e;
                o.seg->done = true;
            }
            impl.cv.notify_all();
            open.pop_front();
        }

        // PacketSource: the next packet of the segment being fed, as the demuxer delivers it;
        // a segment complete, the next one no decoder has taken; the end when none is left.
        int read(AVPacket *pkt, std::string *error) override {
            std::unique_lock<std::mutex> lk(impl.mu);
            for (;;) {
                if (!feeding) {
                    if (beside && took_one) {
                        ended_segment = true; // drained, then reset for the next one
                        return 0;
                    }
                    Segment *pick = nullptr;
                    // The stream's end comes first, stopping or not: a decoder that has decoded
                    // every segment it took ends cleanly (and may be kept, decoder_pool.hpp).
                    auto over = [&] { return impl.demux_done && !impl.any_untaken(); };
                    impl.cv.wait(lk, [&] {
                        if (over() || impl.stopping) return true;
                        pick = impl.pick_segment(id);
                        return pick != nullptr;
                    });
                    if (!pick && over()) return 0; // the stream is over: the loop drains it
                    if (impl.stopping) break;
                    feeding = pick;
                    feeding->taken = true;
                    feeding->by_primary = !beside;
                    ++(beside ? impl.segs_beside : impl.segs_primary);
                    took_one = true;
                    taken_at = Clock::now();
                    open.push_back(Open{feeding});
                }
                Segment *seg = feeding;
                impl.cv.wait(lk, [&] {
                    return impl.stopping || open.back().fed < seg->packets.size() || seg->closed;
                });
                if (impl.stopping) break;
                Open &o = open.back();
                if (o.fed == seg->packets.size()) { // segment complete
                    feeding = nullptr;
                    continue;
                }
                const AVPacket *src = seg->packets[o.fed++];
                if (src->pts == AV_NOPTS_VALUE)
                    o.all_pts = false;
                else
                    o.max_pts = std::max(o.max_pts, src->pts);
                return av_packet_ref(pkt, src) < 0 ? (*error = "out of memory", -1) : 1;
            }
            *error = "stopped";
            return -1;
        }

        // FrameSink: checks the frame and puts it into its segment's queue.
        int take(AVFrame *frame, std::string *error) override {
            if (open.empty()) {
                *error = "the decoder produced a frame from no packet";
                return -1;
            }
            // Which segment: the oldest open one, unless this frame is past it.
            const int64_t pts = frame->pts;
            while (open.size() > 1) {
                Open &o = open.front();
                const bool past = o.all_pts && pts != AV_NOPTS_VALUE
                                      ? pts > o.max_pts
                                      : o.produced >= o.seg->packets.size();
                if (!past) break;
                finish_front("");
            }
            Open &o = open.front();
            if (state->want_cuda && frame->format != AV_PIX_FMT_CUDA && !noted_fallback) {
                noted_fallback = true;
                std::fprintf(stderr,
                             "vif: note: %s: an NVDEC session could not be opened; "
                             "decoder %d goes on in software\n",
                             impl.name.c_str(), id);
            }
            if (frame->format == AV_PIX_FMT_CUDA && !impl.same_shape(frame)) {
                *error = "frame " + std::to_string(o.seg->first_frame + o.produced) + " is " +
                         std::to_string(frame->width) + "x" + std::to_string(frame->height) +
                         ", but the stream started " + std::to_string(impl.width) + "x" +
                         std::to_string(impl.height) + " " + std::to_string(impl.bitdepth) + "-bit";
                return -1;
            }
            if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT)) {
                *error = "frame " + std::to_string(o.seg->first_frame + o.produced) +
                         ": the decoder reported a damaged frame";
                return -1;
            }
            AVFrame *f = av_frame_clone(frame);
            std::string err;
            if (!f || !impl.deliver(id, o.seg, f, &stream, &event, &err)) {
                *error = f ? err : "out of memory";
                return -1;
            }
            ++o.produced;
            return 1;
        }

        // The message of a failed decoding step, with the frame it concerns.
        std::string where(vif::media::DecodeStep step, const std::string &error) const {
            using vif::media::DecodeStep;
            if (step == DecodeStep::send)
                return "frame " +
                       std::to_string(open.back().seg->first_frame + open.back().fed - 1) +
                       " (decode order): " + error;
            if (step == DecodeStep::receive) {
                if (open.empty()) return "the decoder produced a frame from no packet";
                return "frame " +
                       std::to_string(open.front().seg->first_frame + open.front().produced) +
                       ": " + error;
            }
            return error;
        }
    };

    // A decoder's thread. ctx null: a decoder joining later opens its own here (an NVDEC
    // session takes tens of milliseconds: the joining decoders open theirs at once).
    void decoder_thread(int id, AVCodecContext *ctx, DecoderState *state, void *stream) {
        std::unique_ptr<DecoderState> own_state(state);
        if (!ctx) {
            std::string err;
            ctx = open_decoder(state, opt.cuda, &stream, &err);
            if (!ctx) {
                std::fprintf(stderr, "vif: note: %s: decoder %d: %s\n", name.c_str(), id,
                             err.c_str());
                return;
            }
        }
        const bool primary = !is_beside(id);
        if (primary) {
            std::lock_guard<std::mutex> lk(mu);
            if (primaries_running++ == 0 && primary_frames == 0) primary_start = Clock::now();
        }
        void *event = nullptr;
#if defined(VIF_WITH_NVDEC)
        cudaEvent_t ev = nullptr;
        if (stream) {
            cudaSetDevice(opt.cuda_device);
            cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync);
        }
        event = ev;
#endif
        Worker w(*this, id, state, stream, event);
        std::string error;
        bool clean_end = false; // drained to the end of the stream, no error
        for (bool first_round = true;; first_round = false) {
            if (first_round && id == 0 && continuing && !go_on_from_probe(w, ctx, &error)) {
                // (stopping, or the probe's frame could not be delivered: error says which)
                break;
            }
            {
                vif::media::DecodeLoop loop(ctx, &w);
                const int r = loop.run(&w, &error);
                state->session_turn.reset(); // (however the decoding went)
                if (r < 0) error = w.where(loop.failed_at(), error);
                clean_end = r == 0 && loop.flushed();
            }
            if (!error.empty() || !w.ended_segment) break;
            // A software decoder beside NVDEC has decoded its segment: its pace, then a reset
            // decoder for the next one.
            const double t = seconds_since(w.taken_at);
            const double frames = double(w.open.empty() ? 0 : w.open.front().produced);
            while (!w.open.empty()) w.finish_front("");
            {
                std::lock_guard<std::mutex> lk(mu);
                if (t > 0 && frames > 0) beside_rate[size_t(id)] = frames / t;
                if (stopping) break;
            }
            avcodec_flush_buffers(ctx);
            w.took_one = w.ended_segment = false;
        }
        if (primary) {
            std::lock_guard<std::mutex> lk(mu);
            --primaries_running;
        }
        // Close what is open: after a full drain each segment is complete; after an error the
        // oldest one carries it (next() reports it when it gets there) and the others fail too.
        bool stopped;
        {
            std::lock_guard<std::mutex> lk(mu);
            stopped = stopping;
        }
        while (!w.open.empty()) w.finish_front(stopped ? "stopped" : error);
#if defined(VIF_WITH_NVDEC)
        if (w.event) cudaEventDestroy(static_cast<cudaEvent_t>(w.event));
#endif
        // Kept for the next input of its shape: flushed as for a seek (HEVC keeps its NVDEC
        // session through a flush while the parameter sets stay the same).
        KeptDecoder d{ctx, w.stream};
        const std::string shape = keep_shape(state->want_cuda);
        if (clean_end && !shape.empty() && error.empty() && !w.noted_fallback) {
            avcodec_flush_buffers(ctx);
            ctx->opaque = nullptr; // (the state goes with this thread)
            give_back_decoder(shape, d);
        } else {
            free_decoder(d);
        }
    }

    // Decoder 0 going on from the probe: segment 0 (kept for it) gets the probe's frame, and
    // the decoder its packets from the one after those the probe fed it. Should the demuxer's
    // packets differ from the probe's (they come from a second opening of the input), the
    // decoder is flushed and decodes segment 0 from its start instead. False when it cannot
    // go on (*error set; empty when stopping).
    bool go_on_from_probe(Worker &w, AVCodecContext *ctx, std::string *error) {
        const size_t n = probe_packets.size();
        Segment *seg = nullptr;
        bool same = false;
        {
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] {
                return stopping || (!segments.empty() && (segments.front()->packets.size() >= n ||
                                                          segments.front()->closed));
            });
            if (stopping) return false;
            seg = segments.front().get(); // segment 0, taken for this decoder by the demuxer
            seg->by_primary = true;
            ++segs_primary;
            same = seg->first_frame == 0 && seg->packets.size() >= n;
            for (size_t i = 0; same && i < n; ++i)
                same = PacketMark::of(seg->packets[i]) == probe_packets[i];
            Worker::Open o{seg};
            if (same) {
                o.fed = n;
                for (size_t i = 0; i < n; ++i) {
                    const int64_t pts = seg->packets[i]->pts;
                    if (pts == AV_NOPTS_VALUE)
                        o.all_pts = false;
                    else
                        o.max_pts = std::max(o.max_pts, pts);
                }
            }
            w.open.push_back(o);
            w.feeding = seg;
        }
        AVFrame *f = probe_frame;
        probe_frame = nullptr;
        if (!same) {
            av_frame_free(&f);
            avcodec_flush_buffers(ctx);
            ++g_decoders_flushed;
            return true;
        }
        std::string err;
        if (!deliver(0, seg, f, &w.stream, &w.event, &err)) {
            *error = err;
            return false;
        }
        ++w.open.back().produced;
        return true;
    }

    // ---- demuxer ------------------------------------------------------------------------

    // Reads the packets and cuts them into segments at clean random-access points.
    void demux_thread(AVFormatContext *fmt) {
        vif::media::StreamDemuxer demuxer(fmt, stream_index);
        AVPacket *pkt = av_packet_alloc();
        Segment *cur = nullptr;
        std::string error;
        // Software decoders beside NVDEC take segments well ahead of the one handed out.
        const size_t ahead = size_t(opt.decoders + opt.software_decoders) + 2 +
                             (opt.software_decoders ? kBesideLookahead : 0);
        for (;;) {
            const uint64_t packets = demuxer.packets();
            if (opt.max_packets && packets >= opt.max_packets) break; // the rest is not needed
            int r = pkt ? demuxer.read(pkt) : AVERROR(ENOMEM);
            if (r == 0) break;
            if (r < 0) {
                error = "reading failed after " + std::to_string(packets) + " frames: " + av_err(r);
                break;
            }
            // (Segment 0 holds at least the packets that the probe's decoder, going on as
            // decoder 0, was fed.)
            const bool cut =
                !cur ||
                (packets >= probe_packets.size() && cur->packets.size() >= opt.min_segment_frames &&
                 (opt.decoders + opt.software_decoders > 1 || opt.nvdec_later) &&
                 vif::media::clean_random_access(par, pkt));
            AVPacket *copy = av_packet_clone(pkt);
            av_packet_unref(pkt);
            if (!copy) {
                error = "out of memory";
                break;
            }
            std::unique_lock<std::mutex> lk(mu);
            if (cut) {
                if (cur) cur->closed = true;
                // Read ahead at most `ahead` segments, but always keep one that no decoder has
                // taken: a decoder outputs the last frames of a segment only once it is fed the
                // next one, so one waiting for a segment must get one.
                cv.wait(lk, [&] {
                    if (stopping || segments.size() < ahead) return true;
                    for (auto &x : segments)
                        if (!x->taken) return false;
                    return true;
                });
                if (stopping) {
                    av_packet_free(&copy);
                    break;
                }
                auto s = std::make_unique<Segment>();
                s->first_frame = packets;
                s->taken = packets == 0 && continuing; // decoder 0's, going on from the probe
                cur = s.get();
                segments.push_back(std::move(s));
                ++segment_count;
            }
            cur->packets.push_back(copy);
            lk.unlock();
            cv.notify_all();
        }
        av_packet_free(&pkt);
        avformat_close_input(&fmt);
        {
            std::lock_guard<std::mutex> lk(mu);
            if (cur) cur->closed = true;
            demux_error = error;
            demux_done = true;
        }
        cv.notify_all();
    }

    // Opens the file. The demuxer's copy (again: the stream is known from the probe's) skips
    // avformat_find_stream_info, which decodes frames to learn what the probe already knows.
    AVFormatContext *open_input(std::string *err, bool for_demuxer = false) {
        vif::media::VideoInput in;
        if (!vif::media::open_video_input(path, nullptr, for_demuxer ? stream_index : -1, &in, err))
            return nullptr;
        if (for_demuxer) return in.fmt;
        stream_index = in.stream;
        if (!codec) {
            codec = sw_codec = in.codec;
            // FFmpeg 5.1 drives NVDEC AV1 only through its native `av1` decoder.
            if (opt.cuda && in.codec && in.codec->id == AV_CODEC_ID_AV1)
                if (const AVCodec *native = avcodec_find_decoder_by_name("av1")) codec = native;
        }
        if (!par) {
            par = avcodec_parameters_alloc();
            avcodec_parameters_copy(par, in.fmt->streams[in.stream]->codecpar);
        }
        return in.fmt;
    }

    // The probe's side of the decode loop: the stream's packets from its start (a reading
    // error ends the stream; with NVDEC, so does the decoder's refusal of it), and the first
    // frame, which it keeps.
    struct FirstFrame : vif::media::PacketSource, vif::media::FrameSink {
        vif::media::StreamDemuxer demuxer;
        DecoderState *st;
        AVFrame *frame = nullptr;
        std::vector<PacketMark> packets; // handed to the loop, in order
        FirstFrame(AVFormatContext *fmt, int stream, DecoderState *s)
            : demuxer(fmt, stream), st(s) {}
        ~FirstFrame() override { av_frame_free(&frame); }
        int read(AVPacket *pkt, std::string *error) override {
            if (st->want_cuda && st->cuda_refused) {
                *error = "NVDEC refused the stream";
                return -1;
            }
            if (demuxer.read(pkt) <= 0) return 0;
            packets.push_back(PacketMark::of(pkt));
            return 1;
        }
        int take(AVFrame *f, std::string *error) override {
            frame = av_frame_clone(f);
            if (!frame) *error = "out of memory";
            return frame ? 0 : -1;
        }
    };

    // Decodes the first frame with decoder state `st`; sets the size, depth and description.
    // When the decoder can go on from there (it has not been sent the end of the stream), keeps
    // the frame and the packets it was fed for decoder 0 (`continuing`).
    void probe(AVCodecContext *ctx, DecoderState *st, AVFormatContext *fmt) {
        FirstFrame first(fmt, stream_index, st);
        std::string err;
        int got = 0;
        bool can_go_on = false;
        {
            vif::media::DecodeLoop loop(ctx, &first);
            const int r = loop.run(&first, &err);
            st->session_turn.reset(); // (however the decoding went)
            got = r == 1;
            // The decoder's refusal of NVDEC is told below; a reading error ended the stream.
            if (r >= 0 || loop.failed_at() == vif::media::DecodeStep::source) err.clear();
            can_go_on = got && !loop.flushed();
            // A packet the decoder had no room for yet was not fed: decoder 0 sends it again.
            if (loop.holds_packet() && !first.packets.empty()) first.packets.pop_back();
        }
        AVFrame *f = first.frame;
        first.frame = nullptr;
        const int sw = ctx->sw_pix_fmt;
        const char *swname = av_get_pix_fmt_name(AVPixelFormat(sw));
        if (st->want_cuda && (st->cuda_refused || (got && f->format != AV_PIX_FMT_CUDA))) {
            av_frame_free(&f);
            throw NvdecUnsupported{std::string("NVDEC does not decode ") + codec->name + " " +
                                   (swname ? swname : "?") + " " + std::to_string(ctx->width) +
                                   "x" + std::to_string(ctx->height) + " here"};
        }
        if (!err.empty() || !got) {
            av_frame_free(&f);
            if (st->want_cuda && !got && err.empty())
                throw NvdecUnsupported{"NVDEC produced no frame"};
            throw InputError(name + ": " + (err.empty() ? "no frames could be decoded" : err));
        }
        const AVPixFmtDescriptor *d =
            av_pix_fmt_desc_get(AVPixelFormat(st->want_cuda ? sw : f->format));
        width = uint32_t(f->width - int(f->crop_left + f->crop_right));
        height = uint32_t(f->height - int(f->crop_top + f->crop_bottom));
        bitdepth = d ? uint32_t(d->comp[0].depth) : 8;
        sw_format = st->want_cuda ? sw : f->format;
        continuing = can_go_on && opt.continue_probe;
        if (continuing) {
            probe_frame = f;
            probe_packets = std::move(first.packets);
        } else {
            av_frame_free(&f);
        }
        swname_ = swname ? swname : "?";
        container_ = fmt->iformat->name;
        describe();
    }

    // join_nvdec()'s thread: lets the software decoders copy to the GPU and starts the NVDEC
    // decoders, each opening its session on its own thread. A stream NVDEC is not known to
    // decode (nvdec_known_to_decode) is first checked on its first frame with a decoder of its
    // own; where NVDEC cannot, the software decoders go on alone (nvdec_note says why).
    void join_primaries() {
#if defined(VIF_WITH_NVDEC)
        if (opt.cuda) {
            cudaSetDevice(opt.cuda_device);
            std::lock_guard<std::mutex> lk(mu);
            device_upload = true;
        }
#endif
        if (opt.cuda && !nvdec_known_to_decode()) {
            DecoderState st;
            void *stream = nullptr;
            std::string why;
            AVCodecContext *ctx = open_decoder(&st, true, &stream, &why);
            const bool ok = ctx && nvdec_decodes(ctx, &st, &why);
            close_decoder(&ctx, &stream);
            if (!ok) {
                std::lock_guard<std::mutex> lk(mu);
                nvdec_note = why;
                return;
            }
        }
        std::lock_guard<std::mutex> lk(mu);
        if (stopping) return;
        for (unsigned i = 0; i < opt.decoders; ++i)
            decoders.emplace_back(
                [this, i] { decoder_thread(int(i), nullptr, new DecoderState, nullptr); });
        cv.notify_all();
    }

    // Streams every NVDEC engine since Turing decodes (H.264 8-bit 4:2:0, HEVC and VP9 4:2:0
    // in 8 or 10 bits, within their sizes; AV1 needs Ampere: checked): no check needed before
    // the decoders start. (A decoder that gets no session all the same goes on in software, as
    // without nvdec_later.)
    bool nvdec_known_to_decode() const {
        const auto fmt = AVPixelFormat(sw_format);
        const bool p8 = fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUVJ420P;
        const bool p10 = fmt == AV_PIX_FMT_YUV420P10LE;
        const auto id = par ? par->codec_id : AV_CODEC_ID_NONE;
        if (id == AV_CODEC_ID_H264) return p8 && width <= 4096 && height <= 4096;
        if (id == AV_CODEC_ID_HEVC || id == AV_CODEC_ID_VP9)
            return (p8 || p10) && width <= 8192 && height <= 8192;
        return false;
    }

    // Whether NVDEC decodes the stream: its first frame, decoded with `ctx` from the start of
    // the file, is an NVDEC surface of the size and depth the software probe found.
    bool nvdec_decodes(AVCodecContext *ctx, DecoderState *st, std::string *why) {
        std::string err;
        AVFormatContext *fmt = open_input(&err, true);
        if (!fmt) {
            *why = err;
            return false;
        }
        AVFrame *f = nullptr;
        {
            FirstFrame first(fmt, stream_index, st);
            vif::media::DecodeLoop loop(ctx, &first);
            if (loop.run(&first, &err) == 1) std::swap(f, first.frame);
            st->session_turn.reset();
        }
        avformat_close_input(&fmt);
        const bool ok = f && !st->cuda_refused && f->format == AV_PIX_FMT_CUDA && same_shape(f);
        av_frame_free(&f);
        if (!ok)
            *why = std::string("NVDEC does not decode ") + codec->name + " " + swname_ + " " +
                   std::to_string(width) + "x" + std::to_string(height) + " here";
        return ok;
    }

    void close_decoder(AVCodecContext **ctx, void **stream) {
        avcodec_free_context(ctx);
#if defined(VIF_WITH_NVDEC)
        if (*stream) cudaStreamDestroy(static_cast<cudaStream_t>(*stream));
#endif
        *stream = nullptr;
    }
};

SegmentDecoder::SegmentDecoder(const std::string &path, const std::string &name,
                               const SegmentDecoderOptions &opts)
    : impl_(new Impl) {
    Impl &s = *impl_;
    s.path = path;
    s.name = name;
    s.opt = opts;
    s.opt.decoders = std::max(1u, s.opt.decoders);
    const bool later = s.opt.nvdec_later && (s.opt.cuda || s.opt.stand_ins_for_nvdec);
    s.opt.nvdec_later = later;
    if (later) {
        s.opt.software_decoders = std::max(1u, s.opt.software_decoders);
        // The probe's software decoder goes on as a software decoder, a segment at a time.
        s.opt.continue_probe = false;
    }
#if !defined(VIF_WITH_NVDEC)
    if (s.opt.cuda) throw NvdecUnsupported{"this build has no NVDEC support"};
#endif
    std::string err;
    AVFormatContext *probe_fmt = s.open_input(&err);
    if (!probe_fmt) throw InputError(name + ": " + err);

    if (!s.codec) {
        avformat_close_input(&probe_fmt);
        throw InputError(name + ": no decoder for its video stream");
    }
    // The first frame is probed with NVDEC (it must decode the stream), or in software when
    // NVDEC joins later (join_nvdec() checks it then).
    auto *st0 = new Impl::DecoderState;
    void *stream0 = nullptr;
    const bool probe_cuda = s.opt.cuda && !later;
    const auto probing = std::chrono::steady_clock::now();
    AVCodecContext *ctx0 = s.open_decoder(st0, probe_cuda, &stream0, &err);
    if (!ctx0) {
        delete st0;
        avformat_close_input(&probe_fmt);
        if (probe_cuda) throw NvdecUnsupported{err};
        throw InputError(name + ": " + err);
    }
    try {
        s.probe(ctx0, st0, probe_fmt);
    } catch (...) {
        KeptDecoder d0{ctx0, stream0};
        free_decoder(d0);
        delete st0;
        avformat_close_input(&probe_fmt);
        throw;
    }
    avformat_close_input(&probe_fmt);
    if (probe_cuda) {
        const auto ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - probing)
                                     .count());
        ++g_nvdec_probes;
        g_nvdec_probe_ns += ns;
        for (uint64_t m = g_nvdec_probe_most_ns.load();
             ns > m && !g_nvdec_probe_most_ns.compare_exchange_weak(m, ns);) {}
    }
    if (!s.continuing) {
        avcodec_flush_buffers(ctx0); // decoder 0 starts again from the first packet
        ++g_decoders_flushed;
    }
    s.luma_row_bytes = size_t(s.width) * (s.bitdepth > 8 ? 2 : 1);
    // Frames each decoder may buffer: a whole segment where memory allows (about 6 GiB of
    // device buffers an input), at least queue_frames.
    const size_t luma = s.luma_row_bytes * s.height;
    s.cap = std::max<size_t>(opts.queue_frames,
                             std::min<size_t>(256, (size_t(6) << 30) / (luma * s.opt.decoders)));
    s.host_cap = s.cap;
    if (later) {
        // Host frames wait for CUDA's start-up in the segments' queues: at most about 256 MiB
        // of them a segment.
        const int bytes =
            av_image_get_buffer_size(AVPixelFormat(s.sw_format), int(s.width), int(s.height), 1);
        if (bytes > 0)
            s.host_cap = std::max<size_t>(opts.queue_frames,
                                          std::min(s.cap, (size_t(256) << 20) / size_t(bytes)));
    }
    if (!s.opt.cuda && !later) s.opt.software_decoders = 0; // all of them are already
    s.pools.resize(s.opt.decoders + s.opt.software_decoders);
    s.beside_rate.assign(s.pools.size(), 0.0);
    // Without nvdec_later CUDA is up: software decoders beside NVDEC copy to the GPU at once.
    s.device_upload = s.opt.cuda && !later;
    s.describe();

    AVFormatContext *fmt = s.open_input(&err, true);
    if (!fmt) {
        KeptDecoder d0{ctx0, stream0};
        free_decoder(d0);
        delete st0;
        throw InputError(name + ": " + err);
    }
    s.demuxer = std::thread([&s, fmt] { s.demux_thread(fmt); });
    // The probe's decoder is the first one to start: an NVDEC one, or (nvdec_later) the first
    // software decoder.
    const unsigned first = later ? s.opt.decoders : 0;
    s.decoders.emplace_back(
        [&s, first, ctx0, st0, stream0] { s.decoder_thread(int(first), ctx0, st0, stream0); });
    // The other decoders open theirs on their own threads, at once, while decoder 0 decodes (an
    // NVDEC session takes tens of milliseconds to open: one after the other they held up the
    // constructor). One that cannot open says so and takes no segment.
    for (unsigned i = 1; !later && i < s.opt.decoders; ++i)
        s.decoders.emplace_back(
            [&s, i] { s.decoder_thread(int(i), nullptr, new Impl::DecoderState, nullptr); });
    // Software decoders beside the NVDEC ones (CPU threads that add throughput, or that decode
    // until NVDEC joins).
    for (unsigned j = later ? 1 : 0; j < s.opt.software_decoders; ++j) {
        const unsigned i = s.opt.decoders + j;
        auto *st = new Impl::DecoderState;
        void *stream = nullptr;
        AVCodecContext *ctx = s.open_decoder(st, false, &stream, &err);
        if (!ctx) {
            delete st;
            break;
        }
        s.decoders.emplace_back(
            [&s, i, ctx, st, stream] { s.decoder_thread(int(i), ctx, st, stream); });
    }
}

void SegmentDecoder::join_nvdec() {
    Impl &s = *impl_;
    if (!s.opt.nvdec_later || s.joiner.joinable()) return;
    s.joiner = std::thread([&s] { s.join_primaries(); });
}

SegmentSharing SegmentDecoder::sharing() const {
    std::lock_guard<std::mutex> lk(impl_->mu);
    SegmentSharing r;
    r.by_nvdec = impl_->segs_primary;
    r.in_software = impl_->segs_beside;
    r.nvdec_note = impl_->nvdec_note;
    return r;
}

bool SegmentDecoder::nvdec_started() const {
    std::lock_guard<std::mutex> lk(impl_->mu);
    return impl_->primary_frames > 0 || !impl_->nvdec_note.empty();
}

SegmentDecoder::~SegmentDecoder() = default;

uint32_t SegmentDecoder::width() const {
    return impl_->width;
}
uint32_t SegmentDecoder::height() const {
    return impl_->height;
}
uint32_t SegmentDecoder::bitdepth() const {
    return impl_->bitdepth;
}
int SegmentDecoder::sw_format() const {
    return impl_->sw_format;
}
const std::string &SegmentDecoder::description() const {
    return impl_->description;
}
uint64_t SegmentDecoder::segments() const {
    std::lock_guard<std::mutex> lk(impl_->mu);
    return impl_->segment_count;
}
void SegmentDecoder::stop() {
    impl_->stop();
}

bool SegmentDecoder::next(DecodedFrame *out) {
    Impl &s = *impl_;
    std::unique_lock<std::mutex> lk(s.mu);
    for (;;) {
        if (!s.segments.empty()) {
            Segment &seg = *s.segments.front();
            if (!seg.frames.empty()) {
                *out = seg.frames.front();
                seg.frames.pop_front();
                ++seg.handed;
                out->index = s.next_index++;
                lk.unlock();
                s.cv.notify_all();
                return true;
            }
            if (!seg.error.empty()) throw InputError(s.name + ": " + seg.error);
            if (seg.done) {
                s.segments.pop_front();
                lk.unlock();
                s.cv.notify_all();
                lk.lock();
                continue;
            }
        } else if (s.demux_done) {
            if (!s.demux_error.empty()) throw InputError(s.name + ": " + s.demux_error);
            return false;
        }
        if (s.decoders.empty() || s.stopping) throw InputError(s.name + ": the decoders stopped");
        s.cv.wait(lk);
    }
}

void SegmentDecoder::release(DecodedFrame *f) {
    Impl &s = *impl_;
    av_frame_free(&f->frame);
    if (f->on_device && f->data) {
        std::lock_guard<std::mutex> lk(s.mu);
        s.pools[size_t(f->decoder)].free.push_back(
            Buffer{const_cast<void *>(f->data), size_t(f->pitch)});
        f->data = nullptr;
    }
    s.cv.notify_all();
}

} // namespace vifcli
