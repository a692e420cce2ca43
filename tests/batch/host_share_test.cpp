// The host's places beside NVDEC (tools/vif/batch/host_share.hpp).
#include "batch/host_share.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using vif::batch::HostShare;

TEST(HostShare, GivesAtMostItsPlacesAndTakesThemBack) {
    HostShare share(2);
    std::shared_ptr<void> a = share.try_take(), b = share.try_take();
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_FALSE(share.try_take()); // both taken
    a.reset();                      // a part scored: its place is free again
    std::shared_ptr<void> c = share.try_take();
    EXPECT_TRUE(c);
    EXPECT_FALSE(share.try_take());
    EXPECT_EQ(share.places_taken(), 3u);
}

TEST(HostShare, NoPlacesGivesNone) {
    HostShare share(0);
    EXPECT_FALSE(share.try_take());
    EXPECT_EQ(share.places_taken(), 0u);
}

TEST(HostShare, WorkersAtOnceNeverHoldMoreThanItsPlaces) {
    HostShare share(3);
    std::atomic<int> held{0}, most{0}, got{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 8; ++w)
        workers.emplace_back([&] {
            for (int i = 0; i < 2000; ++i) {
                std::shared_ptr<void> t = share.try_take();
                if (!t) continue;
                ++got;
                const int now = ++held;
                int m = most.load();
                while (now > m && !most.compare_exchange_weak(m, now)) {
                }
                --held;
            }
        });
    for (auto &t : workers) t.join();
    EXPECT_LE(most.load(), 3);
    EXPECT_GE(most.load(), 1);
    EXPECT_EQ(size_t(got.load()), share.places_taken());
}
