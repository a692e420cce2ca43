// Splitting a batch over N machines. Every reference group (manifest.hpp) goes to exactly one
// shard: group g (in order of first appearance) belongs to shard g mod N, so a reference is
// decoded on one machine only and the split depends only on the manifest.
//
// The shard comes from `--shard I/N`, or, without it, from the array-job variables of the usual
// engines: Slurm job arrays (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN, of
// SLURM_ARRAY_TASK_COUNT), Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX) and AWS Batch array
// jobs (AWS_BATCH_JOB_ARRAY_INDEX). The last two do not carry the count: it comes from
// `--shard N` (a count alone) or VIF_SHARD_COUNT.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "batch/manifest.hpp"

namespace vif::batch {

struct Shard {
    uint32_t index = 0, count = 1; // 0 <= index < count
    std::string source;            // where it came from, for messages ("--shard", "SLURM_...")
};

// Reads the environment (getenv, or a stand-in for tests): name -> value or nullptr.
using EnvLookup = std::function<const char*(const char*)>;

// Resolves the shard from the option text ("" when not given: "I/N" or "N") and the
// environment. Returns false with *error set on malformed or inconsistent values. Without an
// option and without array-job variables: shard 0 of 1.
bool resolve_shard(const std::string& option, const EnvLookup& env, Shard* out, std::string* error);

// The groups of `groups` that belong to the shard.
std::vector<ReferenceGroup> shard_groups(const std::vector<ReferenceGroup>& groups,
                                         const Shard& shard);

} // namespace vif::batch
