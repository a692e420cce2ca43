// Output names (distorted stem, row number on clashes), completeness for resume, atomic writes.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <fstream>
#include <set>
#include <sstream>

#include "batch/outputs.hpp"

using namespace vif::batch;

namespace {
std::vector<ManifestRow> rows_of(const std::vector<std::string>& dists) {
    std::vector<ManifestRow> rows;
    for (size_t i = 0; i < dists.size(); ++i) {
        ManifestRow r;
        r.row = i + 1;
        r.reference = "src.y4m";
        r.distorted = dists[i];
        rows.push_back(r);
    }
    return rows;
}
} // namespace

TEST(Outputs, StemOfTheDistortedFileAndRowOnClashes) {
    const auto stems =
        output_stems(rows_of({"/enc/a/720p.mp4", "/enc/540p.mkv", "/enc/b/720p.mp4", "/x/720P.yuv",
                              "/x/noext", "/x/.hidden", "/x/summary.csv", "/x/rung.v2.mp4"}));
    ASSERT_EQ(stems.size(), 8u);
    EXPECT_EQ(stems[0], "720p.row1");
    EXPECT_EQ(stems[1], "540p");
    EXPECT_EQ(stems[2], "720p.row3");
    EXPECT_EQ(stems[3], "720P.row4"); // clashes without case (case-insensitive file systems)
    EXPECT_EQ(stems[4], "noext");
    EXPECT_EQ(stems[5], ".hidden");
    EXPECT_EQ(stems[6], "row7"); // would shadow summary.csv's name
    EXPECT_EQ(stems[7], "rung.v2");
}

TEST(Outputs, NamesStayUniqueEvenAgainstSuffixLookalikes) {
    const auto stems = output_stems(rows_of({"a/x.mp4", "b/x.mp4", "x.row1.mp4"}));
    std::set<std::string> uniq(stems.begin(), stems.end());
    EXPECT_EQ(uniq.size(), 3u);
    EXPECT_EQ(stems[1], "x.row2");
}

TEST(Outputs, WrittenAtomically) {
    const auto dir = std::filesystem::temp_directory_path() / "vif_outputs_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string json = (dir / "a.json").string();
    std::ofstream(json) << "{\"frames\": [1, 2"; // an interrupted writer of an older run
    write_atomically(json, "{\"frames\": [1, 2]}\n");
    std::ifstream in(json);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "{\"frames\": [1, 2]}\n");
    std::ofstream((dir / "empty.csv").string());
    // No temporary file left behind.
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
    EXPECT_EQ(files, 2u);
    EXPECT_THROW(write_atomically((dir / "no" / "such" / "x.json").string(), "{}"),
                 std::runtime_error);
    std::filesystem::remove_all(dir);
}

// A writer that creates its temporary file after the signal handler has removed the pending
// ones (another worker thread, racing the handler's _exit) removes it itself and waits for the
// end: nothing is left, neither the temporary nor the output. In a child process, which blocks
// there; the parent looks at the folder, then ends it.
TEST(Outputs, AWriteRacingTheSignalHandlerLeavesNoFile) {
    const auto dir = std::filesystem::temp_directory_path() / "vif_outputs_race_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "late.json").string();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        remove_pending_temporaries_signal_safe(); // (the handler, here on the same thread)
        write_atomically(out, "{}\n");            // must not return
        ::_exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int status = 0;
    EXPECT_EQ(::waitpid(child, &status, WNOHANG), 0) << "the late writer did not wait";
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        ADD_FAILURE() << "left behind: " << e.path();
        ++files;
    }
    EXPECT_EQ(files, 0u);
    std::filesystem::remove_all(dir);
}

// A process killed (SIGKILL: no handler runs) once a new output is written and before it is
// named leaves nothing behind: neither a temporary file nor a partial output. An output written
// again the same way keeps its old content whole.
TEST(Outputs, KilledBeforeTheNameLeavesNothing) {
    const auto dir = std::filesystem::temp_directory_path() / "vif_outputs_kill_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string fresh = (dir / "new.json").string(), old = (dir / "old.json").string();
    std::ofstream(old) << "{\"old\": 1}\n";
    for (const std::string& out : {fresh, old}) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            ::setenv("VIF_TEST_RAISE_IN_WRITE", "9", 1);
            write_atomically(out, "{\"new\": 1}\n");
            ::_exit(3); // (not reached)
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << out;
    }
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"old.json"});
    std::ifstream in(old);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "{\"old\": 1}\n");
    std::filesystem::remove_all(dir);
}
