// --devices: "all" and lists resolved against the devices found; a missing device named with
// the count found; the VIF_TEST_FAIL_DEVICE hook's syntax.
#include <gtest/gtest.h>

#include "batch/devices.hpp"

using namespace vif::batch;

namespace {
std::vector<int> ok(const std::string& text, int found) {
    std::vector<int> out;
    std::string err;
    EXPECT_TRUE(resolve_devices(text, found, "CUDA", &out, &err)) << text << ": " << err;
    return out;
}
std::string refused(const std::string& text, int found) {
    std::vector<int> out;
    std::string err;
    EXPECT_FALSE(resolve_devices(text, found, "CUDA", &out, &err)) << text;
    return err;
}
// The workers: a quarter of the cores shared among the GPUs, 1 to 8 each; above 4 a GPU, at
// most half the parts.
TEST(Devices, WorkersForGpus) {
    using vif::batch::workers_for_gpus;
    EXPECT_EQ(workers_for_gpus(1, 16, 1000), 4u);  // the 16-core host of one GPU
    EXPECT_EQ(workers_for_gpus(1, 32, 1000), 8u);  // 32 cores, one GPU
    EXPECT_EQ(workers_for_gpus(2, 32, 1000), 8u);  // two GPUs: 4 each
    EXPECT_EQ(workers_for_gpus(4, 64, 1000), 16u); // four on 64 cores: 4 each
    EXPECT_EQ(workers_for_gpus(1, 128, 1000), 8u); // 8 a GPU at most
    EXPECT_EQ(workers_for_gpus(4, 8, 1000), 4u);   // one a GPU at least
    EXPECT_EQ(workers_for_gpus(1, 32, 12), 6u);    // beyond 4 a GPU: half the parts
    EXPECT_EQ(workers_for_gpus(2, 64, 16), 8u);    // (16 1080p rows on two GPUs: 4 each)
    EXPECT_EQ(workers_for_gpus(4, 64, 16), 16u);   // never under 4 a GPU for it
    EXPECT_EQ(workers_for_gpus(0, 32, 100), 1u);
}

} // namespace

TEST(Devices, AllAndEmptyAreEveryDeviceFound) {
    EXPECT_EQ(ok("", 1), std::vector<int>({0}));
    EXPECT_EQ(ok("all", 4), std::vector<int>({0, 1, 2, 3}));
}

TEST(Devices, ListsKeepTheirOrderAndRepeats) {
    EXPECT_EQ(ok("1,0", 2), std::vector<int>({1, 0}));
    EXPECT_EQ(ok("0,0", 1), std::vector<int>({0, 0}));
    EXPECT_EQ(ok("3", 4), std::vector<int>({3}));
}

TEST(Devices, AMissingDeviceIsNamedWithTheCountFound) {
    EXPECT_EQ(refused("0,2", 2),
              "--devices 0,2: there is no device 2 (2 CUDA devices were found: 0 to 1)");
    EXPECT_EQ(refused("1", 1), "--devices 1: there is no device 1 (1 CUDA device was found: 0)");
    EXPECT_EQ(refused("0", 0), "--devices 0: there is no device 0 (no CUDA device was found)");
    EXPECT_EQ(refused("all", 0), "--devices all: no CUDA device was found");
}

TEST(Devices, MalformedListsAreRefused) {
    for (const char* bad : {"0,", ",0", "a", "-1", "0;1", " 0", "1.5", "0,,1", "99999999999"})
        EXPECT_NE(refused(bad, 4).find("expected all or device numbers"), std::string::npos) << bad;
}

TEST(Devices, FailureHookSyntax) {
    std::string err;
    const auto h = parse_device_failure_hook("1:3", &err);
    ASSERT_TRUE(h) << err;
    EXPECT_EQ(h->slot, 1u);
    EXPECT_EQ(h->after_rows, 3u);
    for (const char* bad : {"", "1", "1:", ":3", "a:1", "1:-2", "1:3:4"}) {
        EXPECT_FALSE(parse_device_failure_hook(bad, &err)) << bad;
        EXPECT_NE(err.find("VIF_TEST_FAIL_DEVICE"), std::string::npos) << bad;
    }
}
