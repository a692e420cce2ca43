// VIF_MAP_TRACE=1: one line on stderr for each step of worst:N's maps (a frame scored again,
// its local maps, each file written, the commit), with the milliseconds since the process
// started (the --verbose timeline's zero), to see where the time after the last frame goes
// (bench/cpu/maps_speed.sh). Nothing when it is unset.
#ifndef VIF_TOOLS_MAPS_MAP_TRACE_HPP
#define VIF_TOOLS_MAPS_MAP_TRACE_HPP

namespace vifcli {

/** printf-style: "vif: trace <ms> ms <text>", when VIF_MAP_TRACE is set (not "0"). */
void map_trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

} // namespace vifcli

#endif
