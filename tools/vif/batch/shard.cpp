#include "batch/shard.hpp"

namespace vif::batch {
namespace {

// A whole number in [0, 2^31), else false.
bool number(const std::string& s, uint32_t* out) {
    if (s.empty() || s.size() > 10) return false;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v >= (1u << 31)) return false;
    *out = static_cast<uint32_t>(v);
    return true;
}

bool env_number(const EnvLookup& env, const char* name, uint32_t* out, bool* present,
                std::string* error) {
    const char* v = env(name);
    *present = v != nullptr && *v != '\0';
    if (!*present) return true;
    if (!number(v, out)) {
        *error = std::string(name) + "='" + v + "' is not a whole number";
        return false;
    }
    return true;
}

} // namespace

bool resolve_shard(const std::string& option, const EnvLookup& env, Shard* out,
                   std::string* error) {
    Shard s;
    bool have_index = false, have_count = false;
    if (!option.empty()) {
        const size_t slash = option.find('/');
        if (slash == std::string::npos) {
            if (!number(option, &s.count)) {
                *error = "--shard '" + option + "': expected I/N or a count N";
                return false;
            }
            have_count = true;
        } else {
            if (!number(option.substr(0, slash), &s.index) ||
                !number(option.substr(slash + 1), &s.count)) {
                *error = "--shard '" + option + "': expected I/N (two whole numbers)";
                return false;
            }
            have_index = have_count = true;
            s.source = "--shard";
        }
    }
    if (!have_index) {
        bool present = false;
        uint32_t v = 0;
        // Slurm first: it names both the index and the count.
        if (!env_number(env, "SLURM_ARRAY_TASK_ID", &v, &present, error)) return false;
        if (present) {
            uint32_t min = 0, count = 0;
            bool has_min = false, has_count = false;
            if (!env_number(env, "SLURM_ARRAY_TASK_MIN", &min, &has_min, error) ||
                !env_number(env, "SLURM_ARRAY_TASK_COUNT", &count, &has_count, error))
                return false;
            if (has_min && v < min) {
                *error = "SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN";
                return false;
            }
            s.index = v - (has_min ? min : 0);
            if (has_count && !have_count) s.count = count, have_count = true;
            have_index = true;
            s.source = "SLURM_ARRAY_TASK_ID";
        }
        for (const char* name : {"JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"}) {
            if (have_index) break;
            if (!env_number(env, name, &v, &present, error)) return false;
            if (present) s.index = v, have_index = true, s.source = name;
        }
        if (have_index && !have_count) {
            if (!env_number(env, "VIF_SHARD_COUNT", &s.count, &present, error)) return false;
            if (!present) {
                *error = s.source + " gives the shard index but not the count: pass --shard N "
                                    "or set VIF_SHARD_COUNT";
                return false;
            }
            have_count = true;
        }
        if (!have_index && have_count && s.count != 1) {
            *error = "--shard " + option +
                     " gives a count but no array-job index variable is set "
                     "(SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX)";
            return false;
        }
    }
    if (s.count == 0 || s.index >= s.count) {
        *error = "shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                 (s.source.empty() ? "" : " (from " + s.source + ")") +
                 ": the index must be below the count, the count at least 1";
        return false;
    }
    *out = s;
    return true;
}

std::vector<ReferenceGroup> shard_groups(const std::vector<ReferenceGroup>& groups,
                                         const Shard& shard) {
    std::vector<ReferenceGroup> mine;
    for (size_t g = 0; g < groups.size(); ++g)
        if (g % shard.count == shard.index) mine.push_back(groups[g]);
    return mine;
}

} // namespace vif::batch
