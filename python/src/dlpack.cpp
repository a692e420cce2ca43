// DLPackTensor: takes a "dltensor" capsule from obj.__dlpack__() (PyTorch, CuPy, JAX, ...), keeps
// the producer's tensor alive and describes it; its deleter runs when this object goes.
// The structures below are the DLPack ABI (v0.x "dltensor" capsules), declared here from the
// public specification so that no dlpack.h is needed at build time.
#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"

namespace py = pybind11;

namespace vifpy {
namespace {

struct DLDevice {
    int32_t device_type; // 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed, ...
    int32_t device_id;
};
struct DLDataType {
    uint8_t code; // 0 int, 1 uint, 2 float, ...
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; // in elements; NULL means compact row-major
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(DLManagedTensor *self);
};

class DLPackTensor {
public:
    explicit DLPackTensor(py::capsule capsule) {
        if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
            throw py::type_error("expected a DLPack capsule named 'dltensor' (one that was not "
                                 "consumed yet)");
        managed_ = static_cast<DLManagedTensor *>(capsule.get_pointer());
        if (!managed_) throw py::type_error("empty DLPack capsule");
        // The consumer owns it now: rename so that the capsule's destructor leaves it alone.
        if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
    }
    ~DLPackTensor() {
        if (managed_ && managed_->deleter) managed_->deleter(managed_);
    }
    DLPackTensor(const DLPackTensor &) = delete;
    DLPackTensor &operator=(const DLPackTensor &) = delete;

    uintptr_t data() const {
        const DLTensor &t = managed_->dl_tensor;
        return reinterpret_cast<uintptr_t>(t.data) + uintptr_t(t.byte_offset);
    }
    int device_type() const { return managed_->dl_tensor.device.device_type; }
    int device_id() const { return managed_->dl_tensor.device.device_id; }
    std::vector<int64_t> shape() const {
        const DLTensor &t = managed_->dl_tensor;
        return std::vector<int64_t>(t.shape, t.shape + t.ndim);
    }
    /** Strides in elements (the compact row-major ones when the producer gave none). */
    std::vector<int64_t> strides() const {
        const DLTensor &t = managed_->dl_tensor;
        std::vector<int64_t> s(size_t(t.ndim));
        if (t.strides) {
            s.assign(t.strides, t.strides + t.ndim);
        } else {
            int64_t step = 1;
            for (int i = t.ndim - 1; i >= 0; --i) {
                s[size_t(i)] = step;
                step *= t.shape[i];
            }
        }
        return s;
    }
    /** numpy-style type string: "uint8", "uint16", "int32", "float32", ... */
    std::string dtype() const {
        const DLDataType &d = managed_->dl_tensor.dtype;
        static const char *const kinds[] = {"int",    "uint",    "float", "opaque",
                                            "bfloat", "complex", "bool"};
        std::string kind = d.code < 7 ? kinds[d.code] : "code" + std::to_string(d.code);
        std::string name = kind + std::to_string(d.bits);
        if (d.lanes != 1) name += "x" + std::to_string(d.lanes);
        return name;
    }

private:
    DLManagedTensor *managed_ = nullptr;
};

} // namespace

void register_dlpack(py::module_ &m) {
    py::class_<DLPackTensor>(m, "DLPackTensor")
        .def(py::init<py::capsule>(), py::arg("capsule"))
        .def_property_readonly("data", &DLPackTensor::data)
        .def_property_readonly("device_type", &DLPackTensor::device_type)
        .def_property_readonly("device_id", &DLPackTensor::device_id)
        .def_property_readonly("shape", &DLPackTensor::shape)
        .def_property_readonly("strides", &DLPackTensor::strides)
        .def_property_readonly("dtype", &DLPackTensor::dtype);
}

} // namespace vifpy
