#include "errors.hpp"

namespace py = pybind11;

namespace vifpy {

void throw_last_error(VifStatus status, const char *fallback) {
    std::string msg = vif_last_error();
    if (msg.empty()) msg = fallback ? fallback : vif_status_string(status);
    throw LibraryError(status, msg);
}

void register_errors(py::module_ &m) {
    (void)m;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const LibraryError &e) {
            // The classes live in Python (libvif/_errors.py) so that InvalidArgumentError can
            // also be a ValueError; make_error picks the class for the status.
            py::object exc = py::module_::import("libvif._errors")
                                 .attr("make_error")(static_cast<int>(e.status()), e.what());
            PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
        }
    });
}

} // namespace vifpy
