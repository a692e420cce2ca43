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

// The run's start: nothing measured, the host taken as 1.5 times an NVDEC worker's time an
// input. Eight NVDEC workers (0-7) have just begun a ladder part of 4 rungs each (5 inputs, none
// of it done); the share (8-15) looks at a queue of such parts. Times below in an NVDEC
// worker's time for an input.
TEST(HostShare, AtTheStartTakesWhatEndsNoLaterThanNvdecWould) {
    ShareLedger ledger(16, 8, 1.5);
    for (size_t w = 0; w < 8; ++w) ledger.began(w, 4, 0.0);
    EXPECT_FALSE(ledger.measured());
    EXPECT_DOUBLE_EQ(ledger.host_over_nvdec(), 1.5);
    // 8 queued: NVDEC would have 75 inputs left without the front one, 9.4 a worker; the host
    // ends it at 7.5.
    EXPECT_TRUE(ledger.host_takes(std::vector<double>(8, 5), 0.1));
    // The last one: NVDEC would end it at 10 (a worker is free at 5), the host at 7.5.
    EXPECT_TRUE(ledger.host_takes({5}, 0.1));
    // Nothing queued: nothing to take.
    EXPECT_FALSE(ledger.host_takes({}, 0.1));
}

// An idle NVDEC worker ends a part sooner than the host: the host takes it only where NVDEC
// would have to do it after another.
TEST(HostShare, LeavesAPartToAnIdleNvdecWorker) {
    ShareLedger ledger(2, 1, 1.5);               // worker 0 NVDEC's, idle; worker 1 the host's
    EXPECT_FALSE(ledger.host_takes({5}, 0.0));   // NVDEC 5, the host 7.5
    EXPECT_TRUE(ledger.host_takes({5, 5}, 0.0)); // NVDEC 10 alone, 7.5 with the host
    // A part held ahead is NVDEC's work: 10 alone, 7.5 with the host.
    ledger.took_ahead(0, 4);
    EXPECT_TRUE(ledger.host_takes({5}, 0.0));
    // Put back in the queue (its device failed): as before.
    ledger.dropped_ahead(0);
    EXPECT_FALSE(ledger.host_takes({5}, 0.0));
}

// Once both sides have ended a part, their times an input decide; a part a device's failure
// ended is no measure.
TEST(HostShare, LearnsTheHostsTimeAgainstNvdecsFromTheEndedParts) {
    ShareLedger ledger(2, 1, 1.5); // worker 0 NVDEC's, worker 1 the host's
    ledger.began(0, 1, 0.0);
    ledger.ended(0, 3.0, false); // failed: not a rate
    EXPECT_FALSE(ledger.measured());
    ledger.began(0, 1, 3.0);
    ledger.ended(0, 7.0, true);      // 2 inputs in 4 s: 2 s an input
    EXPECT_FALSE(ledger.measured()); // (the host has ended none)
    ledger.began(1, 1, 0.0);
    ledger.ended(1, 8.0, true); // 2 inputs in 8 s: 4 s an input
    EXPECT_TRUE(ledger.measured());
    EXPECT_DOUBLE_EQ(ledger.host_over_nvdec(), 2.0);
    // NVDEC's worker idle; the host would end a 2-input part at 4. With 3 inputs behind it
    // NVDEC alone ends at 5; with 1.5 behind, at 3.5.
    EXPECT_TRUE(ledger.host_takes({2, 3}, 8.0));
    EXPECT_FALSE(ledger.host_takes({2, 1.5}, 8.0));
}

// An NVDEC part being scored counts for what remains of it at NVDEC's measured time an input.
TEST(HostShare, CountsWhatRemainsOfThePartsNvdecScores) {
    ShareLedger ledger(2, 1, 1.5);
    ledger.began(0, 1, 0.0);
    ledger.ended(0, 4.0, true); // NVDEC: 2 s an input
    ledger.began(1, 1, 0.0);
    ledger.ended(1, 8.0, true); // the host: 4 s an input, twice NVDEC's
    ledger.began(0, 4, 10.0);   // 5 inputs from 10 s: 10 s of work
    // The host's 2-input part ends at 4 input times. At 16 s NVDEC's part has 2 inputs left
    // (NVDEC alone would end the queued part at 4: taken), at 18 s 1 (at 3: not), and long
    // after its time none.
    EXPECT_TRUE(ledger.host_takes({2}, 16.0));
    EXPECT_FALSE(ledger.host_takes({2}, 18.0));
    EXPECT_FALSE(ledger.host_takes({2}, 40.0));
}

// Without NVDEC workers (the rule's edge) the share takes whatever is queued.
TEST(HostShare, WithoutNvdecWorkersTakesWhatIsQueued) {
    ShareLedger ledger(2, 0, 1.5);
    EXPECT_TRUE(ledger.host_takes({4}, 0.0));
    EXPECT_FALSE(ledger.host_takes({}, 0.0));
}
