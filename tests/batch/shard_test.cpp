// Shards: from --shard and from the array-job variables of Slurm, Kubernetes and AWS Batch;
// every row in exactly one shard, and N shards together are the whole manifest.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "batch/shard.hpp"

using namespace vif::batch;

namespace {
struct Env {
    std::map<std::string, std::string> vars;
    EnvLookup lookup() const {
        return [this](const char* n) -> const char* {
            auto it = vars.find(n);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
    }
};

Shard resolve(const std::string& opt, const Env& env) {
    Shard s;
    std::string err;
    EXPECT_TRUE(resolve_shard(opt, env.lookup(), &s, &err)) << err;
    return s;
}

std::string failure(const std::string& opt, const Env& env) {
    Shard s;
    std::string err;
    EXPECT_FALSE(resolve_shard(opt, env.lookup(), &s, &err)) << opt;
    return err;
}
} // namespace

TEST(Shard, OptionAndDefaults) {
    Env none;
    Shard s = resolve("", none);
    EXPECT_EQ(s.index, 0u);
    EXPECT_EQ(s.count, 1u);
    s = resolve("2/3", none);
    EXPECT_EQ(s.index, 2u);
    EXPECT_EQ(s.count, 3u);
    // An explicit option wins over the environment.
    Env slurm{{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "9"}}};
    s = resolve("1/4", slurm);
    EXPECT_EQ(s.index, 1u);
    EXPECT_EQ(s.count, 4u);
}

TEST(Shard, ArrayJobVariables) {
    Env slurm{{{"SLURM_ARRAY_TASK_ID", "7"},
               {"SLURM_ARRAY_TASK_MIN", "5"},
               {"SLURM_ARRAY_TASK_COUNT", "4"}}};
    Shard s = resolve("", slurm);
    EXPECT_EQ(s.index, 2u); // --array=5-8: the third task
    EXPECT_EQ(s.count, 4u);
    EXPECT_EQ(s.source, "SLURM_ARRAY_TASK_ID");

    Env k8s{{{"JOB_COMPLETION_INDEX", "3"}}};
    s = resolve("5", k8s); // the count from --shard N
    EXPECT_EQ(s.index, 3u);
    EXPECT_EQ(s.count, 5u);
    k8s.vars["VIF_SHARD_COUNT"] = "4";
    s = resolve("", k8s); // or from VIF_SHARD_COUNT
    EXPECT_EQ(s.count, 4u);
    EXPECT_EQ(s.source, "JOB_COMPLETION_INDEX");

    Env aws{{{"AWS_BATCH_JOB_ARRAY_INDEX", "0"}, {"VIF_SHARD_COUNT", "2"}}};
    s = resolve("", aws);
    EXPECT_EQ(s.index, 0u);
    EXPECT_EQ(s.count, 2u);
    EXPECT_EQ(s.source, "AWS_BATCH_JOB_ARRAY_INDEX");
}

TEST(Shard, BadValuesAreRefusedWithReasons) {
    Env none;
    EXPECT_NE(failure("3/3", none).find("below the count"), std::string::npos);
    EXPECT_NE(failure("0/0", none).find("at least 1"), std::string::npos);
    EXPECT_NE(failure("a/3", none).find("I/N"), std::string::npos);
    EXPECT_NE(failure("1/", none).find("I/N"), std::string::npos);
    EXPECT_NE(failure("-1/3", none).find("I/N"), std::string::npos);
    EXPECT_NE(failure("4", none).find("no array-job index"), std::string::npos);
    Env k8s{{{"JOB_COMPLETION_INDEX", "3"}}};
    EXPECT_NE(failure("", k8s).find("VIF_SHARD_COUNT"), std::string::npos);
    EXPECT_NE(failure("3", k8s).find("below the count"), std::string::npos);
    Env junk{{{"SLURM_ARRAY_TASK_ID", "x1"}}};
    EXPECT_NE(failure("", junk).find("SLURM_ARRAY_TASK_ID"), std::string::npos);
}

TEST(Shard, EveryRowInExactlyOneShardAndReferencesStayTogether) {
    std::ostringstream csv;
    csv << "reference,distorted\n";
    for (int i = 0; i < 40; ++i) csv << "ref" << (i * 7 % 11) << ".y4m,d" << i << ".mp4\n";
    std::istringstream in(csv.str());
    const auto groups = group_by_reference(parse_manifest(in, "m"));
    for (uint32_t n : {1u, 2u, 3u, 7u, 11u, 12u}) {
        std::multiset<size_t> seen;
        std::map<std::string, uint32_t> shard_of_ref;
        for (uint32_t i = 0; i < n; ++i)
            for (const auto& g : shard_groups(groups, Shard{i, n, ""})) {
                EXPECT_TRUE(shard_of_ref.emplace(g.reference, i).second) << g.reference;
                for (const auto& r : g.rows) seen.insert(r.row);
            }
        ASSERT_EQ(seen.size(), 40u) << n << " shards";
        for (size_t r = 1; r <= 40; ++r) EXPECT_EQ(seen.count(r), 1u) << "row " << r;
    }
}
