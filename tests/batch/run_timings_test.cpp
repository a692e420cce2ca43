// `vif batch --timings`: the busy time is the union of a device's groups (overlapping workers
// counted once), and the lines carry each device's counts and sums, the start-ups first.
#include <gtest/gtest.h>

#include "batch/run_timings.hpp"

using namespace vif::batch;

TEST(RunTimings, BusyTimeCountsOverlapsOnce) {
    EXPECT_DOUBLE_EQ(covered_seconds({}), 0.0);
    EXPECT_DOUBLE_EQ(covered_seconds({{1, 3}}), 2.0);
    EXPECT_DOUBLE_EQ(covered_seconds({{1, 3}, {2, 4}}), 3.0);              // overlapping
    EXPECT_DOUBLE_EQ(covered_seconds({{5, 6}, {1, 2}, {1.5, 1.75}}), 2.0); // inside, unordered
    EXPECT_DOUBLE_EQ(covered_seconds({{0, 1}, {1, 2}}), 2.0);              // touching
    EXPECT_DOUBLE_EQ(covered_seconds({{3, 2}}), 0.0);                      // empty span
}

TEST(RunTimings, LinesPerDevice) {
    RunTimings t;
    GroupTiming a;
    a.slot = 0, a.rows = 2, a.begin = 0.5, a.end = 1.5, a.open = 0.25, a.context = 0.125;
    a.decode_wait = 0.5, a.score_wait = 0.25, a.record = 0.375, a.frames = 48;
    GroupTiming b = a;
    b.begin = 1.0, b.end = 2.0, b.rows = 1, b.decode_wait = 1.0, b.device_path = true;
    b.opened_ahead = true;
    t.add(a);
    t.add(b);
    const auto lines = t.lines(2.5,
                               {{"CUDA device 0", 0.25, 0.3, ""},
                                {"CUDA device 1", 0.5, 0.6, "gone"},
                                {"CUDA device 2", 0, 0, "", true},
                                {"CUDA device 3", 0, 0, "", false, true}},
                               {"CUDA device 0", "CUDA device 1"}, {3, 0});
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "timings: 2.50 s in all; device start-ups: CUDA device 0 0.25 s (ready "
                        "at 0.30 s), CUDA device 1 0.50 s (ready at 0.60 s; failed: gone), CUDA "
                        "device 2 not started, CUDA device 3 still starting");
    EXPECT_EQ(lines[1],
              "timings: CUDA device 0: 3 rows in 2 groups (1 decoded by NVDEC, 1 opened ahead), 96 "
              "reference frames, busy 1.50 s from 0.50 s to 2.00 s (first row decoding from 0.75 "
              "s); open 0.50 s, contexts 3 made "
              "(0.25 s), decode wait 1.50 s, scoring wait 0.50 s, recording rows 0.75 s; decode "
              "wait per row 0.50 s (most 1.00 s)");
    EXPECT_EQ(lines[2], "timings: CUDA device 1: no rows");
}

// The workers' line: each worker's parts and the spread of their last parts' ends (an end of
// run with too few parts left shows as a wide spread); nothing with one worker.
TEST(RunTimings, WorkersLineShowsEachWorkersPartsAndTheirEnds) {
    RunTimings t;
    GroupTiming g;
    g.worker = 0;
    g.begin = 0;
    g.end = 9;
    t.add(g);
    EXPECT_EQ(t.workers_line(), "");
    g.begin = 9;
    g.end = 18;
    t.add(g);
    g.worker = 3;
    g.begin = 0.5;
    g.end = 27.5;
    t.add(g);
    EXPECT_EQ(t.workers_line(),
              "timings: workers: parts scored 2 1 (by worker); their last parts ended from "
              "18.00 s to 27.50 s");
}
