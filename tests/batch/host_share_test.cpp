// The host's share beside NVDEC (batch/host_share.hpp): how many workers it gets, and which
// parts they take. Expected values worked out by hand from the rule's statement.
#include <gtest/gtest.h>

#include "batch/host_share.hpp"

using vif::batch::host_workers_beside_nvdec;
using vif::batch::ShareLedger;

// A quarter of the cores, 8 at most, within the parts left; one or two GPUs.
TEST(HostShare, WorkersFollowTheCoresAndTheParts) {
    EXPECT_EQ(host_workers_beside_nvdec(32, 8, 64, 1), 8u);  // the 2x H200 host, one GPU
    EXPECT_EQ(host_workers_beside_nvdec(32, 16, 64, 2), 8u); // and its two
    EXPECT_EQ(host_workers_beside_nvdec(64, 8, 64, 1), 8u);  // 8 at most
    EXPECT_EQ(host_workers_beside_nvdec(16, 8, 64, 1), 4u);  // a 16-core host
    EXPECT_EQ(host_workers_beside_nvdec(2, 1, 64, 1), 1u);   // one at least
    EXPECT_EQ(host_workers_beside_nvdec(32, 8, 12, 1), 4u);  // the parts the NVDEC workers leave
    EXPECT_EQ(host_workers_beside_nvdec(32, 8, 8, 1), 0u);   // none left
    EXPECT_EQ(host_workers_beside_nvdec(32, 8, 3, 1), 0u);
    EXPECT_EQ(host_workers_beside_nvdec(64, 32, 256, 4), 0u); // not on four
    EXPECT_EQ(host_workers_beside_nvdec(64, 8, 256, 0), 0u);  // nor without a GPU
}

// Before any part has ended: cores / 50 of one GPU's NVDEC, at most 1.
TEST(HostShare, PriorRateFollowsTheCores) {
    EXPECT_DOUBLE_EQ(vif::batch::share_rate_prior(16), 0.32);
    EXPECT_DOUBLE_EQ(vif::batch::share_rate_prior(32), 0.64);
    EXPECT_DOUBLE_EQ(vif::batch::share_rate_prior(64), 1.0);
}

// The run's start, nothing measured: the share taken as 0.6 times one GPU's NVDEC (a 30-core
// host). Eight NVDEC workers (0-7) have just begun a ladder part of 4 rungs each (5 inputs, none
// of it done); the share (8-15) looks at a queue of such parts (front 5 inputs, the rest behind
// it). Its parts end at its inputs over its rate, NVDEC's at NVDEC's inputs (ends below in
// NVDEC's time for an input).
TEST(HostShare, AtTheStartTakesWhatEndsNoLaterThanNvdecWould) {
    ShareLedger two(16, 8, 2, 0.6); // two GPUs: the share at 0.3 of their NVDEC
    for (size_t w = 0; w < 8; ++w) two.began(w, 4, 0.0);
    EXPECT_FALSE(two.measured());
    EXPECT_DOUBLE_EQ(two.host_over_nvdec(), 0.3);
    // 8 queued: the share's 5 inputs end at 16.7, NVDEC's 40 + 35 at 75.
    EXPECT_TRUE(two.host_takes(5, 35, 0.1));
    // Two taken (6 queued): 15 inputs at 50 against 40 + 25.
    two.began(8, 4, 0.1);
    two.began(9, 4, 0.1);
    EXPECT_TRUE(two.host_takes(5, 25, 0.1));
    // Three taken (5 queued): 20 inputs at 66.7 against 40 + 20: the rest is NVDEC's.
    two.began(10, 4, 0.1);
    EXPECT_FALSE(two.host_takes(5, 20, 0.1));
    // One GPU (the share at 0.6 of it): six taken, not seven.
    ShareLedger one(16, 8, 1, 0.6);
    for (size_t w = 0; w < 8; ++w) one.began(w, 4, 0.0);
    for (size_t w = 8; w < 13; ++w) one.began(w, 4, 0.1);
    EXPECT_TRUE(one.host_takes(5, 10, 0.1)); // 30 at 50 against 50
    one.began(13, 4, 0.1);
    EXPECT_FALSE(one.host_takes(5, 5, 0.1)); // 35 at 58.3 against 45
    // Nothing queued: nothing to take.
    EXPECT_FALSE(one.host_takes(0, 0, 0.1));
}

// Parts NVDEC's workers hold ahead are NVDEC's work; put back in the queue, they are the queue's.
TEST(HostShare, CountsThePartsHeldAhead) {
    ShareLedger ledger(2, 1, 1, 0.6);           // worker 0 NVDEC's, idle; worker 1 the share's
    EXPECT_FALSE(ledger.host_takes(3, 0, 0.0)); // the share at 5, NVDEC at 0 without it
    ledger.took_ahead(0, 4);
    EXPECT_TRUE(ledger.host_takes(3, 0, 0.0)); // 5 against 5
    ledger.dropped_ahead(0);
    EXPECT_FALSE(ledger.host_takes(3, 0, 0.0));
}

// Each side's rate: the inputs of the parts it ended over its time with a part at all, however
// many it had at once; a part a device's failure ended adds time, not inputs.
TEST(HostShare, LearnsEachSidesRateFromTheEndedParts) {
    ShareLedger ledger(4, 2, 1, 0.6); // workers 0-1 NVDEC's, 2-3 the share's
    ledger.began(0, 1, 0.0);
    ledger.began(1, 1, 0.0);
    ledger.ended(0, 4.0, true);
    ledger.ended(1, 4.0, true);      // NVDEC: 4 inputs in 4 s
    EXPECT_FALSE(ledger.measured()); // (the share has ended none)
    ledger.began(2, 1, 0.0);
    ledger.ended(2, 8.0, true); // the share: 2 inputs in 8 s
    EXPECT_TRUE(ledger.measured());
    EXPECT_DOUBLE_EQ(ledger.host_over_nvdec(), 0.25);
    // Everyone idle: the share's 2 inputs end at 8, NVDEC's 6 at 6, 8 at 8.
    EXPECT_FALSE(ledger.host_takes(2, 6, 8.0));
    EXPECT_TRUE(ledger.host_takes(2, 8, 8.0));
    // A failed NVDEC part: 4 s more with a part, no inputs: 4 in 8 s.
    ledger.began(0, 1, 10.0);
    ledger.ended(0, 14.0, false);
    ledger.began(1, 1, 14.0);
    ledger.ended(1, 15.0, true); // (and 2 in 1 s: 6 in 9 s)
    EXPECT_DOUBLE_EQ(ledger.host_over_nvdec(), 0.25 / (6.0 / 9.0));
}

// An NVDEC part being scored counts for what remains of it at its pool's rate.
TEST(HostShare, CountsWhatRemainsOfThePartsNvdecScores) {
    ShareLedger ledger(2, 1, 1, 0.6);
    ledger.began(0, 1, 0.0);
    ledger.ended(0, 2.0, true); // NVDEC: 1 input a second
    ledger.began(1, 1, 0.0);
    ledger.ended(1, 4.0, true); // the share: 0.5 a second
    ledger.began(0, 4, 10.0);   // 5 inputs from 10 s
    // The share's 2-input part ends at 4 s; NVDEC's part has 4 inputs left at 11 s (taken), 3
    // at 12 s (not), none long after its time.
    EXPECT_TRUE(ledger.host_takes(2, 0, 11.0));
    EXPECT_FALSE(ledger.host_takes(2, 0, 12.0));
    EXPECT_FALSE(ledger.host_takes(2, 0, 40.0));
}

// A part of no rows is no work: it neither counts as a measure nor as NVDEC's work left.
TEST(HostShare, APartOfNoRowsIsNoWork) {
    ShareLedger ledger(2, 1, 1, 0.6);
    ledger.began(0, 0, 0.0);
    EXPECT_FALSE(ledger.host_takes(3, 0, 0.0)); // NVDEC idle: 0 against the share's 5
    ledger.ended(0, 0.001, true);
    ledger.began(1, 1, 0.0);
    ledger.ended(1, 4.0, true);
    EXPECT_FALSE(ledger.measured());
}

// Without NVDEC workers (the rule's edge) the share takes whatever is queued.
TEST(HostShare, WithoutNvdecWorkersTakesWhatIsQueued) {
    ShareLedger ledger(2, 0, 1, 0.6);
    EXPECT_TRUE(ledger.host_takes(4, 0, 0.0));
    EXPECT_FALSE(ledger.host_takes(0, 0, 0.0));
}
