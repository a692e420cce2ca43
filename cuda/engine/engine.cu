// The device pipeline of one frame: buffers, the launch plan (integer kernels from the kernel
// table, kernel_table.cu; the float path's kernel sets here), CUDA graphs.
#include "engine/engine.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/cuda_check.hpp"
#include "kernels/float_kernels.cuh"
#include "kernels/int_kernels.cuh"
#include "kernels/tile_policy.hpp"
#include "core/vif_constants.hpp"

namespace vif::cuda {

namespace {

std::string tile_shape(int tw, int th, int threads) {
    return std::to_string(tw) + "x" + std::to_string(th) + "/" + std::to_string(threads) + "t";
}

int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

// T[i] as the kernels compute it (log_t), for every i of the table.
__global__ void __launch_bounds__(256) log_lookup_kernel(LogLookup lk, uint16_t* out) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < static_cast<uint32_t>(kLogTableSize))
        out[i] = static_cast<uint16_t>(log_t(lk, static_cast<uint32_t>(kLogTableFirst) + i));
}

// T[i] from a two-level table staged in shared memory exactly as the kernels stage it
// (stat_mode::kLogTable2 / kLogPacked), for every i of the table.
template <class Table>
__global__ void __launch_bounds__(256) shared_log_kernel(const uint4* src, uint16_t* out) {
    __shared__ __align__(16) unsigned char s[sizeof(Table)];
    Table* t = reinterpret_cast<Table*>(s);
    stage_log_table<256>(src, t);
    __syncthreads();
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < static_cast<uint32_t>(kLogTableSize))
        out[i] =
            static_cast<uint16_t>(SharedLog<Table>{t}(static_cast<uint32_t>(kLogTableFirst) + i));
}

// The margin log_t uses around rounding boundaries: 2^-8 in units of T, where the hardware log2's
// error (about 2^-22 absolute, 2^-11 in units of T) plus fl32's own rounding (2^-10) stay well
// inside it, so under 1% of lookups read the table.
constexpr float kLogEps = 1.0f / 256.0f;

// ---- Float kernels -----------------------------------------------------------------------------
template <int S, int BPC>
KernelLaunch float_launch(int w, int h, int radius) {
    using P = policy::Float;
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&float_scale_kernel<S, BPC, P>);
    k.grid = dim3(ceil_div(w, P::kTileW), ceil_div(h, P::kTileH));
    k.block = dim3(P::kThreads);
    k.smem = float_smem_floats<P>(radius) * sizeof(float);
    k.name = "float_s" + std::to_string(S) + (S == 0 ? "_" + std::to_string(BPC) + "b" : "");
    k.shape = tile_shape(P::kTileW, P::kTileH, P::kThreads);
    return k;
}

KernelLaunch select_float(int s, int bpc, int w, int h, int radius) {
    switch (s) {
    case 0:
        switch (bpc) {
        case 8:
            return float_launch<0, 8>(w, h, radius);
        case 10:
            return float_launch<0, 10>(w, h, radius);
        case 12:
            return float_launch<0, 12>(w, h, radius);
        default:
            return float_launch<0, 16>(w, h, radius);
        }
    case 1:
        return float_launch<1, 16>(w, h, radius);
    case 2:
        return float_launch<2, 16>(w, h, radius);
    default:
        return float_launch<3, 16>(w, h, radius);
    }
}

// The specialised kernels (default widths: scale s has (1 << (4 - s)) + 1 taps, its next scale's
// filter half that plus one). P0: scale 0's tile, P: the tile of scales 1-3.
template <int S, int BPC, class P>
KernelLaunch float_spec_launch(int w, int h) {
    constexpr int N = (1 << (4 - S)) + 1, ND = S < 3 ? (1 << (3 - S)) + 1 : 1;
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&float_scale_spec_kernel<S, BPC, N, ND, P>);
    k.grid = dim3(ceil_div(w, P::kTileW), ceil_div(h, P::kTileH));
    k.block = dim3(P::kThreads);
    k.smem = float_spec_smem_floats<P, N>() * sizeof(float);
    k.name = "float_s" + std::to_string(S) + (S == 0 ? "_" + std::to_string(BPC) + "b" : "");
    k.shape = tile_shape(P::kTileW, P::kTileH, P::kThreads) + "/v" + std::to_string(P::kVertRows) +
              "h4/" + std::to_string(N) + "taps";
    return k;
}

template <class P0, class P>
KernelLaunch select_float_spec(int s, int bpc, int w, int h) {
    switch (s) {
    case 0:
        switch (bpc) {
        case 8:
            return float_spec_launch<0, 8, P0>(w, h);
        case 10:
            return float_spec_launch<0, 10, P0>(w, h);
        case 12:
            return float_spec_launch<0, 12, P0>(w, h);
        default:
            return float_spec_launch<0, 16, P0>(w, h);
        }
    case 1:
        return float_spec_launch<1, 16, P>(w, h);
    case 2:
        return float_spec_launch<2, 16, P>(w, h);
    default:
        return float_spec_launch<3, 16, P>(w, h);
    }
}

// The float kernel sets (CudaOptions::float_kernels); which one the engine picks by itself:
// float_auto_set.
using FloatSetLaunch = KernelLaunch (*)(int s, int bpc, int w, int h, int radius);
struct FloatSet {
    FloatVariant v;
    FloatSetLaunch launch;
};
template <class P0, class P>
KernelLaunch float_set(int s, int bpc, int w, int h, int) {
    return select_float_spec<P0, P>(s, bpc, w, h);
}
const std::vector<FloatSet>& float_sets() {
    using namespace policy;
    static const std::vector<FloatSet> sets = {
        {{"generic", "any width, 32x16/256t"}, &select_float},
        {{"s32", "32x16/v4h4, scales 1-3 32x16"}, &float_set<FloatSpec32, FloatSpec32>},
        {{"s64", "64x16/v4h4, scales 1-3 32x16"}, &float_set<FloatSpec64, FloatSpec32>},
#if VIF_BUILD_TUNING // candidates no rule picks (cuda/tuning/README.md)
        {{"s32x32", "32x32/v8h4, scales 1-3 32x16"}, &float_set<FloatSpec32x32, FloatSpec32>},
        {{"s32o", "32x16/v4h4 <= 51 registers, scales 1-3 the same"},
         &float_set<FloatSpec32Occ, FloatSpec32Occ>},
#endif
    };
    return sets;
}

// The set picked when none is forced: the generic kernels unless the widths are the default
// ones; then the dispatch table's float rule for the frame size (dispatch/kernel_table.cu).
int float_auto_set(Arch a, bool default_widths, int w, int h) {
    if (!default_widths) return 0;
    return float_variant_index(float_select(a, w, h));
}

// Whether the filter widths of kernelscale ks are those the specialised kernels are built for.
bool default_float_widths(float ks) {
    for (int s = 0; s < kNumScales; ++s)
        if (float_filter_width(s, ks) != (1 << (4 - s)) + 1) return false;
    return true;
}

KernelLaunch row_sum_launch(int groups) {
    constexpr int kW = policy::kRowSumWarps;
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&float_row_sum_kernel<kW>);
    k.grid = dim3(groups); // one block per 32-row group
    k.block = dim3(kW * 32);
    k.smem = kRowSumSmemBytes;
    k.name = "float_row_sums";
    k.shape = std::to_string(kW * 32) + "t";
    return k;
}

KernelLaunch final_launch() {
    KernelLaunch k;
    k.func = reinterpret_cast<const void*>(&float_final_kernel);
    k.grid = dim3(1);
    k.block = dim3(128);
    k.name = "float_final";
    k.shape = "128t";
    return k;
}

// The scale-3 arguments of the fused scales 2+3 launch: its tiles read the scale-2 images (of
// each of the `frames` frames of a batched launch) and derive their samples from them.
IntScaleArgs fused_scale3_args(const IntScaleArgs& s2, IntScaleArgs s3, int frames) {
    s3.ref = s2.ref;
    s3.dis = s2.dis;
    s3.ref_pitch = s2.ref_pitch;
    s3.dis_pitch = s2.dis_pitch;
    s3.src_w = s2.w;
    s3.src_h = s2.h;
    for (int z = 0; z < frames; ++z) {
        s3.batch.ref[z] = s2.batch.ref[z];
        s3.batch.dis[z] = s2.batch.dis[z];
    }
    return s3;
}

} // namespace

struct Engine::Impl {
    uint16_t* log_table = nullptr;
    // The two-level forms of T (pixel_math.hpp), each checked entry by entry at create.
    pixel::LogTable2* log_table2 = nullptr;
    pixel::LogTablePacked* log_packed = nullptr;
    float log_eps = 1.0f;              // see verify_log_lookup
    unsigned long long* acc = nullptr; // [kMaxBatch frames][16]: frame z of a batch at 16 z
    unsigned int* counter = nullptr;   // [kMaxBatch]
    // Scale images 1..3 (index 0 unused), ref and dist.
    void* img[2][4] = {};
    // Batched launches: frame z >= 1's scale images (frame 0 uses img), allocated on first use
    // for the largest frame; batch_sets of them exist (1 = none beyond img).
    void* batch_img[kMaxBatch][2][4] = {};
    int batch_sets = 1;
    int img_pitch[4] = {}; // elements
    // Float path.
    float* num[4] = {};
    float* den[4] = {};
    int pix_pitch[4] = {};
    float* row_num = nullptr;
    float* row_den = nullptr;
    int row_offset[4] = {};
    FloatTaps taps[4];
    int float_forced = CudaOptions::kAuto; // index into float_sets(), or float_auto_set's
    bool float_default_widths = false;
    std::vector<void*> allocations;
    // Launches of the last frame size (frames rarely change size; no allocation per frame).
    int plan_w = -1, plan_h = -1;
    std::vector<KernelLaunch> plan;
    // One executable graph per distinct (inputs, size, output): the backend feeds each slot's
    // fixed buffers, so there is one graph per slot; least recently used ones are replaced.
    struct GraphEntry {
        const void* ref;
        const void* dis;
        ptrdiff_t ref_pitch, dis_pitch;
        int ref_shift, dis_shift, w, h;
        DeviceResult* out;
        cudaGraphExec_t exec;
        uint64_t last_use;
    };
    std::vector<GraphEntry> graphs;
    uint64_t graph_clock = 0;

    Status alloc(void** p, size_t bytes) {
        VIF_CUDA_TRY(cudaMalloc(p, bytes));
        allocations.push_back(*p);
        return {};
    }
    Status alloc_zeroed(void** p, size_t bytes) {
        if (Status x = alloc(p, bytes)) return x;
        // On the default stream, waited for here: the engine's own streams do not order after it.
        VIF_CUDA_TRY(cudaMemsetAsync(*p, 0, bytes, nullptr));
        VIF_CUDA_TRY(cudaStreamSynchronize(nullptr));
        return {};
    }
};

const std::vector<FloatVariant>& float_variants() {
    static const std::vector<FloatVariant> v = [] {
        std::vector<FloatVariant> out;
        for (const FloatSet& f : float_sets()) out.push_back(f.v);
        return out;
    }();
    return v;
}

int float_variant_index(const std::string& id) {
    const auto& v = float_variants();
    for (size_t i = 0; i < v.size(); ++i)
        if (id == v[i].id) return static_cast<int>(i);
    return -1;
}

bool device_present() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::unique_ptr<Engine> Engine::create(const CudaParams& p, Status* err) {
    std::unique_ptr<Engine> e(new Engine());
    e->params_ = p;
    {
        int dev = 0, major = 0, minor = 0;
        cudaError_t ce = cudaGetDevice(&dev);
        if (ce == cudaSuccess)
            ce = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        if (ce == cudaSuccess)
            ce = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        if (ce != cudaSuccess) {
            *err = cuda_error(ce, "device attributes", __FILE__, __LINE__);
            return nullptr;
        }
        e->arch_ = arch_of(major, minor);
    }
    e->choose_rules();
    if (p.variant == VIF_VARIANT_INTEGER) {
        const int bpc = static_cast<int>(p.bitdepth);
        for (int slot = 0; slot < kIntSlots; ++slot) {
            const int t = p.cuda.tiles[slot];
            if (t == CudaOptions::kAuto) continue;
            const auto& v = int_variants(slot);
            if (t < 0 || t >= static_cast<int>(v.size()) || !v[t].has_depth(bpc)) {
                *err = Status{VIF_ERROR_INVALID_ARGUMENT,
                              "CUDA: no integer kernel variant " + std::to_string(t) +
                                  " for launch slot " + std::to_string(slot) + " at " +
                                  std::to_string(bpc) + " bits"};
                return nullptr;
            }
            if (!e->tensor_cores_ && v[t].launch(bpc, 64, 64).tensor_cores) {
                *err = Status{VIF_ERROR_UNSUPPORTED,
                              std::string("CUDA: integer kernel variant ") + v[t].id +
                                  " uses the sm_80 tensor cores, which this device or build "
                                  "lacks (" +
                                  e->no_tensor_cores_why() + ")"};
                return nullptr;
            }
        }
    }
    const bool spec_widths = default_float_widths(p.kernelscale);
    if (p.variant == VIF_VARIANT_FLOAT) {
        const int f = p.cuda.float_kernels;
        const int n = static_cast<int>(float_sets().size());
        if (f != CudaOptions::kAuto && (f < 0 || f >= n || (f > 0 && !spec_widths))) {
            *err = Status{VIF_ERROR_INVALID_ARGUMENT,
                          "CUDA: no float kernel set " + std::to_string(f) +
                              (f > 0 && f < n ? " for kernelscale " + std::to_string(p.kernelscale)
                                              : std::string())};
            return nullptr;
        }
    }
    e->d_ = new Impl();
    auto fail = [&](Status x) {
        *err = std::move(x);
        return nullptr;
    };
    Impl& d = *e->d_;
    const int W = static_cast<int>(p.max_width), H = static_cast<int>(p.max_height);
    const bool is_int = p.variant == VIF_VARIANT_INTEGER;

    for (int s = 0; s < 4; ++s) {
        const int ws = W >> s, hs = H >> s;
        const int pitch = (ws + 63) / 64 * 64;
        if (s > 0) {
            d.img_pitch[s] = pitch;
            const size_t bytes = size_t(pitch) * hs * (is_int ? sizeof(uint16_t) : sizeof(float));
            for (int i = 0; i < 2; ++i)
                if (Status x = d.alloc(&d.img[i][s], bytes)) return fail(x);
        }
        if (!is_int) {
            d.pix_pitch[s] = pitch;
            const size_t bytes = size_t(pitch) * hs * sizeof(float);
            // The row sums copy 16-byte pieces, so the last piece of a row may read up to 3
            // columns of padding past w (never summed): zeroed once, so that no read ever sees
            // uninitialised memory (compute-sanitizer initcheck reported those reads).
            for (float** buf : {&d.num[s], &d.den[s]})
                if (Status x = d.alloc_zeroed(reinterpret_cast<void**>(buf), bytes)) return fail(x);
        }
    }
    if (!is_int) {
        const int f = p.cuda.float_kernels;
        d.float_forced = f;
        d.float_default_widths = spec_widths;
        int rows = 0;
        for (int s = 0; s < 4; ++s) {
            d.row_offset[s] = rows;
            rows += H >> s;
        }
        if (Status x = d.alloc(reinterpret_cast<void**>(&d.row_num), rows * sizeof(float)))
            return fail(x);
        if (Status x = d.alloc(reinterpret_cast<void**>(&d.row_den), rows * sizeof(float)))
            return fail(x);
        for (int s = 0; s < 4; ++s) {
            FloatTaps& t = d.taps[s];
            std::memset(&t, 0, sizeof t);
            t.n = float_filter_width(s, p.kernelscale);
            build_float_filter(s, p.kernelscale, t.stat);
            if (s < 3) {
                t.nd = float_filter_width(s + 1, p.kernelscale);
                build_float_filter(s + 1, p.kernelscale, t.down);
            } else {
                t.nd = 1;
                t.down[0] = 1.0f;
            }
        }
    }

    // Log table and zeroed accumulators (synchronous copies: create may block).
    std::vector<uint16_t> table(kLogTableSize);
    build_log_table(table.data());
    if (Status x =
            d.alloc(reinterpret_cast<void**>(&d.log_table), kLogTableSize * sizeof(uint16_t)))
        return fail(x);
    static_assert(kMaxBatchFrames == kMaxBatch, "engine.hpp and int_kernels.cuh agree");
    constexpr size_t kAccBytes = 16 * kMaxBatch * sizeof(unsigned long long);
    constexpr size_t kCounterBytes = kMaxBatch * sizeof(unsigned int);
    if (Status x = d.alloc(reinterpret_cast<void**>(&d.acc), kAccBytes)) return fail(x);
    if (Status x = d.alloc(reinterpret_cast<void**>(&d.counter), kCounterBytes)) return fail(x);
    auto init = [&]() -> Status {
        VIF_CUDA_TRY(cudaMemcpy(d.log_table, table.data(), kLogTableSize * sizeof(uint16_t),
                                cudaMemcpyHostToDevice));
        const std::vector<unsigned char> zeros(kAccBytes, 0);
        VIF_CUDA_TRY(cudaMemcpy(d.acc, zeros.data(), kAccBytes, cudaMemcpyHostToDevice));
        VIF_CUDA_TRY(cudaMemcpy(d.counter, zeros.data(), kCounterBytes, cudaMemcpyHostToDevice));
        // A copy from pageable memory may return before its DMA has landed, on the legacy
        // default stream, which the backend's non-blocking streams do not wait for: wait here.
        VIF_CUDA_TRY(cudaStreamSynchronize(nullptr));
        return {};
    };
    if (Status x = init()) return fail(x);
    if (is_int) {
        if (Status x = e->verify_log_lookup(table.data())) return fail(x);
        if (Status x = e->make_two_level_tables(table.data())) return fail(x);
    }

    // Opt every kernel this engine may launch into the shared memory it needs: the float
    // kernels of the largest frame, the integer variants the options force or the rules may pick
    // at some frame size (a smaller frame may get another variant than the largest).
    int dev = 0, optin = 0;
    auto opt_in = [&](const KernelLaunch& k) -> Status {
        if (k.smem > static_cast<size_t>(optin))
            return Status{VIF_ERROR_UNSUPPORTED, "CUDA: kernel " + k.name + " (" + k.shape +
                                                     ") needs " + std::to_string(k.smem) +
                                                     " bytes of shared memory; the device allows " +
                                                     std::to_string(optin)};
        VIF_CUDA_TRY(cudaFuncSetAttribute(k.func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(k.smem)));
        // The batched and the maps instances are kernels of their own: each needs the opt-in.
        for (const void* f : {k.batch_func, k.maps_func})
            if (f)
                VIF_CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(k.smem)));
        return {};
    };
    auto attrs = [&]() -> Status {
        VIF_CUDA_TRY(cudaGetDevice(&dev));
        VIF_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        if (!is_int) {
            for (const KernelLaunch& k : e->plan(W, H))
                if (Status x = opt_in(k)) return x;
            // A smaller frame may get the other set float_auto_set picks.
            if (d.float_forced == CudaOptions::kAuto && d.float_default_widths)
                for (const DispatchRow& r : dispatch_rows(e->arch_, Pick::FloatSet)) {
                    const int set = float_variant_index(r.choice);
                    for (int s = 0; s < kNumScales; ++s)
                        if (Status x = opt_in(float_sets()[set].launch(s, p.bitdepth, W >> s,
                                                                       H >> s, d.taps[s].n / 2)))
                            return x;
                }
            return {};
        }
        const int bpc = static_cast<int>(p.bitdepth);
        for (int slot = 0; slot < kIntSlots; ++slot) {
            const auto& v = int_variants(slot);
            const int scale = slot == kFusedSlot ? 2 : slot;
            for (size_t i = 0; i < v.size(); ++i) {
                const int forced = p.cuda.tiles[slot];
                bool used = forced == static_cast<int>(i);
                if (forced == CudaOptions::kAuto)
                    for (const DispatchRow& r : dispatch_rows(e->arch_, Pick::IntTile))
                        used = used || (r.slot == slot && v[i].id == std::string(r.choice));
                if (!used || !v[i].has_depth(bpc)) continue;
                if (Status x = opt_in(v[i].launch(bpc, W >> scale, H >> scale))) return x;
            }
        }
        return {};
    };
    if (Status x = attrs()) return fail(x);
    if (p.cuda.verbose)
        std::fprintf(stderr, "libvif cuda: kernel table of %s (rules of %s%s%s)\n",
                     arch_name(e->arch_), arch_name(int_rules_owner(e->arch_)),
                     e->rules_reason_.empty() ? "" : "; ", e->rules_reason_.c_str());
    return e;
}

// The device's own rules, unless the Turing set is forced (CudaOptions::sm75_rules: parity runs
// of its kernels on a newer GPU) or the code the driver loaded for this device has no tensor-core
// instructions (a build for compute_75 only, JIT-compiled on a newer GPU: the tensor-core variants
// are trapping stubs there).
std::string Engine::no_tensor_cores_why() const {
    return rules_reason_.empty() ? std::string("a device of compute capability 7.5")
                                 : rules_reason_;
}

void Engine::choose_rules() {
    const int ptx = device_code_ptx_arch();
    tensor_cores_ = device_code_has_tensor_cores();
    if (params_.cuda.sm75_rules) {
        arch_ = Arch::Sm75;
        rules_reason_ = "forced by CudaOptions::sm75_rules";
    } else if (!tensor_cores_ && arch_has_tensor_cores(arch_)) {
        arch_ = Arch::Sm75;
        rules_reason_ =
            "kernels compiled for compute_" + std::to_string(ptx) + ": no tensor-core instructions";
    }
}

Status Engine::verify_log_lookup(const uint16_t* expected) {
    // Every T[i] the kernels can ask for, computed by the kernels' own code with the fast path
    // on, must equal the table; a GPU or driver whose log2 differs keeps the table path.
    Impl& d = *d_;
    d.log_eps = 1.0f;
    if (params_.cuda.log_table_only) return {}; // always the table (A/B timing, the parity gate)
    uint16_t* dev_out = nullptr;
    VIF_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&dev_out), kLogTableSize * sizeof(uint16_t)));
    std::vector<uint16_t> got(kLogTableSize);
    LogLookup lk{d.log_table, kLogEps};
    log_lookup_kernel<<<ceil_div(kLogTableSize, 256), 256>>>(lk, dev_out);
    cudaError_t ce = cudaGetLastError();
    if (ce == cudaSuccess)
        ce = cudaMemcpy(got.data(), dev_out, kLogTableSize * sizeof(uint16_t),
                        cudaMemcpyDeviceToHost);
    cudaFree(dev_out);
    if (ce != cudaSuccess) return cuda_error(ce, "log lookup check", __FILE__, __LINE__);
    if (std::equal(got.begin(), got.end(), expected)) d.log_eps = kLogEps;
    if (params_.cuda.verbose)
        std::fprintf(stderr, "libvif cuda: log lookup %s\n",
                     d.log_eps < 0.5f ? "computed (hardware log2 reproduces T)" : "from the table");
    return {};
}

Status Engine::make_two_level_tables(const uint16_t* expected) {
    // Built and checked on the host (every entry), then checked again on the device, read from
    // shared memory by the kernels' own code: a mismatch fails create (the kernels that use
    // them have no fallback).
    Impl& d = *d_;
    auto t2 = std::make_unique<pixel::LogTable2>();
    auto tp = std::make_unique<pixel::LogTablePacked>();
    if (!pixel::build_log_table2(expected, t2.get()) ||
        !pixel::build_log_table_packed(expected, tp.get()))
        return Status{VIF_ERROR_INTERNAL, "CUDA: the two-level log tables do not reproduce T"};
    if (Status x = d.alloc(reinterpret_cast<void**>(&d.log_table2), sizeof(pixel::LogTable2)))
        return x;
    if (Status x = d.alloc(reinterpret_cast<void**>(&d.log_packed), sizeof(pixel::LogTablePacked)))
        return x;
    VIF_CUDA_TRY(cudaMemcpy(d.log_table2, t2.get(), sizeof *t2, cudaMemcpyHostToDevice));
    VIF_CUDA_TRY(cudaMemcpy(d.log_packed, tp.get(), sizeof *tp, cudaMemcpyHostToDevice));
    uint16_t* dev_out = nullptr;
    VIF_CUDA_TRY(
        cudaMalloc(reinterpret_cast<void**>(&dev_out), 2 * kLogTableSize * sizeof(uint16_t)));
    std::vector<uint16_t> got(2 * kLogTableSize);
    const int blocks = ceil_div(kLogTableSize, 256);
    shared_log_kernel<pixel::LogTable2>
        <<<blocks, 256>>>(reinterpret_cast<const uint4*>(d.log_table2), dev_out);
    shared_log_kernel<pixel::LogTablePacked>
        <<<blocks, 256>>>(reinterpret_cast<const uint4*>(d.log_packed), dev_out + kLogTableSize);
    cudaError_t ce = cudaGetLastError();
    if (ce == cudaSuccess)
        ce = cudaMemcpy(got.data(), dev_out, got.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost);
    cudaFree(dev_out);
    if (ce != cudaSuccess) return cuda_error(ce, "two-level log table check", __FILE__, __LINE__);
    for (int k = 0; k < 2; ++k)
        if (!std::equal(expected, expected + kLogTableSize, got.begin() + k * kLogTableSize))
            return Status{VIF_ERROR_INTERNAL,
                          std::string("CUDA: the ") + (k ? "packed" : "two-level") +
                              " log table read from shared memory differs from T"};
    return {};
}

bool Engine::log_computed() const {
    return d_ && d_->log_eps < 0.5f;
}

LogLookup Engine::log_args() const {
    return LogLookup{d_->log_table, d_->log_eps, reinterpret_cast<const uint4*>(d_->log_table2),
                     reinterpret_cast<const uint4*>(d_->log_packed)};
}

Engine::~Engine() {
    destroy_multi(); // engine_multi.cu
    if (!d_) return;
    for (auto& g : d_->graphs) cudaGraphExecDestroy(g.exec);
    for (void* p : d_->allocations) cudaFree(p);
    delete d_;
}

namespace {
__global__ void gate_kernel(const volatile int* flag) {
    // Holds the stream until the host sets *flag (or ~10 s pass, so a mistake cannot hang).
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (*flag == 0) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 10000000000ull) break;
        __nanosleep(1000);
    }
}
} // namespace

Status launch_gate(const volatile int* flag, cudaStream_t stream) {
    gate_kernel<<<1, 1, 0, stream>>>(flag);
    VIF_CUDA_TRY(cudaGetLastError());
    return {};
}

Status Engine::enqueue(const DevPlane& ref, const DevPlane& dis, int w, int h, DeviceResult* out,
                       cudaStream_t stream, cudaEvent_t input_consumed, const cudaEvent_t* events,
                       const DeviceMaps* maps) {
    Impl& d = *d_;
    if (events || maps || params_.cuda.sync_each_launch || !params_.cuda.graphs)
        return launch_direct(ref, dis, w, h, out, stream, input_consumed, events, maps);
    Impl::GraphEntry* hit = nullptr;
    for (auto& g : d.graphs)
        if (g.ref == ref.data && g.dis == dis.data && g.ref_pitch == ref.pitch &&
            g.dis_pitch == dis.pitch && g.ref_shift == ref.shift && g.dis_shift == dis.shift &&
            g.w == w && g.h == h && g.out == out) {
            hit = &g;
            break;
        }
    if (!hit) {
        constexpr size_t kMaxGraphs = 32;
        if (d.graphs.size() == kMaxGraphs) {
            auto lru = std::min_element(
                d.graphs.begin(), d.graphs.end(),
                [](const auto& a, const auto& b) { return a.last_use < b.last_use; });
            // A launch of it may still be queued: wait before destroying (rare: > 32 inputs).
            VIF_CUDA_TRY(cudaStreamSynchronize(stream));
            VIF_CUDA_TRY(cudaGraphExecDestroy(lru->exec));
            d.graphs.erase(lru);
        }
        // Built node by node rather than by stream capture: a capture is invalidated by a
        // synchronising call that any other thread makes on the device meanwhile (another
        // context's worker, an NVDEC decoder freeing its surfaces), and that thread's call
        // fails too (seen in `vif batch` with four workers a GPU).
        cudaGraph_t graph = nullptr;
        VIF_CUDA_TRY(cudaGraphCreate(&graph, 0));
        if (Status e =
                launch_direct(ref, dis, w, h, out, nullptr, nullptr, nullptr, nullptr, graph)) {
            cudaGraphDestroy(graph);
            return e;
        }
        cudaGraphExec_t exec = nullptr;
        const cudaError_t ie = cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        VIF_CUDA_TRY(ie);
        d.graphs.push_back(
            {ref.data, dis.data, ref.pitch, dis.pitch, ref.shift, dis.shift, w, h, out, exec, 0});
        hit = &d.graphs.back();
    }
    hit->last_use = ++d.graph_clock;
    VIF_CUDA_TRY(cudaGraphLaunch(hit->exec, stream));
    if (input_consumed) VIF_CUDA_TRY(cudaEventRecord(input_consumed, stream));
    return {};
}

std::vector<KernelLaunch> Engine::plan(int w, int h) const {
    std::vector<KernelLaunch> out;
    const int bpc = static_cast<int>(params_.bitdepth);
    if (params_.variant == VIF_VARIANT_INTEGER) {
        const CudaOptions& o = params_.cuda;
        auto add = [&](int slot, int scale) {
            const int ws = w >> scale, hs = h >> scale;
            const int i = o.tiles[slot] != CudaOptions::kAuto
                              ? o.tiles[slot]
                              : int_select(arch_, slot, bpc, ws, hs);
            out.push_back(int_variants(slot)[i].launch(bpc, ws, hs));
        };
        for (int s = 0; s < (o.fuse23 ? 2 : 4); ++s) add(s, s);
        if (o.fuse23) add(kFusedSlot, 2);
    } else {
        const int set = d_->float_forced != CudaOptions::kAuto
                            ? d_->float_forced
                            : float_auto_set(arch_, d_->float_default_widths, w, h);
        int groups = 0;
        for (int s = 0; s < 4; ++s) {
            out.push_back(float_sets()[set].launch(s, bpc, w >> s, h >> s, d_->taps[s].n / 2));
            groups += ceil_div(h >> s, 32);
        }
        out.push_back(row_sum_launch(groups));
        out.push_back(final_launch());
    }
    return out;
}

Status Engine::launch_direct(const DevPlane& ref, const DevPlane& dis, int w, int h,
                             DeviceResult* out, cudaStream_t stream, cudaEvent_t input_consumed,
                             const cudaEvent_t* events, const DeviceMaps* maps, cudaGraph_t graph) {
    Impl& d = *d_;
    cudaGraphNode_t last = nullptr; // graph: the node the next kernel waits for
    if (graph && (input_consumed || events || maps))
        return Status{VIF_ERROR_INVALID_ARGUMENT, "cuda: a graph holds the kernels only"};
    if (w != d.plan_w || h != d.plan_h) {
        d.plan = plan(w, h);
        d.plan_w = w;
        d.plan_h = h;
    }
    const std::vector<KernelLaunch>& launches = d.plan;
    size_t li = 0;
    auto launch = [&](void** args) -> Status {
        const KernelLaunch& k = launches[li];
        if (events) VIF_CUDA_TRY(cudaEventRecord(events[li], stream));
        ++li;
        // Integer maps: the instance of the same kernel that also stores each pixel's terms.
        const void* func = maps && k.maps_func ? k.maps_func : k.func;
        if (maps && params_.variant == VIF_VARIANT_INTEGER && !k.maps_func)
            return Status{VIF_ERROR_INVALID_ARGUMENT,
                          "cuda: kernel " + k.name + " (" + k.shape + ") has no maps instance"};
        if (graph) {
            cudaKernelNodeParams p{};
            p.func = const_cast<void*>(func);
            p.gridDim = k.grid;
            p.blockDim = k.block;
            p.sharedMemBytes = static_cast<unsigned>(k.smem);
            p.kernelParams = args; // copied into the node
            cudaGraphNode_t node = nullptr;
            VIF_CUDA_TRY(
                cudaGraphAddKernelNode(&node, graph, last ? &last : nullptr, last ? 1 : 0, &p));
            last = node;
            return {};
        }
        VIF_CUDA_TRY(cudaLaunchKernel(func, k.grid, k.block, args, k.smem, stream));
        if (params_.cuda.sync_each_launch) VIF_CUDA_TRY(cudaStreamSynchronize(stream));
        return {};
    };
    auto src = [&](int s, int which) -> const void* {
        if (s == 0) return which == 0 ? ref.data : dis.data;
        return d.img[which][s];
    };
    const size_t elem = params_.variant == VIF_VARIANT_INTEGER ? sizeof(uint16_t) : sizeof(float);
    auto pitch = [&](int s, int which) -> ptrdiff_t {
        if (s == 0) return which == 0 ? ref.pitch : dis.pitch;
        return static_cast<ptrdiff_t>(d.img_pitch[s]) * elem;
    };

    if (params_.variant == VIF_VARIANT_INTEGER) {
        IntScaleArgs args[4];
        for (int s = 0; s < 4; ++s) {
            IntScaleArgs& a = args[s];
            a = IntScaleArgs{};
            a.ref = src(s, 0);
            a.dis = src(s, 1);
            a.ref_pitch = pitch(s, 0);
            a.dis_pitch = pitch(s, 1);
            a.w = w >> s;
            a.h = h >> s;
            a.ref_shift = s == 0 ? ref.shift : 0;
            a.dis_shift = s == 0 ? dis.shift : 0;
            if (s < 3) {
                a.next_ref = static_cast<uint16_t*>(d.img[0][s + 1]);
                a.next_dis = static_cast<uint16_t*>(d.img[1][s + 1]);
                a.next_pitch = d.img_pitch[s + 1];
            }
            a.log = log_args();
            a.acc = d.acc;
            a.done_counter = d.counter;
            a.out = out->acc;
            a.gain_limit = params_.gain_limit;
            a.map = maps ? maps->term[s] : nullptr;
        }
        const int unfused = params_.cuda.fuse23 ? 2 : 4;
        for (int s = 0; s < unfused; ++s) {
            void* kargs[] = {&args[s]};
            if (Status x = launch(kargs)) return x;
            if (s == 0 && input_consumed) VIF_CUDA_TRY(cudaEventRecord(input_consumed, stream));
        }
        if (params_.cuda.fuse23) {
            IntScaleArgs a3 = fused_scale3_args(args[2], args[3], 0);
            const KernelLaunch& k = launches[li]; // its launcher split the grid
            int blocks2 = k.fused_blocks2, g2x = k.fused_grid2_x, g3x = k.fused_grid3_x;
            void* kargs[] = {&args[2], &a3, &blocks2, &g2x, &g3x};
            if (Status x = launch(kargs)) return x;
        }
    } else {
        for (int s = 0; s < 4; ++s) {
            FloatScaleArgs a{};
            a.ref = src(s, 0);
            a.dis = src(s, 1);
            a.ref_pitch = pitch(s, 0);
            a.dis_pitch = pitch(s, 1);
            a.w = w >> s;
            a.h = h >> s;
            a.ref_shift = s == 0 ? ref.shift : 0;
            a.dis_shift = s == 0 ? dis.shift : 0;
            if (s < 3) {
                a.next_ref = static_cast<float*>(d.img[0][s + 1]);
                a.next_dis = static_cast<float*>(d.img[1][s + 1]);
                a.next_pitch = d.img_pitch[s + 1];
            }
            a.num = d.num[s];
            a.den = d.den[s];
            a.pix_pitch = d.pix_pitch[s];
            a.gain_limit = static_cast<float>(params_.gain_limit);
            FloatTaps taps = d.taps[s];
            void* args[] = {&a, &taps};
            if (Status x = launch(args)) return x;
            if (s == 0 && input_consumed) VIF_CUDA_TRY(cudaEventRecord(input_consumed, stream));
            // Maps: the kernel's own per-pixel num and den (the terms the row sums add, §12.1).
            if (maps) {
                const size_t row = sizeof(float) * static_cast<size_t>(w >> s);
                const size_t src_pitch = sizeof(float) * static_cast<size_t>(d.pix_pitch[s]);
                VIF_CUDA_TRY(cudaMemcpy2DAsync(maps->num[s], row, d.num[s], src_pitch, row, h >> s,
                                               cudaMemcpyDeviceToDevice, stream));
                VIF_CUDA_TRY(cudaMemcpy2DAsync(maps->den[s], row, d.den[s], src_pitch, row, h >> s,
                                               cudaMemcpyDeviceToDevice, stream));
            }
        }
        RowSumArgs rs{};
        int groups = 0;
        for (int s = 0; s < 4; ++s) {
            rs.num[s] = d.num[s];
            rs.den[s] = d.den[s];
            rs.pitch[s] = d.pix_pitch[s];
            rs.w[s] = w >> s;
            rs.h[s] = h >> s;
            rs.row_offset[s] = d.row_offset[s];
            rs.group_start[s] = groups;
            groups += ceil_div(h >> s, 32);
        }
        rs.group_start[4] = groups;
        rs.row_num = d.row_num;
        rs.row_den = d.row_den;
        void* rargs[] = {&rs};
        if (Status x = launch(rargs)) return x;
        FloatFinalArgs fa{};
        fa.row_num = d.row_num;
        fa.row_den = d.row_den;
        for (int s = 0; s < 4; ++s) {
            fa.row_offset[s] = d.row_offset[s];
            fa.h[s] = h >> s;
        }
        fa.out_num = out->num;
        fa.out_den = out->den;
        void* fargs[] = {&fa};
        if (Status x = launch(fargs)) return x;
    }
    if (events) VIF_CUDA_TRY(cudaEventRecord(events[li], stream));
    return {};
}

// ---- Batched launches (several frames per launch, grid.z = frame) ----------------------------

Status Engine::ensure_batch_images(int n) {
    Impl& d = *d_;
    const int H = static_cast<int>(params_.max_height);
    for (; d.batch_sets < n; ++d.batch_sets)
        for (int s = 1; s < 4; ++s) {
            const size_t bytes = size_t(d.img_pitch[s]) * (H >> s) * sizeof(uint16_t);
            for (int i = 0; i < 2; ++i)
                if (Status x = d.alloc(&d.batch_img[d.batch_sets][i][s], bytes)) return x;
        }
    return {};
}

Status Engine::enqueue_batch(const DevPlane* ref, const DevPlane* dis, int n, int w, int h,
                             DeviceResult* const* out, cudaStream_t stream,
                             cudaEvent_t input_consumed, const cudaEvent_t* events) {
    if (n < 1 || n > kMaxBatchFrames)
        return Status{VIF_ERROR_INVALID_ARGUMENT, "CUDA: a batch holds 1 to " +
                                                      std::to_string(kMaxBatchFrames) +
                                                      " frames, not " + std::to_string(n)};
    if (n == 1) return enqueue(ref[0], dis[0], w, h, out[0], stream, input_consumed, events);
    if (params_.variant != VIF_VARIANT_INTEGER) {
        // The float kernels are not batched: the frames one after the other.
        if (events)
            return Status{VIF_ERROR_INVALID_ARGUMENT, "CUDA: per-launch events of a float batch"};
        for (int i = 0; i < n; ++i)
            if (Status x = enqueue(ref[i], dis[i], w, h, out[i], stream)) return x;
        if (input_consumed) VIF_CUDA_TRY(cudaEventRecord(input_consumed, stream));
        return {};
    }
    for (int i = 1; i < n; ++i)
        if (ref[i].pitch != ref[0].pitch || ref[i].shift != ref[0].shift ||
            dis[i].pitch != dis[0].pitch || dis[i].shift != dis[0].shift)
            return Status{VIF_ERROR_INVALID_ARGUMENT,
                          "CUDA: the frames of a batch must share pitch and shift"};
    if (Status x = ensure_batch_images(n)) return x;
    Impl& d = *d_;
    if (w != d.plan_w || h != d.plan_h) {
        d.plan = plan(w, h);
        d.plan_w = w;
        d.plan_h = h;
    }
    auto image = [&](int z, int which, int s) -> void* {
        return z == 0 ? d.img[which][s] : d.batch_img[z][which][s];
    };
    IntScaleArgs args[4];
    for (int s = 0; s < 4; ++s) {
        IntScaleArgs& a = args[s];
        a = IntScaleArgs{};
        a.ref = s == 0 ? ref[0].data : image(0, 0, s);
        a.dis = s == 0 ? dis[0].data : image(0, 1, s);
        a.ref_pitch =
            s == 0 ? ref[0].pitch : ptrdiff_t(d.img_pitch[s]) * ptrdiff_t(sizeof(uint16_t));
        a.dis_pitch =
            s == 0 ? dis[0].pitch : ptrdiff_t(d.img_pitch[s]) * ptrdiff_t(sizeof(uint16_t));
        a.w = w >> s;
        a.h = h >> s;
        a.ref_shift = s == 0 ? ref[0].shift : 0;
        a.dis_shift = s == 0 ? dis[0].shift : 0;
        if (s < 3) a.next_pitch = d.img_pitch[s + 1];
        a.log = log_args();
        a.acc = d.acc;
        a.done_counter = d.counter;
        a.out = out[0]->acc;
        a.gain_limit = params_.gain_limit;
        for (int z = 0; z < n; ++z) {
            a.batch.ref[z] = s == 0 ? ref[z].data : image(z, 0, s);
            a.batch.dis[z] = s == 0 ? dis[z].data : image(z, 1, s);
            a.batch.next_ref[z] = s < 3 ? static_cast<uint16_t*>(image(z, 0, s + 1)) : nullptr;
            a.batch.next_dis[z] = s < 3 ? static_cast<uint16_t*>(image(z, 1, s + 1)) : nullptr;
            a.batch.out[z] = out[z]->acc;
        }
        a.next_ref = a.batch.next_ref[0];
        a.next_dis = a.batch.next_dis[0];
    }
    size_t li = 0;
    auto launch = [&](void** kargs) -> Status {
        KernelLaunch k = d.plan[li];
        k.grid.z = static_cast<unsigned>(n);
        if (events) VIF_CUDA_TRY(cudaEventRecord(events[li], stream));
        ++li;
        VIF_CUDA_TRY(cudaLaunchKernel(k.batch_func, k.grid, k.block, kargs, k.smem, stream));
        if (params_.cuda.sync_each_launch) VIF_CUDA_TRY(cudaStreamSynchronize(stream));
        return {};
    };
    const bool fuse = params_.cuda.fuse23;
    for (int s = 0; s < (fuse ? 2 : 4); ++s) {
        void* kargs[] = {&args[s]};
        if (Status x = launch(kargs)) return x;
        if (s == 0 && input_consumed) VIF_CUDA_TRY(cudaEventRecord(input_consumed, stream));
    }
    if (fuse) {
        IntScaleArgs a3 = fused_scale3_args(args[2], args[3], n);
        const KernelLaunch& k = d.plan[li];
        int blocks2 = k.fused_blocks2, g2x = k.fused_grid2_x, g3x = k.fused_grid3_x;
        void* kargs[] = {&args[2], &a3, &blocks2, &g2x, &g3x};
        if (Status x = launch(kargs)) return x;
    }
    if (events) VIF_CUDA_TRY(cudaEventRecord(events[li], stream));
    return {};
}

} // namespace vif::cuda
