// The CUDA backend: a ring of frame slots (pinned staging, device input, events) around the
// Engine, so that the copies of frame N+1 overlap the kernels of frame N.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "engine/cuda_options.hpp"
#include "engine/engine.hpp"

namespace vif::cuda {

class CopyPool;

// VIF_ERROR_NO_DEVICE with the reason when there is no usable GPU or no device `device`.
Status check_device(int device);

// A run of rows for the staging copy.
struct CopyChunk {
    unsigned char* dst;
    const unsigned char* src;
    ptrdiff_t stride; // source
    size_t row_bytes;
    uint32_t rows;
    size_t dst_pitch;
    int plane; // 0 reference, 1 distorted: whose OR of words the chunk adds to
};

// Row pitch of the backend's own copies of the input planes: a multiple of 16 bytes, so that
// the kernels' vector loads of the tile rows are aligned whatever the width.
inline size_t staging_pitch(size_t row_bytes) {
    return (row_bytes + 15) / 16 * 16;
}

class CudaBackend final : public Backend {
public:
    static std::unique_ptr<CudaBackend> create(const CudaParams& params, Status* err);
    ~CudaBackend() override;

    const char* name() const override { return "cuda"; }
    Status submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) override;
    // Integer ladders: the reference is staged and copied once and its work done once per
    // scale (Engine::enqueue_multi); each pair still takes a slot (its result and done event), so
    // the queue rule is the fallback's. Float ladders use the fallback (pairs one by one).
    Status submit_multi(const HostPlane& ref, const HostPlane* dists, size_t count,
                        uint64_t first_index) override;
    Status receive(FrameRaw* out, bool block) override;
    // Every submitted frame not yet received holds a slot until vif_receive takes its scores:
    // with all slots held, submit returns VIF_AGAIN (the rule of vif.h), so memory is bounded.
    size_t pending() const override { return in_flight_; }
    size_t capacity() const override { return slots_.size(); }

    // Pictures already on the device (vif_cuda.h). They are copied (device to device, on the
    // copy stream) into the slot's buffers after what `stream` has queued so far; `stream`
    // continues once that copy is done, so the caller can reuse its surfaces early.
    Status submit_device(const DevPlane& ref, const DevPlane& dist, int width, int height,
                         cudaStream_t stream, uint64_t index);
    // A ladder already on the device (vif_cuda_submit_multi): the reference copied once and, for
    // the integer variant, its work done once per scale (Engine::enqueue_multi), as
    // submit_multi; float rungs go as pairs. Each pair takes a slot; fewer than `count` free
    // slots is VIF_AGAIN with nothing queued.
    Status submit_device_multi(const DevPlane& ref, const DevPlane* dists, size_t count, int width,
                               int height, cudaStream_t stream, uint64_t first_index);

    int device() const { return device_; }

private:
    CudaBackend() = default;
    struct Slot {
        void* h_ref = nullptr; // pinned staging
        void* h_dis = nullptr;
        void* d_ref = nullptr; // device copies
        void* d_dis = nullptr;
        cudaEvent_t ready = nullptr;   // inputs are in d_ref/d_dis
        cudaEvent_t caller = nullptr;  // device submissions: the caller's stream reached us
        cudaEvent_t done = nullptr;    // results written
        DeviceResult* h_out = nullptr; // mapped pinned
        DeviceResult* d_out = nullptr;
        unsigned* h_or = nullptr;       // mapped pinned: OR of the words of [ref, dist]
        unsigned* d_or = nullptr;       //   (device pictures of 10/12 bits only)
        bool check_or = false;          // h_or holds this frame's ORs
        uint32_t width = 0, height = 0; // this frame's size (to locate a bad sample)
        uint64_t index = 0;
        DevPlane batch_ref, batch_dis; // while held for a batch: its device planes
        DeviceMaps maps;               // Params::maps: this frame's per-pixel terms
        bool from_device = false;      // submitted with vif_cuda_submit: maps stay on the device
    };

    Status init(const CudaParams& params);
    Status acquire_slot(Slot** slot); // VIF_AGAIN when every slot holds an unreceived frame
    // Whether a ladder of `count` pairs (a slot each) can be queued now: not after a failure,
    // never more pairs than slots, VIF_AGAIN without the room. on_device: for
    // vif_cuda_submit_multi (the message names the call).
    // Callers test .status: Status's bool is false for VIF_AGAIN.
    Status ladder_room(size_t count, bool on_device) const;
    Status harvest_oldest(FrameRaw* out, bool block); // takes the oldest frame's result
    Status locate_sample_above(const Slot& s); // names the first bad sample of a device frame
    // Params::maps: allocates the slot's per-pixel buffers (and received_maps_); hands a received
    // frame's maps to the caller: host copies, or (from_device) a device copy that stays valid
    // until the next receive (a free slot's buffers may be overwritten by the next submit).
    Status alloc_maps(DeviceMaps* m);
    Status take_maps(const Slot& s, FrameRaw* out);
    // Copies one host plane into pinned staging (pitch `pitch`) on the copy pool; returns the
    // OR of its 16-bit words when `check` (sample_range.hpp), else 0. Used by submit_multi.
    uint32_t stage_plane(void* dst, const HostPlane& p, size_t pitch, bool check);
    Status device_guard() const;
    Status failed(Status e);

    // Batching of small integer frames (CudaOptions::batch_frames, int_batch_frames): a staged
    // frame is either enqueued at once or held, and the held frames go to the engine as one
    // batch (Engine::enqueue_batch) when the batch is full, when the GPU's backlog has drained
    // (auto: fewer than two launch units of this context queued or running), when a receive
    // needs the oldest of them, or before a frame that cannot join them. Any other path that
    // enqueues on compute_stream_ calls flush_held() first and enqueued() after.
    int batch_target(int w, int h) const;
    Status enqueue_or_hold(Slot* s, const DevPlane& ref, const DevPlane& dis, int w, int h);
    Status flush_held();
    bool gpu_backlog() const;
    void enqueued(Slot* newest); // a launch unit ending with `newest`'s frame was enqueued

    CudaParams params_;
    int device_ = 0;
    bool broken_ = false;
    size_t row_bytes_max_ = 0;
    std::unique_ptr<Engine> engine_;
    cudaStream_t copy_stream_ = nullptr;
    cudaStream_t compute_stream_ = nullptr;
    std::vector<Slot> slots_;
    size_t head_ = 0;      // oldest in-flight slot
    size_t in_flight_ = 0; // submitted, not yet received
    std::vector<void*> host_allocs_;
    std::vector<void*> dev_allocs_;
    std::unique_ptr<CopyPool> copy_pool_;
    std::vector<CopyChunk> chunks_;
    std::vector<Slot*> held_;  // staged, not yet given to the engine (the newest in flight)
    DeviceMaps received_maps_; // maps of the last received device frame (Params::maps)
    cudaStream_t maps_stream_ = nullptr;
    int held_w_ = 0, held_h_ = 0;
    Slot* last_enqueued_ = nullptr; // the last frame of the newest launch unit
    Slot* prev_enqueued_ = nullptr; // ... and of the one before it
};

} // namespace vif::cuda
