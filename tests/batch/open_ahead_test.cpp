// A worker takes its next part early only while the queue keeps one for every other worker
// scoring without a next part (batch/open_ahead.hpp).
#include <gtest/gtest.h>

#include "batch/open_ahead.hpp"

using vif::batch::may_take_ahead;

TEST(OpenAhead, APartIsTakenEarlyOnlyWhenEveryOtherBareWorkerStillHasOne) {
    // Alone: whenever there is a part.
    EXPECT_TRUE(may_take_ahead(1, 1));
    EXPECT_FALSE(may_take_ahead(0, 1));
    // Every other worker already holds its next part: as alone.
    EXPECT_TRUE(may_take_ahead(1, 1));
    // Two other workers scoring with no next part and two parts left: those are theirs.
    EXPECT_FALSE(may_take_ahead(2, 3));
    EXPECT_TRUE(may_take_ahead(3, 3));
    // The start of a long queue: every worker takes one early.
    EXPECT_TRUE(may_take_ahead(8, 8));
    EXPECT_FALSE(may_take_ahead(7, 8));
    // (A count of 0, the asker not counted by its caller: as alone.)
    EXPECT_TRUE(may_take_ahead(1, 0));
}
