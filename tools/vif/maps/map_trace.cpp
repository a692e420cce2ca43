#include "maps/map_trace.hpp"

#include "pair/timeline.hpp"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vifcli {

void map_trace(const char *fmt, ...) {
    static const bool on = [] {
        const char *e = std::getenv("VIF_MAP_TRACE");
        return e && *e && std::strcmp(e, "0") != 0;
    }();
    if (!on) return;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                g_timeline.start())
                          .count();
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "vif: trace %9.2f ms %s\n", ms, line);
}

} // namespace vifcli
