// summary.csv round trip, merge of shards' summaries (three shards together equal one
// unsharded run), overlaps and gaps reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch/shard.hpp"
#include "batch/summary.hpp"

using namespace vif::batch;

namespace {
SummaryRow row(size_t n, const std::string& ref) {
    SummaryRow r;
    r.row = n;
    r.reference = ref;
    r.distorted = "enc/d" + std::to_string(n) + ".mp4";
    r.output = "d" + std::to_string(n) + ".json";
    r.status = "ok";
    r.frames = 48;
    r.width = 576;
    r.height = 324;
    r.source_width = 288;
    r.source_height = 162;
    r.has_scores = true;
    r.vif = 0.1 * static_cast<double>(n) + 1e-17 * static_cast<double>(n);
    r.scale = {0.3 / static_cast<double>(n), 0.7, 0.8, 0.9000000000000001};
    r.manifest = manifest_identity("reference,distorted\n", 20);
    return r;
}

bool same(const SummaryRow& a, const SummaryRow& b) {
    return a.row == b.row && a.reference == b.reference && a.distorted == b.distorted &&
           a.output == b.output && a.status == b.status && a.frames == b.frames &&
           a.width == b.width && a.height == b.height && a.source_width == b.source_width &&
           a.source_height == b.source_height && a.has_scores == b.has_scores &&
           (!a.has_scores || (a.vif == b.vif && a.scale == b.scale)) && a.error == b.error &&
           a.manifest == b.manifest;
}
} // namespace

TEST(Summary, RoundTripKeepsEveryBit) {
    std::vector<SummaryRow> rows = {row(1, "a.y4m"), row(2, "dir,with \"quotes\".y4m")};
    rows[1].status = "failed";
    rows[1].has_scores = false;
    rows[1].error = "cannot open enc/d2.mp4: No such file, or directory";
    rows[0].distorted = "line\nbreak\r\n.y4m"; // a JSON-lines path may hold one: kept, quoted
    std::istringstream in(format_summary(rows));
    const auto back = parse_summary(in, "s.csv");
    ASSERT_EQ(back.size(), 2u);
    for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(same(rows[i], back[i])) << i;
    std::istringstream junk("a,b\n1,2\n");
    EXPECT_THROW(parse_summary(junk, "x.csv"), SummaryError);
}

TEST(Summary, ThreeShardsTogetherEqualOneUnshardedRun) {
    // 20 rows over 6 references, split the way `vif batch --shard I/3` splits them.
    std::ostringstream csv;
    csv << "reference,distorted\n";
    std::vector<std::string> ref_of(21);
    for (int i = 1; i <= 20; ++i) {
        ref_of[i] = "ref" + std::to_string(i * 5 % 6) + ".y4m";
        csv << ref_of[i] << ",enc/d" << i << ".mp4\n";
    }
    std::istringstream in(csv.str());
    const auto groups = group_by_reference(parse_manifest(in, "m"));
    std::vector<SummaryRow> whole;
    for (int i = 1; i <= 20; ++i) whole.push_back(row(i, ref_of[i]));

    const auto dir = std::filesystem::temp_directory_path() / "vif_merge_test";
    std::filesystem::remove_all(dir);
    std::vector<std::string> dirs;
    for (uint32_t s = 0; s < 3; ++s) {
        std::vector<SummaryRow> part;
        for (const auto& g : shard_groups(groups, Shard{s, 3, ""}))
            for (const auto& r : g.rows) part.push_back(row(r.row, r.reference));
        const auto d = dir / ("shard" + std::to_string(s));
        std::filesystem::create_directories(d);
        std::ofstream((d / summary_name(s, 3)).string()) << format_summary(part);
        dirs.push_back(d.string());
    }
    std::vector<std::string> files;
    for (const auto& d : dirs)
        for (const auto& f : summary_files_in(d)) files.push_back(f);
    ASSERT_EQ(files.size(), 3u);
    const MergeResult m = merge_summaries(files);
    EXPECT_TRUE(m.missing.empty());
    EXPECT_TRUE(m.missing_shards.empty());
    ASSERT_EQ(m.rows.size(), whole.size());
    for (size_t i = 0; i < whole.size(); ++i) EXPECT_TRUE(same(m.rows[i], whole[i])) << i;
    EXPECT_EQ(format_summary(m.rows), format_summary(whole));

    // A shard missing: its rows are reported; the same summary twice: refused.
    const MergeResult two = merge_summaries({files[0], files[2]});
    EXPECT_EQ(two.missing_shards, std::vector<uint32_t>{1});
    EXPECT_FALSE(two.missing.empty());
    EXPECT_EQ(two.rows.size() + two.missing_rows, 20u);
    try {
        merge_summaries({files[0], files[1], files[0]});
        ADD_FAILURE() << "overlap not reported";
    } catch (const SummaryError& e) {
        EXPECT_NE(std::string(e.what()).find("in both"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

TEST(Summary, Names) {
    EXPECT_EQ(summary_name(0, 1), "summary.csv");
    EXPECT_EQ(summary_name(2, 3), "summary.shard-2-of-3.csv");
}

namespace {
// Writes `rows` as a summary named `name` in a fresh folder; returns its path.
std::string write_summary(const std::string& name, const std::vector<SummaryRow>& rows) {
    const auto dir = std::filesystem::temp_directory_path() / "vif_merge_check";
    std::filesystem::create_directories(dir);
    const auto p = dir / name;
    std::ofstream(p.string(), std::ios::binary) << format_summary(rows);
    return p.string();
}

std::string merge_error(const std::vector<std::string>& files) {
    try {
        merge_summaries(files);
    } catch (const SummaryError& e) {
        return e.what();
    }
    return "";
}
} // namespace

// Crafted summaries are refused before anything is allocated by the size of a number in them;
// a manifest's identity travels in every row, so shards of two manifests do not merge.
TEST(Summary, MergeValidatesEveryFieldFirst) {
    std::filesystem::remove_all(std::filesystem::temp_directory_path() / "vif_merge_check");
    SummaryRow zero = row(1, "a.y4m");
    zero.row = 0;
    EXPECT_NE(merge_error({write_summary("summary.csv", {zero})}).find("outside"),
              std::string::npos);
    SummaryRow huge = row(1, "a.y4m");
    huge.row = SIZE_MAX - 1;
    EXPECT_NE(merge_error({write_summary("summary.csv", {huge})}).find("outside"),
              std::string::npos);
    EXPECT_NE(merge_error({write_summary("summary.shard-0-of-0.csv", {row(1, "a")})})
                  .find("not a shard's summary name"),
              std::string::npos);
    EXPECT_NE(
        merge_error({write_summary("summary.shard-0-of-18446744073709551617.csv", {row(1, "a")})})
            .find("not a shard's summary name"),
        std::string::npos);
    SummaryRow other = row(2, "a.y4m");
    other.manifest = manifest_identity("reference,distorted\nx,y\n", 20);
    EXPECT_NE(merge_error({write_summary("summary.shard-0-of-2.csv", {row(1, "a")}),
                           write_summary("summary.shard-1-of-2.csv", {other})})
                  .find("different manifests"),
              std::string::npos);
    SummaryRow none = row(1, "a.y4m");
    none.manifest.clear();
    EXPECT_NE(merge_error({write_summary("summary.csv", {none})}).find("names no manifest"),
              std::string::npos);
    // A manifest of a million rows with one row present: counted, 20 listed.
    SummaryRow big = row(1, "a.y4m");
    big.manifest = manifest_identity("m", 1000000);
    const MergeResult m = merge_summaries({write_summary("summary.csv", {big})});
    EXPECT_EQ(m.missing_rows, 999999u);
    EXPECT_EQ(m.missing.size(), 20u);
    EXPECT_EQ(m.missing.front(), 2u);
    std::filesystem::remove_all(std::filesystem::temp_directory_path() / "vif_merge_check");
}
