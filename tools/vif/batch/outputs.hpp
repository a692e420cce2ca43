// Where each pair's result goes, how it is written, and that it is not an input.
#pragma once

#include <string>
#include <vector>

#include "batch/manifest.hpp"

namespace vif::batch {

// One output name (without folder or extension) per row, parallel to `rows`: the distorted
// file's name without its extension; when two rows would get the same name (compared without
// case, for case-insensitive file systems) each of them gets ".row<N>" added. Computed over the
// whole manifest, so every shard names a row the same way.
std::vector<std::string> output_stems(const std::vector<ManifestRow>& rows);

// Writes `content` to `path` so that a reader (or a resumed run) never sees a partial file: a
// new file is written without a name (O_TMPFILE) in the same folder and named once complete, so
// that a process ending mid-write, however it ends, leaves nothing; a file written again goes
// through a temporary name ("<path>.tmp.<pid>") and a rename. The file and its name are flushed
// to disk before it returns. Throws std::runtime_error naming the path.
void write_atomically(const std::string& path, const std::string& content);

// Removes the temporary files an earlier run killed while writing one of `paths` left (named
// "<path>.tmp.<pid>", the process gone); returns how many.
size_t remove_stale_temporaries(const std::vector<std::string>& paths);

// Removes the temporary files write_atomically is writing now (any thread); async-signal-safe,
// for the many-pair commands' SIGINT/SIGTERM/SIGHUP/SIGQUIT handler, which ends the process
// right after: from then on a write_atomically on another thread that creates its temporary
// file removes it and waits for that end (so a worker racing the handler leaves no file).
void remove_pending_temporaries_signal_safe();

// The first output that is already one of the inputs (same device and inode: a hard link or a
// path spelled another way included), as a message; "" when none is. Outputs not there yet
// cannot be. Checked before any scoring, so that no command writes over a file it reads.
std::string output_over_input(const std::vector<std::string>& outputs,
                              const std::vector<std::string>& inputs);

} // namespace vif::batch
