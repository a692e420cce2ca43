// Failures of the library, carried to Python as the exception classes of libvif/_errors.py
// (VifError and its subclasses, chosen by status), with the library's own message.
#pragma once

#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "vif/vif.h"

namespace vifpy {

/** A libvif status other than VIF_OK / VIF_AGAIN, with its message. */
class LibraryError : public std::runtime_error {
public:
    LibraryError(VifStatus status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    VifStatus status() const { return status_; }

private:
    VifStatus status_;
};

/** Throws LibraryError with vif_last_error() (or `fallback` when the library left none). */
[[noreturn]] void throw_last_error(VifStatus status, const char *fallback = nullptr);

/** Registers the translator that turns LibraryError into libvif's Python exceptions. */
void register_errors(pybind11::module_ &m);

} // namespace vifpy
