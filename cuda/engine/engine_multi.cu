// One reference against K distorted pictures on the device (Engine::enqueue_multi): the
// ladder kernels of int_multi_kernels.cuh, their tile shapes and the buffers they need (the
// reference's and every rung's images of scales 1-3, per-rung accumulators), allocated on first
// use and grown with the largest count seen.
#include <algorithm>
#include <string>

#include "engine/cuda_check.hpp"
#include "engine/engine.hpp"
#include "kernels/int_multi_kernels.cuh"
#include "kernels/tile_policy.hpp"

namespace vif::cuda {

namespace {

// Tile shapes (IntTile, tile_policy.hpp), measured on the H200 (docs/journal/2026-11-25-performance.md, "Ladders
// and batches"): scale 0 48x16/v2h3 (the pair's "0"; for a 6-rung ladder its scale-0 launch took
// 237.6 us at 1080p and 882.5 at 2160p against 261.0 and 930.5 with the pair's large-frame choice
// 64x16/v4h4, which CudaOptions::ladder_shape0 = 1 still selects at 8 bits), scale 1 56x16 and
// scales 2+3 60x16+62x8 (the pair's "1" and "23b"). At 8 bits scale 0 runs its vertical passes
// (the reference's once, each rung's y, y*y and x*y) on the integer tensor cores, the pair's "0t"
// tile, with two barriers a rung (MultiLean, int_multi_kernels.cuh): 1080p ladder of 6 on the
// H100 298-303 us against 323-330 with the CUDA-core rung loop (docs/journal/2026-11-25-performance.md, "H100, the
// ladder's rung loop on the tensor cores"). Without the tensor cores (the sm_75 rules,
// kernel_table.hpp) 8-bit scale 0 runs on CUDA cores with two barriers a rung, the fastest
// CUDA-core ladder of that H100 run (317.6 us against 323.6 with four). CudaOptions::ladder_shape0
// selects the others.
// Every shape comes with two statistics (WithStat below, CudaOptions::ladder_stat_packed).
using Multi0 = IntTile<48, 16, 256, 2, 3, 4>;
using Multi0Wide = IntTile<64, 16, 256, 4, 4, 3>;
using Multi0t = IntTile<48, 16, 256, 2, 3, 4, false, true>;
using Multi0tLean = MultiLean<Multi0t>;
using Multi0Lean = MultiLean<Multi0>;
using Multi1 = IntTile<56, 16, 256, 4, 4, 3>;
using Multi23_2 = IntTile<60, 16, 256, 4, 4, 2>;
using Multi23_3 = IntTile<62, 8, 256, 2, 2, 2>;
// The pair's large-frame statistic (CudaOptions::ladder_stat_packed; the pair's 0tp, 0p, 1p and
// 23bp: exact conversions, the branch-free division, the packed log table in shared memory;
// docs/cuda.md "The per-pixel statistic"), and any shape above with statistic flags St instead
// of its own: WithStat<P, St>.
constexpr unsigned kStatP = stat_mode::kNumerics | stat_mode::kLogPacked;
template <class P, unsigned St>
struct WithStatOf;
template <int TW, int TH, int NT, int VR, int HC, int MB, bool ILP, bool VM, bool HM, unsigned S,
          unsigned St>
struct WithStatOf<IntTile<TW, TH, NT, VR, HC, MB, ILP, VM, HM, S>, St> {
    using type = IntTile<TW, TH, NT, VR, HC, MB, ILP, VM, HM, St>;
};
template <class B, unsigned St>
struct WithStatOf<MultiLean<B>, St> {
    using type = MultiLean<typename WithStatOf<B, St>::type>;
};
template <class P, unsigned St>
using WithStat = typename WithStatOf<P, St>::type;

int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

template <int S, int BPC, class P>
KernelLaunch multi_launch(int w, int h) {
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&int_multi_kernel<S, BPC, P>);
    k.grid = dim3(ceil_div(w, P::kTileW), ceil_div(h, P::kTileH));
    k.block = dim3(P::kThreads);
    k.smem = IntSmemLayout<S, P>::kBytes;
    k.name = "int_multi_s" + std::to_string(S);
    k.tensor_cores = P::kVertMma;
    return k;
}

// Scale 0 per bit depth (its samples' type and shifts differ); `shape`: CudaOptions::
// ladder_shape0 at 8 bits (0 the rules' choice: tensor cores, two barriers a rung, or where the
// rules have no tensor cores (`tensor` false) CUDA cores, two barriers a rung; 1 64x16; 2 48x16
// on CUDA cores, as at the other depths; 3 tensor cores, four barriers a rung; 4 CUDA cores, two
// barriers a rung).
template <unsigned St>
KernelLaunch multi_launch0(int bpc, int w, int h, int shape, bool tensor) {
    switch (bpc) {
    case 8:
        switch (shape) {
#if VIF_BUILD_TUNING
        case 1:
            return multi_launch<0, 8, WithStat<Multi0Wide, St>>(w, h);
        case 2:
            return multi_launch<0, 8, WithStat<Multi0, St>>(w, h);
        case 3:
            return multi_launch<0, 8, WithStat<Multi0t, St>>(w, h);
        case 4:
            return multi_launch<0, 8, WithStat<Multi0Lean, St>>(w, h);
#endif
        default:
            (void)shape;
            if (!tensor) return multi_launch<0, 8, WithStat<Multi0Lean, St>>(w, h);
            return multi_launch<0, 8, WithStat<Multi0tLean, St>>(w, h);
        }
    case 10:
        return multi_launch<0, 10, WithStat<Multi0, St>>(w, h);
    case 12:
        return multi_launch<0, 12, WithStat<Multi0, St>>(w, h);
    default:
        return multi_launch<0, 16, WithStat<Multi0, St>>(w, h);
    }
}

template <class P2, class P3>
KernelLaunch multi_launch23_t(int w2, int h2) {
    KernelLaunch k;
    k.fused_grid2_x = ceil_div(w2, P2::kTileW);
    k.fused_grid3_x = ceil_div(w2 / 2, P3::kTileW);
    k.fused_blocks2 = k.fused_grid2_x * ceil_div(h2, P2::kTileH);
    k.func = reinterpret_cast<const void*>(&int_multi23_kernel<P2, P3>);
    k.grid = dim3(k.fused_blocks2 + k.fused_grid3_x * ceil_div(h2 / 2, P3::kTileH));
    k.block = dim3(P2::kThreads);
    k.smem = std::max(IntSmemLayout<2, P2>::kBytes, IntSmemLayout<3, P3>::kBytes);
    k.name = "int_multi_s23";
    return k;
}

// A ladder's three launches (scale 0, scale 1, scales 2+3) with statistic flags St.
template <unsigned St>
void multi_launches(int bpc, int w, int h, int shape0, bool tensor, KernelLaunch* out) {
    out[0] = multi_launch0<St>(bpc, w, h, shape0, tensor);
    out[1] = multi_launch<1, 16, WithStat<Multi1, St>>(w >> 1, h >> 1);
    out[2] = multi_launch23_t<WithStat<Multi23_2, St>, WithStat<Multi23_3, St>>(w >> 2, h >> 2);
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
        VIF_CUDA_TRY(cudaMemset(m.acc, 0, sizeof(unsigned long long) * 16 * count));
        VIF_CUDA_TRY(cudaMemset(m.counter, 0, sizeof(unsigned int)));
        m.rungs = count;
    }
    if (w != m.plan_w || h != m.plan_h) {
        const bool tensor = arch_has_tensor_cores(arch_); // the rules' choice for shape 0
#if VIF_BUILD_TUNING
        if (params_.cuda.ladder_stat_packed)
            multi_launches<kStatP>(bpc, w, h, params_.cuda.ladder_shape0, tensor, m.launches);
        else
            multi_launches<0>(bpc, w, h, params_.cuda.ladder_shape0, tensor, m.launches);
#else
        // The other shapes and the plain statistic are tuning candidates (cuda/tuning/README.md).
        if (!params_.cuda.ladder_stat_packed || params_.cuda.ladder_shape0 != 0)
            return Status{VIF_ERROR_INVALID_ARGUMENT,
                          "CUDA: ladder kernel shape " +
                              std::to_string(params_.cuda.ladder_shape0) +
                              (params_.cuda.ladder_stat_packed ? "" : " with the plain statistic") +
                              " is a tuning candidate: build with -DVIF_BUILD_TUNING=ON"};
        multi_launches<kStatP>(bpc, w, h, 0, tensor, m.launches);
#endif
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
