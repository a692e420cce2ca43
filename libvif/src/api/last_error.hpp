// The per-thread message of the C API (vif_last_error): every entry point that fails records why.
#pragma once

#include <string>

#include "core/backend.hpp"
#include "vif/vif.h"

namespace vif {

// Records msg as this thread's last error and returns status (so callers can `return fail(..)`).
VifStatus fail(VifStatus status, const std::string& msg);
inline VifStatus fail(const Status& e) {
    return fail(e.status, e.message);
}
void clear_error();
const char* last_error_cstr();

} // namespace vif
