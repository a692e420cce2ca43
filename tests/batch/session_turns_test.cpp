// NVDEC rows take turns to open their sessions (batch/session_turns.hpp): rows to be scored now
// before rows opened ahead, then the device with the fewest turns so far, then the earliest.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "batch/session_turns.hpp"

namespace {

using vif::batch::SessionTurns;

// Starts a thread that waits for a turn (and gives it back at once), once the ones before it
// are waiting: the order they ask in is known.
void ask(SessionTurns &t, std::vector<std::thread> &threads, int device, bool ahead) {
    const size_t before = t.waiting();
    threads.emplace_back([&t, device, ahead] { t.take(device, ahead); });
    while (t.waiting() == before) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(SessionTurns, DevicesTakeTurnsAndRowsAheadComeLast) {
    SessionTurns t(1);
    SessionTurns::Turn held = t.take(0, false); // device 0's first row is opening
    std::vector<std::thread> threads;
    ask(t, threads, 0, false);
    ask(t, threads, 0, false);
    ask(t, threads, 1, true); // device 1's row opened ahead: after every row to be scored now
    ask(t, threads, 1, false);
    ask(t, threads, 1, false);
    ask(t, threads, 2, false);
    EXPECT_EQ(t.waiting(), 6u);
    held.release();
    for (auto &th : threads) th.join();
    EXPECT_EQ(t.waiting(), 0u);
    // Devices 1 and 2 (no turn yet) before device 0's second row; then each device in turn,
    // the earliest first among equals; the row opened ahead last.
    EXPECT_EQ(t.order(), (std::vector<int>{0, 1, 2, 0, 1, 0, 1}));
}

TEST(SessionTurns, WidthRowsOpenAtOnce) {
    SessionTurns t(2);
    SessionTurns::Turn a = t.take(0, false);
    SessionTurns::Turn b = t.take(1, false); // a second at once: the width is 2
    std::atomic<bool> third{false};
    std::thread th([&] {
        SessionTurns::Turn c = t.take(2, false);
        third = true;
    });
    while (t.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(third.load()); // a third waits for one of them
    SessionTurns::Turn moved = std::move(a);
    EXPECT_FALSE(third.load()); // (a moved turn is still held)
    moved.release();
    th.join();
    EXPECT_TRUE(third.load());
    b.release();
    EXPECT_EQ(t.order(), (std::vector<int>{0, 1, 2}));
}

} // namespace
