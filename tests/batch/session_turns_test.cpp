// NVDEC rows take turns to make their sessions (batch/session_turns.hpp): rows to be scored now
// before rows opened ahead, then the device with the fewest turns so far, then the earliest; a
// turn as the segment decoders take it (gate()) is held while what it returned lives.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
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

TEST(SessionTurns, AGateTurnIsHeldWhileWhatItGaveLives) {
    SessionTurns t(1);
    const auto urgent = t.gate(1, false), ahead = t.gate(0, true);
    std::shared_ptr<void> held = ahead(); // a row opened ahead is making its session
    std::shared_ptr<void> copy = held;    // (the decoder's state may hold it too)
    std::atomic<bool> got{false};
    std::thread th([&] {
        std::shared_ptr<void> mine = urgent();
        got = true;
    });
    while (t.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    held.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(got.load()); // a copy still holds the turn: the session is not made yet
    copy.reset();             // made (its first frame buffer asked for): given back
    th.join();
    EXPECT_TRUE(got.load());
    EXPECT_EQ(t.order(), (std::vector<int>{0, 1}));
    // Both turns were given back: a third is taken at once.
    EXPECT_EQ(t.waiting(), 0u);
    std::shared_ptr<void> third = urgent();
    EXPECT_EQ(t.order().size(), 3u);
}

TEST(SessionTurns, TimesCountTheWaitsAndHolds) {
    SessionTurns t(1);
    SessionTurns::Turn a = t.take(0, false);
    std::thread th([&] { SessionTurns::Turn b = t.take(1, false); });
    while (t.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    a.release(); // held at least 30 ms; the second waited as long
    th.join();
    const SessionTurns::Times tt = t.times();
    EXPECT_EQ(tt.turns, 2u);
    EXPECT_GE(tt.held, 0.03);
    EXPECT_GE(tt.held_most, 0.03);
    EXPECT_LE(tt.held_most, tt.held);
    EXPECT_GE(tt.waited, 0.03);
    EXPECT_GE(tt.waited_most, 0.03);
    EXPECT_LE(tt.waited_most, tt.waited);
}

TEST(SessionTurns, ARowsSessionsComeBeforeALaterRows) {
    // A row's two inputs make their sessions apart (each in its decoder's initialisation): of
    // one device's rows, the earlier row's second session comes before a later row's first,
    // which asked before it, so that rows start decoding whole, one after another.
    SessionTurns t(1);
    SessionTurns::Turn held = t.take(1, false); // (another device's row is making one)
    const auto first_row = t.gate(0, false), later_row = t.gate(0, false);
    std::vector<int> got;
    std::mutex got_mu;
    std::vector<std::thread> threads;
    auto ask_gate = [&](const std::function<std::shared_ptr<void>()> &gate, int tag) {
        const size_t before = t.waiting();
        threads.emplace_back([&, gate, tag] {
            std::shared_ptr<void> turn = gate();
            std::lock_guard<std::mutex> lock(got_mu);
            got.push_back(tag);
        });
        while (t.waiting() == before) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    ask_gate(later_row, 2); // the later row's first input asks first
    ask_gate(first_row, 1); // then the earlier row's second
    held.release();
    for (auto &th : threads) th.join();
    EXPECT_EQ(got, (std::vector<int>{1, 2}));
}

} // namespace
