#include "commands/device_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "frame_source.hpp"
#if defined(VIF_WITH_FFMPEG)
#include "decode_choice.hpp"
#endif

namespace vifcli {

namespace {

// The rates, luma pixels of reference frames scored a second on one device, whole batch (busy
// time of `vif batch --timings` on one H200, 2026-11-26, issue 25's second round): the compact
// catalogue (576x324 x264, decoded on the host, 4 workers) 4,800 pairs in 0.47 s = 1.9e9; the
// 1080p H.264 catalogue decoded by NVDEC, 19,200 pairs in 12.7 s = 3.1e9. Raw input has no
// decoding: the single pair's 1080p rate (about 1,900 fps = 3.9e9) stands for it.
constexpr double kHostDecodedPixelsPerS = 1.9e9;
constexpr double kNvdecPixelsPerS = 3.1e9;
constexpr double kRawPixelsPerS = 3.9e9;
// A fresh device's scoring contexts (one per worker, made at once): 0.1-0.15 s each in that run.
constexpr double kContextStartS = 0.15;

struct Shape {
    double frames = 0, pixels = 0; // frames of the pair, luma pixels of one frame
    bool encoded = false;
    std::string codec;
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
    s.codec = c->codec;
    return s;
#else
    return std::nullopt;
#endif
}

} // namespace

double context_startup_seconds() {
    return kContextStartS;
}

WorkEstimate estimate_work(const std::vector<std::vector<RungJob>> &groups, bool nvdec,
                           size_t sample) {
    WorkEstimate e;
    std::vector<std::pair<const RungJob *, bool>> rows; // the row, alone in its group
    for (const auto &g : groups)
        for (const RungJob &j : g) rows.emplace_back(&j, g.size() == 1);
    e.rows = rows.size();
    if (const char *v = std::getenv("VIF_TEST_BATCH_WORK_S"); v && *v) {
        e.seconds = std::atof(v);
        e.known = true;
        e.why = fmt::format("{:.2f} s on one device (VIF_TEST_BATCH_WORK_S)", e.seconds);
        return e;
    }
    if (rows.empty()) return e;
    // Rows whose inputs cannot say their length (a missing file fails its row at once, a
    // container without a count) are left out of the sample.
    const size_t n = std::min(sample, rows.size());
    double seconds = 0, frames = 0, pixels = 0;
    size_t known = 0;
    for (size_t i = 0; i < n; ++i) {
        const auto &[j, alone] = rows[i * rows.size() / n]; // spread over the manifest
        const std::optional<Shape> r = shape_of(*j, j->row.reference, "reference");
        const std::optional<Shape> d = shape_of(*j, j->row.distorted, "distorted");
        if (!r || !d) continue;
        const double f = std::min(r->frames, d->frames);
        const bool on_nvdec = nvdec && alone && r->encoded && d->encoded;
        const double rate = !r->encoded && !d->encoded ? kRawPixelsPerS
                            : on_nvdec                 ? kNvdecPixelsPerS
                                                       : kHostDecodedPixelsPerS;
        seconds += f * r->pixels / rate;
        frames += f;
        pixels += r->pixels;
        ++known;
    }
    if (!known) {
        e.why = "unknown (no sampled row's inputs say their length)";
        return e;
    }
    e.seconds = seconds * double(rows.size()) / double(known);
    e.known = true;
    e.why = fmt::format("about {:.2f} s on one device: {} rows of about {:.0f} frames of {:.2g} "
                        "pixels",
                        e.seconds, rows.size(), frames / double(known), pixels / double(known));
    return e;
}

size_t devices_that_pay(double work_left_s, double startup_s, size_t others, std::string *why) {
    size_t k = 0;
    while (k < others && work_left_s >= 2.0 * double(k + 1) * startup_s) ++k;
    *why = fmt::format("{} of {} more device{} started: about {:.2f} s of one device's work left, "
                       "{:.2f} s a start-up (the k-th more from 2 k start-ups of work)",
                       k, others, others == 1 ? "" : "s", work_left_s, startup_s);
    return k;
}

} // namespace vifcli
