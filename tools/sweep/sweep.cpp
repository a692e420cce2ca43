// vif-sweep: per-kernel resources and timings of the CUDA backend on the GPU it runs on.
//
// For each resolution and bit depth it builds the backend's device pipeline (vif::cuda::Engine),
// reports for every kernel the block shape, registers per thread, static and dynamic shared
// memory, theoretical occupancy and the resource that limits it, and times the kernels with CUDA
// events (warm-up, then the median and spread over many frames, inputs rotated so that they do
// not sit in L2). Per frame it reports the total kernel time, frames per second, and the rate at
// which input bytes are consumed. With --candidates it also times every variant of the kernel
// table (cuda/dispatch/kernel_table.cu) per launch slot and marks the fastest; the table's selection
// rules for this GPU, with the sweep rows they cite, head the report.
//
// Writes sweep.md, sweep.json, sweep.csv and sweep.svg (duration per resolution per kernel) into
// --out (default "."), and the Markdown to stdout. Without a GPU it says so and exits 1.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/engine.hpp"
#include "dispatch/kernel_table.hpp"
#include "vif/vif.h"

namespace {

struct Options {
    std::vector<std::pair<int, int>> sizes = {{576, 324},   {1280, 720},  {1920, 1080},
                                              {2560, 1440}, {3840, 2160}, {7680, 4320}};
    std::vector<int> bitdepths = {8, 10};
    VifVariant variant = VIF_VARIANT_INTEGER;
    bool candidates = false;
    int runs = 200;
    int warmup = 20;
    int device = 0;
    std::string out = ".";
    std::vector<std::string> tiles; // explicit variant combinations "s0,s1,s2,s3,s23[,fuse]"
    bool log_table = false;         // the log lookup always reads the table (A/B)
    bool sm75_rules = false;        // the Turing rules (CudaOptions::sm75_rules) on this GPU
    bool verbose = false;
    bool gate = true;         // queue frames behind a gate kernel (off under a profiler)
    std::vector<int> batches; // --batch: frames per launch to time (1: one-frame launches)
    std::vector<std::string> float_kernels; // --float-kernels: float kernel sets to time too
    bool maps = false; // --maps: every frame also writes its per-pixel terms (one-frame launches)
};

void usage() {
    std::puts(
        "usage: vif-sweep [--sizes 576x324,1920x1080,...] [--bitdepths 8,10] [--variant "
        "integer|float]\n"
        "                 [--candidates] [--tiles s0,s1,s2,s3,s23[,fuse]]... [--log-table] "
        "[--sm75-rules] [--verbose]\n"
        "                 [--no-gate] [--batch F[,F...]] [--float-kernels ID[,ID...]] [--runs N] "
        "[--warmup N] [--device N] [--maps] [--out DIR]\n"
        "Times every CUDA kernel of libvif per resolution and bit depth; writes "
        "sweep.md/.json/.csv/.svg.\n"
        "--tiles: one kernel-table variant id per launch slot (scales 0-3, fused 2+3; e.g. "
        "0b,1s,2,3,23b)\n"
        "or 'auto' for the table's rule, then 1 (default) or 0 for the fused 2+3 launch.\n"
        "--batch: frames per launch to time (default 1; F > 1: grid.z = frame, "
        "Engine::enqueue_batch; times per frame).\n"
        "--float-kernels: float kernel sets to time beside the chosen one (generic, s32, ...; "
        "'all' for every set).\n"
        "--sm75-rules: the Turing (sm_75) rules on this GPU: CUDA-core kernels only.\n"
        "--maps: every frame also writes its per-pixel VIF terms (docs/algorithm.md §12; integer: "
        "the kernels' maps instances, float: copies of the kernels' per-pixel buffers).");
}

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        if (a == "--sizes") {
            const char* v = next();
            if (!v) return false;
            o->sizes.clear();
            std::stringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ',')) {
                int w = 0, h = 0;
                if (std::sscanf(item.c_str(), "%dx%d", &w, &h) != 2 || w < 16 || h < 16)
                    return false;
                o->sizes.push_back({w, h});
            }
        } else if (a == "--bitdepths") {
            const char* v = next();
            if (!v) return false;
            o->bitdepths.clear();
            std::stringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ',')) o->bitdepths.push_back(std::atoi(item.c_str()));
        } else if (a == "--variant") {
            const char* v = next();
            if (!v) return false;
            o->variant = std::string(v) == "float" ? VIF_VARIANT_FLOAT : VIF_VARIANT_INTEGER;
        } else if (a == "--tiles") {
            const char* v = next();
            if (!v) return false;
            o->tiles.push_back(v);
        } else if (a == "--batch") {
            const char* v = next();
            if (!v) return false;
            std::stringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ',')) {
                const int f = std::atoi(item.c_str());
                if (f < 1 || f > vif::cuda::Engine::kMaxBatchFrames) return false;
                o->batches.push_back(f);
            }
        } else if (a == "--float-kernels") {
            const char* v = next();
            if (!v) return false;
            std::stringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ',')) {
                if (item == "all") {
                    for (const auto& f : vif::cuda::float_variants())
                        o->float_kernels.push_back(f.id);
                } else if (vif::cuda::float_variant_index(item) < 0) {
                    std::fprintf(stderr, "vif-sweep: no float kernel set '%s'\n", item.c_str());
                    return false;
                } else {
                    o->float_kernels.push_back(item);
                }
            }
        } else if (a == "--candidates") {
            o->candidates = true;
        } else if (a == "--log-table") {
            o->log_table = true;
        } else if (a == "--sm75-rules") {
            o->sm75_rules = true;
        } else if (a == "--verbose") {
            o->verbose = true;
        } else if (a == "--no-gate") {
            o->gate = false;
        } else if (a == "--maps") {
            o->maps = true;
        } else if (a == "--runs") {
            const char* v = next();
            if (!v) return false;
            o->runs = std::max(5, std::atoi(v));
        } else if (a == "--warmup") {
            const char* v = next();
            if (!v) return false;
            o->warmup = std::max(1, std::atoi(v));
        } else if (a == "--device") {
            const char* v = next();
            if (!v) return false;
            o->device = std::atoi(v);
        } else if (a == "--out") {
            const char* v = next();
            if (!v) return false;
            o->out = v;
        } else {
            return false;
        }
    }
    return true;
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "vif-sweep: %s failed: %s\n", #call, cudaGetErrorString(e_));     \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

struct Stats {
    double median = 0, p10 = 0, p90 = 0, min = 0;
};

Stats stats_of(std::vector<double> v) {
    Stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    auto q = [&](double f) {
        return v[std::min(v.size() - 1, static_cast<size_t>(f * (v.size() - 1) + 0.5))];
    };
    s.median = q(0.5);
    s.p10 = q(0.1);
    s.p90 = q(0.9);
    s.min = v.front();
    return s;
}

struct KernelRow {
    std::string name, shape;
    int grid = 0, threads = 0, regs = 0;
    size_t static_smem = 0, dyn_smem = 0;
    int blocks_per_sm = 0;
    double occupancy = 0;
    std::string limiter;
    Stats us;
};

struct Result {
    int w = 0, h = 0, bpc = 0;
    std::string candidate; // "" = chosen policy
    std::vector<KernelRow> kernels;
    Stats frame_us;          // events around the frame's kernels
    double pipelined_us = 0; // frames enqueued back to back: elapsed / frames
    double input_bytes = 0;
};

// Occupancy of one kernel and the resource that limits it.
void occupancy(const vif::cuda::KernelLaunch& k, const cudaDeviceProp& prop, KernelRow* row) {
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, k.func));
    row->regs = fa.numRegs;
    row->static_smem = fa.sharedSizeBytes;
    row->dyn_smem = k.smem;
    row->threads = static_cast<int>(k.block.x * k.block.y * k.block.z);
    row->grid = static_cast<int>(k.grid.x * k.grid.y * k.grid.z);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&row->blocks_per_sm, k.func, row->threads,
                                                     k.smem));
    const int warps = (row->threads + 31) / 32;
    row->occupancy = double(row->blocks_per_sm * warps * 32) / prop.maxThreadsPerMultiProcessor;
    // Each limit on its own (register allocation: 256-register units per warp).
    const int regs_warp = ((std::max(1, fa.numRegs) * 32 + 255) / 256) * 256;
    const int by_regs = prop.regsPerMultiprocessor / (regs_warp * warps);
    const size_t smem = fa.sharedSizeBytes + k.smem + prop.reservedSharedMemPerBlock;
    const int by_smem = smem ? static_cast<int>(prop.sharedMemPerMultiprocessor / smem) : 1 << 20;
    const int by_threads = prop.maxThreadsPerMultiProcessor / (warps * 32);
    const int by_blocks = prop.maxBlocksPerMultiProcessor;
    const int lim = std::min({by_regs, by_smem, by_threads, by_blocks});
    row->limiter = lim == by_regs      ? "registers"
                   : lim == by_smem    ? "shared memory"
                   : lim == by_threads ? "threads"
                                       : "blocks";
    if (row->grid < prop.multiProcessorCount * std::max(1, row->blocks_per_sm))
        row->limiter += " (grid " + std::to_string(row->grid) + " < 1 wave)";
}

// Deterministic natural-ish content (not zeros: zeros run faster than real data).
void fill(std::vector<uint8_t>* buf, int w, int h, int bpc, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-8, 8);
    const int maxv = (1 << bpc) - 1;
    const size_t bps = bpc == 8 ? 1 : 2;
    buf->resize(size_t(w) * h * bps);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double base = 0.5 + 0.3 * std::sin(x * 0.031 + seed) * std::cos(y * 0.017) +
                                0.1 * std::sin((x + y) * 0.2);
            int v = static_cast<int>(base * maxv) + noise(rng) * (maxv / 255);
            v = std::clamp(v, 0, maxv);
            if (bps == 1)
                (*buf)[size_t(y) * w + x] = static_cast<uint8_t>(v);
            else {
                const uint16_t u = static_cast<uint16_t>(v);
                std::memcpy(buf->data() + (size_t(y) * w + x) * 2, &u, 2);
            }
        }
}

// "0b,1s,auto,3,23b[,0]" -> the variants per launch slot; false when an id does not exist.
bool parse_tiles(const std::string& text, vif::CudaOptions* c) {
    std::stringstream ss(text);
    std::string item;
    int slot = 0;
    while (std::getline(ss, item, ',')) {
        if (slot < vif::cuda::kIntSlots) {
            c->tiles[slot] =
                item == "auto" ? vif::CudaOptions::kAuto : vif::cuda::int_variant_index(slot, item);
            if (item != "auto" && c->tiles[slot] < 0) return false;
        } else if (slot == vif::cuda::kIntSlots && (item == "0" || item == "1")) {
            c->fuse23 = item == "1";
        } else {
            return false;
        }
        ++slot;
    }
    return slot >= vif::cuda::kIntSlots;
}

// batch > 1: frames go `batch` at a time through Engine::enqueue_batch (one launch per scale,
// grid.z = frame); every duration is then per frame (the launch's time / batch).
Result run_one(const Options& o, const cudaDeviceProp& prop, int w, int h, int bpc,
               vif::CudaOptions cand, const std::string& cand_name, int batch = 1) {
    vif::CudaParams p;
    p.variant = o.variant;
    p.bitdepth = static_cast<uint32_t>(bpc);
    p.max_width = static_cast<uint32_t>(w);
    p.max_height = static_cast<uint32_t>(h);
    cand.log_table_only = o.log_table;
    cand.sm75_rules = o.sm75_rules;
    cand.verbose = o.verbose;
    p.cuda = cand;
    vif::Status err;
    auto engine = vif::cuda::Engine::create(p, &err);
    if (!engine) {
        std::fprintf(stderr, "vif-sweep: %s\n", err.message.c_str());
        std::exit(2);
    }
    Result r;
    r.w = w;
    r.h = h;
    r.bpc = bpc;
    r.candidate = cand_name;
    const size_t bps = bpc == 8 ? 1 : 2;
    const size_t plane = size_t(w) * h * bps;
    r.input_bytes = 2.0 * plane;
    // Enough input pairs to exceed the L2 cache several times over.
    const int sets = static_cast<int>(
        std::clamp<size_t>((3 * size_t(prop.l2CacheSize)) / (2 * plane) + 1, 2, 16));
    std::vector<void*> d_in(2 * sets);
    std::vector<uint8_t> host;
    for (int i = 0; i < 2 * sets; ++i) {
        CK(cudaMalloc(&d_in[i], plane));
        fill(&host, w, h, bpc, 1234u + i);
        CK(cudaMemcpy(d_in[i], host.data(), plane, cudaMemcpyHostToDevice));
    }
    vif::cuda::DeviceResult* d_out = nullptr;
    CK(cudaMalloc(reinterpret_cast<void**>(&d_out), batch * sizeof(vif::cuda::DeviceResult)));
    std::vector<vif::cuda::DeviceResult*> outs(batch);
    for (int z = 0; z < batch; ++z) outs[z] = d_out + z;
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    // --maps: one set of per-pixel buffers, every frame writes it (as a CUDA backend slot's).
    vif::cuda::DeviceMaps maps;
    std::vector<void*> map_allocs;
    if (o.maps) {
        if (batch != 1) {
            std::fprintf(stderr, "vif-sweep: --maps times one-frame launches only (no --batch)\n");
            std::exit(2);
        }
        for (int s = 0; s < 4; ++s) {
            const size_t px = size_t(w >> s) * (h >> s);
            void* m = nullptr;
            CK(cudaMalloc(&m, px * (o.variant == VIF_VARIANT_INTEGER ? 16 : 8)));
            map_allocs.push_back(m);
            maps.term[s] = static_cast<int32_t*>(m);
            maps.num[s] = static_cast<float*>(m);
            maps.den[s] = maps.num[s] + px;
        }
    }

    const auto plan = engine->plan(w, h);
    const int nk = static_cast<int>(plan.size());
    for (const auto& k : plan) {
        KernelRow row;
        row.name = k.name;
        row.shape = k.shape;
        vif::cuda::KernelLaunch kb = k;
        kb.grid.z = static_cast<unsigned>(batch);
        if (batch > 1) kb.func = k.batch_func;
        if (o.maps && k.maps_func) kb.func = k.maps_func;
        occupancy(kb, prop, &row);
        r.kernels.push_back(row);
    }
    // Frames are queued in batches behind a gate kernel that holds the stream until the whole
    // batch is enqueued, so that the GPU never waits for the host to launch (otherwise small
    // frames measure the launch rate, not the kernels).
    int* h_flag = nullptr;
    int* d_flag = nullptr;
    CK(cudaHostAlloc(reinterpret_cast<void**>(&h_flag), sizeof(int), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flag), h_flag, 0));
    constexpr int kBatch = 32;
    // --no-gate turns the gate off (under a profiler, which serialises launches).
    const bool gate = o.gate;
    auto open_gate = [&]() {
        if (!gate) return;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        *reinterpret_cast<volatile int*>(h_flag) = 1;
    };
    auto close_gate = [&]() {
        if (!gate) return;
        *reinterpret_cast<volatile int*>(h_flag) = 0;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (vif::cuda::launch_gate(d_flag, st)) std::exit(2);
    };
    auto planes = [&](int i) {
        const int s = i % sets;
        return std::make_pair(
            vif::cuda::DevPlane{d_in[2 * s], static_cast<ptrdiff_t>(w * bps), 0},
            vif::cuda::DevPlane{d_in[2 * s + 1], static_cast<ptrdiff_t>(w * bps), 0});
    };
    // One launch unit: frame i on its own, or frames i*batch .. i*batch+batch-1 as a batch.
    std::vector<vif::cuda::DevPlane> br(batch), bd(batch);
    auto enqueue_unit = [&](int i, const cudaEvent_t* events) -> vif::Status {
        if (batch == 1) {
            auto [a, b] = planes(i);
            return engine->enqueue(a, b, w, h, d_out, st, nullptr, events,
                                   o.maps ? &maps : nullptr);
        }
        for (int z = 0; z < batch; ++z) std::tie(br[z], bd[z]) = planes(i * batch + z);
        return engine->enqueue_batch(br.data(), bd.data(), batch, w, h, outs.data(), st, nullptr,
                                     events);
    };
    // Per kernel: events between the launches (direct launches, no graph).
    const int total = o.warmup + o.runs;
    std::vector<cudaEvent_t> ev(size_t(total) * (nk + 1));
    for (auto& e : ev) CK(cudaEventCreate(&e));
    for (int i0 = 0; i0 < total; i0 += kBatch) {
        close_gate();
        for (int i = i0; i < std::min(total, i0 + kBatch); ++i) {
            vif::Status e = enqueue_unit(i, &ev[size_t(i) * (nk + 1)]);
            if (e) {
                std::fprintf(stderr, "vif-sweep: %s\n", e.message.c_str());
                std::exit(2);
            }
        }
        open_gate();
        CK(cudaStreamSynchronize(st));
    }
    std::vector<std::vector<double>> per(nk);
    std::vector<double> frame;
    for (int i = o.warmup; i < total; ++i) {
        const cudaEvent_t* e = &ev[size_t(i) * (nk + 1)];
        for (int k = 0; k < nk; ++k) {
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e[k], e[k + 1]));
            per[k].push_back(ms * 1000.0 / batch);
        }
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e[0], e[nk]));
        frame.push_back(ms * 1000.0 / batch);
    }
    for (int k = 0; k < nk; ++k) r.kernels[k].us = stats_of(per[k]);
    r.frame_us = stats_of(frame);
    // Pipelined: each frame one CUDA graph launch (what the backend does), back to back.
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    for (int i = 0; i < sets; ++i) // capture the graphs outside the timed region
        if (enqueue_unit(i, nullptr)) std::exit(2);
    CK(cudaStreamSynchronize(st));
    double pipelined_ms = 0;
    int pipelined_frames = 0;
    for (int i0 = 0; i0 < o.runs; i0 += 4 * kBatch) {
        close_gate();
        CK(cudaEventRecord(t0, st));
        const int n = std::min(o.runs, i0 + 4 * kBatch) - i0;
        for (int i = 0; i < n; ++i)
            if (enqueue_unit(i0 + i, nullptr)) std::exit(2);
        CK(cudaEventRecord(t1, st));
        open_gate();
        CK(cudaEventSynchronize(t1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, t0, t1));
        pipelined_ms += ms;
        pipelined_frames += n * batch;
    }
    r.pipelined_us = pipelined_ms * 1000.0 / pipelined_frames;
    CK(cudaEventDestroy(t0));
    CK(cudaEventDestroy(t1));
    CK(cudaFreeHost(h_flag));
    for (auto& e : ev) CK(cudaEventDestroy(e));
    CK(cudaStreamDestroy(st));
    CK(cudaFree(d_out));
    for (void* m : map_allocs) CK(cudaFree(m));
    for (void* p : d_in) CK(cudaFree(p));
    return r;
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string markdown(const std::vector<Result>& rs, const cudaDeviceProp& prop, const Options& o,
                     int sm_clock_khz, int mem_clock_khz) {
    std::ostringstream md;
    md << "# vif-sweep: " << prop.name << " (" << prop.multiProcessorCount << " SMs, sm_"
       << prop.major << prop.minor << ", SM clock attribute " << sm_clock_khz / 1000
       << " MHz, memory " << mem_clock_khz / 1000 << " MHz), "
       << (o.variant == VIF_VARIANT_INTEGER ? "integer" : "float") << " VIF\n\n";
    md << "Durations are CUDA-event intervals around each launch (median, [p10, p90]) over "
       << o.runs << " frames after " << o.warmup
       << " warm-up frames; inputs rotate over enough frame pairs to "
       << "exceed L2. `pipelined` is the elapsed time of " << o.runs
       << " frames enqueued back to back as one "
       << "CUDA graph each (what the backend does), per frame. Frames are queued behind a gate "
          "kernel "
       << "in batches, so host launch speed does not limit either figure. Input rate = ref+dist "
          "luma bytes / pipelined frame time. Candidates `batch F` run F frames per launch "
          "(grid.z = frame): their durations are the launch's divided by F, their grid counts "
          "all F frames' blocks.\n\n";
    md << "## Per frame\n\n| size | bpc | candidate | kernels (median sum) | frame (events) | "
          "pipelined | fps | input GB/s |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : rs) {
        double sum = 0;
        for (const auto& k : r.kernels) sum += k.us.median;
        md << "| " << r.w << "x" << r.h << " | " << r.bpc << " | "
           << (r.candidate.empty() ? "chosen" : r.candidate) << " | " << fmt("%.1f us", sum)
           << " | " << fmt("%.1f us", r.frame_us.median) << " | " << fmt("%.1f us", r.pipelined_us)
           << " | " << fmt("%.0f", 1e6 / r.pipelined_us) << " | "
           << fmt("%.1f", r.input_bytes / (r.pipelined_us * 1e3)) << " |\n";
    }
    md << "\n## Per kernel\n\n| size | bpc | candidate | kernel | tile | grid | regs | smem "
          "static+dyn | blocks/SM | occupancy | limited by | median us | p10-p90 us "
          "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : rs)
        for (const auto& k : r.kernels)
            md << "| " << r.w << "x" << r.h << " | " << r.bpc << " | "
               << (r.candidate.empty() ? "chosen" : r.candidate) << " | " << k.name << " | "
               << k.shape << " | " << k.grid << " | " << k.regs << " | " << k.static_smem << "+"
               << k.dyn_smem << " | " << k.blocks_per_sm << " | "
               << fmt("%.1f%%", 100 * k.occupancy) << " | " << k.limiter << " | "
               << fmt("%.1f", k.us.median) << " | " << fmt("%.1f", k.us.p10) << "-"
               << fmt("%.1f", k.us.p90) << " |\n";
    return md.str();
}

std::string json(const std::vector<Result>& rs, const cudaDeviceProp& prop, const Options& o) {
    std::ostringstream js;
    js << "{\n  \"device\": \"" << prop.name << "\",\n  \"sms\": " << prop.multiProcessorCount
       << ",\n  \"variant\": \"" << (o.variant == VIF_VARIANT_INTEGER ? "integer" : "float")
       << "\",\n  \"runs\": " << o.runs << ",\n  \"warmup\": " << o.warmup
       << ",\n  \"results\": [\n";
    for (size_t i = 0; i < rs.size(); ++i) {
        const auto& r = rs[i];
        js << "    {\"width\": " << r.w << ", \"height\": " << r.h << ", \"bitdepth\": " << r.bpc
           << ", \"candidate\": \"" << (r.candidate.empty() ? "chosen" : r.candidate) << "\""
           << ", \"frame_us_median\": " << r.frame_us.median
           << ", \"frame_us_p10\": " << r.frame_us.p10 << ", \"frame_us_p90\": " << r.frame_us.p90
           << ", \"pipelined_us\": " << r.pipelined_us << ", \"fps\": " << 1e6 / r.pipelined_us
           << ", \"input_bytes\": " << r.input_bytes << ", \"kernels\": [";
        for (size_t k = 0; k < r.kernels.size(); ++k) {
            const auto& x = r.kernels[k];
            js << (k ? ", " : "") << "{\"name\": \"" << x.name << "\", \"tile\": \"" << x.shape
               << "\", \"grid\": " << x.grid << ", \"threads\": " << x.threads
               << ", \"regs\": " << x.regs << ", \"static_smem\": " << x.static_smem
               << ", \"dynamic_smem\": " << x.dyn_smem << ", \"blocks_per_sm\": " << x.blocks_per_sm
               << ", \"occupancy\": " << x.occupancy << ", \"limiter\": \"" << x.limiter
               << "\", \"us_median\": " << x.us.median << ", \"us_p10\": " << x.us.p10
               << ", \"us_p90\": " << x.us.p90 << ", \"us_min\": " << x.us.min << "}";
        }
        js << "]}" << (i + 1 < rs.size() ? "," : "") << "\n";
    }
    js << "  ]\n}\n";
    return js.str();
}

std::string csv(const std::vector<Result>& rs) {
    std::ostringstream c;
    c << "width,height,bitdepth,candidate,kernel,tile,grid,threads,regs,static_smem,dynamic_smem,"
         "blocks_per_sm,occupancy,limiter,us_median,us_p10,us_p90,frame_us_median,pipelined_us\n";
    for (const auto& r : rs)
        for (const auto& k : r.kernels)
            c << r.w << "," << r.h << "," << r.bpc << ","
              << (r.candidate.empty() ? "chosen" : r.candidate) << "," << k.name << "," << k.shape
              << "," << k.grid << "," << k.threads << "," << k.regs << "," << k.static_smem << ","
              << k.dyn_smem << "," << k.blocks_per_sm << "," << k.occupancy << ",\"" << k.limiter
              << "\"," << k.us.median << "," << k.us.p10 << "," << k.us.p90 << ","
              << r.frame_us.median << "," << r.pipelined_us << "\n";
    return c.str();
}

// Log-log chart: kernel duration (median) against pixels, one line per kernel and bit depth, for
// the chosen policy.
std::string svg(const std::vector<Result>& rs) {
    std::map<std::string, std::vector<std::pair<double, double>>> lines;
    for (const auto& r : rs) {
        if (!r.candidate.empty()) continue;
        double sum = 0;
        for (const auto& k : r.kernels) {
            lines[k.name + " " + std::to_string(r.bpc) + "b"].push_back(
                {double(r.w) * r.h, k.us.median});
            sum += k.us.median;
        }
        lines["frame total " + std::to_string(r.bpc) + "b"].push_back({double(r.w) * r.h, sum});
    }
    double xmin = 1e30, xmax = 0, ymin = 1e30, ymax = 0;
    for (auto& [n, pts] : lines)
        for (auto& [x, y] : pts) {
            xmin = std::min(xmin, x);
            xmax = std::max(xmax, x);
            ymin = std::min(ymin, y);
            ymax = std::max(ymax, y);
        }
    if (lines.empty()) return "<svg xmlns='http://www.w3.org/2000/svg'/>";
    const double W = 900, H = 560, L = 70, R = 260, T = 30, B = 50;
    const double lx0 = std::log10(xmin) - 0.05, lx1 = std::log10(xmax) + 0.05;
    const double ly0 = std::floor(std::log10(std::max(ymin, 0.1))),
                 ly1 = std::ceil(std::log10(ymax));
    auto X = [&](double x) { return L + (std::log10(x) - lx0) / (lx1 - lx0) * (W - L - R); };
    auto Y = [&](double y) {
        return H - B - (std::log10(std::max(y, 0.1)) - ly0) / (ly1 - ly0) * (H - T - B);
    };
    std::ostringstream s;
    s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
         "fill='white'/>\n";
    s << "<text x='" << L
      << "' y='18' font-size='14'>CUDA kernel duration (median, us) vs. frame pixels</text>\n";
    for (double e = ly0; e <= ly1; ++e) {
        const double y = Y(std::pow(10, e));
        s << "<line x1='" << L << "' x2='" << W - R << "' y1='" << y << "' y2='" << y
          << "' stroke='#ddd'/>"
          << "<text x='" << L - 8 << "' y='" << y + 4 << "' text-anchor='end'>" << std::pow(10, e)
          << "</text>\n";
    }
    for (const auto& r : rs) {
        if (!r.candidate.empty() || r.bpc != rs.front().bpc) continue;
        const double x = X(double(r.w) * r.h);
        s << "<line x1='" << x << "' x2='" << x << "' y1='" << T << "' y2='" << H - B
          << "' stroke='#eee'/>"
          << "<text x='" << x << "' y='" << H - B + 16 << "' text-anchor='middle'>" << r.w << "x"
          << r.h << "</text>\n";
    }
    const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                            "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aa3377"};
    int i = 0;
    for (auto& [n, pts] : lines) {
        std::sort(pts.begin(), pts.end());
        const char* c = colors[i % 12];
        s << "<polyline fill='none' stroke='" << c << "' stroke-width='2'"
          << (n.find("10b") != std::string::npos ? " stroke-dasharray='5,3'" : "") << " points='";
        for (auto& [x, y] : pts) s << X(x) << "," << Y(y) << " ";
        s << "'/>\n<text x='" << W - R + 10 << "' y='" << T + 16 * i << "' fill='" << c << "'>" << n
          << "</text>\n";
        ++i;
    }
    s << "</svg>\n";
    return s.str();
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        usage();
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "vif-sweep: no CUDA device present; nothing to measure\n");
        return 1;
    }
    CK(cudaSetDevice(o.device));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, o.device));
    int sm_clock = 0, mem_clock = 0;
    cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, o.device);
    cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, o.device);
    std::vector<Result> results;
    for (auto [w, h] : o.sizes)
        for (int bpc : o.bitdepths) {
            const bool single = o.batches.empty() ||
                                std::find(o.batches.begin(), o.batches.end(), 1) != o.batches.end();
            if (single) {
                results.push_back(run_one(o, prop, w, h, bpc, {}, ""));
                std::fprintf(stderr, "vif-sweep: %dx%d %d-bit: %.1f us/frame pipelined\n", w, h,
                             bpc, results.back().pipelined_us);
            }
            for (const std::string& t : o.tiles) {
                if (!single) break;
                vif::CudaOptions cand;
                if (!parse_tiles(t, &cand)) {
                    std::fprintf(stderr,
                                 "vif-sweep: --tiles %s: expected s0,s1,s2,s3,s23[,fuse] with "
                                 "variant ids of the kernel table or 'auto'\n",
                                 t.c_str());
                    return 2;
                }
                results.push_back(run_one(o, prop, w, h, bpc, cand, "tiles " + t));
            }
            for (const std::string& f : o.float_kernels) {
                if (!single || o.variant != VIF_VARIANT_FLOAT) break;
                vif::CudaOptions cand;
                cand.float_kernels = vif::cuda::float_variant_index(f);
                results.push_back(run_one(o, prop, w, h, bpc, cand, "float " + f));
                std::fprintf(stderr, "vif-sweep: %dx%d %d-bit float %s: %.1f us/frame pipelined\n",
                             w, h, bpc, f.c_str(), results.back().pipelined_us);
            }
            // Batched launches (integer): the rules' tiles, then each --tiles combination.
            for (int f : o.batches) {
                if (f == 1 || o.variant != VIF_VARIANT_INTEGER) continue;
                const std::string b = "batch " + std::to_string(f);
                results.push_back(run_one(o, prop, w, h, bpc, {}, b, f));
                std::fprintf(stderr, "vif-sweep: %dx%d %d-bit %s: %.1f us/frame pipelined\n", w, h,
                             bpc, b.c_str(), results.back().pipelined_us);
                for (const std::string& t : o.tiles) {
                    vif::CudaOptions cand;
                    if (!parse_tiles(t, &cand)) return 2; // reported above
                    results.push_back(run_one(o, prop, w, h, bpc, cand, b + " tiles " + t, f));
                }
            }
            if (!single || !o.candidates || o.variant != VIF_VARIANT_INTEGER) continue;
            // Scales 2 and 3 variants are timed unfused (their own launches); slot 4 is the
            // fused 2+3 launch. "unfused" is the rules' choices without the fusion.
            {
                vif::CudaOptions cand;
                cand.fuse23 = false;
                results.push_back(run_one(o, prop, w, h, bpc, cand, "unfused"));
            }
            for (int slot = 0; slot < vif::cuda::kIntSlots; ++slot) {
                const auto& variants = vif::cuda::int_variants(slot);
                for (size_t i = 0; i < variants.size(); ++i) {
                    if (!variants[i].has_depth(bpc)) continue;
                    vif::CudaOptions cand;
                    cand.tiles[slot] = static_cast<int>(i);
                    cand.fuse23 = slot != 2 && slot != 3;
                    results.push_back(
                        run_one(o, prop, w, h, bpc, cand, std::string("v:") + variants[i].id));
                }
            }
        }
    std::string md = markdown(results, prop, o, sm_clock, mem_clock);
    if (o.variant == VIF_VARIANT_INTEGER) {
        // The rules "chosen" follows on this GPU, with the sweep rows they cite.
        const vif::cuda::Arch arch =
            o.sm75_rules ? vif::cuda::Arch::Sm75 : vif::cuda::arch_of(prop.major, prop.minor);
        std::ostringstream rules;
        rules << "\n## Kernel table rules on this GPU (" << vif::cuda::arch_name(arch)
              << ", rules of " << vif::cuda::arch_name(vif::cuda::int_rules_owner(arch)) << ")\n\n"
              << vif::cuda::dispatch_markdown(arch);
        md += rules.str();
    }
    if (o.candidates) {
        // Fastest shape per kernel, size and bit depth (by that kernel's median).
        std::ostringstream best;
        best << "\n## Fastest tile candidate per kernel\n\n| size | bpc | kernel | fastest (run: "
                "tile) | median us | chosen us |\n|---|---|---|---|---|---|\n";
        for (auto [w, h] : o.sizes)
            for (int bpc : o.bitdepths) {
                std::map<std::string, std::pair<double, std::string>> fastest;
                std::map<std::string, double> chosen;
                for (const auto& r : results) {
                    if (r.w != w || r.h != h || r.bpc != bpc) continue;
                    for (const auto& k : r.kernels) {
                        const std::string run = r.candidate.empty() ? "chosen" : r.candidate;
                        if (r.candidate.empty() ||
                            (r.candidate == "unfused" && !chosen.count(k.name)))
                            chosen[k.name] = k.us.median;
                        auto it = fastest.find(k.name);
                        if (it == fastest.end() || k.us.median < it->second.first)
                            fastest[k.name] = {k.us.median, run + ": " + k.shape};
                    }
                }
                for (const auto& [name, v] : fastest)
                    best << "| " << w << "x" << h << " | " << bpc << " | " << name << " | **"
                         << v.second << "** | " << fmt("%.1f", v.first) << " | "
                         << fmt("%.1f", chosen[name]) << " |\n";
            }
        md += best.str();
    }
    std::fputs(md.c_str(), stdout);
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream f(o.out + "/" + name);
        f << text;
    };
    write("sweep.md", md);
    write("sweep.json", json(results, prop, o));
    write("sweep.csv", csv(results));
    write("sweep.svg", svg(results));
    return 0;
}
