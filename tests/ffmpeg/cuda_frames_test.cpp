// AV_PIX_FMT_CUDA frames through vif_ffmpeg_submit (CUDA + FFmpeg builds, on a GPU machine).
//
// Golden cases are uploaded into FFmpeg CUDA frames (hwcontext_cuda, sw formats nv12, p010 and
// p016) and scored on the device with no host copy; the integer scores must equal libvmaf's.
// Also: frames from two device contexts with their own streams (the read must be ordered after
// both uploads, and overwrites queued on either stream after the submission must not change the
// scores); frames of a CUDA context of FFmpeg's own (FFmpeg's default, not the primary context:
// copied on the GPU into libvif's context), alone and beside primary-context frames, with the
// same overwrites; frames whose pixels are still being written on their stream when they are
// submitted (the read must wait for the writes: an upload held back behind a host function);
// mixed or CPU-context submissions (refused with a clear message).
//
// A plain program (no GoogleTest, so that it builds where only CUDA and libavutil are present):
// exit status 0 when every check passed, 1 otherwise, 77 when there is no GPU (skipped).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include <libavutil/dict.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/log.h>
}

#include "frame_builder.hpp"
#include "vif/vif_ffmpeg.h"

namespace {

using namespace vif::fftest;

int g_failures = 0;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ++g_failures;                                                                          \
            std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
        }                                                                                          \
    } while (0)

struct BufferRef {
    AVBufferRef* ref = nullptr;
    ~BufferRef() { av_buffer_unref(&ref); }
};

// cuCtxPushCurrent / cuCtxPopCurrent through the runtime (no link to libcuda: the program must
// start on a machine without a driver to report the skip).
struct CtxCalls {
    CUresult (*push)(CUcontext) = nullptr;
    CUresult (*pop)(CUcontext*) = nullptr;
};
void* driver_fn(const char* name) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess)
        return nullptr;
#else
    if (cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q) != cudaSuccess) return nullptr;
#endif
    return q == cudaDriverEntryPointSuccess ? fn : nullptr;
}
const CtxCalls& ctx_calls() {
    static const CtxCalls c = [] {
        CtxCalls x;
        x.push = reinterpret_cast<CUresult (*)(CUcontext)>(driver_fn("cuCtxPushCurrent"));
        x.pop = reinterpret_cast<CUresult (*)(CUcontext*)>(driver_fn("cuCtxPopCurrent"));
        return x;
    }();
    return c;
}

// A CUDA device context; primary: on the device's primary context; stream: its stream (null:
// FFmpeg's default, the legacy default stream).
bool make_device(BufferRef* dev, bool primary, cudaStream_t stream) {
    AVDictionary* opts = nullptr;
    if (primary) av_dict_set(&opts, "primary_ctx", "1", 0);
    const int r = av_hwdevice_ctx_create(&dev->ref, AV_HWDEVICE_TYPE_CUDA, "0", opts, 0);
    av_dict_free(&opts);
    if (r < 0) return false;
    if (stream) {
        auto* hw = reinterpret_cast<AVCUDADeviceContext*>(
            reinterpret_cast<AVHWDeviceContext*>(dev->ref->data)->hwctx);
        hw->stream = stream;
    }
    return true;
}

bool make_frames(BufferRef* frames, const BufferRef& dev, AVPixelFormat sw, int w, int h) {
    frames->ref = av_hwframe_ctx_alloc(dev.ref);
    if (!frames->ref) return false;
    auto* fc = reinterpret_cast<AVHWFramesContext*>(frames->ref->data);
    fc->format = AV_PIX_FMT_CUDA;
    fc->sw_format = sw;
    fc->width = w;
    fc->height = h;
    fc->initial_pool_size = 0;
    return av_hwframe_ctx_init(frames->ref) >= 0;
}

// Uploads a host frame into a new CUDA frame of `frames`.
FramePtr upload(const BufferRef& frames, const AVFrame* host) {
    FramePtr hw(av_frame_alloc());
    if (av_hwframe_get_buffer(frames.ref, hw.get(), 0) < 0) return nullptr;
    if (av_hwframe_transfer_data(hw.get(), host, 0) < 0) return nullptr;
    return hw;
}

// In f's own context (the runtime works in the current one), as FFmpeg's calls on it are made.
class InFramesContext {
public:
    explicit InFramesContext(const AVFrame* f) {
        const auto* fc = reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data);
        const auto* hw = static_cast<const AVCUDADeviceContext*>(fc->device_ctx->hwctx);
        stream_ = static_cast<cudaStream_t>(hw->stream);
        pushed_ =
            ctx_calls().push && ctx_calls().pop && ctx_calls().push(hw->cuda_ctx) == CUDA_SUCCESS;
    }
    ~InFramesContext() {
        CUcontext popped = nullptr;
        if (pushed_) ctx_calls().pop(&popped);
    }
    InFramesContext(const InFramesContext&) = delete;
    InFramesContext& operator=(const InFramesContext&) = delete;
    bool ok() const { return pushed_; }
    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
    bool pushed_ = false;
};

// A new frame of `frames` whose luma rows become `from`'s only on its stream, behind a host
// function that holds that stream for 5 ms; until then they are 0x5a. A submission made right
// away scores `from` only if it waits for the frame's stream (as a decoder's frame whose copy out
// of the decoder's surface is still queued).
FramePtr late_copy(const BufferRef& frames, const AVFrame* from, size_t row_bytes) {
    FramePtr f(av_frame_alloc());
    if (av_hwframe_get_buffer(frames.ref, f.get(), 0) < 0) return nullptr;
    InFramesContext in(f.get());
    cudaHostFn_t hold = [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); };
    const size_t rows = size_t(f->height);
    if (!in.ok() ||
        cudaMemset2DAsync(f->data[0], size_t(f->linesize[0]), 0x5a, row_bytes, rows, in.stream()) !=
            cudaSuccess ||
        cudaLaunchHostFunc(in.stream(), hold, nullptr) != cudaSuccess ||
        cudaMemcpy2DAsync(f->data[0], size_t(f->linesize[0]), from->data[0],
                          size_t(from->linesize[0]), row_bytes, rows, cudaMemcpyDeviceToDevice,
                          in.stream()) != cudaSuccess)
        return nullptr;
    return f;
}

bool scores_equal_expected(const GoldenCase& c, const std::vector<VifScores>& got,
                           const std::string& what) {
    const auto rows = vif::testing::load_expected(c.expected_path());
    bool ok = got.size() == c.frames && rows.size() >= c.frames;
    CHECK(ok, "%s: %zu frames scored, %u expected", what.c_str(), got.size(), c.frames);
    for (size_t i = 0; ok && i < got.size(); ++i) {
        CHECK(got[i].frame_index == i, "%s: frame index %llu at %zu", what.c_str(),
              (unsigned long long)got[i].frame_index, i);
        for (int k = 0; k < 4; ++k) {
            const double e = rows[i].at("integer_vif_scale" + std::to_string(k));
            if (got[i].scale[k] != e) {
                ok = false;
                CHECK(false, "%s: frame %zu scale %d: %.17g, expected %.17g", what.c_str(), i, k,
                      got[i].scale[k], e);
            }
        }
    }
    return ok;
}

VifContext* cuda_context(const AVFrame* hw_frame) {
    VifConfig cfg;
    vif_default_config(&cfg);
    if (vif_ffmpeg_config_from_frame(&cfg, hw_frame) != VIF_OK) {
        CHECK(false, "config_from_frame: %s", vif_ffmpeg_last_error());
        return nullptr;
    }
    CHECK(cfg.backend == VIF_BACKEND_CUDA, "config_from_frame did not pick the cuda backend");
    VifContext* ctx = nullptr;
    if (vif_create(&ctx, &cfg) != VIF_OK) {
        CHECK(false, "vif_create: %s", vif_last_error());
        return nullptr;
    }
    return ctx;
}

// Every frame of case c, uploaded as sw format `sw` through devices dev_ref / dev_dist, scored
// through vif_ffmpeg_submit. When `clobber`, each frame's device memory is overwritten on its
// own stream right after the submission: the scores must not change. When `late`, the frames
// submitted are late_copy()'s: their pixels are written on their streams after the submission
// call has started waiting (or not) for them. When `kept`, the pairs go through
// vif_ffmpeg_submit_flags(VIF_FFMPEG_FRAMES_KEPT) and each is kept until its scores arrive, then
// given back to its pool, whose next upload writes it again (as libvif's filter does; no
// overwrite while kept).
void run_case(const GoldenCase& c, AVPixelFormat sw, const BufferRef& dev_ref,
              const BufferRef& dev_dist, bool clobber, const std::string& what, bool late = false,
              bool kept = false) {
    BufferRef fr, fd;
    if (!make_frames(&fr, dev_ref, sw, int(c.width), int(c.height)) ||
        !make_frames(&fd, dev_dist, sw, int(c.width), int(c.height))) {
        CHECK(false, "%s: cannot make CUDA frame pools of %s", what.c_str(),
              av_get_pix_fmt_name(sw));
        return;
    }
    std::vector<VifScores> got;
    struct Held {
        uint64_t index;
        FramePtr ref, dist;
    };
    std::deque<Held> held; // kept pairs awaiting their scores
    auto take = [&](const VifScores& s) {
        got.push_back(s);
        while (!held.empty() && held.front().index <= s.frame_index) held.pop_front();
    };
    VifContext* ctx = nullptr;
    for (uint32_t i = 0; i < c.frames; ++i) {
        RawFrame r, d;
        if (!read_raw_frame(c, c.ref_path(), i, &r) || !read_raw_frame(c, c.dist_path(), i, &d)) {
            CHECK(false, "%s: cannot read frame %u", what.c_str(), i);
            break;
        }
        // Host frames in the hw pool's sw format, same luma as the case.
        const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(sw);
        if (uint32_t(desc->comp[0].depth) != c.bitdepth) {
            // p016 for 12-bit content would change the values: not a case for this format.
            CHECK(false, "%s: depth mismatch", what.c_str());
            break;
        }
        FramePtr hr = build_frame(r, sw), hd = build_frame(d, sw);
        FramePtr gr = hr ? upload(fr, hr.get()) : nullptr, gd = hd ? upload(fd, hd.get()) : nullptr;
        if (!gr || !gd) {
            CHECK(false, "%s: upload failed", what.c_str());
            break;
        }
        if (late) {
            const size_t row_bytes = size_t(c.width) * (c.bitdepth > 8 ? 2 : 1);
            FramePtr lr = late_copy(fr, gr.get(), row_bytes),
                     ld = late_copy(fd, gd.get(), row_bytes);
            if (!lr || !ld) {
                CHECK(false, "%s: queuing the late writes failed", what.c_str());
                break;
            }
            // gr/gd go back to their pools; whatever writes them next comes after the late copies
            // on the same streams.
            gr = std::move(lr);
            gd = std::move(ld);
        }
        if (!ctx && !(ctx = cuda_context(gr.get()))) break;
        uint64_t index = ~0ull;
        VifStatus st;
        VifScores s;
        const unsigned flags = kept ? VIF_FFMPEG_FRAMES_KEPT : 0u;
        while ((st = vif_ffmpeg_submit_flags(ctx, gr.get(), gd.get(), flags, &index)) == VIF_AGAIN)
            if (vif_receive(ctx, &s, 1) == VIF_OK) take(s);
        CHECK(st == VIF_OK, "%s: vif_ffmpeg_submit: %s", what.c_str(), vif_ffmpeg_last_error());
        CHECK(index == i, "%s: index %llu for frame %u", what.c_str(), (unsigned long long)index,
              i);
        if (kept && st == VIF_OK) held.push_back({index, std::move(gr), std::move(gd)});
        if (clobber && !kept) {
            for (const AVFrame* f : {gr.get(), gd.get()}) {
                // On the frame's stream, as FFmpeg's next write to that memory would be.
                InFramesContext in(f);
                CHECK(in.ok(), "%s: cannot make the frame's context current", what.c_str());
                CHECK(cudaMemset2DAsync(f->data[0], size_t(f->linesize[0]), 0x5a,
                                        size_t(f->width) * (c.bitdepth > 8 ? 2 : 1),
                                        size_t(f->height), in.stream()) == cudaSuccess,
                      "%s: overwriting the frame failed", what.c_str());
            }
        }
        while (vif_receive(ctx, &s, 0) == VIF_OK) take(s);
        // gr/gd (unless kept) go back to their pools here; the next upload writes them on the
        // same streams.
    }
    if (ctx) {
        VifScores s;
        while (vif_receive(ctx, &s, 1) == VIF_OK) take(s);
        CHECK(held.empty(), "%s: %zu kept pairs without scores", what.c_str(), held.size());
        held.clear();
        vif_destroy(ctx);
    }
    if (scores_equal_expected(c, got, what)) std::printf("ok   %s\n", what.c_str());
}

} // namespace

int main() {
    av_log_set_level(AV_LOG_ERROR);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIP: no CUDA device\n");
        return 77;
    }
    if (!vif_ffmpeg_pix_fmt_supported(AV_PIX_FMT_CUDA)) {
        std::printf("FAIL: this vif_ffmpeg build does not take CUDA frames\n");
        return 1;
    }
    BufferRef primary, other;
    if (!make_device(&primary, true, nullptr)) {
        std::printf("FAIL: av_hwdevice_ctx_create(cuda, primary_ctx=1) failed\n");
        return 1;
    }

    struct Job {
        const char* name;
        AVPixelFormat sw;
    };
    const Job jobs[] = {
        {"kodim23pan_576x324_8b_crf35", AV_PIX_FMT_NV12},
        {"bsds100007pan_481x271_8b_crf35", AV_PIX_FMT_YUV420P},
        {"img1012576pan_576x324_444_8b_crf35", AV_PIX_FMT_YUV444P},
        {"foreman_176x144_8b_crf45", AV_PIX_FMT_NV12},
        {"cosmospan_576x324_10b_crf35", AV_PIX_FMT_P010LE},
        {"cosmospan_576x324_16b_blur", AV_PIX_FMT_P016LE},
        {"checker_352x288_16b_shift1", AV_PIX_FMT_YUV444P16LE},
    };
    for (const Job& j : jobs) {
        const GoldenCase* c = find_case(j.name);
        if (!c) {
            std::printf("FAIL: case %s not in testdata ('%s')\n", j.name, data_dir().c_str());
            ++g_failures;
            continue;
        }
        run_case(*c, j.sw, primary, primary, false,
                 std::string(j.name) + " as CUDA " + av_get_pix_fmt_name(j.sw));
    }

    // Two device contexts on the primary context with streams of their own; the device memory is
    // overwritten on each stream right after each submission.
    cudaStream_t s1 = nullptr, s2 = nullptr;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    BufferRef dev1, dev2;
    if (!make_device(&dev1, true, s1) || !make_device(&dev2, true, s2)) {
        CHECK(false, "cannot make two CUDA device contexts");
    } else if (const GoldenCase* c = find_case("foreman_176x144_8b_crf45")) {
        run_case(*c, AV_PIX_FMT_NV12, dev1, dev2, true, "two streams, overwritten after submit");
        run_case(*c, AV_PIX_FMT_NV12, dev1, dev2, true,
                 "two streams, written late and overwritten after submit", true);
        if (const GoldenCase* c10 = find_case("cosmospan_576x324_10b_crf35"))
            run_case(*c10, AV_PIX_FMT_P010LE, dev1, dev1, true,
                     "one stream, overwritten after submit");
    }

    // A context of FFmpeg's own (what `-hwaccel cuda` makes without primary_ctx=1): its frames
    // are copied on the GPU into libvif's context first; the scores are the goldens', and the
    // overwrites queued on FFmpeg's stream after each submission do not reach them.
    if (!make_device(&other, false, nullptr)) {
        CHECK(false, "av_hwdevice_ctx_create(cuda) without primary_ctx failed");
    } else {
        for (const Job& j : {jobs[0], jobs[4], jobs[5]})
            if (const GoldenCase* c = find_case(j.name))
                run_case(*c, j.sw, other, other, true,
                         std::string(j.name) + " as CUDA " + av_get_pix_fmt_name(j.sw) +
                             " of FFmpeg's own context, overwritten after submit");
        if (const GoldenCase* c = find_case("foreman_176x144_8b_crf45")) {
            run_case(*c, AV_PIX_FMT_NV12, primary, other, true,
                     "ref in the primary context, dist in FFmpeg's own, overwritten after submit");
            run_case(*c, AV_PIX_FMT_NV12, other, dev2, true,
                     "ref in FFmpeg's own context, dist on a primary-context stream, overwritten");
            // The frames' pixels still being written when they are submitted.
            run_case(*c, AV_PIX_FMT_NV12, other, other, true,
                     "FFmpeg's own context, written late and overwritten after submit", true);
            run_case(*c, AV_PIX_FMT_NV12, other, dev2, true,
                     "ref in FFmpeg's own context, dist on a primary-context stream, written late",
                     true);
            // Kept until scored (VIF_FFMPEG_FRAMES_KEPT: no wait for the copy), written late.
            run_case(*c, AV_PIX_FMT_NV12, other, other, false,
                     "FFmpeg's own context, written late, kept until scored", true, true);
            run_case(*c, AV_PIX_FMT_NV12, primary, other, false,
                     "ref in the primary context, dist in FFmpeg's own, kept until scored", true,
                     true);
        }
        for (const Job& j : {jobs[4], jobs[5]})
            if (const GoldenCase* c = find_case(j.name))
                run_case(*c, j.sw, other, other, false,
                         std::string(j.name) + " of FFmpeg's own context, kept until scored", false,
                         true);
        if (const GoldenCase* c = find_case(jobs[4].name))
            run_case(*c, jobs[4].sw, other, other, false,
                     std::string(jobs[4].name) + " of FFmpeg's own context, written late", true);
    }

    // Refusals.
    if (const GoldenCase* c = find_case("foreman_176x144_8b_crf45")) {
        RawFrame r;
        read_raw_frame(*c, c->ref_path(), 0, &r);
        FramePtr host = build_frame(r, AV_PIX_FMT_NV12);
        BufferRef frames;
        make_frames(&frames, primary, AV_PIX_FMT_NV12, int(c->width), int(c->height));
        FramePtr hw = upload(frames, host.get());
        VifContext* ctx = hw ? cuda_context(hw.get()) : nullptr;
        if (ctx) {
            // A CUDA frame against a software frame.
            CHECK(vif_ffmpeg_submit(ctx, hw.get(), host.get(), nullptr) == VIF_ERROR_UNSUPPORTED,
                  "mixed frames accepted");
            CHECK(std::strstr(vif_ffmpeg_last_error(), "software") != nullptr, "%s",
                  vif_ffmpeg_last_error());
            CHECK(vif_pending(ctx) == 0, "a refused submission queued something");
            vif_destroy(ctx);
        }
        // A CPU context cannot take CUDA frames.
        VifConfig cfg;
        vif_default_config(&cfg);
        cfg.max_width = c->width;
        cfg.max_height = c->height;
        cfg.backend = VIF_BACKEND_CPU;
        VifContext* cpu = nullptr;
        if (hw && vif_create(&cpu, &cfg) == VIF_OK) {
            CHECK(vif_ffmpeg_submit(cpu, hw.get(), hw.get(), nullptr) == VIF_ERROR_UNSUPPORTED,
                  "a cpu context took CUDA frames");
            CHECK(std::strstr(vif_ffmpeg_last_error(), "cuda backend") != nullptr, "%s",
                  vif_ffmpeg_last_error());
            vif_destroy(cpu);
        }
        std::printf("ok   refusals checked\n");
    }
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);

    if (g_failures) {
        std::printf("FAILED: %d check(s)\n", g_failures);
        return 1;
    }
    std::printf("PASSED\n");
    return 0;
}
