// Manifest reading: CSV and JSON lines, optional raw-format columns, clear errors with line
// numbers, relative paths, and grouping of rows by reference.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch/manifest.hpp"

using namespace vif::batch;

namespace {
std::vector<ManifestRow> parse(const std::string& text) {
    std::istringstream in(text);
    return parse_manifest(in, "m.csv");
}

std::string error_of(const std::string& text) {
    try {
        parse(text);
    } catch (const ManifestError& e) {
        return e.what();
    }
    return "(no error)";
}
} // namespace

TEST(Manifest, CsvWithOptionalColumnsInAnyOrder) {
    const auto rows = parse("distorted,width,reference,height,pixel_format,bitdepth,comment\n"
                            "r1.yuv,1920,src.yuv,1080,yuv420p,10,x\n"
                            "\n"
                            "\"dir, with comma/r2.mp4\",,src.mp4,,,,\"said \"\"hi\"\"\"\r\n");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].row, 1u);
    EXPECT_EQ(rows[0].reference, "src.yuv");
    EXPECT_EQ(rows[0].distorted, "r1.yuv");
    EXPECT_EQ(rows[0].width, 1920u);
    EXPECT_EQ(rows[0].height, 1080u);
    EXPECT_EQ(rows[0].bitdepth, 10u);
    EXPECT_EQ(rows[0].pixel_format, "yuv420p");
    EXPECT_EQ(rows[1].row, 2u);
    EXPECT_EQ(rows[1].distorted, "dir, with comma/r2.mp4");
    EXPECT_EQ(rows[1].width, 0u);
    EXPECT_EQ(rows[1].pixel_format, "");
}

// Unquoted fields lose their surrounding spaces; quoted ones keep what the quotes hold.
TEST(Manifest, CsvSpacesAreTrimmedOutsideQuotesOnly) {
    const auto rows = parse("reference , distorted\n  src.yuv\t,\"  r 1.yuv \"\n");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].reference, "src.yuv");
    EXPECT_EQ(rows[0].distorted, "  r 1.yuv ");
}

TEST(Manifest, JsonLines) {
    const auto rows =
        parse("{\"reference\": \"a.y4m\", \"distorted\": \"b\\\"q.mp4\"}\n"
              "  \n"
              "{\"distorted\":\"c.yuv\",\"reference\":\"a.yuv\",\"width\":64,\"height\":32,"
              "\"bitdepth\":8,\"pixel_format\":\"yuv420p\",\"note\":null}\n");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].distorted, "b\"q.mp4");
    EXPECT_EQ(rows[1].width, 64u);
    EXPECT_EQ(rows[1].height, 32u);
    EXPECT_EQ(rows[1].row, 2u);
}

TEST(Manifest, ErrorsNameTheLine) {
    EXPECT_NE(error_of("").find("no header"), std::string::npos);
    EXPECT_NE(error_of("ref,dist\na,b\n").find("reference,distorted"), std::string::npos);
    EXPECT_NE(error_of("reference,distorted\n").find("no pairs"), std::string::npos);
    EXPECT_NE(error_of("reference,distorted\na,b\na\n").find("m.csv:3"), std::string::npos);
    EXPECT_NE(error_of("reference,distorted\na,\n").find("empty distorted"), std::string::npos);
    EXPECT_NE(error_of("reference,distorted,width,height\na,b,12x,5\n").find("width"),
              std::string::npos);
    EXPECT_NE(error_of("reference,distorted,width,height\na,b,-1,5\n").find("width"),
              std::string::npos);
    EXPECT_NE(error_of("reference,distorted,width\na,b,64\n").find("go together"),
              std::string::npos);
    EXPECT_NE(error_of("reference,distorted\n\"a,b\n").find("quote"), std::string::npos);
    EXPECT_NE(error_of("{\"reference\":\"a\",\"distorted\":\"b\"}\n{\"reference\":\"a\"\n")
                  .find("m.csv:2"),
              std::string::npos);
    EXPECT_NE(
        error_of("{\"reference\":\"a\",\"distorted\":{\"x\":1}}\n").find("string or a number"),
        std::string::npos);
}

TEST(Manifest, RelativePathsAreRelativeToTheManifest) {
    const auto dir = std::filesystem::temp_directory_path() / "vif_manifest_test";
    std::filesystem::create_directories(dir / "sub");
    const auto path = dir / "sub" / "m.csv";
    std::ofstream(path) << "reference,distorted\nsrc.yuv,../enc/r1.mp4\n/abs/src.yuv,r2.mp4\n";
    const auto rows = read_manifest(path.string());
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].reference, (dir / "sub" / "src.yuv").string());
    EXPECT_EQ(rows[0].distorted, (dir / "enc" / "r1.mp4").string());
    EXPECT_EQ(rows[1].reference, "/abs/src.yuv");
    std::filesystem::remove_all(dir);
    EXPECT_THROW(read_manifest((dir / "missing.csv").string()), ManifestError);
}

TEST(Manifest, GroupsByReferenceInFirstAppearanceOrder) {
    const auto rows = parse("reference,distorted,width,height\n"
                            "A,a1,,\nB,b1,,\nA,a2,,\nA,a3,64,32\nB,b2,,\n");
    const auto groups = group_by_reference(rows);
    ASSERT_EQ(groups.size(), 3u); // A read as a raw 64x32 file is another reference
    EXPECT_EQ(groups[0].reference, "A");
    ASSERT_EQ(groups[0].rows.size(), 2u);
    EXPECT_EQ(groups[0].rows[0].distorted, "a1");
    EXPECT_EQ(groups[0].rows[1].distorted, "a2");
    EXPECT_EQ(groups[1].reference, "B");
    EXPECT_EQ(groups[1].rows.size(), 2u);
    EXPECT_EQ(groups[2].rows[0].distorted, "a3");
}
