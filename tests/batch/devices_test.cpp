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
// The workers: a quarter of the cores shared among the GPUs, 1 to 8 for one, 1 to 4 each for
// several; above 4 a GPU, at most half the parts.
TEST(Devices, WorkersForGpus) {
    using vif::batch::workers_for_gpus;
    EXPECT_EQ(workers_for_gpus(1, 16, 1000), 4u);   // the 16-core host of one GPU
    EXPECT_EQ(workers_for_gpus(1, 32, 1000), 8u);   // 32 cores, one GPU
    EXPECT_EQ(workers_for_gpus(1, 64, 1000), 8u);   // 64 cores, one GPU (A10's fastest way)
    EXPECT_EQ(workers_for_gpus(2, 32, 1000), 8u);   // two GPUs: 4 each
    EXPECT_EQ(workers_for_gpus(2, 64, 1000), 8u);   // two GPUs on 64 cores: 4 each, not 8
    EXPECT_EQ(workers_for_gpus(4, 64, 1000), 16u);  // four on 64 cores: 4 each
    EXPECT_EQ(workers_for_gpus(4, 256, 1000), 16u); // several: 4 a GPU at most
    EXPECT_EQ(workers_for_gpus(1, 128, 1000), 8u);  // 8 a GPU at most
    EXPECT_EQ(workers_for_gpus(4, 8, 1000), 4u);    // one a GPU at least
    EXPECT_EQ(workers_for_gpus(1, 32, 12), 6u);     // beyond 4 a GPU: half the parts
    EXPECT_EQ(workers_for_gpus(2, 64, 16), 8u);     // (16 1080p rows on two GPUs: 4 each)
    EXPECT_EQ(workers_for_gpus(4, 64, 16), 16u);    // never under 4 a GPU for it
    EXPECT_EQ(workers_for_gpus(0, 32, 100), 1u);
}

// Rows NVDEC decodes: 8 a GPU on any number of GPUs (one GPU's engines saturate only with many
// sessions at once; the host's cores stay idle), within half the cores; above 4 a GPU, at most
// half the parts, as for host-decoded rows.
TEST(Devices, WorkersForGpusOfNvdecRows) {
    using vif::batch::workers_for_gpus;
    EXPECT_EQ(workers_for_gpus(4, 64, 64, true), 32u); // B64 on the 4x H200 host: 8 a GPU
    EXPECT_EQ(workers_for_gpus(4, 64, 64), 16u);       // (host-decoded rows: 4 a GPU)
    EXPECT_EQ(workers_for_gpus(2, 64, 64, true), 16u); // two GPUs: 8 each
    EXPECT_EQ(workers_for_gpus(2, 32, 1000, true), 16u);
    EXPECT_EQ(workers_for_gpus(1, 16, 1000, true), 8u);  // 16 cores, one GPU (host rule: 4)
    EXPECT_EQ(workers_for_gpus(4, 32, 1000, true), 16u); // half the cores: 4 a GPU
    EXPECT_EQ(workers_for_gpus(8, 8, 1000, true), 8u);   // one a GPU at least
    EXPECT_EQ(workers_for_gpus(4, 64, 16, true), 16u);   // B's 16 rows: half the parts, 4 a GPU
    EXPECT_EQ(workers_for_gpus(2, 64, 16, true), 8u);
    EXPECT_EQ(workers_for_gpus(4, 64, 48, true), 24u); // 6 a GPU
    EXPECT_EQ(workers_for_gpus(0, 64, 64, true), 1u);
}

// The work of n rows alike.
DeviceWork rows_of(size_t n, RowPath path, double frames, double pixels, size_t host_workers) {
    DeviceWork w;
    for (size_t i = 0; i < n; ++i) w += row_work(path, frames, pixels, host_workers);
    return w;
}

// The start-up of a device more as the 4x H200 call measured it (e8d8889): CUDA's start of the
// device 0.26-0.31 s, then its contexts (0.15 s).
constexpr double kStartup = 0.28 + 0.15;

} // namespace

// A10: 1,000 compact rows (48 frames of 576x324, x264, decoded on the host) on a 64-core host
// with 4 GPUs: one GPU with its 8 workers was the fastest way (2.33 s; 0.86x on two GPUs,
// 0.81x on four): the host's decoding binds, no device more is started, and the line says so.
TEST(DevicePlan, HostDecodedCatalogueStaysOnOneDevice) {
    const size_t one_gpu = workers_for_gpus(1, 64, 200);
    ASSERT_EQ(one_gpu, 8u);
    const DeviceWork w = rows_of(1000, RowPath::host_decoded, 48, 576 * 324, one_gpu);
    EXPECT_GT(w.host_s, w.device_s);
    EXPECT_GT(w.host_s, 2 * kStartup); // (not short: the host is what stops it)
    std::string why;
    EXPECT_EQ(devices_that_pay(w, kStartup, 3, &why), 0u);
    EXPECT_EQ(why.rfind("0 of 3 more devices started: the host's decoding binds", 0), 0u) << why;
    EXPECT_EQ(devices_that_pay(w, kStartup, 1, &why), 0u); // two GPUs: the same
    // Ten times longer, or on a 16-core host (4 workers): still the host's.
    EXPECT_EQ(devices_that_pay(rows_of(10000, RowPath::host_decoded, 48, 576 * 324, 8), kStartup, 3,
                               &why),
              0u);
    EXPECT_EQ(
        devices_that_pay(rows_of(1000, RowPath::host_decoded, 48, 576 * 324, 4), kStartup, 3, &why),
        0u);
}

// B: 16 rows of the 1080p H.264 pair (1,200 frames each) decoded by NVDEC: the devices' own
// work (9.4 s on one H200), so every device starts, on 2 and on 4 GPUs.
TEST(DevicePlan, NvdecCatalogueStartsEveryDevice) {
    const DeviceWork w = rows_of(16, RowPath::nvdec, 1200, 1920 * 1080, 8);
    EXPECT_EQ(w.host_s, 0);
    EXPECT_NEAR(w.device_s, 9.5, 0.5);
    std::string why;
    EXPECT_EQ(devices_that_pay(w, kStartup, 3, &why), 3u);
    EXPECT_EQ(why.rfind("3 of 3 more devices started: about 9.", 0), 0u) << why;
    EXPECT_EQ(devices_that_pay(w, kStartup, 1, &why), 1u);
}

// A: 100 compact rows: too short for a device more, whatever binds.
TEST(DevicePlan, ShortCatalogueStaysOnOneDevice) {
    std::string why;
    EXPECT_EQ(devices_that_pay(rows_of(100, RowPath::raw, 48, 576 * 324, 8), kStartup, 3, &why),
              0u);
    EXPECT_EQ(why.rfind("0 of 3 more devices started: too little work", 0), 0u) << why;
    // Work for one device more (the k-th from 2 k start-ups) but not two.
    DeviceWork w;
    w.device_s = 3 * kStartup;
    EXPECT_EQ(devices_that_pay(w, kStartup, 3, &why), 1u);
    EXPECT_EQ(why.rfind("1 of 3 more devices started: too little work", 0), 0u) << why;
}

// A catalogue of both: the NVDEC rows' device work pays for devices as long as k devices would
// still take longer than the host's decoding.
TEST(DevicePlan, MixedCatalogueStartsWhatTheDeviceWorkPays) {
    DeviceWork w = rows_of(16, RowPath::nvdec, 1200, 1920 * 1080, 8); // ~9.5 s
    w += rows_of(2000, RowPath::host_decoded, 48, 576 * 324, 8);      // ~3.2 s of the host's
    std::string why;
    // 1 more: 11 - 3.2 >= 2 x 0.43; 2 more: 11 - 6.4 >= 4 x 0.43; 3 more: 11 - 9.6 < 6 x 0.43.
    EXPECT_EQ(devices_that_pay(w, kStartup, 3, &why), 2u);
    EXPECT_EQ(why.rfind("2 of 3 more devices started: the host's decoding binds", 0), 0u) << why;
}

// The workers of devices left out join the running ones up to the target; the others wait.
TEST(DevicePlan, WorkersOfDevicesLeftOutJoinTheRunningOnes) {
    const size_t no = kNoSlot;
    // 4 GPUs, 16 workers (4 each), only device 0 runs, target 8 (one GPU's).
    EXPECT_EQ(worker_slots(16, {true, false, false, false}, 8),
              std::vector<size_t>({0, 0, 0, 0, 0, 0, no, no, 0, no, no, no, 0, no, no, no}));
    // 2 GPUs of 4 workers each on 64 cores, device 1 left out: device 0 gets all 8.
    EXPECT_EQ(worker_slots(8, {true, false}, 8), std::vector<size_t>({0, 0, 0, 0, 0, 0, 0, 0}));
    // 4 GPUs, two run, target 8 (4 each): every running device's own workers, nobody more.
    EXPECT_EQ(worker_slots(16, {true, true, false, false}, 8),
              std::vector<size_t>({0, 1, no, no, 0, 1, no, no, 0, 1, no, no, 0, 1, no, no}));
    // Three of 4 run, target 12 (4 each) of 8 workers: the left-out ones' in turn.
    EXPECT_EQ(worker_slots(8, {true, false, true, true}, 12),
              std::vector<size_t>({0, 0, 2, 3, 0, 2, 2, 3}));
    // Every device runs: each worker on its own.
    EXPECT_EQ(worker_slots(4, {true, true}, 2), std::vector<size_t>({0, 1, 0, 1}));
    // None runs (every start-up failed): each waits on its own.
    EXPECT_EQ(worker_slots(2, {false, false}, 2), std::vector<size_t>({no, no}));
}

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
