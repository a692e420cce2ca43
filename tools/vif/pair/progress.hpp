// The progress line of a scoring run on a terminal: a bar when the frame count is known, else a
// count; frames per second. Off with -q or when stderr is not a terminal.
#ifndef VIF_TOOLS_PAIR_PROGRESS_HPP
#define VIF_TOOLS_PAIR_PROGRESS_HPP

#include <chrono>
#include <cstdint>
#include <optional>

namespace vifcli {

class Progress {
public:
    Progress(bool enabled, std::optional<uint64_t> total) : on_(enabled), total_(total) {}
    /** Redraws with `done` frames, at most every 100 ms unless `force`. */
    void update(uint64_t done, bool force = false);
    /** Clears the line (the report or an error follows). */
    void finish();

private:
    bool on_;
    std::optional<uint64_t> total_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
};

} // namespace vifcli

#endif
