// summary.csv: one line per pair of a batch, a ladder or a shard, and `vif merge` joining the
// summaries of several shards into one.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vif::batch {

struct SummaryRow {
    size_t row = 0; // manifest row (ladder: rung number, from 1)
    std::string reference, distorted, output;
    std::string status; // "ok" or "failed" (older summaries may say "skipped")
    uint64_t frames = 0;
    uint32_t width = 0, height = 0;               // scored size (the reference's)
    uint32_t source_width = 0, source_height = 0; // the distorted input's own size
    bool has_scores = false;                      // scores below are valid
    double vif = 0;                               // pooled (mean over frames) combined score
    std::array<double, 4> scale{};                // pooled per-scale scores
    std::string error;                            // why it failed ("" otherwise)
    std::string manifest; // the run's identity (manifest_identity): the same on every row
};

// "<hash>:<rows>": a hash of the manifest's rows (`bytes`: canonical_rows, manifest.hpp; a
// ladder's rungs alike) and their number. Every shard of one manifest records the same; merge refuses a mix, and takes
// the row count from it.
std::string manifest_identity(const std::string& bytes, size_t rows);

struct SummaryError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The CSV text: a header line, then the rows in the order given. Numbers are written in the
// shortest form that reads back as the same double.
std::string format_summary(const std::vector<SummaryRow>& rows);

// One row's line, without its line break (a field with a line break is quoted, RFC 4180), and
// the row back from such a line (`where` names it in the SummaryError).
std::string format_summary_row(const SummaryRow& row);
SummaryRow parse_summary_row(const std::string& line, const std::string& where);

// Parses what format_summary wrote; throws SummaryError naming `name` and the line otherwise.
std::vector<SummaryRow> parse_summary(std::istream& in, const std::string& name);

// The summaries of several shards joined: rows sorted by row number. Refused (SummaryError): a
// file that is not a summary, two files of the same shard, a row in two summaries (the shards
// overlapped), summaries of different manifests (or of none), a row number outside 1..the
// manifest's row count, a shard name out of range (summary.shard-I-of-N.csv: 0 <= I < N). Rows of
// the manifest that no summary has are counted in `missing_rows` (the first 20 listed in
// `missing`), the shards I of N absent likewise; nothing is allocated by the size of a number read.
struct MergeResult {
    std::vector<SummaryRow> rows;
    std::vector<size_t> missing;
    size_t missing_rows = 0;
    std::vector<uint32_t> missing_shards;
    size_t missing_shard_count = 0;
};
MergeResult merge_summaries(const std::vector<std::string>& files);

// The summary files in a folder: summary.csv and the shards' summary.shard-I-of-N.csv.
std::vector<std::string> summary_files_in(const std::string& dir);

// File name of a shard's summary: "summary.csv" for 0/1, "summary.shard-I-of-N.csv" otherwise.
std::string summary_name(uint32_t index, uint32_t count);

} // namespace vif::batch
