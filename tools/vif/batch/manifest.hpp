// A batch manifest: the pairs to score, one row each. CSV with a header naming at least
// `reference,distorted` (optional `width,height,pixel_format,bitdepth` for raw inputs, any order,
// other columns ignored), or JSON lines (one flat object per line with the same keys). Relative
// paths are taken relative to the manifest's folder, so a manifest travels with its clips.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vif::batch {

struct ManifestRow {
    size_t row =
        0; // 1-based number of the pair in the manifest (header and blank lines not counted)
    std::string reference, distorted;
    uint32_t width = 0, height = 0, bitdepth = 0; // 0: not given (taken from the file)
    std::string pixel_format;                     // "" : not given
};

// A manifest that cannot be used; the message names the file and line.
struct ManifestError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Parses a manifest; `name` is used in messages. Format: JSON lines when the first non-blank
// character is '{', CSV otherwise. Paths are returned as written.
std::vector<ManifestRow> parse_manifest(std::istream& in, const std::string& name);

// Reads a manifest file and resolves relative paths against its folder.
std::vector<ManifestRow> read_manifest(const std::string& path);

// The rows as one text (every field, NUL-separated), whatever the manifest's format: what its
// identity in the summaries hashes (summary.hpp, manifest_identity).
std::string canonical_rows(const std::vector<ManifestRow>& rows);

// Rows that share a reference input (same path and raw format), in order of first appearance;
// rows keep manifest order inside a group. The reference is decoded once per group.
struct ReferenceGroup {
    std::string reference;
    std::vector<ManifestRow> rows;
};
std::vector<ReferenceGroup> group_by_reference(const std::vector<ManifestRow>& rows);

} // namespace vif::batch
