// The per-thread message of the C API (last_error.hpp).
#include "api/last_error.hpp"

namespace vif {
namespace {
thread_local std::string g_last_error;
}

VifStatus fail(VifStatus status, const std::string& msg) {
    g_last_error = msg;
    return status;
}

void clear_error() {
    g_last_error.clear();
}

const char* last_error_cstr() {
    return g_last_error.c_str();
}

} // namespace vif
