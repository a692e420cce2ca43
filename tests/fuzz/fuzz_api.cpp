// libFuzzer target: the C API on the CPU backend. Random configurations (valid and not), random
// pictures (sizes, strides, flags, bit depths, NULLs, samples above the bit depth) and random
// orders of submit / receive / score / pending / pool / metric_name calls. Pictures point into a
// pool whose size is exact (ASan sees any read past it), and a picture is only given a plane
// that extends past the pool when the documented contract makes it invalid: the library must
// then refuse it without reading. Beyond "no crash", it checks the contracts of vif.h: which
// calls must fail, the queue rule (VIF_AGAIN exactly when queue_depth frames are unreceived),
// frame indices in order, and metric names without "nan"/"inf".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "vif/vif.h"

// fuzz_api_shim.c: the enum-taking entry points called with plain ints, as from C.
extern "C" {
VifStatus fuzz_metric_name(const VifConfig* cfg, int metric, char* buf, size_t size);
double fuzz_metric_value(const VifScores* scores, int metric);
VifStatus fuzz_pool(const double* values, size_t n, int method, double param, double* result);
const char* fuzz_status_string(int status);
}

namespace {

using vif_fuzz::Input;

constexpr size_t kPoolBytes = 48 * 1024;
constexpr ptrdiff_t kMaxStride = ptrdiff_t(1) << 30; // vif.h's limit

template <typename Enum>
void store_int(Enum* e, int v) {
    std::memcpy(e, &v, sizeof v);
}

bool options_valid(const VifConfig& c, int variant) {
    if (variant != 0 && variant != 1) return false;
    if (!(c.enhn_gain_limit >= 1.0 && c.enhn_gain_limit <= 100.0)) return false;
    if (variant == 0 && c.kernelscale != 1.0) return false;
    if (variant == 1 && !(std::isfinite(c.kernelscale) && c.kernelscale > 0.0)) return false;
    return true;
}

struct Model { // what the fuzzer expects of the context
    uint64_t next_submit = 0, next_receive = 0;
    size_t depth = 0;
    size_t pending() const { return static_cast<size_t>(next_submit - next_receive); }
};

// One picture drawn from the input; `invalid` when vif.h's contract says vif_submit must refuse
// it for reasons visible without reading samples.
struct Pic {
    VifPicture p{};
    bool invalid = false;
    bool above = false; // a sample above the bit depth (only meaningful when !invalid)
};

Pic draw_picture(Input& in, std::vector<uint8_t>& pool, const VifConfig& cfg) {
    Pic r;
    const uint8_t mode = in.u8();
    uint32_t w = 16 + in.u8() % (cfg.max_width - 16 + 3); // may exceed the maximum by 2
    uint32_t h = 16 + in.u8() % (cfg.max_height - 16 + 3);
    if ((mode & 7) == 0) w = in.u8() % 20; // tiny, often below 16
    uint32_t bpc = cfg.bitdepth;
    if ((mode >> 3 & 7) == 0) bpc = in.u8() % 18;
    uint32_t flags = 0;
    switch (mode >> 6) {
    case 1:
        flags = VIF_PICTURE_MSB_ALIGNED;
        break;
    case 2:
        flags = in.u8() & 1 ? 2u : 0x80000000u;
        break;
    default:
        break;
    }
    const size_t bps = bpc == 8 ? 1 : 2;
    const ptrdiff_t row =
        static_cast<ptrdiff_t>(w) * static_cast<ptrdiff_t>(cfg.bitdepth == 8 ? 1 : 2);
    ptrdiff_t stride;
    const uint8_t smode = in.u8();
    switch (smode & 3) {
    case 0:
        stride = row;
        break;
    case 1:
        stride = row + in.u8();
        break;
    case 2:
        stride = row - 1 - in.u8() % 4;
        break;
    default:
        stride = static_cast<ptrdiff_t>(in.u64());
        break;
    }
    r.invalid = w > cfg.max_width || h > cfg.max_height || w < 16 || h < 16 ||
                bpc != cfg.bitdepth || (flags & ~VIF_PICTURE_MSB_ALIGNED) != 0 ||
                ((flags & VIF_PICTURE_MSB_ALIGNED) && cfg.bitdepth == 8) || stride < row ||
                stride > kMaxStride;
    const bool null_data = (smode >> 2 & 15) == 0;
    r.invalid = r.invalid || null_data;
    // Where the plane goes. A valid picture must fit in the pool: shrink its stride if not.
    const size_t used_row = static_cast<size_t>(w) * (cfg.bitdepth == 8 ? 1 : 2);
    if (!r.invalid) {
        size_t extent = static_cast<size_t>(stride) * (h - 1) + used_row;
        if (extent > pool.size()) {
            stride = row;
            extent = static_cast<size_t>(stride) * (h - 1) + used_row;
        }
        if (extent > pool.size()) { // too large even packed: make it invalid instead
            w = cfg.max_width + 1;
            r.invalid = true;
        }
    }
    uint8_t* data = pool.data();
    if (!r.invalid) {
        const size_t extent = static_cast<size_t>(stride) * (h - 1) + used_row;
        const size_t offset = in.u16() % (pool.size() - extent + 1);
        data = pool.data() + offset;
        // Samples within the bit depth unless the input asks otherwise.
        const bool keep_high = (smode >> 6) == 3;
        if (cfg.bitdepth == 10 || cfg.bitdepth == 12) {
            const uint16_t max = static_cast<uint16_t>((1u << cfg.bitdepth) - 1);
            for (uint32_t y = 0; y < h; ++y)
                for (uint32_t x = 0; x < w; ++x) {
                    uint8_t* q = data + static_cast<size_t>(y) * stride + 2 * x;
                    uint16_t v;
                    std::memcpy(&v, q, 2);
                    if (!keep_high) {
                        v &= max;
                        std::memcpy(q, &v, 2);
                    }
                    if (!(flags & VIF_PICTURE_MSB_ALIGNED) && v > max) r.above = true;
                }
        }
    }
    (void)bps;
    r.p = VifPicture{null_data ? nullptr : data, stride, w, h, bpc, flags};
    return r;
}

void check_names(const VifConfig& cfg, int variant, Input& in) {
    char name[64];
    const bool valid = options_valid(cfg, variant);
    for (int m = -1; m <= VIF_METRIC_COUNT; ++m) {
        const int metric = m == VIF_METRIC_COUNT ? static_cast<int>(in.u32()) : m;
        const VifStatus st =
            fuzz_metric_name(&cfg, metric, name, in.flag() ? sizeof name : in.u8() % 40);
        if (st == VIF_OK) {
            VIF_FUZZ_CHECK(valid, "name '%s' for options vif_create refuses", name);
            VIF_FUZZ_CHECK(std::strlen(name) < sizeof name, "name too long");
            const std::string s(name);
            VIF_FUZZ_CHECK(s.find("nan") == std::string::npos && s.find("inf") == std::string::npos,
                           "name '%s'", name);
        } else {
            VIF_FUZZ_CHECK(st == VIF_ERROR_INVALID_ARGUMENT, "status %d", st);
        }
    }
}

void draw_option_values(Input& in, VifConfig* cfg) {
    static const double kGains[] = {100.0, 1.0, 50.5, NAN, INFINITY, 0.99, 100.01, -0.0, 2.0};
    static const double kScales[] = {1.0, 0.5, 1.5, 2.0, 1.3, NAN, 0.0, 2.0 / 3.0, 1e300};
    const uint8_t g = in.u8();
    cfg->enhn_gain_limit = g < 230 ? kGains[g % 9] : in.f64();
    const uint8_t k = in.u8();
    cfg->kernelscale = k < 230 ? kScales[k % 9] : in.f64();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in(data, size);
    VifConfig cfg;
    vif_default_config(&cfg);
    const uint8_t sel = in.u8();
    cfg.max_width = 16 + in.u8() % 41; // 16..56: fast
    cfg.max_height = 16 + in.u8() % 41;
    if ((sel & 7) == 0) cfg.max_width = in.flag() ? in.u8() % 16 : 32769 + in.u16();
    static const uint32_t kDepths[] = {8, 10, 12, 16};
    cfg.bitdepth = (sel >> 3 & 7) == 0 ? in.u8() : kDepths[in.u8() % 4];
    int variant = in.u8() % 8 == 0 ? static_cast<int>(in.u32()) : in.u8() % 2;
    store_int(&cfg.variant, variant);
    int backend = in.u8() % 8 == 0 ? static_cast<int>(in.u8()) - 1 : VIF_BACKEND_CPU;
    if (backend == VIF_BACKEND_CUDA || backend == VIF_BACKEND_AUTO) backend = VIF_BACKEND_CPU;
    store_int(&cfg.backend, backend);
    if (in.u8() % 4 == 0)
        draw_option_values(in, &cfg);
    else if (variant == 1 && in.flag())
        cfg.kernelscale = 0.5;
    cfg.threads = 1 + in.u8() % 2;
    cfg.queue_depth = in.u8() % 6;
    const bool reserved_set = in.u8() % 16 == 0;
    // Any slot of the reserved words, however many the header keeps (VifConfig grows into them).
    constexpr unsigned kReserved = sizeof(cfg.reserved) / sizeof(cfg.reserved[0]);
    if (reserved_set) cfg.reserved[in.u8() % kReserved] = 1 + in.u8();

    check_names(cfg, variant, in);

    const bool surely_invalid =
        reserved_set || !options_valid(cfg, variant) ||
        (cfg.bitdepth != 8 && cfg.bitdepth != 10 && cfg.bitdepth != 12 && cfg.bitdepth != 16) ||
        (backend < 0 || backend > 2) || cfg.max_width < 16 || cfg.max_width > 32768;
    VifContext* ctx = reinterpret_cast<VifContext*>(&cfg); // must be reset to NULL on failure
    const VifStatus created = vif_create(&ctx, &cfg);
    if (created != VIF_OK) {
        VIF_FUZZ_CHECK(ctx == nullptr, "ctx not reset");
        VIF_FUZZ_CHECK(created == VIF_ERROR_INVALID_ARGUMENT, "create: %d %s", created,
                       vif_last_error());
        return 0;
    }
    VIF_FUZZ_CHECK(!surely_invalid, "vif_create accepted an invalid config");

    // The rest of the input: the first half drives the calls, the second fills the fake memory
    // (repeated), a vector of exactly kPoolBytes so that ASan sees any read past it.
    size_t n = 0;
    const uint8_t* rest = in.rest(&n);
    const size_t op_bytes = n / 2;
    Input ops(rest, op_bytes);
    std::vector<uint8_t> pool(kPoolBytes);
    const uint8_t* src = rest + op_bytes;
    const size_t src_n = n - op_bytes;
    for (size_t i = 0; i < pool.size(); ++i)
        pool[i] = src_n ? src[i % src_n] : static_cast<uint8_t>(i * 151);

    Model m;
    const size_t threads = cfg.threads;
    m.depth = std::max<size_t>(cfg.queue_depth ? cfg.queue_depth : threads + 2, threads);
    for (int step = 0; step < 24 && ops.remaining(); ++step) {
        const uint8_t op = ops.u8() % 8;
        if (op <= 2) { // submit
            const Pic r = draw_picture(ops, pool, cfg);
            Pic d = ops.flag() ? r : draw_picture(ops, pool, cfg);
            uint64_t idx = ~0ull;
            const VifStatus st = vif_submit(ctx, &r.p, &d.p, &idx);
            const bool invalid =
                r.invalid || d.invalid || r.p.width != d.p.width || r.p.height != d.p.height;
            if (invalid) {
                VIF_FUZZ_CHECK(st == VIF_ERROR_INVALID_ARGUMENT, "submit of an invalid picture: %d",
                               st);
            } else if (st == VIF_OK) {
                VIF_FUZZ_CHECK(m.pending() < m.depth, "accepted past queue_depth");
                VIF_FUZZ_CHECK(!r.above && !d.above, "sample above the bit depth accepted");
                VIF_FUZZ_CHECK(idx == m.next_submit, "index %llu", (unsigned long long)idx);
                ++m.next_submit;
            } else if (st == VIF_AGAIN) {
                VIF_FUZZ_CHECK(m.pending() == m.depth, "AGAIN with %zu of %zu pending", m.pending(),
                               m.depth);
            } else {
                // Only a size below the filters' minimum (kernel scales above 1) or a bad sample.
                VIF_FUZZ_CHECK(st == VIF_ERROR_INVALID_ARGUMENT, "submit: %d %s", st,
                               vif_last_error());
                const std::string msg = vif_last_error();
                VIF_FUZZ_CHECK(r.above || d.above || msg.find("minimum") != std::string::npos,
                               "unexpected refusal: %s", msg.c_str());
            }
            if (st != VIF_OK) VIF_FUZZ_CHECK(idx == ~0ull, "index written on failure");
        } else if (op <= 4) { // receive
            VifScores s;
            const bool block = op == 3;
            const VifStatus st = vif_receive(ctx, &s, block);
            if (st == VIF_OK) {
                VIF_FUZZ_CHECK(m.pending() > 0, "scores from nowhere");
                VIF_FUZZ_CHECK(s.frame_index == m.next_receive, "order");
                ++m.next_receive;
            } else {
                VIF_FUZZ_CHECK(st == VIF_AGAIN, "receive: %d %s", st, vif_last_error());
                VIF_FUZZ_CHECK(!block || m.pending() == 0, "blocking receive said AGAIN");
            }
        } else if (op == 5) { // score
            const Pic r = draw_picture(ops, pool, cfg);
            VifScores s;
            const VifStatus st = vif_score(ctx, &r.p, &r.p, &s);
            if (m.pending() != 0) {
                VIF_FUZZ_CHECK(st == VIF_ERROR_INVALID_STATE, "score with frames pending: %d", st);
            } else if (st == VIF_OK) {
                VIF_FUZZ_CHECK(!r.invalid && !r.above, "score accepted a bad picture");
                VIF_FUZZ_CHECK(s.frame_index == m.next_submit, "score index");
                ++m.next_submit;
                ++m.next_receive;
            } else {
                VIF_FUZZ_CHECK(st == VIF_ERROR_INVALID_ARGUMENT, "score: %d", st);
            }
        } else if (op == 6) {
            VIF_FUZZ_CHECK(vif_pending(ctx) == m.pending(), "pending %zu vs %zu", vif_pending(ctx),
                           m.pending());
        } else { // pooling with any method value and parameter
            double values[8];
            const size_t n = ops.u8() % 9;
            for (size_t i = 0; i < n; ++i) values[i] = ops.flag() ? ops.f64() : ops.u8() / 255.0;
            const int method = static_cast<int>(ops.u8() % 7) - 1;
            const double param = ops.flag() ? ops.f64() : ops.u8() / 2.0;
            double result;
            const VifStatus st = fuzz_pool(n ? values : nullptr, n, method, param, &result);
            VIF_FUZZ_CHECK(st == VIF_OK || st == VIF_ERROR_INVALID_ARGUMENT, "pool: %d", st);
            VifScores sc{};
            const double v = fuzz_metric_value(ops.flag() ? &sc : nullptr,
                                               static_cast<int>(ops.u32() % 40) - 20);
            (void)v;
            VIF_FUZZ_CHECK(fuzz_status_string(static_cast<int>(ops.u32())) != nullptr,
                           "status string");
        }
    }
    vif_destroy(ctx); // frames may still be pending
    return 0;
}
