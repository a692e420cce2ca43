// Context: one VifContext, fed host arrays (vif_submit) or device pointers (vif_cuda_submit).
// Every call that may wait (submit when the queue is full, a blocking receive, destroy) runs
// with the GIL released; a mutex keeps the context to one thread at a time, as vif.h requires.
// Batches of frames (3-D arrays) are looped over here, not in Python, to keep the per-frame cost
// of the binding small next to the GPU's tens of microseconds a frame.
#include <array>
#include <deque>
#include <map>
#include <cstdint>
#include <mutex>
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
#if defined(VIF_PY_HAVE_CUDA)
#include "vif/vif_cuda.h"
#endif

namespace py = pybind11;

namespace vifpy {
namespace {

/** Frame f of a 2-D (one frame) or 3-D (frames, rows, samples) host array whose rows hold
 *  contiguous samples (libvif/_frames.py copies anything else first). */
VifPicture host_picture(const py::array &a, py::ssize_t f, uint32_t bitdepth, uint32_t flags,
                        const char *which) {
    const py::ssize_t nd = a.ndim();
    if (nd != 2 && nd != 3)
        throw py::value_error(std::string(which) + ": expected 2 or 3 dimensions");
    const py::ssize_t item = bitdepth > 8 ? 2 : 1;
    if (a.itemsize() != item)
        throw py::value_error(std::string(which) + ": sample size does not match the bit depth");
    const py::ssize_t row = a.strides(nd - 2), col = a.strides(nd - 1);
    if (col != item || row < a.shape(nd - 1) * item)
        throw py::value_error(std::string(which) +
                              ": rows must hold contiguous samples with a positive row stride");
    VifPicture p{};
    p.data = static_cast<const uint8_t *>(a.data()) + (nd == 3 ? f * a.strides(0) : 0);
    p.stride = row;
    p.width = static_cast<uint32_t>(a.shape(nd - 1));
    p.height = static_cast<uint32_t>(a.shape(nd - 2));
    p.bitdepth = bitdepth;
    p.flags = flags;
    return p;
}

/** Raises KeyboardInterrupt (via error_already_set) if Ctrl-C came; call without the GIL. */
void check_signals() {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

class Context {
public:
    Context(uint32_t max_width, uint32_t max_height, uint32_t bitdepth, int variant, int backend,
            double enhn_gain_limit, double kernelscale, uint32_t threads, uint32_t queue_depth,
            int32_t cuda_device, bool maps) {
        vif_default_config(&cfg_);
        cfg_.max_width = max_width;
        cfg_.max_height = max_height;
        cfg_.bitdepth = bitdepth;
        cfg_.variant = static_cast<VifVariant>(variant);
        cfg_.backend = static_cast<VifBackend>(backend);
        cfg_.enhn_gain_limit = enhn_gain_limit;
        cfg_.kernelscale = kernelscale;
        cfg_.threads = threads;
        cfg_.queue_depth = queue_depth;
        cfg_.cuda_device = cuda_device;
        cfg_.maps = maps ? 1 : 0;
        VifStatus st;
        {
            py::gil_scoped_release nogil; // CUDA start-up can take a few hundred ms
            st = vif_create(&ctx_, &cfg_);
        }
        if (st != VIF_OK) throw_last_error(st);
    }
    ~Context() { close(); }
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

    void close() {
        if (!ctx_) return;
        VifContext *ctx = ctx_;
        ctx_ = nullptr;
        py::gil_scoped_release nogil; // waits for frames in flight
        std::lock_guard<std::mutex> lock(mutex_);
        vif_destroy(ctx);
        ready_.clear();
        maps_.clear();
    }

    std::string backend() const { return vif_backend_name(live()); }
    uint32_t bitdepth() const { return cfg_.bitdepth; }
    uint32_t max_width() const { return cfg_.max_width; }
    uint32_t max_height() const { return cfg_.max_height; }
    int cuda_device() const {
#if defined(VIF_PY_HAVE_CUDA)
        return vif_cuda_context_device(live());
#else
        live();
        return -1;
#endif
    }
    std::vector<std::string> names() const {
        return metric_names(cfg_);
    }

    /** vif_submit for each frame of a 2-D or 3-D host array pair; the first frame's index. */
    uint64_t submit_host(const py::array &ref, const py::array &dist, uint32_t flags) {
        if (ref.ndim() != dist.ndim() || (ref.ndim() == 3 && ref.shape(0) != dist.shape(0)))
            throw py::value_error("reference and distorted hold different numbers of frames");
        const py::ssize_t frames = ref.ndim() == 3 ? ref.shape(0) : 1;
        std::vector<VifPicture> pics;
        pics.reserve(size_t(2 * frames));
        for (py::ssize_t f = 0; f < frames; ++f) {
            pics.push_back(host_picture(ref, f, cfg_.bitdepth, flags, "reference"));
            pics.push_back(host_picture(dist, f, cfg_.bitdepth, flags, "distorted"));
        }
        VifContext *ctx = live();
        py::gil_scoped_release nogil; // the arrays stay referenced by the caller
        std::lock_guard<std::mutex> lock(mutex_);
        return submit_each(size_t(frames), [&](size_t f, uint64_t *index) {
            return vif_submit(ctx, &pics[2 * f], &pics[2 * f + 1], index);
        });
    }

    /** vif_cuda_submit for `frames` frame pairs in device memory (from
     *  __cuda_array_interface__ or DLPack): frame f starts at ptr + f * frame_stride. */
    uint64_t submit_device(uintptr_t ref, int64_t ref_frame_stride, int64_t ref_pitch,
                           uintptr_t dist, int64_t dist_frame_stride, int64_t dist_pitch,
                           uint64_t frames, uint32_t width, uint32_t height, uint32_t flags,
                           uintptr_t stream) {
#if defined(VIF_PY_HAVE_CUDA)
        VifContext *ctx = live();
        const uint32_t bd = cfg_.bitdepth;
        const auto s = reinterpret_cast<cudaStream_t>(stream);
        py::gil_scoped_release nogil;
        std::lock_guard<std::mutex> lock(mutex_);
        return submit_each(size_t(frames), [&](size_t f, uint64_t *index) {
            const int64_t fi = int64_t(f);
            VifDevicePicture r{reinterpret_cast<const void *>(ref + fi * ref_frame_stride),
                               ref_pitch,
                               width,
                               height,
                               bd,
                               flags};
            VifDevicePicture d{reinterpret_cast<const void *>(dist + fi * dist_frame_stride),
                               dist_pitch,
                               width,
                               height,
                               bd,
                               flags};
            return vif_cuda_submit(ctx, &r, &d, s, index);
        });
#else
        (void)ref, (void)ref_frame_stride, (void)ref_pitch, (void)dist, (void)dist_frame_stride,
            (void)dist_pitch, (void)frames, (void)width, (void)height, (void)flags, (void)stream;
        throw LibraryError(VIF_ERROR_UNSUPPORTED,
                           "this libvif Python module was built without the CUDA backend: GPU "
                           "tensors cannot be scored (copy them to the host first)");
#endif
    }

    /** The oldest scores not yet received: (frame index, values in VifMetric order), or None
     *  when none is ready (block=False) or none is pending. */
    std::optional<std::pair<uint64_t, MetricValues>> receive(bool block) {
        VifContext *ctx = live();
        if (!ready_.empty()) {
            auto r = ready_.front();
            ready_.pop_front();
            return r;
        }
        VifScores s{};
        VifStatus st;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            st = receive_one(ctx, &s, block ? 1 : 0);
        }
        if (st == VIF_AGAIN) return std::nullopt;
        if (st != VIF_OK) throw_last_error(st);
        return std::make_pair(s.frame_index, metric_values(s));
    }

    /** Waits for every pending frame: (indices, values array of shape (frames, metrics)). */
    std::pair<std::vector<uint64_t>, py::array_t<double>> drain() {
        VifContext *ctx = live();
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            VifScores s{};
            VifStatus st;
            while ((st = receive_one(ctx, &s, 1)) == VIF_OK)
                ready_.emplace_back(s.frame_index, metric_values(s));
            if (st != VIF_AGAIN) throw_last_error(st);
        }
        std::vector<uint64_t> indices;
        py::array_t<double> values({py::ssize_t(ready_.size()), py::ssize_t(VIF_METRIC_COUNT)});
        auto v = values.mutable_unchecked<2>();
        py::ssize_t row = 0;
        for (const auto &r : ready_) {
            indices.push_back(r.first);
            for (size_t m = 0; m < VIF_METRIC_COUNT; ++m) v(row, py::ssize_t(m)) = r.second[m];
            ++row;
        }
        ready_.clear();
        return {std::move(indices), std::move(values)};
    }

    size_t pending() const {
        return ready_.size() + vif_pending(live());
    }

    /** A context made with maps: frame `index`'s local VIF maps (docs/algorithm.md §12.3), one
     *  float32 array (rows, columns) per scale, handed over once (None if not received or
     *  already taken). */
    std::optional<std::vector<py::array_t<float>>> take_maps(uint64_t index) {
        std::vector<LocalMap> local;
        {
            // Without the GIL: a submit holding the mutex may wait for it (check_signals).
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            auto it = maps_.find(index);
            if (it != maps_.end()) {
                local = std::move(it->second);
                maps_.erase(it);
            }
        }
        if (local.empty()) return std::nullopt;
        std::vector<py::array_t<float>> out;
        for (const LocalMap &m : local) {
            py::array_t<float> a({py::ssize_t(m.height), py::ssize_t(m.width)});
            std::copy(m.values.begin(), m.values.end(), a.mutable_data());
            out.push_back(std::move(a));
        }
        return out;
    }

private:
    struct LocalMap {
        uint32_t width = 0, height = 0;
        std::vector<float> values;
    };

    /** vif_receive; with maps, vif_receive_maps and the frame's local maps kept in maps_ (the
     *  library's arrays last only until the next receive). Called with the mutex held. */
    VifStatus receive_one(VifContext *ctx, VifScores *s, int block) {
        if (!cfg_.maps) return vif_receive(ctx, s, block);
        VifMaps m{};
        const VifStatus st = vif_receive_maps(ctx, s, &m, block);
        if (st != VIF_OK) return st;
        std::vector<LocalMap> local(VIF_NUM_SCALES);
        for (int sc = 0; sc < VIF_NUM_SCALES; ++sc) {
            local[sc].width = m.scale[sc].width;
            local[sc].height = m.scale[sc].height;
            local[sc].values.resize(size_t(m.scale[sc].width) * m.scale[sc].height);
            VifScaleMap host = m.scale[sc];
            host_copy(&host);
            const VifStatus ls = vif_local_map(&host, local[sc].values.data());
            if (ls != VIF_OK) return ls;
        }
        maps_[s->frame_index] = std::move(local);
        return VIF_OK;
    }

    /** Frames submitted with vif_cuda_submit get their terms in device memory (docs/api.md):
     *  copies them into terms_host_ and points `m` there, for vif_local_map. Host terms are
     *  left as they are. */
    void host_copy(VifScaleMap *m) {
#if defined(VIF_PY_HAVE_CUDA)
        const size_t n = size_t(m->width) * m->height;
        const bool integer = m->nl != nullptr;
        const void *src[4] = {m->nl, m->dl, m->nn, m->dn};
        if (!integer) {
            src[0] = m->num;
            src[1] = m->den;
        }
        cudaPointerAttributes attr{};
        if (cudaPointerGetAttributes(&attr, src[0]) != cudaSuccess) {
            cudaGetLastError(); // a host pointer the runtime does not know
            return;
        }
        if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) return;
        const int arrays = integer ? 4 : 2;
        terms_host_.resize(4 * n);
        for (int q = 0; q < arrays; ++q)
            if (cudaMemcpy(terms_host_.data() + q * n, src[q], 4 * n, cudaMemcpyDefault) !=
                cudaSuccess)
                throw LibraryError(VIF_ERROR_DEVICE, std::string("copying the maps to the host: ") +
                                                         cudaGetErrorString(cudaGetLastError()));
        const int32_t *t = reinterpret_cast<const int32_t *>(terms_host_.data());
        if (integer) {
            m->nl = t;
            m->dl = t + n;
            m->nn = t + 2 * n;
            m->dn = t + 3 * n;
        } else {
            m->num = reinterpret_cast<const float *>(t);
            m->den = reinterpret_cast<const float *>(t + n);
        }
#else
        (void)m;
#endif
    }

    VifContext *live() const {
        if (!ctx_) throw LibraryError(VIF_ERROR_INVALID_STATE, "the scorer is closed");
        return ctx_;
    }

    /** Submits frames 0..n-1 with submit(f, &index); VIF_AGAIN (the CPU backend's queue of
     *  unreceived scores is full) is met by receiving the oldest into ready_ and trying again.
     *  Runs with the GIL released and the mutex held. */
    template <class Submit>
    uint64_t submit_each(size_t n, Submit submit) {
        uint64_t first = 0;
        for (size_t f = 0; f < n; ++f) {
            if (f % 64 == 63) check_signals();
            uint64_t index = 0;
            VifStatus st;
            while ((st = submit(f, &index)) == VIF_AGAIN) {
                VifScores s{};
                VifStatus rs = receive_one(ctx_, &s, 1);
                if (rs != VIF_OK) throw_last_error(rs);
                ready_.emplace_back(s.frame_index, metric_values(s));
            }
            if (st != VIF_OK) throw_last_error(st);
            if (f == 0) first = index;
        }
        return first;
    }

    VifConfig cfg_{};
    VifContext *ctx_ = nullptr;
    std::mutex mutex_;
    std::deque<std::pair<uint64_t, MetricValues>> ready_; // received while submitting
    std::map<uint64_t, std::vector<LocalMap>> maps_;      // with maps: received, not taken
    std::vector<uint32_t> terms_host_;                    // host_copy's buffer
};

double pool(const py::array_t<double, py::array::c_style | py::array::forcecast> &values,
            int method, double param) {
    double out = 0;
    VifStatus st = vif_pool(values.data(), size_t(values.size()),
                            static_cast<VifPoolMethod>(method), param, &out);
    if (st != VIF_OK) throw_last_error(st);
    return out;
}

} // namespace

void register_context(py::module_ &m) {
    py::class_<Context>(m, "Context")
        .def(py::init<uint32_t, uint32_t, uint32_t, int, int, double, double, uint32_t, uint32_t,
                      int32_t, bool>(),
             py::arg("max_width"), py::arg("max_height"), py::arg("bitdepth"), py::arg("variant"),
             py::arg("backend"), py::arg("enhn_gain_limit"), py::arg("kernelscale"),
             py::arg("threads"), py::arg("queue_depth"), py::arg("cuda_device"),
             py::arg("maps") = false)
        .def("close", &Context::close)
        .def_property_readonly("backend", &Context::backend)
        .def_property_readonly("bitdepth", &Context::bitdepth)
        .def_property_readonly("max_width", &Context::max_width)
        .def_property_readonly("max_height", &Context::max_height)
        .def_property_readonly("cuda_device", &Context::cuda_device)
        .def("metric_names", &Context::names)
        .def("submit_host", &Context::submit_host, py::arg("ref"), py::arg("dist"),
             py::arg("flags"))
        .def("submit_device", &Context::submit_device, py::arg("ref"), py::arg("ref_frame_stride"),
             py::arg("ref_pitch"), py::arg("dist"), py::arg("dist_frame_stride"),
             py::arg("dist_pitch"), py::arg("frames"), py::arg("width"), py::arg("height"),
             py::arg("flags"), py::arg("stream"))
        .def("receive", &Context::receive, py::arg("block"))
        .def("drain", &Context::drain)
        .def("pending", &Context::pending)
        .def("take_maps", &Context::take_maps, py::arg("index"));

    m.def("pool", &pool, py::arg("values"), py::arg("method"), py::arg("param") = 0.0);
    m.def("version", [] { return std::string(vif_version()); });
    m.def("cuda_available", [] { return vif_cuda_available() != 0; });
#if defined(VIF_PY_HAVE_CUDA)
    m.attr("HAVE_CUDA") = true;
#else
    m.attr("HAVE_CUDA") = false;
#endif
    m.attr("METRIC_COUNT") = int(VIF_METRIC_COUNT);
    m.attr("PICTURE_MSB_ALIGNED") = int(VIF_PICTURE_MSB_ALIGNED);
}

} // namespace vifpy
