#include "commands/device_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "frame_source.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "decode_choice.hpp"
#endif

namespace vifcli {

namespace {

// A fresh device's scoring contexts (one per worker, made at once): 0.1-0.15 s each in the
// 4x H200 runs (2026-11-26).
constexpr double kContextStartS = 0.15;

struct Shape {
    double frames = 0, pixels = 0; // frames of the pair, luma pixels of one frame
    bool encoded = false;
#if defined(VIF_WITH_FFMPEG)
    ClipShape clip; // (encoded)
#endif
};

// One input's length and size from its header or size; nullopt when it cannot say.
std::optional<Shape> shape_of(const RungJob &j, const std::string &path, const char *label) {
    Shape s;
    if (raw_name(path) || std::filesystem::path(path).extension() == ".y4m") {
        try {
            const std::unique_ptr<FrameSource> src =
                open_frame_source(request(path, label, j.row, 1));
            const VideoInfo &vi = src->info();
            if (!vi.frames) return std::nullopt;
            s.frames = double(*vi.frames);
            s.pixels = double(vi.width) * vi.height;
            return s;
        } catch (...) {
            return std::nullopt;
        }
    }
#if defined(VIF_WITH_FFMPEG)
    const std::optional<ClipShape> c = probe_clip_shape(path);
    if (!c || !c->frames) return std::nullopt;
    s.frames = double(c->frames);
    s.pixels = double(c->width) * c->height;
    s.encoded = true;
    s.clip = *c;
    return s;
#else
    return std::nullopt;
#endif
}

// Whether NVDEC decodes a row of `frames` pairs of inputs r and d (both encoded) under --hwdec
// auto, as open_hw_decode decides for the row (the larger input's shape).
bool nvdec_takes([[maybe_unused]] const Shape &r, [[maybe_unused]] const Shape &d,
                 [[maybe_unused]] double frames) {
#if defined(VIF_WITH_FFMPEG)
    const ClipShape &big = r.pixels >= d.pixels ? r.clip : d.clip;
    return choose_nvdec(uint64_t(frames), big, std::max(1u, std::thread::hardware_concurrency()))
        .nvdec;
#else
    return false;
#endif
}

} // namespace

double context_startup_seconds() {
    return kContextStartS;
}

WorkEstimate estimate_work(const std::vector<std::vector<RungJob>> &groups, bool nvdec,
                           bool nvdec_always, size_t host_workers, size_t sample) {
    using vif::batch::RowPath;
    WorkEstimate e;
    std::vector<std::pair<const RungJob *, bool>> rows; // the row, alone in its group
    for (const auto &g : groups)
        for (const RungJob &j : g) rows.emplace_back(&j, g.size() == 1);
    // (A ladder's rungs go to NVDEC with their reference where they are of its size: the
    // sampled row's own size stands for its group's.)
    e.rows = rows.size();
    if (const char *v = std::getenv("VIF_TEST_BATCH_WORK_S"); v && *v) {
        e.work.device_s = std::atof(v);
        e.known = true;
        e.why = fmt::format("{:.2f} s on one device (VIF_TEST_BATCH_WORK_S)", e.work.device_s);
        return e;
    }
    if (rows.empty()) return e;
    // Rows whose inputs cannot say their length (a missing file fails its row at once, a
    // container without a count) are left out of the sample.
    const size_t n = std::min(sample, rows.size());
    vif::batch::DeviceWork sum;
    double frames = 0, pixels = 0;
    size_t known = 0, on_host = 0;
    for (size_t i = 0; i < n; ++i) {
        const auto &[j, alone] = rows[i * rows.size() / n]; // spread over the manifest
        const std::optional<Shape> r = shape_of(*j, j->row.reference, "reference");
        const std::optional<Shape> d = shape_of(*j, j->row.distorted, "distorted");
        if (!r || !d) continue;
        const double f = std::min(r->frames, d->frames);
        const bool on_nvdec = nvdec && (alone || r->pixels == d->pixels) && r->encoded &&
                              d->encoded && (nvdec_always || nvdec_takes(*r, *d, f));
        const RowPath path = !r->encoded && !d->encoded ? RowPath::raw
                             : on_nvdec                 ? RowPath::nvdec
                                                        : RowPath::host_decoded;
        on_host += path == RowPath::host_decoded;
        e.on_nvdec += path == RowPath::nvdec;
        sum += vif::batch::row_work(path, f, r->pixels, host_workers);
        frames += f;
        pixels += r->pixels;
        ++known;
    }
    if (!known) {
        e.why = "unknown (no sampled row's inputs say their length)";
        return e;
    }
    e.sampled = known;
    // Test hook: every sampled row said to decode on NVDEC (the host's share on stand-ins).
    if (const char *v = std::getenv("VIF_TEST_NVDEC_ROWS"); v && std::string(v) == "1")
        e.on_nvdec = known;
    const double scale = double(rows.size()) / double(known);
    e.work.host_s = sum.host_s * scale;
    e.work.device_s = sum.device_s * scale;
    e.known = true;
    e.why =
        fmt::format("about {:.2f} s on one device: {} rows of about {:.0f} frames of {:.2g} "
                    "pixels, {} of {} sampled decoded on the host (by {} workers at most)",
                    std::max(e.work.host_s, e.work.device_s), rows.size(), frames / double(known),
                    pixels / double(known), on_host, known, host_workers);
    return e;
}

} // namespace vifcli
