// libvif._core: the compiled half of the libvif Python package. The public API is the Python
// package (python/libvif/__init__.py); this module is its thin, private bridge to the C API.
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
    m.doc() = "libvif's C API for the libvif package (private: use the libvif module)";
    vifpy::register_errors(m);
    vifpy::register_context(m);
    vifpy::register_dlpack(m);
    vifpy::register_files(m);
}
