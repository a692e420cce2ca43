// VIF_MAP_TRACE=1: one line on stderr for each step of worst:N's maps (a frame scored again,
// its local maps, each file written, the commit), with the milliseconds since the process
// started, to see where the time after the last frame goes (bench/cpu/maps_speed.sh).
#ifndef VIF_TOOLS_MAPS_MAP_TRACE_HPP
#define VIF_TOOLS_MAPS_MAP_TRACE_HPP

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace vifcli {

bool map_trace_on();
std::chrono::steady_clock::time_point map_trace_start(); ///< the --verbose timeline's zero

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline void map_trace(const char *fmt, ...) {
    if (!map_trace_on()) return;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                map_trace_start())
                          .count();
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "vif: trace %9.2f ms %s\n", ms, line);
}

} // namespace vifcli

#endif
