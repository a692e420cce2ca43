// --verbose: how long each start-up phase took (process start to main(), options parsed, inputs
// opened, contexts created, ...), printed on stderr when the run ends. Marks cost nothing when
// --verbose is off.
#ifndef VIF_TOOLS_PAIR_TIMELINE_HPP
#define VIF_TOOLS_PAIR_TIMELINE_HPP

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace vifcli {

/** Phase times since the process's static start-up, printed by --verbose. */
class Timeline {
public:
    void enable() { on_ = true; }
    void mark(const char *what) {
        if (on_) marks_.emplace_back(what, std::chrono::steady_clock::now());
    }
    void print() const;
    /** The process's static start-up: the zero of every mark (and of VIF_MAP_TRACE's lines). */
    std::chrono::steady_clock::time_point start() const { return start_; }

private:
    bool on_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    double start_wall_ = wall_clock(); ///< for a caller that timed the whole process
    double process_age_ms_ = process_age_ms();
    std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> marks_;

    static double process_age_ms();
    static double wall_clock();
};

/** The process's one timeline (constructed before main(), so its start is the process's). */
extern Timeline g_timeline;

} // namespace vifcli

#endif
