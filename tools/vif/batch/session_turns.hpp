// The order in which a batch's NVDEC rows open their sessions. The driver makes NVDEC sessions
// one at a time for the whole host (about 45 ms each on the H200 hosts, two a row): whichever
// rows ask first get them first. Devices become ready at different times (the first at once,
// the others 0.5-0.8 s later, close together), and each brings all its workers' rows at once:
// in arrival order one device's first rows all open before the next device's first (four
// GPUs, 8 workers each: the last device's first row after 48 sessions, about 2 s). Here the
// rows take turns: among the rows waiting, rows to be scored now before rows opened ahead, then
// the device with the fewest rows given a turn so far, then the earliest to ask; `width` rows
// open at once (the driver's order within them is its own), so that the parts of an opening
// that are not the driver's overlap.
#ifndef VIF_TOOLS_BATCH_SESSION_TURNS_HPP
#define VIF_TOOLS_BATCH_SESSION_TURNS_HPP

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace vif::batch {

class SessionTurns {
public:
    explicit SessionTurns(size_t width = 2) : width_(std::max<size_t>(width, 1)) {}

    /** A row's turn to open its sessions, while it lives. */
    class Turn {
    public:
        Turn() = default;
        explicit Turn(SessionTurns *t) : t_(t) {}
        Turn(Turn &&o) noexcept : t_(o.t_) { o.t_ = nullptr; }
        Turn &operator=(Turn &&o) noexcept {
            if (this != &o) {
                release();
                t_ = o.t_;
                o.t_ = nullptr;
            }
            return *this;
        }
        ~Turn() { release(); }
        void release() {
            if (t_) t_->done();
            t_ = nullptr;
        }

    private:
        SessionTurns *t_ = nullptr;
    };

    /** Waits for a turn for a row of `device` (`ahead`: opened ahead, not to be scored now). */
    Turn take(int device, bool ahead) {
        std::unique_lock<std::mutex> lock(mu_);
        const uint64_t me = next_++;
        waiting_.push_back({device, ahead, me});
        cv_.wait(lock, [&] { return holding_ < width_ && best() == me; });
        waiting_.erase(std::find_if(waiting_.begin(), waiting_.end(),
                                    [&](const Waiter &w) { return w.seq == me; }));
        ++holding_;
        ++given_[device];
        order_.push_back(device);
        cv_.notify_all(); // (another may go too, where the width allows)
        return Turn(this);
    }

    /** Rows waiting for a turn now. */
    size_t waiting() const {
        std::lock_guard<std::mutex> lock(mu_);
        return waiting_.size();
    }

    /** The devices of the rows given a turn, in order (tests, --timings). */
    std::vector<int> order() const {
        std::lock_guard<std::mutex> lock(mu_);
        return order_;
    }

private:
    struct Waiter {
        int device;
        bool ahead;
        uint64_t seq;
    };

    // mu_ held: the waiter whose turn is next.
    uint64_t best() const {
        const Waiter *b = nullptr;
        auto given = [&](int d) {
            const auto it = given_.find(d);
            return it == given_.end() ? size_t(0) : it->second;
        };
        for (const Waiter &w : waiting_) {
            if (!b || (w.ahead != b->ahead                   ? !w.ahead
                       : given(w.device) != given(b->device) ? given(w.device) < given(b->device)
                                                             : w.seq < b->seq))
                b = &w;
        }
        return b ? b->seq : UINT64_MAX;
    }

    void done() {
        std::lock_guard<std::mutex> lock(mu_);
        --holding_;
        cv_.notify_all();
    }

    mutable std::mutex mu_;
    std::condition_variable cv_;
    size_t width_, holding_ = 0;
    uint64_t next_ = 0;
    std::vector<Waiter> waiting_;
    std::map<int, size_t> given_; // rows given a turn, by device
    std::vector<int> order_;
};

} // namespace vif::batch

#endif
