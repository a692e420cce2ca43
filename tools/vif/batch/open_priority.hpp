// Which NVDEC rows open first. The driver makes NVDEC sessions one at a time for the whole host
// (about 45 ms each on the H200 hosts, an input's session each): a row a worker opens ahead,
// while its row before decodes, takes that turn from the rows other workers are waiting to
// score now (a second GPU's first rows, started later). A row opened ahead therefore waits
// while any row to be scored now is opening (at most `most`: it is never held back for good).
// With several GPUs the sessions' making takes turns instead (session_turns.hpp), which put
// rows to be scored now first: there the rest of an opening waits for nothing.
#ifndef VIF_TOOLS_BATCH_OPEN_PRIORITY_HPP
#define VIF_TOOLS_BATCH_OPEN_PRIORITY_HPP

#include <atomic>
#include <chrono>
#include <thread>

namespace vif::batch {

class OpenPriority {
public:
    /** A row to be scored now is opening, while it lives. */
    class Urgent {
    public:
        explicit Urgent(OpenPriority &p) : p_(p) { ++p_.urgent_; }
        ~Urgent() { --p_.urgent_; }
        Urgent(const Urgent &) = delete;
        Urgent &operator=(const Urgent &) = delete;

    private:
        OpenPriority &p_;
    };

    /** For a row opened ahead: returns once no row to be scored now is opening, or after
     *  `most`. */
    void wait_for_urgent(std::chrono::milliseconds most = std::chrono::milliseconds(2000)) const {
        const auto until = std::chrono::steady_clock::now() + most;
        while (urgent_.load() > 0 && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }

    int urgent() const { return urgent_.load(); }

private:
    std::atomic<int> urgent_{0};
};

} // namespace vif::batch

#endif
