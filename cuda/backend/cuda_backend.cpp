// Host pipeline of the CUDA backend.
//
// Per frame: the caller's luma rows are copied into a slot's pinned staging buffer (the caller's
// memory is borrowed only during submit), an async H2D copy on the copy stream fills the slot's
// device input, the compute stream waits for that copy and runs the frame's kernels, and the
// last kernel writes the raw accumulators straight into mapped pinned memory. With S slots up
// to S frames are in flight; the copy of frame N+1 overlaps the kernels of frame N. submit
// never blocks: with every slot holding a frame not yet received it returns VIF_AGAIN (vif.h's
// queue rule); receive(block = false) polls with cudaEventQuery.
#include "backend/cuda_backend.hpp"

#include <algorithm>
#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <cstring>

#include "engine/cuda_check.hpp"
#include "dispatch/kernel_table.hpp"
#include "engine/sample_check.hpp"
#include "core/sample_range.hpp"

namespace vif::cuda {

// Copies the caller's rows into pinned staging on several threads: one thread's memcpy moves
// about 10 GB/s, which alone would cap a 1080p 8-bit pipeline near 2,600 frames/s.
class CopyPool {
public:
    using Chunk = CopyChunk;
    explicit CopyPool(int workers) {
        for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { worker(); });
    }
    ~CopyPool() {
        {
            std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_) t.join();
    }
    size_t workers() const { return threads_.size(); }
    // Runs every chunk once (this thread helps) and returns when all are done. With or_words,
    // each chunk's copied 16-bit words are OR-ed into or_out[chunk.plane] (sample_range.hpp).
    void run(const std::vector<Chunk>& chunks, bool or_words, uint32_t or_out[2]) {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return active_ == 0; });    // stragglers of the previous run
        chunks_.assign(chunks.begin(), chunks.end()); // capacity kept: no allocation
        or_words_ = or_words;
        or_[0].store(0);
        or_[1].store(0);
        next_.store(0);
        done_ = 0;
        ++gen_;
        l.unlock();
        cv_.notify_all();
        const size_t n = drain();
        l.lock();
        done_ += n;
        cv_.wait(l, [&] { return done_ == chunks_.size(); });
        // chunks_ stays as is: a worker that wakes late finds nothing left (next_ >= size).
        or_out[0] = or_[0].load();
        or_out[1] = or_[1].load();
    }

private:
    size_t drain() {
        size_t n = 0;
        for (;;) {
            const size_t i = next_.fetch_add(1);
            if (i >= chunks_.size()) return n;
            const Chunk& c = chunks_[i];
            if (or_words_) {
                uint32_t acc = 0;
                for (uint32_t r = 0; r < c.rows; ++r)
                    acc |= copy_and_or_words(c.dst + r * c.dst_pitch, c.src + r * c.stride,
                                             c.row_bytes / 2);
                or_[c.plane].fetch_or(acc);
            } else if (c.stride == static_cast<ptrdiff_t>(c.row_bytes) &&
                       c.dst_pitch == c.row_bytes) {
                std::memcpy(c.dst, c.src, c.row_bytes * c.rows);
            } else {
                for (uint32_t r = 0; r < c.rows; ++r)
                    std::memcpy(c.dst + r * c.dst_pitch, c.src + r * c.stride, c.row_bytes);
            }
            ++n;
        }
    }
    void worker() {
        uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> l(m_);
                cv_.wait(l, [&] { return stop_ || gen_ != seen; });
                if (stop_) return;
                seen = gen_;
                ++active_;
            }
            const size_t n = drain();
            {
                std::lock_guard<std::mutex> l(m_);
                done_ += n;
                --active_;
            }
            cv_.notify_all();
        }
    }
    std::vector<std::thread> threads_;
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<Chunk> chunks_;
    std::atomic<size_t> next_{0};
    std::atomic<uint32_t> or_[2] = {0, 0};
    bool or_words_ = false;
    size_t done_ = 0;
    int active_ = 0;
    uint64_t gen_ = 0;
    bool stop_ = false;
};

} // namespace vif::cuda

namespace vif {

bool cuda_device_present() {
    return cuda::device_present();
}

int cuda_device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); // no driver: no device, and no error left for the next call
        return 0;
    }
    return n;
}

Status cuda_prepare(int device) {
    if (Status e = cuda::check_device(device)) return e;
    int prev = -1;
    VIF_CUDA_TRY(cudaGetDevice(&prev));
    VIF_CUDA_TRY(cudaSetDevice(device));
    VIF_CUDA_TRY(cudaFree(nullptr)); // the primary context exists from here on
    if (prev != device) VIF_CUDA_TRY(cudaSetDevice(prev)); // the caller's thread as it was
    return {};
}

std::unique_ptr<Backend> create_cuda_backend(const Params& params, Status* err) {
    return cuda::CudaBackend::create(CudaParams(params), err);
}

std::unique_ptr<Backend> create_cuda_backend(const CudaParams& params, Status* err) {
    return cuda::CudaBackend::create(params, err);
}

namespace cuda {

namespace {
// CudaOptions::verbose: how long each start-up step takes, on stderr.
class StartupTrace {
public:
    explicit StartupTrace(bool on) : on_(on), last_(std::chrono::steady_clock::now()) {}
    void step(const char* what) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "libvif cuda: %-34s %8.2f ms\n", what,
                     std::chrono::duration<double, std::milli>(now - last_).count());
        last_ = now;
    }

private:
    bool on_;
    std::chrono::steady_clock::time_point last_;
};
} // namespace

Status check_device(int device) {
    int count = 0;
    const cudaError_t ce = cudaGetDeviceCount(&count);
    if (ce != cudaSuccess || count == 0) {
        cudaGetLastError();
        return Status{VIF_ERROR_NO_DEVICE,
                      std::string("CUDA: no usable GPU (") +
                          (ce != cudaSuccess ? cudaGetErrorString(ce) : "no device found") + ")"};
    }
    if (device < 0 || device >= count)
        return Status{VIF_ERROR_NO_DEVICE, "CUDA: device " + std::to_string(device) +
                                               " does not exist (" + std::to_string(count) +
                                               " found)"};
    // Turing (7.5) runs the rules without tensor cores (dispatch/kernel_table.hpp, Arch::Sm75);
    // nothing older is built or measured: such a GPU is no GPU for libvif (--backend auto scores
    // on the CPU).
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
        major * 10 + minor < 75)
        return Status{VIF_ERROR_NO_DEVICE, "CUDA: device " + std::to_string(device) +
                                               " is compute capability " + std::to_string(major) +
                                               "." + std::to_string(minor) +
                                               "; libvif's CUDA kernels need 7.5 or newer"};
    cudaGetLastError();
    return {};
}

std::unique_ptr<CudaBackend> CudaBackend::create(const CudaParams& params, Status* err) {
    std::unique_ptr<CudaBackend> b(new CudaBackend());
    if (Status e = b->init(params)) {
        *err = std::move(e);
        return nullptr;
    }
    return b;
}

Status CudaBackend::init(const CudaParams& p) {
    params_ = p;
    device_ = p.cuda_device;
    StartupTrace trace(p.cuda.verbose);
    if (Status e = check_device(device_)) return e;
    trace.step("driver initialised");
    VIF_CUDA_TRY(cudaSetDevice(device_));
    VIF_CUDA_TRY(cudaFree(nullptr));
    trace.step("device context ready");

    Status err;
    engine_ = Engine::create(p, &err);
    if (!engine_) return err;
    trace.step(engine_->log_computed() ? "engine ready (log computed)"
                                       : "engine ready (log table)");

    VIF_CUDA_TRY(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    VIF_CUDA_TRY(cudaStreamCreateWithFlags(&compute_stream_, cudaStreamNonBlocking));

    const size_t bps = p.bitdepth == 8 ? 1 : 2;
    row_bytes_max_ = size_t(p.max_width) * bps;
    const size_t plane = staging_pitch(row_bytes_max_) * p.max_height;
    // Staging copies on up to 8 threads (the caller + 7, at most half the hardware threads) for
    // frames of 1 MB or more; `threads` caps the total when set.
    if (plane >= (size_t(1) << 20)) {
        const int hw = static_cast<int>(std::thread::hardware_concurrency());
        int total = p.threads ? static_cast<int>(p.threads) : std::min(8, std::max(1, hw / 2));
        if (total > 1) {
            copy_pool_ = std::make_unique<CopyPool>(total - 1);
            chunks_.reserve(2 * (p.max_height + 1));
        }
    }
    size_t depth = p.queue_depth;
    if (depth == 0) {
        // Enough frames in flight to keep copies and kernels overlapped, within ~256 MB of
        // pinned staging for very large frames.
        depth = 4;
        while (depth > 2 && depth * 2 * plane > (size_t(256) << 20)) --depth;
    }
    held_.reserve(Engine::kMaxBatchFrames);
    slots_.resize(depth);
    for (Slot& s : slots_) {
        VIF_CUDA_TRY(cudaHostAlloc(&s.h_ref, plane, cudaHostAllocDefault));
        host_allocs_.push_back(s.h_ref);
        VIF_CUDA_TRY(cudaHostAlloc(&s.h_dis, plane, cudaHostAllocDefault));
        host_allocs_.push_back(s.h_dis);
        VIF_CUDA_TRY(cudaMalloc(&s.d_ref, plane));
        dev_allocs_.push_back(s.d_ref);
        VIF_CUDA_TRY(cudaMalloc(&s.d_dis, plane));
        dev_allocs_.push_back(s.d_dis);
        void* out = nullptr;
        VIF_CUDA_TRY(cudaHostAlloc(&out, sizeof(DeviceResult), cudaHostAllocMapped));
        host_allocs_.push_back(out);
        s.h_out = static_cast<DeviceResult*>(out);
        std::memset(s.h_out, 0, sizeof(DeviceResult));
        void* dout = nullptr;
        VIF_CUDA_TRY(cudaHostGetDevicePointer(&dout, out, 0));
        s.d_out = static_cast<DeviceResult*>(dout);
        void* ors = nullptr;
        VIF_CUDA_TRY(cudaHostAlloc(&ors, 2 * sizeof(unsigned), cudaHostAllocMapped));
        host_allocs_.push_back(ors);
        s.h_or = static_cast<unsigned*>(ors);
        void* dors = nullptr;
        VIF_CUDA_TRY(cudaHostGetDevicePointer(&dors, ors, 0));
        s.d_or = static_cast<unsigned*>(dors);
        VIF_CUDA_TRY(cudaEventCreateWithFlags(&s.ready, cudaEventDisableTiming));
        VIF_CUDA_TRY(cudaEventCreateWithFlags(&s.caller, cudaEventDisableTiming));
        // A blocking receive waits on `done`: spinning by default (the driver's choice for a
        // context on a host with more cores than contexts). Benchmarks:
        // VIF_CUDA_BLOCKING_WAIT=1 sleeps instead (a core free for the host's decoders while
        // many contexts of a process wait at once).
        static const bool blocking_wait = [] {
            const char* v = std::getenv("VIF_CUDA_BLOCKING_WAIT");
            return v && v[0] == '1';
        }();
        VIF_CUDA_TRY(cudaEventCreateWithFlags(
            &s.done, cudaEventDisableTiming | (blocking_wait ? cudaEventBlockingSync : 0u)));
        if (p.maps)
            if (Status e = alloc_maps(&s.maps)) return e;
    }
    if (p.maps) {
        if (Status e = alloc_maps(&received_maps_)) return e;
        VIF_CUDA_TRY(cudaStreamCreateWithFlags(&maps_stream_, cudaStreamNonBlocking));
    }
    trace.step("streams, pinned staging, slots");
    return {};
}

CudaBackend::~CudaBackend() {
    cudaSetDevice(device_);
    if (compute_stream_) cudaStreamSynchronize(compute_stream_);
    if (copy_stream_) cudaStreamSynchronize(copy_stream_);
    for (Slot& s : slots_) {
        if (s.ready) cudaEventDestroy(s.ready);
        if (s.caller) cudaEventDestroy(s.caller);
        if (s.done) cudaEventDestroy(s.done);
    }
    for (void* p : host_allocs_) cudaFreeHost(p);
    for (void* p : dev_allocs_) cudaFree(p);
    engine_.reset();
    if (maps_stream_) cudaStreamDestroy(maps_stream_);
    if (compute_stream_) cudaStreamDestroy(compute_stream_);
    if (copy_stream_) cudaStreamDestroy(copy_stream_);
}

Status CudaBackend::device_guard() const {
    int cur = -1;
    VIF_CUDA_TRY(cudaGetDevice(&cur));
    if (cur != device_) VIF_CUDA_TRY(cudaSetDevice(device_));
    return {};
}

Status CudaBackend::failed(Status e) {
    // A failed CUDA call may leave a frame half-done (accumulators partly summed): the backend
    // refuses further work rather than return wrong scores.
    broken_ = true;
    return e;
}

Status CudaBackend::harvest_oldest(FrameRaw* out, bool block) {
    Slot& s = slots_[head_];
    if (block) {
        const cudaError_t e = cudaEventSynchronize(s.done);
        if (e != cudaSuccess)
            return failed(cuda_error(e, "cudaEventSynchronize", __FILE__, __LINE__));
    } else {
        const cudaError_t e = cudaEventQuery(s.done);
        if (e == cudaErrorNotReady) return Status{VIF_AGAIN, ""};
        if (e != cudaSuccess) return failed(cuda_error(e, "cudaEventQuery", __FILE__, __LINE__));
    }
    // The frame leaves the queue either way: its scores, or the error naming its bad sample.
    Status bad;
    if (s.check_or && ((s.h_or[0] | s.h_or[1]) >> params_.bitdepth)) bad = locate_sample_above(s);
    FrameRaw& r = *out;
    r.index = s.index;
    const DeviceResult& o = *s.h_out;
    for (int sc = 0; sc < 4; ++sc) {
        r.scale[sc].nl = o.acc[sc * 4 + 0];
        r.scale[sc].dl = o.acc[sc * 4 + 1];
        r.scale[sc].nn = o.acc[sc * 4 + 2];
        r.scale[sc].dn = o.acc[sc * 4 + 3];
        r.scale[sc].num = o.num[sc];
        r.scale[sc].den = o.den[sc];
    }
    if (params_.maps && !bad)
        if (Status e = take_maps(s, out)) return failed(e);
    head_ = (head_ + 1) % slots_.size();
    --in_flight_;
    return bad;
}

// Per-pixel terms of a frame of the largest size, every scale one after another (§12.1).
Status CudaBackend::alloc_maps(DeviceMaps* m) {
    const bool integer = params_.variant == VIF_VARIANT_INTEGER;
    for (int sc = 0; sc < 4; ++sc) {
        const size_t px = size_t(params_.max_width >> sc) * (params_.max_height >> sc);
        void* p = nullptr;
        VIF_CUDA_TRY(cudaMalloc(&p, std::max<size_t>(px, 1) * (integer ? 16 : 8)));
        dev_allocs_.push_back(p);
        if (integer) {
            m->term[sc] = static_cast<int32_t*>(p);
        } else {
            m->num[sc] = static_cast<float*>(p);
            m->den[sc] = m->num[sc] + px;
        }
    }
    return {};
}

Status CudaBackend::take_maps(const Slot& s, FrameRaw* out) {
    auto maps = std::make_shared<FrameMaps>();
    const bool integer = params_.variant == VIF_VARIANT_INTEGER;
    const int w = static_cast<int>(s.width), h = static_cast<int>(s.height);
    if (s.from_device) {
        // The slot is free once received: copy its terms where the next submit cannot reach.
        for (int sc = 0; sc < 4; ++sc) {
            const size_t px = size_t(w >> sc) * (h >> sc);
            if (integer)
                VIF_CUDA_TRY(cudaMemcpyAsync(received_maps_.term[sc], s.maps.term[sc], 16 * px,
                                             cudaMemcpyDeviceToDevice, maps_stream_));
            else
                for (int q = 0; q < 2; ++q)
                    VIF_CUDA_TRY(
                        cudaMemcpyAsync(q ? received_maps_.den[sc] : received_maps_.num[sc],
                                        q ? s.maps.den[sc] : s.maps.num[sc], 4 * px,
                                        cudaMemcpyDeviceToDevice, maps_stream_));
        }
        VIF_CUDA_TRY(cudaStreamSynchronize(maps_stream_));
    }
    maps->on_device = s.from_device;
    for (int sc = 0; sc < 4; ++sc) {
        ScaleMap& m = maps->scale[sc];
        m.width = w >> sc;
        m.height = h >> sc;
        const size_t px = m.pixels();
        FrameMaps::DeviceTerms& dt = maps->device[sc];
        if (s.from_device) {
            if (integer) {
                const int32_t* t = received_maps_.term[sc];
                dt = {t, t + px, t + 2 * px, t + 3 * px, nullptr, nullptr};
            } else {
                dt = {nullptr,
                      nullptr,
                      nullptr,
                      nullptr,
                      received_maps_.num[sc],
                      received_maps_.den[sc]};
            }
            continue;
        }
        if (integer) {
            std::vector<int32_t>* v[4] = {&m.nl, &m.dl, &m.nn, &m.dn};
            for (int q = 0; q < 4; ++q) {
                v[q]->resize(px);
                VIF_CUDA_TRY(cudaMemcpy(v[q]->data(), s.maps.term[sc] + q * px, 4 * px,
                                        cudaMemcpyDeviceToHost));
            }
        } else {
            m.num.resize(px);
            m.den.resize(px);
            VIF_CUDA_TRY(cudaMemcpy(m.num.data(), s.maps.num[sc], 4 * px, cudaMemcpyDeviceToHost));
            VIF_CUDA_TRY(cudaMemcpy(m.den.data(), s.maps.den[sc], 4 * px, cudaMemcpyDeviceToHost));
        }
    }
    out->maps = std::move(maps);
    return {};
}

Status CudaBackend::locate_sample_above(const Slot& s) {
    // Status path only: bring the plane whose OR has a stray bit back to the host and scan it.
    const size_t row_bytes = size_t(s.width) * 2;
    const size_t pitch = staging_pitch(row_bytes);
    std::vector<uint8_t> host(pitch * s.height);
    const void* planes[2] = {s.d_ref, s.d_dis};
    const char* names[2] = {"reference", "distorted"};
    for (int p = 0; p < 2; ++p) {
        if ((s.h_or[p] >> params_.bitdepth) == 0) continue;
        const cudaError_t e =
            cudaMemcpy(host.data(), planes[p], host.size(), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) return failed(cuda_error(e, "cudaMemcpy", __FILE__, __LINE__));
        if (Status bad = find_sample_above(host.data(), static_cast<ptrdiff_t>(pitch), s.width,
                                           s.height, params_.bitdepth, s.index, names[p]))
            return bad;
    }
    return Status{VIF_ERROR_INTERNAL,
                  "frame " + std::to_string(s.index) +
                      ": the device saw a sample above the bit depth that the host cannot find"};
}

Status CudaBackend::acquire_slot(Slot** slot) {
    // Slots are reused in order; the one after the newest is free unless every slot holds a
    // frame not yet received. Waiting for the caller to receive would deadlock: say so.
    if (in_flight_ == slots_.size())
        return Status{VIF_AGAIN, "queue full: receive scores before submitting more frames"};
    *slot = &slots_[(head_ + in_flight_) % slots_.size()];
    return {};
}

namespace {
// Copies `rows` rows of `row_bytes` into a buffer of pitch `dst_pitch`; with or_words_too,
// returns the OR of the copied 16-bit words (taken during the copy), else 0.
uint32_t pack_rows(void* dst, size_t dst_pitch, const void* src, ptrdiff_t stride, size_t row_bytes,
                   uint32_t rows, bool or_words_too) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    if (or_words_too) {
        uint32_t acc = 0;
        for (uint32_t r = 0; r < rows; ++r)
            acc |= copy_and_or_words(d + r * dst_pitch, s + r * stride, row_bytes / 2);
        return acc;
    }
    if (stride == static_cast<ptrdiff_t>(row_bytes) && dst_pitch == row_bytes) {
        std::memcpy(d, s, row_bytes * rows);
        return 0;
    }
    for (uint32_t r = 0; r < rows; ++r) std::memcpy(d + r * dst_pitch, s + r * stride, row_bytes);
    return 0;
}
} // namespace

Status CudaBackend::submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) {
    if (broken_) return Status{VIF_ERROR_INVALID_STATE, "CUDA backend failed earlier"};
    if (Status e = device_guard()) return failed(e);
    Slot* s = nullptr;
    if (Status e = acquire_slot(&s); e.status != VIF_OK) return e; // VIF_AGAIN included
    const size_t bps = params_.bitdepth == 8 ? 1 : 2;
    const size_t row_bytes = size_t(ref.width) * bps;
    const size_t pitch = staging_pitch(row_bytes);
    const size_t bytes = pitch * ref.height; // one contiguous H2D copy per plane
    // Plain 10/12-bit words are OR-ed as they are copied (sample_range.hpp); mixed layouts
    // (one plane MSB-aligned) just OR both: an MSB-aligned plane is not checked below.
    const bool check = samples_can_exceed(params_.bitdepth, ref.msb_aligned) ||
                       samples_can_exceed(params_.bitdepth, dist.msb_aligned);
    uint32_t ors[2] = {0, 0};
    if (copy_pool_ && bytes >= (size_t(1) << 20)) {
        // Chunks of about 256 KB from both planes, spread over the pool.
        const uint32_t rows =
            static_cast<uint32_t>(std::max<size_t>(1, (size_t(256) << 10) / row_bytes));
        chunks_.clear();
        const HostPlane* planes[2] = {&ref, &dist};
        void* dst[2] = {s->h_ref, s->h_dis};
        for (int p = 0; p < 2; ++p)
            for (uint32_t r = 0; r < ref.height; r += rows)
                chunks_.push_back(
                    {static_cast<unsigned char*>(dst[p]) + r * pitch,
                     static_cast<const unsigned char*>(planes[p]->data) + r * planes[p]->stride,
                     planes[p]->stride, row_bytes, std::min(rows, ref.height - r), pitch, p});
        copy_pool_->run(chunks_, check, ors);
    } else {
        ors[0] = pack_rows(s->h_ref, pitch, ref.data, ref.stride, row_bytes, ref.height, check);
        ors[1] = pack_rows(s->h_dis, pitch, dist.data, dist.stride, row_bytes, dist.height, check);
    }
    // A bad sample: report it now, before anything is queued (the slot stays free).
    const HostPlane* planes[2] = {&ref, &dist};
    const void* staged[2] = {s->h_ref, s->h_dis};
    const char* names[2] = {"reference", "distorted"};
    for (int p = 0; p < 2; ++p)
        if (samples_can_exceed(params_.bitdepth, planes[p]->msb_aligned) &&
            (ors[p] >> params_.bitdepth))
            return find_sample_above(static_cast<const uint8_t*>(staged[p]),
                                     static_cast<ptrdiff_t>(pitch), ref.width, ref.height,
                                     params_.bitdepth, index, names[p]);
    auto enqueue = [&]() -> Status {
        VIF_CUDA_TRY(
            cudaMemcpyAsync(s->d_ref, s->h_ref, bytes, cudaMemcpyHostToDevice, copy_stream_));
        VIF_CUDA_TRY(
            cudaMemcpyAsync(s->d_dis, s->h_dis, bytes, cudaMemcpyHostToDevice, copy_stream_));
        VIF_CUDA_TRY(cudaEventRecord(s->ready, copy_stream_));
        const int shift_r = ref.msb_aligned ? 16 - static_cast<int>(params_.bitdepth) : 0;
        const int shift_d = dist.msb_aligned ? 16 - static_cast<int>(params_.bitdepth) : 0;
        DevPlane r{s->d_ref, static_cast<ptrdiff_t>(pitch), shift_r};
        DevPlane d{s->d_dis, static_cast<ptrdiff_t>(pitch), shift_d};
        return enqueue_or_hold(s, r, d, static_cast<int>(ref.width), static_cast<int>(ref.height));
    };
    if (Status e = enqueue()) return failed(e);
    s->index = index;
    s->check_or = false;
    s->width = ref.width;
    s->height = ref.height;
    s->from_device = false;
    ++in_flight_;
    return {};
}

Status CudaBackend::submit_device(const DevPlane& ref, const DevPlane& dist, int width, int height,
                                  cudaStream_t stream, uint64_t index) {
    if (broken_) return Status{VIF_ERROR_INVALID_STATE, "CUDA backend failed earlier"};
    if (Status e = device_guard()) return failed(e);
    Slot* s = nullptr;
    if (Status e = acquire_slot(&s); e.status != VIF_OK) return e; // VIF_AGAIN included
    const size_t row_bytes = size_t(width) * (params_.bitdepth == 8 ? 1 : 2);
    const size_t pitch = staging_pitch(row_bytes);
    auto enqueue = [&]() -> Status {
        if (Status e = flush_held()) return e; // device frames are not batched
        VIF_CUDA_TRY(cudaEventRecord(s->caller, stream));
        VIF_CUDA_TRY(cudaStreamWaitEvent(copy_stream_, s->caller, 0));
        VIF_CUDA_TRY(cudaMemcpy2DAsync(s->d_ref, pitch, ref.data, ref.pitch, row_bytes, height,
                                       cudaMemcpyDeviceToDevice, copy_stream_));
        VIF_CUDA_TRY(cudaMemcpy2DAsync(s->d_dis, pitch, dist.data, dist.pitch, row_bytes, height,
                                       cudaMemcpyDeviceToDevice, copy_stream_));
        VIF_CUDA_TRY(cudaEventRecord(s->ready, copy_stream_));
        VIF_CUDA_TRY(cudaStreamWaitEvent(stream, s->ready, 0));
        VIF_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, s->ready, 0));
        DevPlane r{s->d_ref, static_cast<ptrdiff_t>(pitch), ref.shift};
        DevPlane d{s->d_dis, static_cast<ptrdiff_t>(pitch), dist.shift};
        // Samples above the bit depth: ORed on the device, looked at when the frame is received.
        s->check_or = samples_can_exceed(params_.bitdepth, ref.shift != 0) ||
                      samples_can_exceed(params_.bitdepth, dist.shift != 0);
        if (s->check_or) {
            VIF_CUDA_TRY(cudaMemsetAsync(s->d_or, 0, 2 * sizeof(unsigned), compute_stream_));
            if (ref.shift == 0)
                if (Status e =
                        enqueue_or_words(s->d_ref, pitch, width, height, s->d_or, compute_stream_))
                    return e;
            if (dist.shift == 0)
                if (Status e = enqueue_or_words(s->d_dis, pitch, width, height, s->d_or + 1,
                                                compute_stream_))
                    return e;
        }
        if (Status e = engine_->enqueue(r, d, width, height, s->d_out, compute_stream_, nullptr,
                                        nullptr, params_.maps ? &s->maps : nullptr))
            return e;
        VIF_CUDA_TRY(cudaEventRecord(s->done, compute_stream_));
        enqueued(s);
        return {};
    };
    if (Status e = enqueue()) return failed(e);
    s->index = index;
    s->width = static_cast<uint32_t>(width);
    s->height = static_cast<uint32_t>(height);
    s->from_device = true;
    ++in_flight_;
    return {};
}

Status CudaBackend::receive(FrameRaw* out, bool block) {
    if (broken_) return Status{VIF_ERROR_INVALID_STATE, "CUDA backend failed earlier"};
    if (in_flight_ == 0) return Status{VIF_AGAIN, ""};
    if (Status e = device_guard()) return failed(e);
    // Held frames go now when the oldest is one of them, or (auto) when the GPU's backlog of
    // this context's work has drained.
    if (!held_.empty() && (in_flight_ == held_.size() ||
                           (params_.cuda.batch_frames == CudaOptions::kAuto && !gpu_backlog())))
        if (Status e = flush_held()) return failed(e);
    return harvest_oldest(out, block); // VIF_AGAIN included
}

// ---- Batching of small frames ----------------------------------------------------------------

int CudaBackend::batch_target(int w, int h) const {
    // Maps: each frame writes its own per-pixel buffers, launched on its own.
    if (params_.variant != VIF_VARIANT_INTEGER || params_.maps) return 1;
    const int want = params_.cuda.batch_frames;
    const bool autom = want == CudaOptions::kAuto;
    int f =
        autom ? int_batch_frames(engine_->arch(), static_cast<int>(params_.bitdepth), w, h) : want;
    // Auto: at most half the slots, so that one batch can be staged while another runs.
    const int slots = static_cast<int>(slots_.size());
    f = std::min({f, Engine::kMaxBatchFrames, autom ? std::max(1, slots / 2) : slots});
    return std::max(1, f);
}

bool CudaBackend::gpu_backlog() const {
    // The launch unit before the newest is still queued or running: the GPU has more than one
    // unit of this context's work ahead of it, so a frame held now costs no GPU time.
    return prev_enqueued_ && cudaEventQuery(prev_enqueued_->done) == cudaErrorNotReady;
}

void CudaBackend::enqueued(Slot* newest) {
    prev_enqueued_ = last_enqueued_;
    last_enqueued_ = newest;
}

Status CudaBackend::enqueue_or_hold(Slot* s, const DevPlane& ref, const DevPlane& dis, int w,
                                    int h) {
    const int target = batch_target(w, h);
    // A frame that cannot join the held ones (another size or layout) sends them first.
    if (!held_.empty() &&
        (target <= 1 || w != held_w_ || h != held_h_ || ref.shift != held_[0]->batch_ref.shift ||
         dis.shift != held_[0]->batch_dis.shift || ref.pitch != held_[0]->batch_ref.pitch ||
         dis.pitch != held_[0]->batch_dis.pitch))
        if (Status e = flush_held()) return e;
    if (target <= 1) {
        VIF_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, s->ready, 0));
        if (Status e = engine_->enqueue(ref, dis, w, h, s->d_out, compute_stream_, nullptr, nullptr,
                                        params_.maps ? &s->maps : nullptr))
            return e;
        VIF_CUDA_TRY(cudaEventRecord(s->done, compute_stream_));
        enqueued(s);
        return {};
    }
    s->batch_ref = ref;
    s->batch_dis = dis;
    held_.push_back(s);
    held_w_ = w;
    held_h_ = h;
    const bool autom = params_.cuda.batch_frames == CudaOptions::kAuto;
    if (static_cast<int>(held_.size()) >= target || (autom && !gpu_backlog())) return flush_held();
    return {};
}

Status CudaBackend::flush_held() {
    if (held_.empty()) return {};
    const int n = static_cast<int>(held_.size());
    DevPlane refs[Engine::kMaxBatchFrames], diss[Engine::kMaxBatchFrames];
    DeviceResult* outs[Engine::kMaxBatchFrames];
    for (int i = 0; i < n; ++i) {
        VIF_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, held_[i]->ready, 0));
        refs[i] = held_[i]->batch_ref;
        diss[i] = held_[i]->batch_dis;
        outs[i] = held_[i]->d_out;
    }
    if (Status e = engine_->enqueue_batch(refs, diss, n, held_w_, held_h_, outs, compute_stream_))
        return e;
    for (Slot* s : held_) VIF_CUDA_TRY(cudaEventRecord(s->done, compute_stream_));
    enqueued(held_.back());
    held_.clear();
    return {};
}

} // namespace cuda
} // namespace vif

namespace vif::cuda {

// ---- Ladders (vif_submit_multi) --------------------------------------------------------------

uint32_t CudaBackend::stage_plane(void* dst, const HostPlane& p, size_t pitch, bool check) {
    const size_t row_bytes = size_t(p.width) * (params_.bitdepth == 8 ? 1 : 2);
    uint32_t ors[2] = {0, 0};
    if (copy_pool_ && pitch * p.height >= (size_t(1) << 20)) {
        const uint32_t rows =
            static_cast<uint32_t>(std::max<size_t>(1, (size_t(256) << 10) / row_bytes));
        chunks_.clear();
        for (uint32_t r = 0; r < p.height; r += rows)
            chunks_.push_back({static_cast<unsigned char*>(dst) + r * pitch,
                               static_cast<const unsigned char*>(p.data) + r * p.stride, p.stride,
                               row_bytes, std::min(rows, p.height - r), pitch, 0});
        copy_pool_->run(chunks_, check, ors);
        return ors[0];
    }
    return pack_rows(dst, pitch, p.data, p.stride, row_bytes, p.height, check);
}

Status CudaBackend::ladder_room(size_t count, bool on_device) const {
    if (broken_) return Status{VIF_ERROR_INVALID_STATE, "CUDA backend failed earlier"};
    if (count > slots_.size()) {
        // vif_submit_multi is every backend's call: the limit is this backend's.
        return {VIF_ERROR_INVALID_ARGUMENT,
                std::string(on_device ? "vif_cuda_submit_multi" : "vif_submit_multi") + ": " +
                    std::to_string(count) + " distorted pictures, but " +
                    (on_device ? "each pair takes a place of the queue"
                               : "the cuda backend gives each pair a place of the queue") +
                    " and its queue_depth is " + std::to_string(slots_.size()) +
                    ": create the context with queue_depth >= " + std::to_string(count)};
    }
    if (in_flight_ + count > slots_.size())
        return {VIF_AGAIN, "queue full: receive scores before submitting more frames"};
    return {};
}

Status CudaBackend::submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                                 uint64_t first_index) {
    // Float ladders, and ladders with maps (the ladder kernels keep no per-pixel terms): the
    // pairs one by one.
    if (params_.variant != VIF_VARIANT_INTEGER || params_.maps)
        return Backend::submit_multi(ref, dists, count, first_index);
    if (Status e = ladder_room(count, false); e.status != VIF_OK) return e;
    if (Status e = device_guard()) return failed(e);
    // Pair k's slot: its distorted plane, result and done event; slot 0 also holds the reference.
    Slot* s[kMaxDistorted];
    for (size_t k = 0; k < count; ++k) s[k] = &slots_[(head_ + in_flight_ + k) % slots_.size()];
    const size_t row_bytes = size_t(ref.width) * (params_.bitdepth == 8 ? 1 : 2);
    const size_t pitch = staging_pitch(row_bytes);
    const size_t bytes = pitch * ref.height;
    // Every plane is staged and checked before anything is queued: a bad sample queues nothing.
    const bool check_ref = samples_can_exceed(params_.bitdepth, ref.msb_aligned);
    const uint32_t or_ref = stage_plane(s[0]->h_ref, ref, pitch, check_ref);
    if (check_ref && (or_ref >> params_.bitdepth))
        return find_sample_above(static_cast<const uint8_t*>(s[0]->h_ref),
                                 static_cast<ptrdiff_t>(pitch), ref.width, ref.height,
                                 params_.bitdepth, first_index, "reference");
    for (size_t k = 0; k < count; ++k) {
        const bool check = samples_can_exceed(params_.bitdepth, dists[k].msb_aligned);
        const uint32_t or_dis = stage_plane(s[k]->h_dis, dists[k], pitch, check);
        if (check && (or_dis >> params_.bitdepth))
            return find_sample_above(static_cast<const uint8_t*>(s[k]->h_dis),
                                     static_cast<ptrdiff_t>(pitch), ref.width, ref.height,
                                     params_.bitdepth, first_index + k, "distorted");
    }
    auto enqueue = [&]() -> Status {
        if (Status e = flush_held()) return e; // held small frames go first (queue order)
        VIF_CUDA_TRY(
            cudaMemcpyAsync(s[0]->d_ref, s[0]->h_ref, bytes, cudaMemcpyHostToDevice, copy_stream_));
        for (size_t k = 0; k < count; ++k)
            VIF_CUDA_TRY(cudaMemcpyAsync(s[k]->d_dis, s[k]->h_dis, bytes, cudaMemcpyHostToDevice,
                                         copy_stream_));
        VIF_CUDA_TRY(cudaEventRecord(s[0]->ready, copy_stream_));
        VIF_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, s[0]->ready, 0));
        const int bits = static_cast<int>(params_.bitdepth);
        const DevPlane r{s[0]->d_ref, static_cast<ptrdiff_t>(pitch),
                         ref.msb_aligned ? 16 - bits : 0};
        DevPlane d[kMaxDistorted];
        DeviceResult* outs[kMaxDistorted];
        for (size_t k = 0; k < count; ++k) {
            d[k] = DevPlane{s[k]->d_dis, static_cast<ptrdiff_t>(pitch),
                            dists[k].msb_aligned ? 16 - bits : 0};
            outs[k] = s[k]->d_out;
        }
        if (Status e =
                engine_->enqueue_multi(r, d, static_cast<int>(count), static_cast<int>(ref.width),
                                       static_cast<int>(ref.height), outs, compute_stream_))
            return e;
        for (size_t k = 0; k < count; ++k)
            VIF_CUDA_TRY(cudaEventRecord(s[k]->done, compute_stream_));
        enqueued(s[count - 1]); // one launch unit (batching's backlog test)
        return {};
    };
    if (Status e = enqueue()) return failed(e);
    for (size_t k = 0; k < count; ++k) {
        s[k]->index = first_index + k;
        s[k]->check_or = false;
    }
    in_flight_ += count;
    return {};
}

// ---- Ladders already on the device (vif_cuda_submit_multi) -----------------------------------

Status CudaBackend::submit_device_multi(const DevPlane& ref, const DevPlane* dists, size_t count,
                                        int width, int height, cudaStream_t stream,
                                        uint64_t first_index) {
    if (Status e = ladder_room(count, true); e.status != VIF_OK) return e;
    if (params_.variant != VIF_VARIANT_INTEGER || params_.maps) {
        // Float, and maps (the ladder kernels keep no per-pixel terms): pairs one by one (the
        // slots are there: none of these returns VIF_AGAIN).
        for (size_t k = 0; k < count; ++k)
            if (Status e = submit_device(ref, dists[k], width, height, stream, first_index + k)) {
                if (k == 0) return e;
                return failed(Status{VIF_ERROR_INVALID_STATE,
                                     "vif_cuda_submit_multi: pair " + std::to_string(k) +
                                         " failed after earlier pairs were queued: " + e.message});
            }
        return {};
    }
    if (Status e = device_guard()) return failed(e);
    Slot* s[kMaxDistorted];
    for (size_t k = 0; k < count; ++k) s[k] = &slots_[(head_ + in_flight_ + k) % slots_.size()];
    const size_t row_bytes = size_t(width) * (params_.bitdepth == 8 ? 1 : 2);
    const size_t pitch = staging_pitch(row_bytes);
    // Samples above the bit depth (plain 10/12-bit words) are ORed on the device and looked at
    // when each pair is received. Each pair must be able to name a bad reference sample, so the
    // reference is then copied into every pair's slot (a device copy; its work is still shared).
    const bool check_ref = samples_can_exceed(params_.bitdepth, ref.shift != 0);
    auto enqueue = [&]() -> Status {
        if (Status e = flush_held()) return e; // held small frames go first (queue order)
        VIF_CUDA_TRY(cudaEventRecord(s[0]->caller, stream));
        VIF_CUDA_TRY(cudaStreamWaitEvent(copy_stream_, s[0]->caller, 0));
        for (size_t k = 0; k < (check_ref ? count : 1); ++k)
            VIF_CUDA_TRY(cudaMemcpy2DAsync(s[k]->d_ref, pitch, ref.data, ref.pitch, row_bytes,
                                           height, cudaMemcpyDeviceToDevice, copy_stream_));
        for (size_t k = 0; k < count; ++k)
            VIF_CUDA_TRY(cudaMemcpy2DAsync(s[k]->d_dis, pitch, dists[k].data, dists[k].pitch,
                                           row_bytes, height, cudaMemcpyDeviceToDevice,
                                           copy_stream_));
        VIF_CUDA_TRY(cudaEventRecord(s[0]->ready, copy_stream_));
        VIF_CUDA_TRY(cudaStreamWaitEvent(stream, s[0]->ready, 0));
        VIF_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, s[0]->ready, 0));
        const DevPlane r{s[0]->d_ref, static_cast<ptrdiff_t>(pitch), ref.shift};
        DevPlane d[kMaxDistorted];
        DeviceResult* outs[kMaxDistorted];
        for (size_t k = 0; k < count; ++k) {
            d[k] = DevPlane{s[k]->d_dis, static_cast<ptrdiff_t>(pitch), dists[k].shift};
            outs[k] = s[k]->d_out;
            s[k]->check_or = check_ref || samples_can_exceed(params_.bitdepth, dists[k].shift != 0);
            if (!s[k]->check_or) continue;
            VIF_CUDA_TRY(cudaMemsetAsync(s[k]->d_or, 0, 2 * sizeof(unsigned), compute_stream_));
            if (check_ref)
                if (Status e = enqueue_or_words(s[k]->d_ref, pitch, width, height, s[k]->d_or,
                                                compute_stream_))
                    return e;
            if (dists[k].shift == 0)
                if (Status e = enqueue_or_words(s[k]->d_dis, pitch, width, height, s[k]->d_or + 1,
                                                compute_stream_))
                    return e;
        }
        if (Status e = engine_->enqueue_multi(r, d, static_cast<int>(count), width, height, outs,
                                              compute_stream_))
            return e;
        for (size_t k = 0; k < count; ++k)
            VIF_CUDA_TRY(cudaEventRecord(s[k]->done, compute_stream_));
        enqueued(s[count - 1]); // one launch unit (batching's backlog test)
        return {};
    };
    if (Status e = enqueue()) return failed(e);
    for (size_t k = 0; k < count; ++k) {
        s[k]->index = first_index + k;
        s[k]->width = static_cast<uint32_t>(width);
        s[k]->height = static_cast<uint32_t>(height);
    }
    in_flight_ += count;
    return {};
}

} // namespace vif::cuda
