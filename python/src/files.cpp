// score_files: scores two video files with the vif CLI's frame sources (tools/vif: raw YUV, Y4M,
// and FFmpeg inputs in FFmpeg builds), all of it with the GIL released. Like the CLI it scores
// the frames both inputs have and reports (for a warning) when their lengths differ.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "scores.hpp"
#include "vif/vif.h"

#if defined(VIF_PY_HAVE_FILES)
#include "frame_source.hpp"
#endif

namespace py = pybind11;

namespace vifpy {

/** Status that libvif/_errors.py maps to InputError (a problem with an input file). */
constexpr int kInputErrorStatus = 1000;

#if defined(VIF_PY_HAVE_FILES)
namespace {

struct FileOptions {
    uint32_t width, height, bitdepth;
    std::string pixel_format;
    bool allow_mapping;
    uint64_t max_frames; // 0: all
    VifConfig cfg;
};

/** One input: its source and the buffer its planes are read into (unless mapped). */
class Input {
public:
    Input(const std::string &path, const char *label, const FileOptions &o) {
        vifcli::SourceRequest req;
        req.path = path;
        req.label = label;
        req.width = o.width;
        req.height = o.height;
        req.bitdepth = o.bitdepth;
        req.pixel_format = o.pixel_format;
        req.allow_mapping = o.allow_mapping;
        src_ = vifcli::open_frame_source(req);
        if (!src_->supports_mapping()) buf_.resize(src_->info().luma_bytes());
    }
    const vifcli::VideoInfo &info() const { return src_->info(); }

    /** The next frame's luma plane, or nullopt at the end of the input. */
    std::optional<VifPicture> next() {
        const vifcli::VideoInfo &vi = info();
        VifPicture p{nullptr,     ptrdiff_t(vi.row_bytes()), vi.width, vi.height,
                     vi.bitdepth, vi.picture_flags};
        if (src_->supports_mapping()) {
            p.data = src_->map_luma();
            if (!p.data) return std::nullopt;
        } else {
            if (!src_->read_luma(buf_.data(), ptrdiff_t(vi.row_bytes()))) return std::nullopt;
            p.data = buf_.data();
        }
        return p;
    }

private:
    std::unique_ptr<vifcli::FrameSource> src_;
    std::vector<uint8_t> buf_;
};

struct FileScores {
    std::vector<MetricValues> frames;
    std::string backend;
    std::string length_note; // non-empty when the inputs' lengths differ
    vifcli::VideoInfo ref_info, dist_info;
};

void check(VifStatus st) {
    if (st != VIF_OK) throw_last_error(st);
}

/** Runs without the GIL, except to look for Ctrl-C now and then. */
FileScores score_pair(const std::string &ref_path, const std::string &dist_path, FileOptions o) {
    Input ref(ref_path, "reference", o);
    Input dist(dist_path, "distorted", o);
    const vifcli::VideoInfo &ri = ref.info(), &di = dist.info();
    if (ri.width != di.width || ri.height != di.height)
        throw vifcli::InputError("the inputs differ in size: reference " +
                                 std::to_string(ri.width) + "x" + std::to_string(ri.height) +
                                 ", distorted " + std::to_string(di.width) + "x" +
                                 std::to_string(di.height));
    if (ri.bitdepth != di.bitdepth)
        throw vifcli::InputError("the inputs differ in bit depth: reference " +
                                 std::to_string(ri.bitdepth) + "-bit, distorted " +
                                 std::to_string(di.bitdepth) + "-bit");
    o.cfg.max_width = ri.width;
    o.cfg.max_height = ri.height;
    o.cfg.bitdepth = ri.bitdepth;

    FileScores out;
    out.ref_info = ri;
    out.dist_info = di;
    VifContext *raw = nullptr;
    check(vif_create(&raw, &o.cfg));
    std::unique_ptr<VifContext, void (*)(VifContext *)> ctx(raw, vif_destroy);
    out.backend = vif_backend_name(ctx.get());

    VifScores s{};
    auto take = [&](int block) {
        VifStatus st = vif_receive(ctx.get(), &s, block);
        if (st == VIF_AGAIN) return false;
        check(st);
        out.frames.push_back(metric_values(s));
        return true;
    };
    uint64_t n = 0;
    for (; o.max_frames == 0 || n < o.max_frames; ++n) {
        if (n % 16 == 0) {
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        }
        std::optional<VifPicture> r = ref.next();
        std::optional<VifPicture> d = r ? dist.next() : std::nullopt;
        if (!r || !d) {
            // Like the CLI: score the common frames and say which input was longer.
            const bool other_has_more = r ? false : bool(dist.next());
            if (!r && other_has_more)
                out.length_note = "the distorted input has more frames than the reference (" +
                                  std::to_string(n) + "); scored the first " + std::to_string(n);
            else if (r)
                out.length_note = "the reference has more frames than the distorted input (" +
                                  std::to_string(n) + "); scored the first " + std::to_string(n);
            break;
        }
        VifStatus st;
        while ((st = vif_submit(ctx.get(), &*r, &*d, nullptr)) == VIF_AGAIN) take(1);
        check(st);
        while (take(0)) {}
    }
    while (take(1)) {}
    return out;
}

py::dict info_dict(const vifcli::VideoInfo &vi) {
    py::dict d;
    d["width"] = vi.width;
    d["height"] = vi.height;
    d["bitdepth"] = vi.bitdepth;
    d["format"] = vi.format;
    d["frames"] = vi.frames ? py::cast(*vi.frames) : py::none();
    return d;
}

py::dict score_files(const std::string &ref, const std::string &dist, uint32_t width,
                     uint32_t height, uint32_t bitdepth, const std::string &pixel_format,
                     bool allow_mapping, uint64_t max_frames, int variant, int backend,
                     double enhn_gain_limit, double kernelscale, uint32_t threads,
                     uint32_t queue_depth, int32_t cuda_device) {
    FileOptions o{width, height, bitdepth, pixel_format, allow_mapping, max_frames, {}};
    vif_default_config(&o.cfg);
    o.cfg.variant = static_cast<VifVariant>(variant);
    o.cfg.backend = static_cast<VifBackend>(backend);
    o.cfg.enhn_gain_limit = enhn_gain_limit;
    o.cfg.kernelscale = kernelscale;
    o.cfg.threads = threads;
    o.cfg.queue_depth = queue_depth;
    o.cfg.cuda_device = cuda_device;

    FileScores fs;
    try {
        py::gil_scoped_release nogil;
        fs = score_pair(ref, dist, o);
    } catch (const vifcli::InputError &e) {
        throw LibraryError(static_cast<VifStatus>(kInputErrorStatus), e.what());
    }
    py::array_t<double> values({py::ssize_t(fs.frames.size()), py::ssize_t(VIF_METRIC_COUNT)});
    auto v = values.mutable_unchecked<2>();
    for (size_t f = 0; f < fs.frames.size(); ++f)
        for (size_t m = 0; m < VIF_METRIC_COUNT; ++m)
            v(py::ssize_t(f), py::ssize_t(m)) = fs.frames[f][m];
    VifConfig named = o.cfg;
    py::dict out;
    out["values"] = values;
    out["names"] = metric_names(named);
    out["backend"] = fs.backend;
    out["reference"] = info_dict(fs.ref_info);
    out["distorted"] = info_dict(fs.dist_info);
    out["length_note"] =
        fs.length_note.empty() ? py::object(py::none()) : py::object(py::str(fs.length_note));
    return out;
}

} // namespace
#endif

void register_files(py::module_ &m) {
#if defined(VIF_PY_HAVE_FILES)
    m.def("score_files", &score_files, py::arg("ref"), py::arg("dist"), py::arg("width"),
          py::arg("height"), py::arg("bitdepth"), py::arg("pixel_format"), py::arg("allow_mapping"),
          py::arg("max_frames"), py::arg("variant"), py::arg("backend"), py::arg("enhn_gain_limit"),
          py::arg("kernelscale"), py::arg("threads"), py::arg("queue_depth"),
          py::arg("cuda_device"));
    m.attr("HAVE_FILES") = true;
#if defined(VIF_WITH_FFMPEG)
    m.attr("HAVE_FFMPEG") = true;
#else
    m.attr("HAVE_FFMPEG") = false;
#endif
#else
    m.attr("HAVE_FILES") = false;
    m.attr("HAVE_FFMPEG") = false;
#endif
    m.attr("INPUT_ERROR_STATUS") = kInputErrorStatus;
}

} // namespace vifpy
