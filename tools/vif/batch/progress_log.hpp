// The progress log of a many-pair run (DIR/summary.csv.progress, one per shard): a line per row
// whose output was written, appended and flushed to disk as the row finishes, so that a run
// killed at any moment (kill -9, a lost machine) loses at most the rows in flight. A resumed run
// takes a row from the log only when the log's record was made from the same inputs and options
// (its key: paths, size, modification time and a fingerprint of the first bytes of each input,
// the raw parameters, the output name and the scoring options) and the output file still has the
// bytes it was written with; anything else is scored again. The summary's line for a reused row
// is the logged one, so a resumed catalogue's summary equals an uninterrupted run's.
//
// Each line ends with a checksum of the line: a line torn by a crash, or edited, is ignored.
#ifndef VIF_TOOLS_BATCH_PROGRESS_LOG_HPP
#define VIF_TOOLS_BATCH_PROGRESS_LOG_HPP

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "batch/summary.hpp"

namespace vif::batch {

/** FNV-1a (64 bits) of `n` bytes, continuing from `h`. */
uint64_t fnv1a(const void *data, size_t n, uint64_t h = 0xcbf29ce484222325ull);

/**
 * What an input file is now: "size:mtime_ns:fingerprint" where the fingerprint hashes its first
 * `fingerprint_bytes` bytes (its first frames). Empty when it is not a readable regular file
 * (standard input, a pipe, a URL, a missing file): a row with such an input is never reused.
 */
std::string input_identity(const std::string &path, uint64_t fingerprint_bytes = 4u << 20);

/** "size:hash" of a whole file (an output as written); empty when it cannot be read. */
std::string content_identity(const std::string &path);

struct ProgressRecord {
    std::string key;    ///< what the row's result depends on (see above)
    std::string output; ///< content_identity of the output file when it was written
    SummaryRow row;     ///< the row's summary line
};

class ProgressLog {
public:
    /** Reads the records of `path` (if it exists), then opens it for appending, locked against a
     *  second run writing the same folder (a lock held is waited for up to 3 s: a killed run's
     *  exit holder may keep it a moment). Throws std::runtime_error naming the path. */
    explicit ProgressLog(const std::string &path);
    ~ProgressLog();
    ProgressLog(const ProgressLog &) = delete;
    ProgressLog &operator=(const ProgressLog &) = delete;

    /** The latest record of a row, or nullptr. */
    const ProgressRecord *find(size_t row) const;

    /** Appends a record and flushes it to disk (one write, then fdatasync, the latter outside
     *  the log's lock: callers on several threads share the disk writes). Thread-safe.
     *  Throws std::runtime_error when the write fails. */
    void append(const ProgressRecord &r);

    /** Replaces the log by `keep` (one record a row), atomically: the log stays bounded over
     *  many resumes. Not while appends are going on (the run's end). */
    void rewrite(const std::vector<ProgressRecord> &keep);

    const std::string &path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    std::map<size_t, ProgressRecord> records_;
    std::mutex mu_;
};

/** The log's line for a record (with its newline), and the record back from a line. */
std::string format_progress_line(const ProgressRecord &r);
bool parse_progress_line(const std::string &line, ProgressRecord *out);

} // namespace vif::batch

#endif
