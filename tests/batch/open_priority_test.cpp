// A row opened ahead waits while rows to be scored now are opening (batch/open_priority.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "batch/open_priority.hpp"

namespace {

using vif::batch::OpenPriority;

TEST(OpenPriority, AheadWaitsForEveryUrgentOpening) {
    OpenPriority p;
    EXPECT_EQ(p.urgent(), 0);
    p.wait_for_urgent(); // none: at once
    std::optional<OpenPriority::Urgent> a, b;
    a.emplace(p);
    b.emplace(p);
    EXPECT_EQ(p.urgent(), 2);
    std::atomic<int> left{2};
    std::atomic<int> seen_when_done{-1};
    std::thread ahead([&] {
        p.wait_for_urgent(std::chrono::milliseconds(60000));
        seen_when_done = left.load();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = 1;
    a.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = 0;
    b.reset();
    ahead.join();
    // It went on only once both had ended.
    EXPECT_EQ(seen_when_done.load(), 0);
    EXPECT_EQ(p.urgent(), 0);
}

// A device still starting holds rows opened ahead back too (hold_while), until it has started
// and no row of its is opening.
TEST(OpenPriority, AheadWaitsWhileADeviceStarts) {
    OpenPriority p;
    std::atomic<bool> starting{true};
    p.hold_while([&] { return starting.load(); });
    std::atomic<int> stage{0}; // 1: the device started, 2: its first row opened
    std::atomic<int> seen_when_done{-1};
    std::thread ahead([&] {
        p.wait_for_urgent(std::chrono::milliseconds(60000));
        seen_when_done = stage.load();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::optional<OpenPriority::Urgent> first_row;
    first_row.emplace(p); // (the device's first row starts opening as it becomes ready)
    stage = 1;
    starting = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stage = 2;
    first_row.reset();
    ahead.join();
    EXPECT_EQ(seen_when_done.load(), 2);
}

TEST(OpenPriority, AnAheadOpeningIsNeverHeldForGood) {
    OpenPriority p;
    OpenPriority::Urgent stuck(p);
    p.wait_for_urgent(std::chrono::milliseconds(10)); // returns: the limit
    EXPECT_EQ(p.urgent(), 1);
    OpenPriority q;
    q.hold_while([] { return true; }); // a start-up that never ends
    q.wait_for_urgent(std::chrono::milliseconds(10));
}

} // namespace
