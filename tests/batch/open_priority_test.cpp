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

TEST(OpenPriority, AnAheadOpeningIsNeverHeldForGood) {
    OpenPriority p;
    OpenPriority::Urgent stuck(p);
    p.wait_for_urgent(std::chrono::milliseconds(10)); // returns: the limit
    EXPECT_EQ(p.urgent(), 1);
}

} // namespace
