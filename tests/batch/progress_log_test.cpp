// The progress log of finished rows (batch/progress_log.hpp): records read back as written,
// a torn or edited line ignored, the latest record of a row wins, input identities change with
// the content; and the temporary files of a killed run removed (batch/outputs.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "batch/outputs.hpp"
#include "batch/progress_log.hpp"

using namespace vif::batch;

namespace {

ProgressRecord record(size_t row, const std::string &key) {
    ProgressRecord r;
    r.key = key;
    r.output = "123:00ff";
    r.row.row = row;
    r.row.reference = "ref,with comma.y4m";
    r.row.distorted = "dist\nwith line break%.y4m";
    r.row.output = "d.json";
    r.row.status = "ok";
    r.row.frames = 3;
    r.row.has_scores = true;
    r.row.vif = 0.1 + 1e-17;
    r.row.scale = {0.2, 0.3, 0.4, 0.5};
    return r;
}

class ProgressLogTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("vif_progress_test." + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

} // namespace

TEST_F(ProgressLogTest, RecordsReadBackAndTornLinesAreIgnored) {
    const std::string path = (dir_ / "summary.csv.progress").string();
    {
        ProgressLog log(path);
        EXPECT_EQ(log.find(1), nullptr);
        log.append(record(1, "old key"));
        log.append(record(2, "k2"));
        log.append(record(1, "new key")); // scored again: the latest wins
    }
    // A crash in the middle of a line, and a line edited by hand.
    std::string edited = format_progress_line(record(3, "k3"));
    edited[edited.find("k3")] = 'K';
    {
        std::ofstream out(path, std::ios::app | std::ios::binary);
        out << edited << format_progress_line(record(4, "k4")).substr(0, 40);
    }
    ProgressLog log(path);
    ASSERT_NE(log.find(1), nullptr);
    EXPECT_EQ(log.find(1)->key, "new key");
    ASSERT_NE(log.find(2), nullptr);
    EXPECT_EQ(log.find(2)->row.distorted, "dist\nwith line break%.y4m");
    EXPECT_EQ(log.find(2)->row.reference, "ref,with comma.y4m");
    EXPECT_EQ(log.find(2)->row.vif, 0.1 + 1e-17);
    EXPECT_EQ(log.find(3), nullptr);
    EXPECT_EQ(log.find(4), nullptr);
    // Bounded: rewritten with one record a row.
    log.rewrite({*log.find(1), *log.find(2)});
    std::ifstream in(path);
    size_t lines = 0;
    for (std::string l; std::getline(in, l);) ++lines;
    EXPECT_EQ(lines, 2u);
}

TEST_F(ProgressLogTest, IdentityFollowsTheContent) {
    const std::string f = (dir_ / "clip.yuv").string();
    std::ofstream(f, std::ios::binary) << std::string(1000, 'a');
    const std::string first = input_identity(f);
    EXPECT_FALSE(first.empty());
    EXPECT_EQ(input_identity(f), first);
    const auto when = std::filesystem::last_write_time(f);
    std::ofstream(f, std::ios::binary) << std::string(999, 'a') + "b"; // same size
    std::filesystem::last_write_time(f, when);                         // same time
    EXPECT_NE(input_identity(f), first);
    EXPECT_EQ(input_identity((dir_ / "missing.yuv").string()), "");
    EXPECT_EQ(input_identity(dir_.string()), ""); // not a regular file
    EXPECT_EQ(input_identity("-"), "");
}

TEST_F(ProgressLogTest, StaleTemporariesOfAKilledRunAreRemoved) {
    const std::string out = (dir_ / "a.json").string();
    const std::string stale = out + ".tmp.999999999"; // no such process
    const std::string live = out + ".tmp." + std::to_string(::getpid());
    const std::string other = (dir_ / "b.json.tmp.999999999").string(); // not ours
    for (const std::string &p : {stale, live, other}) std::ofstream(p) << "x";
    EXPECT_EQ(remove_stale_temporaries({out}), 1u);
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(std::filesystem::exists(live));
    EXPECT_TRUE(std::filesystem::exists(other));
}
