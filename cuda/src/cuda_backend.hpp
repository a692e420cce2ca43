// The CUDA backend: a ring of frame slots (pinned staging, device input, events) around the
// Engine, so that the copies of frame N+1 overlap the kernels of frame N.
#pragma once

#include <cuda_runtime_api.h>

#include <deque>
#include <memory>
#include <vector>

#include "backend.hpp"
#include "engine.hpp"

namespace vif::cuda {

class CopyPool;

// VIF_ERROR_NO_DEVICE with the reason when there is no usable GPU or no device `device`.
Error check_device(int device);

// A run of rows for the staging copy.
struct CopyChunk {
    unsigned char* dst;
    const unsigned char* src;
    ptrdiff_t stride;      // source
    size_t row_bytes;
    uint32_t rows;
    size_t dst_pitch;
};

// Row pitch of the backend's own copies of the input planes: a multiple of 16 bytes, so that
// the kernels' vector loads of the tile rows are aligned whatever the width.
inline size_t staging_pitch(size_t row_bytes) { return (row_bytes + 15) / 16 * 16; }

class CudaBackend final : public Backend {
public:
    static std::unique_ptr<CudaBackend> create(const Params& params, Error* err);
    ~CudaBackend() override;

    const char* name() const override { return "cuda"; }
    Error submit(const HostPlane& ref, const HostPlane& dist, uint64_t index) override;
    Error receive(FrameRaw* out, bool block) override;
    size_t pending() const override { return in_flight_ + ready_.size(); }

    // Pictures already on the device (vif_cuda.h). They are copied (device to device, on the
    // copy stream) into the slot's buffers after what `stream` has queued so far; `stream`
    // continues once that copy is done, so the caller can reuse its surfaces early.
    Error submit_device(const DevPlane& ref, const DevPlane& dist, int width, int height,
                        cudaStream_t stream, uint64_t index);

    int device() const { return device_; }

private:
    CudaBackend() = default;
    struct Slot {
        void* h_ref = nullptr;  // pinned staging
        void* h_dis = nullptr;
        void* d_ref = nullptr;  // device copies
        void* d_dis = nullptr;
        cudaEvent_t ready = nullptr;     // inputs are in d_ref/d_dis
        cudaEvent_t caller = nullptr;    // device submissions: the caller's stream reached us
        cudaEvent_t done = nullptr;      // results written
        DeviceResult* h_out = nullptr;   // mapped pinned
        DeviceResult* d_out = nullptr;
        uint64_t index = 0;
    };

    Error init(const Params& params);
    Error acquire_slot(Slot** slot);     // blocks only when every slot is in flight
    Error harvest_oldest(bool block);    // moves the oldest in-flight result to ready_
    Error device_guard() const;
    Error failed(Error e);

    Params params_;
    int device_ = 0;
    bool sync_debug_ = false;
    bool broken_ = false;
    size_t row_bytes_max_ = 0;
    std::unique_ptr<Engine> engine_;
    cudaStream_t copy_stream_ = nullptr;
    cudaStream_t compute_stream_ = nullptr;
    std::vector<Slot> slots_;
    size_t head_ = 0;       // oldest in-flight slot
    size_t in_flight_ = 0;
    std::deque<FrameRaw> ready_;
    std::vector<void*> host_allocs_;
    std::vector<void*> dev_allocs_;
    std::unique_ptr<CopyPool> copy_pool_;
    std::vector<CopyChunk> chunks_;
};

}  // namespace vif::cuda
