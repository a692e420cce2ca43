// See device_pairs.hpp.
#include "device_pairs.hpp"

#include <vif/vif_cuda.h>
#include <vif/vif_ffmpeg.h>

#include <cuda_runtime_api.h>

extern "C" {
#include <libavutil/frame.h>
}

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <stdexcept>

namespace vifcli {

namespace {

constexpr size_t kInFlight = 8; // pairs submitted and not yet known to be read

void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Device buffers for planes that arrive in host memory, reused round-robin; a buffer is free
// again once the pair that used it has been read (its event completed).
class UploadRing {
public:
    void init(const VideoInfo &info, size_t count) {
        rows_ = info.row_bytes();
        height_ = info.height;
        bufs_.resize(count);
    }
    ~UploadRing() {
        for (auto &b : bufs_) cudaFree(b.data);
    }
    // Copies a host plane into the next buffer on `stream`, the stream the pair is submitted on
    // (so VIF reads it after the copy). The source is pageable memory: the call has taken it
    // into a staging buffer when it returns, so the caller may free it.
    const void *upload(const void *src, ptrdiff_t stride, size_t *pitch, cudaStream_t stream) {
        Buf &b = bufs_[next_++ % bufs_.size()];
        if (!b.data) check(cudaMallocPitch(&b.data, &b.pitch, rows_, height_), "cudaMallocPitch");
        check(cudaMemcpy2DAsync(b.data, b.pitch, src, size_t(stride), rows_, height_,
                                cudaMemcpyHostToDevice, stream),
              "uploading a frame");
        *pitch = b.pitch;
        return b.data;
    }

private:
    struct Buf {
        void *data = nullptr;
        size_t pitch = 0;
    };
    std::vector<Buf> bufs_;
    size_t next_ = 0, rows_ = 0;
    uint32_t height_ = 0;
};

struct Held {
    DecodedFrame frame; // decoder inputs
    bool prefetched = false;
};

class Side {
public:
    Side(DeviceInput &in, cudaStream_t stream) : in_(in), stream_(stream) {
        ring_.init(in.info, kInFlight + 2);
    }
    // Next frame as a device picture; false at the end.
    bool next(VifDevicePicture *pic, Held *held, uint64_t *pair) {
        pic->width = in_.info.width;
        pic->height = in_.info.height;
        pic->bitdepth = in_.info.bitdepth;
        size_t pitch = 0;
        if (in_.prefetcher) {
            Prefetcher::Frame f;
            const auto st = in_.prefetcher->next(&f);
            if (st == Prefetcher::Status::kError) throw InputError(in_.prefetcher->error());
            if (st == Prefetcher::Status::kEnd) return false;
            pic->data = ring_.upload(f.data, ptrdiff_t(in_.info.row_bytes()), &pitch, stream_);
            pic->pitch = ptrdiff_t(pitch);
            pic->flags = in_.info.picture_flags;
            in_.prefetcher->release(); // staged by the upload already
            held->prefetched = true;
            *pair = f.pair;
            return true;
        }
        DecodedFrame f;
        if (!in_.decoder->next(&f)) return false;
        held->frame = f;
        if (f.on_device) {
            pic->data = f.data;
            pic->pitch = f.pitch;
            pic->flags = f.flags;
        }
        *pair = f.index;
        return true;
    }
    // A software decoder's frame (a software decoder beside NVDEC, or one that fell back to
    // software): uploads its luma plane, only for pairs that are scored (an upload buffer is
    // reused after kInFlight + 2 uploads: by then the pair that read it has completed).
    void finish(VifDevicePicture *pic, Held *held) {
        DecodedFrame &f = held->frame;
        if (in_.prefetcher || f.on_device || !f.frame) return;
        size_t pitch = 0;
        {
            VifPicture hp;
            if (vif_ffmpeg_picture(f.frame, &hp) != VIF_OK)
                throw InputError(in_.name + ": frame " + std::to_string(f.index) + ": " +
                                 vif_ffmpeg_last_error());
            if (hp.bitdepth != in_.info.bitdepth || hp.width != in_.info.width ||
                hp.height != in_.info.height)
                throw InputError(in_.name + ": frame " + std::to_string(f.index) + " is " +
                                 std::to_string(hp.width) + "x" + std::to_string(hp.height) + " " +
                                 std::to_string(hp.bitdepth) +
                                 "-bit, but the stream "
                                 "started " +
                                 std::to_string(in_.info.width) + "x" +
                                 std::to_string(in_.info.height) + " " +
                                 std::to_string(in_.info.bitdepth) + "-bit");
            pic->data = ring_.upload(hp.data, hp.stride, &pitch, stream_);
            pic->pitch = ptrdiff_t(pitch);
            pic->flags = hp.flags;
            in_.decoder->release(&held->frame);
        }
    }
    void release(Held *h) {
        if (in_.decoder && (h->frame.frame || h->frame.data)) in_.decoder->release(&h->frame);
    }
    // Drops n frames (decoder inputs only; a prefetcher skips by itself). Returns how many.
    uint64_t drop(uint64_t n) {
        uint64_t done = 0;
        DecodedFrame f;
        while (done < n && in_.decoder && in_.decoder->next(&f)) {
            in_.decoder->release(&f);
            ++done;
        }
        return done;
    }
    bool from_decoder() const { return in_.decoder != nullptr; }

private:
    DeviceInput &in_;
    cudaStream_t stream_;
    UploadRing ring_;
};

struct Pending {
    cudaEvent_t done = nullptr;
    Held a, b;
};

} // namespace

DeviceRunResult run_device_pairs(const std::vector<VifContext *> &ctxs, int cuda_device,
                                 DeviceInput &ref, DeviceInput &dist, uint64_t subsample,
                                 uint64_t max_pairs, void (*progress)(uint64_t, void *),
                                 void *arg) {
    check(cudaSetDevice(cuda_device), "cudaSetDevice");
    DeviceRunResult res;
    res.scores.resize(ctxs.size());
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    Side rs(ref, stream), ds(dist, stream);
    if (ref.skip && rs.drop(ref.skip) < ref.skip)
        throw InputError("--skip-ref " + std::to_string(ref.skip) + " skips past the end of the " +
                         ref.name);
    if (dist.skip && ds.drop(dist.skip) < dist.skip)
        throw InputError("--skip-dist " + std::to_string(dist.skip) +
                         " skips past the end of the " + dist.name);
    std::vector<cudaEvent_t> events(kInFlight);
    for (auto &e : events)
        check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    std::deque<Pending> pending;
    size_t next_event = 0;
    auto retire_one = [&] {
        Pending &p = pending.front();
        check(cudaEventSynchronize(p.done), "waiting for the GPU");
        rs.release(&p.a);
        ds.release(&p.b);
        pending.pop_front();
    };
    auto drain = [&](bool block) {
        for (size_t c = 0; c < ctxs.size(); ++c)
            for (;;) {
                VifScores s;
                VifStatus st = vif_receive(ctxs[c], &s, block ? 1 : 0);
                if (st == VIF_AGAIN) break;
                if (st != VIF_OK)
                    throw std::runtime_error(std::string("scoring failed: ") + vif_last_error());
                res.scores[c].push_back(s);
            }
    };
    struct Cleanup {
        std::deque<Pending> &p;
        Side &r, &d;
        cudaStream_t s;
        std::vector<cudaEvent_t> &ev;
        ~Cleanup() {
            cudaStreamSynchronize(s);
            for (auto &x : p) {
                r.release(&x.a);
                d.release(&x.b);
            }
            for (auto e : ev) cudaEventDestroy(e);
            cudaStreamDestroy(s);
        }
    } cleanup{pending, rs, ds, stream, events};

    uint64_t pair = 0; // pairs read from the decoder inputs (after the skips)
    for (;;) {
        if (res.submitted >= max_pairs) break;
        VifDevicePicture pa{}, pb{};
        Held ha, hb;
        uint64_t ia = 0, ib = 0;
        const auto waiting = std::chrono::steady_clock::now();
        const bool a = rs.next(&pa, &ha, &ia);
        const bool b = ds.next(&pb, &hb, &ib);
        res.input_wait_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting).count();
        if (!a || !b) {
            if (a) rs.release(&ha);
            if (b) ds.release(&hb);
            if (a != b) {
                res.short_input = a ? "distorted" : "reference";
                res.short_frames = pair;
            }
            break;
        }
        // Frame numbers: a prefetched (host) input already applied the plan; for two decoder
        // inputs, apply --subsample here.
        const uint64_t frame_num = !rs.from_decoder() ? ia : !ds.from_decoder() ? ib : pair;
        ++pair;
        if (rs.from_decoder() && ds.from_decoder() && frame_num % subsample) {
            rs.release(&ha);
            ds.release(&hb);
            continue;
        }
        rs.finish(&pa, &ha);
        ds.finish(&pb, &hb);
        if (pa.width != pb.width || pa.height != pb.height)
            throw InputError("the reference is " + std::to_string(pa.width) + "x" +
                             std::to_string(pa.height) + " but the distorted is " +
                             std::to_string(pb.width) + "x" + std::to_string(pb.height));
        for (size_t c = 0; c < ctxs.size(); ++c) {
            for (;;) {
                VifStatus st = vif_cuda_submit(ctxs[c], &pa, &pb, stream, nullptr);
                if (st == VIF_OK) break;
                if (st != VIF_AGAIN)
                    throw std::runtime_error(std::string("scoring failed: ") + vif_last_error());
                // The queue is full of scores waiting for us: take the oldest, then retry.
                VifScores s;
                st = vif_receive(ctxs[c], &s, 1);
                if (st != VIF_OK)
                    throw std::runtime_error(std::string("scoring failed: ") + vif_last_error());
                res.scores[c].push_back(s);
            }
        }
        if (pending.size() == kInFlight) retire_one();
        Pending p;
        p.done = events[next_event++ % kInFlight];
        check(cudaEventRecord(p.done, stream), "cudaEventRecord");
        p.a = ha;
        p.b = hb;
        pending.push_back(p);
        // Give back whatever VIF has finished reading.
        while (!pending.empty() && cudaEventQuery(pending.front().done) == cudaSuccess)
            retire_one();
        res.frame_nums.push_back(frame_num);
        ++res.submitted;
        drain(false);
        if (progress) progress(ctxs.empty() ? res.submitted : res.scores[0].size(), arg);
    }
    while (!pending.empty()) retire_one();
    drain(true);
    return res;
}

DeviceGroupResult run_device_group(VifContext *ctx, int cuda_device, DeviceInput &ref,
                                   const std::vector<DeviceInput *> &rungs) {
    using Clock = std::chrono::steady_clock;
    check(cudaSetDevice(cuda_device), "cudaSetDevice");
    const size_t n = rungs.size();
    DeviceGroupResult res;
    res.scores.resize(n);
    res.short_input.resize(n);
    res.short_frames.resize(n, 0);
    res.error.resize(n);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    // A submission's frames: given back to their decoders once its event has completed.
    struct Submitted {
        cudaEvent_t done = nullptr;
        Held ref;
        std::vector<std::pair<size_t, Held>> rungs;
    };
    Side rs(ref, stream);
    std::vector<std::unique_ptr<Side>> ds;
    for (DeviceInput *d : rungs) ds.push_back(std::make_unique<Side>(*d, stream));
    std::vector<cudaEvent_t> events;
    std::deque<Submitted> pending;
    auto give_back = [&](Submitted &x) {
        rs.release(&x.ref);
        for (auto &[k, h] : x.rungs) ds[k]->release(&h);
    };
    struct Cleanup {
        cudaStream_t s;
        std::deque<Submitted> &p;
        std::vector<cudaEvent_t> &ev;
        const decltype(give_back) &back;
        ~Cleanup() {
            cudaStreamSynchronize(s);
            for (auto &x : p) back(x);
            for (auto e : ev) cudaEventDestroy(e);
            cudaStreamDestroy(s);
        }
    } cleanup{stream, pending, events, give_back};
    events.resize(kInFlight);
    for (auto &e : events)
        check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    size_t next_event = 0;
    auto retire_one = [&] {
        Submitted &x = pending.front();
        check(cudaEventSynchronize(x.done), "waiting for the GPU");
        give_back(x);
        pending.pop_front();
    };
    std::deque<size_t> owners; // the rung of each score set to come, in submission order
    auto receive = [&](bool block, bool one) {
        while (!owners.empty()) {
            VifScores sc;
            const VifStatus st = vif_receive(ctx, &sc, block ? 1 : 0);
            if (st == VIF_AGAIN) return;
            if (st != VIF_OK)
                throw std::runtime_error(std::string("scoring failed: ") + vif_last_error());
            res.scores[owners.front()].push_back(sc);
            owners.pop_front();
            if (one) return;
        }
    };

    std::vector<char> active(n, 1);
    std::vector<VifDevicePicture> pics(n);
    std::vector<const VifDevicePicture *> ptrs;
    for (uint64_t frames = 0;; ++frames) {
        if (std::none_of(active.begin(), active.end(), [](char a) { return a != 0; })) break;
        Submitted x;
        VifDevicePicture rp{};
        uint64_t index = 0;
        auto waiting = Clock::now();
        try {
            if (!rs.next(&rp, &x.ref, &index)) {
                // The reference ended: a rung with a frame more says so, as on the host path.
                for (size_t k = 0; k < n; ++k) {
                    if (!active[k]) continue;
                    Held h;
                    VifDevicePicture p{};
                    try {
                        if (ds[k]->next(&p, &h, &index)) {
                            res.short_input[k] = "reference";
                            res.short_frames[k] = frames;
                        }
                    } catch (const std::exception &) {
                        // (its frames past the reference's are not scored)
                    }
                    ds[k]->release(&h);
                }
                break;
            }
            rs.finish(&rp, &x.ref);
        } catch (...) {
            rs.release(&x.ref);
            throw;
        }
        ptrs.clear();
        for (size_t k = 0; k < n; ++k) {
            if (!active[k]) continue;
            Held h;
            try {
                if (!ds[k]->next(&pics[k], &h, &index)) {
                    active[k] = 0; // shorter than the reference: its common frames
                    res.short_input[k] = "distorted";
                    res.short_frames[k] = frames;
                    continue;
                }
                ds[k]->finish(&pics[k], &h);
            } catch (const std::exception &e) {
                ds[k]->release(&h);
                active[k] = 0;
                res.error[k] = e.what();
                continue;
            }
            x.rungs.emplace_back(k, h);
            ptrs.push_back(&pics[k]);
        }
        res.input_wait_seconds += std::chrono::duration<double>(Clock::now() - waiting).count();
        if (ptrs.empty()) {
            give_back(x);
            break;
        }
        for (;;) {
            const VifStatus st =
                vif_cuda_submit_multi(ctx, &rp, ptrs.data(), ptrs.size(), stream, nullptr);
            if (st == VIF_OK) break;
            if (st != VIF_AGAIN || owners.empty()) {
                give_back(x);
                throw std::runtime_error(std::string("scoring failed: ") + vif_last_error());
            }
            receive(true, true); // the queue is full of scores waiting: take the oldest
        }
        if (pending.size() == kInFlight) retire_one();
        x.done = events[next_event++ % kInFlight];
        check(cudaEventRecord(x.done, stream), "cudaEventRecord");
        for (const auto &[k, h] : x.rungs) owners.push_back(k);
        pending.push_back(std::move(x));
        // Give back whatever VIF has finished reading.
        while (!pending.empty() && cudaEventQuery(pending.front().done) == cudaSuccess)
            retire_one();
        ++res.submitted;
        receive(false, false);
    }
    while (!pending.empty()) retire_one();
    receive(true, false);
    return res;
}

} // namespace vifcli
