#include "maps/map_trace.hpp"

#include "pair/timeline.hpp"

#include <cstring>

namespace vifcli {

bool map_trace_on() {
    static const bool on = [] {
        const char *e = std::getenv("VIF_MAP_TRACE");
        return e && *e && std::strcmp(e, "0") != 0;
    }();
    return on;
}

std::chrono::steady_clock::time_point map_trace_start() {
    return g_timeline.start();
}

} // namespace vifcli
