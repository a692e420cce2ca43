// The parts of libvif._core, one file each; module.cpp calls these in order.
#pragma once

#include <pybind11/pybind11.h>

namespace vifpy {

void register_errors(pybind11::module_ &m);  // errors.cpp
void register_context(pybind11::module_ &m); // context.cpp: Context, pool, version, ...
void register_dlpack(pybind11::module_ &m);  // dlpack.cpp: DLPackTensor
void register_files(pybind11::module_ &m);   // files.cpp: score_files

} // namespace vifpy
