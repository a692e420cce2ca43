// One reference against K distorted pictures on the device (Engine::enqueue_multi): the
// ladder kernels of int_multi_kernels.cuh as the dispatch table's ladder rows pick them, and the
// buffers they need (the
// reference's and every rung's images of scales 1-3, per-rung accumulators), allocated on first
// use and grown with the largest count seen.
#include <algorithm>
#include <string>

#include "engine/cuda_check.hpp"
#include "engine/engine.hpp"
#include "kernels/int_multi_kernels.cuh"

namespace vif::cuda {

namespace {

// The ladder variant CudaOptions force in launch slot `slot`: at 8 bits ladder_shape0 1 64x16, 2
// 48x16 on CUDA cores with four barriers a rung, 3 tensor cores with four, 4 CUDA cores with two
// (0: the rows' choice); ladder_stat_packed = false: the hardware-log2 form of it, suffix ".h".
// Tuning candidates (tuning/ladder_candidates.cu), except where that is a shipped variant.
std::string forced_ladder_id(const std::string& rows_choice, int slot, int bpc, int shape0,
                             bool packed) {
    static const char* const kShape0[] = {"", "L0w", "L0c", "L0t4", "L0l"};
    std::string id = rows_choice;
    if (slot == 0 && bpc == 8 && shape0 > 0 && shape0 < 5) id = kShape0[shape0];
    return packed ? id : id + ".h";
}

// Rungs per block of a launch of `blocks` tiles. A grid smaller than one wave of the blocks the
// GPU holds at once (`resident`) leaves SMs idle while each block works through every rung, so
// its rungs are split into groups (more blocks, the reference's work repeated per group) up to
// one wave. No further: on the H200 at 1080p, splitting scale 1 (612 blocks, 396 resident) into
// 2 groups and scales 2+3 (204 blocks, 264 resident) into 3, towards 3 waves, cost 1.5 and 3 us
// of the ladder's 360 (docs/journal/2026-11-25-performance.md). Small frames' grouping is not measured.
int rung_groups_rpb(int blocks, int resident, int count, int forced) {
    if (forced > 0) return std::min(forced, count);
    const int groups = std::clamp(resident / std::max(blocks, 1), 1, count);
    return (count + groups - 1) / groups;
}

} // namespace

struct Engine::Multi {
    int rungs = 0;                     // rungs the buffers hold
    void* ref_img[4] = {};             // scales 1..3 (index 0 unused)
    void* dis_img[4] = {};             // scales 1..3: `rungs` images each
    size_t rung_elems[4] = {};         // elements of one rung's image
    int pitch[4] = {};                 // elements
    unsigned long long* acc = nullptr; // [rungs][16], zero between launches
    unsigned int* counter = nullptr;
    int plan_w = -1, plan_h = -1;
    KernelLaunch launches[3];
    int resident[3] = {}; // blocks of each launch the GPU holds at once
    std::vector<void*> allocations;

    void free_all() {
        for (void* p : allocations) cudaFree(p);
        allocations.clear();
    }
};

void Engine::destroy_multi() {
    if (!multi_) return;
    multi_->free_all();
    delete multi_;
    multi_ = nullptr;
}

Status Engine::enqueue_multi(const DevPlane& ref, const DevPlane* dists, int count, int w, int h,
                             DeviceResult* const* outs, cudaStream_t stream,
                             const cudaEvent_t* events) {
    if (params_.variant != VIF_VARIANT_INTEGER)
        return Status{VIF_ERROR_INTERNAL, "CUDA: enqueue_multi is for the integer variant"};
    if (count < 1 || count > kMultiMaxRungs)
        return Status{VIF_ERROR_INTERNAL, "CUDA: enqueue_multi count " + std::to_string(count)};
    for (int k = 1; k < count; ++k)
        if (dists[k].pitch != dists[0].pitch)
            return Status{VIF_ERROR_INTERNAL, "CUDA: enqueue_multi needs one distorted pitch"};
    if (!multi_) multi_ = new Multi();
    Multi& m = *multi_;
    const int bpc = static_cast<int>(params_.bitdepth);

    if (count > m.rungs) {
        // Grow: the old buffers may still be read by queued work.
        VIF_CUDA_TRY(cudaStreamSynchronize(stream));
        m.free_all();
        m.rungs = 0;
        const int W = static_cast<int>(params_.max_width), H = static_cast<int>(params_.max_height);
        auto alloc = [&](void** p, size_t bytes) -> Status {
            VIF_CUDA_TRY(cudaMalloc(p, bytes));
            m.allocations.push_back(*p);
            return {};
        };
        for (int s = 1; s < 4; ++s) {
            const int ws = W >> s, hs = H >> s;
            m.pitch[s] = (ws + 63) / 64 * 64;
            m.rung_elems[s] = size_t(m.pitch[s]) * std::max(hs, 1);
            if (Status e = alloc(&m.ref_img[s], m.rung_elems[s] * sizeof(uint16_t))) return e;
            if (Status e = alloc(&m.dis_img[s], m.rung_elems[s] * sizeof(uint16_t) * count))
                return e;
        }
        if (Status e =
                alloc(reinterpret_cast<void**>(&m.acc), sizeof(unsigned long long) * 16 * count))
            return e;
        if (Status e = alloc(reinterpret_cast<void**>(&m.counter), sizeof(unsigned int))) return e;
        // Zeroed on the kernels' own stream: cudaMemset goes to the legacy default stream, which
        // a non-blocking stream (the backend's) does not wait for, and returns before it is done,
        // so the first ladder's kernels could add to (and publish) sums not yet zeroed.
        VIF_CUDA_TRY(cudaMemsetAsync(m.acc, 0, sizeof(unsigned long long) * 16 * count, stream));
        VIF_CUDA_TRY(cudaMemsetAsync(m.counter, 0, sizeof(unsigned int), stream));
        m.rungs = count;
    }
    if (w != m.plan_w || h != m.plan_h) {
        // The other shapes and the plain statistic are tuning candidates (cuda/tuning/README.md).
        auto ladder_candidate_refusal = [&] {
            return "CUDA: ladder kernel shape " + std::to_string(params_.cuda.ladder_shape0) +
                   (params_.cuda.ladder_stat_packed ? "" : " with the plain statistic") +
                   " is a tuning candidate: build with -DVIF_BUILD_TUNING=ON";
        };
        // The dispatch table's ladder rows (kernel_table.cu), unless the options force others.
        const bool forced = params_.cuda.ladder_shape0 != 0 || !params_.cuda.ladder_stat_packed;
#if !VIF_BUILD_TUNING
        if (forced) // a shipped build carries only what the rows pick
            return Status{VIF_ERROR_INVALID_ARGUMENT, ladder_candidate_refusal()};
#endif
        const int slots[3] = {0, 1, kFusedSlot};
        for (int i = 0; i < 3; ++i) {
            const int slot = slots[i], scale = i == 2 ? 2 : i;
            int v = ladder_select(arch_, slot, bpc, w >> scale, h >> scale);
            if (forced && v >= 0)
                v = ladder_variant_index(slot, forced_ladder_id(ladder_variants(slot)[v].id, slot,
                                                                bpc, params_.cuda.ladder_shape0,
                                                                params_.cuda.ladder_stat_packed));
            if (v < 0) return Status{VIF_ERROR_INVALID_ARGUMENT, ladder_candidate_refusal()};
            m.launches[i] = ladder_variants(slot)[v].launch(bpc, w >> scale, h >> scale);
        }
        if (!tensor_cores_)
            for (const KernelLaunch& k : m.launches)
                if (k.tensor_cores)
                    return Status{VIF_ERROR_UNSUPPORTED,
                                  "CUDA: ladder kernel shape " +
                                      std::to_string(params_.cuda.ladder_shape0) +
                                      " uses the sm_80 tensor cores, which this device or build "
                                      "lacks (" +
                                      no_tensor_cores_why() + ")"};
        int dev = 0, optin = 0, sms = 0;
        VIF_CUDA_TRY(cudaGetDevice(&dev));
        VIF_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        VIF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        for (int i = 0; i < 3; ++i) {
            const KernelLaunch& k = m.launches[i];
            if (k.smem > static_cast<size_t>(optin))
                return Status{VIF_ERROR_UNSUPPORTED, "CUDA: kernel " + k.name + " needs " +
                                                         std::to_string(k.smem) +
                                                         " bytes of shared memory; the device "
                                                         "allows " +
                                                         std::to_string(optin)};
            VIF_CUDA_TRY(cudaFuncSetAttribute(k.func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(k.smem)));
            int per_sm = 0;
            VIF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, k.func, static_cast<int>(k.block.x), k.smem));
            m.resident[i] = std::max(1, per_sm * sms);
        }
        m.plan_w = w;
        m.plan_h = h;
    }

    const LogLookup log = log_args();
    IntMultiArgs args[4];
    for (int s = 0; s < 4; ++s) {
        IntMultiArgs& a = args[s];
        a = IntMultiArgs{};
        a.rungs = count;
        a.w = w >> s;
        a.h = h >> s;
        if (s == 0) {
            a.ref = ref.data;
            a.ref_pitch = ref.pitch;
            a.ref_shift = ref.shift;
            a.dis_pitch = dists[0].pitch;
            for (int k = 0; k < count; ++k) {
                a.dis[k] = dists[k].data;
                a.dis_shift[k] = static_cast<unsigned char>(dists[k].shift);
            }
        } else {
            a.ref = m.ref_img[s];
            a.ref_pitch = ptrdiff_t(m.pitch[s]) * sizeof(uint16_t);
            a.dis_pitch = a.ref_pitch;
            for (int k = 0; k < count; ++k)
                a.dis[k] = static_cast<uint16_t*>(m.dis_img[s]) + k * m.rung_elems[s];
        }
        if (s < 3) {
            a.next_ref = static_cast<uint16_t*>(m.ref_img[s + 1]);
            a.next_dis = static_cast<uint16_t*>(m.dis_img[s + 1]);
            a.next_rung_elems = m.rung_elems[s + 1];
            a.next_pitch = m.pitch[s + 1];
        }
        a.log = log; // the table, and its two-level forms for kStatP's shared copy
        a.acc = m.acc;
        a.done_counter = m.counter;
        for (int k = 0; k < count; ++k) a.out[k] = outs[k]->acc;
        a.gain_limit = params_.gain_limit;
    }
    // Scale 3 tiles derive their samples from the scale-2 images.
    IntMultiArgs& a3 = args[3];
    a3.ref = args[2].ref;
    a3.ref_pitch = args[2].ref_pitch;
    a3.dis_pitch = args[2].dis_pitch;
    for (int k = 0; k < count; ++k) a3.dis[k] = args[2].dis[k];
    a3.src_w = args[2].w;
    a3.src_h = args[2].h;

    // Rung groups per launch (scales 2 and 3 share theirs).
    int rpb[3];
    for (int i = 0; i < 3; ++i) {
        const KernelLaunch& k = m.launches[i];
        rpb[i] = rung_groups_rpb(static_cast<int>(k.grid.x * k.grid.y), m.resident[i], count,
                                 params_.cuda.ladder_rungs_per_block[i]);
    }
    args[0].rungs_per_block = rpb[0];
    args[1].rungs_per_block = rpb[1];
    args[2].rungs_per_block = rpb[2];
    a3.rungs_per_block = rpb[2];
    auto groups = [&](int i) { return static_cast<unsigned>((count + rpb[i] - 1) / rpb[i]); };
    auto launch = [&](int i, void** kargs) -> Status {
        const KernelLaunch& k = m.launches[i];
        dim3 grid = k.grid;
        if (i < 2)
            grid.z = groups(i);
        else
            grid.y = groups(i);
        if (events) VIF_CUDA_TRY(cudaEventRecord(events[i], stream));
        VIF_CUDA_TRY(cudaLaunchKernel(k.func, grid, k.block, kargs, k.smem, stream));
        if (params_.cuda.sync_each_launch) VIF_CUDA_TRY(cudaStreamSynchronize(stream));
        return {};
    };
    for (int s = 0; s < 2; ++s) {
        void* kargs[] = {&args[s]};
        if (Status e = launch(s, kargs)) return e;
    }
    const KernelLaunch& k = m.launches[2];
    int blocks2 = k.fused_blocks2, g2x = k.fused_grid2_x, g3x = k.fused_grid3_x;
    void* kargs[] = {&args[2], &a3, &blocks2, &g2x, &g3x};
    if (Status e = launch(2, kargs)) return e;
    if (events) VIF_CUDA_TRY(cudaEventRecord(events[3], stream));
    return {};
}

} // namespace vif::cuda
