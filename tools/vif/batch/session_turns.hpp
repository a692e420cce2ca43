// The order in which a batch's NVDEC rows make their sessions. The driver makes NVDEC sessions
// one at a time for the whole host (about 45 ms each on the H200 hosts, 0.08-0.12 s while other
// GPUs decode): whichever rows ask first get them first. Devices become ready at different
// times (the first at once, the others 0.5-0.8 s later, close together), and each brings all
// its workers' rows at once: in arrival order one device's first rows all open before the next
// device's first (four GPUs, 8 workers each: the last device's first row after 48 sessions,
// about 2 s). Here the rows take turns: among those waiting, rows to be scored now before rows
// opened ahead, then the device with the fewest turns so far, then the earliest row (a row's
// two inputs make their sessions apart: its second before a later row's first), then the
// earliest to ask; `width` turns at once.
// A turn covers the making of a session only (gate(): SegmentDecoderOptions::session_turn),
// not the demuxing and first-frame decoding around it. (4x H200, 2026-11-27, 64 1080p H.264
// rows on four GPUs: 10.36 s of run against 10.54 s with a row's whole opening a turn, as
// session 9 had it; four turns at once held each 0.23 s against 0.08-0.11 s, the driver making
// no more sessions a second, and ran 11.39 s against 11.22.)
#ifndef VIF_TOOLS_BATCH_SESSION_TURNS_HPP
#define VIF_TOOLS_BATCH_SESSION_TURNS_HPP

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace vif::batch {

class SessionTurns {
public:
    explicit SessionTurns(size_t width = 2) : width_(std::max<size_t>(width, 1)) {}

    using Clock = std::chrono::steady_clock;

    /** A row's turn to make its sessions, while it lives. */
    class Turn {
    public:
        Turn() = default;
        Turn(SessionTurns *t, Clock::time_point from) : t_(t), from_(from) {}
        Turn(Turn &&o) noexcept : t_(o.t_), from_(o.from_) { o.t_ = nullptr; }
        Turn &operator=(Turn &&o) noexcept {
            if (this != &o) {
                release();
                t_ = o.t_;
                from_ = o.from_;
                o.t_ = nullptr;
            }
            return *this;
        }
        ~Turn() { release(); }
        void release() {
            if (t_) t_->done(from_);
            t_ = nullptr;
        }

    private:
        SessionTurns *t_ = nullptr;
        Clock::time_point from_;
    };

    /** How long the turns were waited for and held (--timings). */
    struct Times {
        size_t turns = 0;
        double waited = 0, waited_most = 0; // seconds
        double held = 0, held_most = 0;
    };

    /** Waits for a turn for a row of `device` (`ahead`: opened ahead, not to be scored now;
     *  `row`: the row's number from gate(), so that a row's sessions come before a later row's
     *  of the same standing). */
    Turn take(int device, bool ahead, uint64_t row = UINT64_MAX) {
        const Clock::time_point asked = Clock::now();
        std::unique_lock<std::mutex> lock(mu_);
        const uint64_t me = next_++;
        waiting_.push_back({device, ahead, row, me});
        cv_.wait(lock, [&] { return holding_ < width_ && best() == me; });
        waiting_.erase(std::find_if(waiting_.begin(), waiting_.end(),
                                    [&](const Waiter &w) { return w.seq == me; }));
        ++holding_;
        ++given_[device];
        order_.push_back(device);
        const Clock::time_point now = Clock::now();
        const double waited = std::chrono::duration<double>(now - asked).count();
        ++times_.turns;
        times_.waited += waited;
        times_.waited_most = std::max(times_.waited_most, waited);
        cv_.notify_all(); // (another may go too, where the width allows)
        return Turn(this, now);
    }

    /** SegmentDecoderOptions::session_turn for a row of `device` (`ahead`: opened ahead): each
     *  call takes a turn, given back when the last copy of what it returned goes. */
    std::function<std::shared_ptr<void>()> gate(int device, bool ahead) {
        const uint64_t row = rows_++;
        return
            [this, device, ahead, row] { return std::make_shared<Turn>(take(device, ahead, row)); };
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

    Times times() const {
        std::lock_guard<std::mutex> lock(mu_);
        return times_;
    }

private:
    struct Waiter {
        int device;
        bool ahead;
        uint64_t row, seq;
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
                       : w.row != b->row                     ? w.row < b->row
                                                             : w.seq < b->seq))
                b = &w;
        }
        return b ? b->seq : UINT64_MAX;
    }

    void done(Clock::time_point from) {
        const double held = std::chrono::duration<double>(Clock::now() - from).count();
        std::lock_guard<std::mutex> lock(mu_);
        --holding_;
        times_.held += held;
        times_.held_most = std::max(times_.held_most, held);
        cv_.notify_all();
    }

    mutable std::mutex mu_;
    std::condition_variable cv_;
    size_t width_, holding_ = 0;
    uint64_t next_ = 0;
    std::atomic<uint64_t> rows_{0}; // gate()'s row numbers
    std::vector<Waiter> waiting_;
    std::map<int, size_t> given_; // rows given a turn, by device
    std::vector<int> order_;
    Times times_;
};

} // namespace vif::batch

#endif
