// The reader thread of an input (media/prefetch.hpp) on a mapped raw file: the frames it hands
// out equal those read with pread, and the mapped planes' pages are dropped many frames at a
// time (a drop changes the page tables every thread of the process shares), not once a frame.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "frame_source.hpp"
#include "prefetch.hpp"

namespace {

constexpr uint32_t kW = 352, kH = 288, kFrames = 40;

// A raw 4:2:0 8-bit file whose every byte depends on its place (frames differ).
std::string make_raw() {
    char name[] = "/tmp/vif_prefetch_XXXXXX";
    const int fd = ::mkstemp(name);
    EXPECT_GE(fd, 0);
    const size_t frame = size_t(kW) * kH * 3 / 2;
    std::vector<uint8_t> buf(frame);
    for (uint32_t f = 0; f < kFrames; ++f) {
        for (size_t i = 0; i < frame; ++i) buf[i] = uint8_t((i * 7 + f * 13) >> 1);
        EXPECT_EQ(::write(fd, buf.data(), frame), ssize_t(frame));
    }
    ::close(fd);
    return name;
}

vifcli::SourceRequest raw_request(const std::string &path, bool mapping) {
    vifcli::SourceRequest q;
    q.path = path;
    q.label = "reference";
    q.width = kW;
    q.height = kH;
    q.bitdepth = 8;
    q.pixel_format = "420";
    q.allow_mapping = mapping;
    return q;
}

// Every frame's luma plane through a Prefetcher, and its page drops.
std::vector<std::vector<uint8_t>> read_all(const std::string &path, bool mapping, size_t drop_batch,
                                           uint64_t *drops, bool *mapped) {
    auto src = vifcli::open_frame_source(raw_request(path, mapping));
    vifcli::ReadPlan plan;
    plan.drop_batch_bytes = drop_batch;
    vifcli::Prefetcher p(*src, "reference", plan, 4);
    std::vector<std::vector<uint8_t>> out;
    vifcli::Prefetcher::Frame f;
    while (p.next(&f) == vifcli::Prefetcher::Status::kFrame) {
        out.emplace_back(f.data, f.data + size_t(kW) * kH);
        p.release();
    }
    p.stop();
    *drops = p.drops();
    *mapped = p.mapped();
    return out;
}

TEST(Prefetcher, MappedFramesEqualReadOnesAndTheirPagesGoInBatches) {
    const std::string path = make_raw();
    uint64_t drops = 0;
    bool mapped = false;
    const auto read = read_all(path, false, size_t(1) << 20, &drops, &mapped);
    ASSERT_EQ(read.size(), kFrames);
    EXPECT_FALSE(mapped);
    EXPECT_EQ(drops, 0u);
    // 1 MiB batches: 8 frames (148.5 KiB of file each) a drop, of the 36 frames done with
    // before the last 4 (the ring's) were handed out.
    const auto batched = read_all(path, true, size_t(1) << 20, &drops, &mapped);
    EXPECT_TRUE(mapped);
    EXPECT_EQ(batched, read);
    EXPECT_GE(drops, 3u);
    EXPECT_LE(drops, 5u);
    // A batch of one byte: a drop for every frame done with (the behaviour batching replaces).
    const auto each = read_all(path, true, 1, &drops, &mapped);
    EXPECT_EQ(each, read);
    EXPECT_GE(drops, uint64_t(kFrames - 4));
    std::remove(path.c_str());
}

} // namespace
