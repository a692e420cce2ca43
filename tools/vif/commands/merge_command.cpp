// `vif merge DIR... [-o FILE]`: the summaries of a sharded batch joined in row order.
#include "commands/batch_commands.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch/outputs.hpp"
#include "batch/summary.hpp"
#include "commands/subcommand_options.hpp"

namespace vifcli {

int merge_main(int argc, const char *const *argv, bool stdout_closed) {
    CLI::App app{"vif merge: join the summaries of a sharded batch (summary.csv and "
                 "summary.shard-I-of-N.csv in each folder) into one, in row order. Rows in two "
                 "summaries are an error; rows in none are an error unless --allow-missing."};
    app.name("vif merge");
    std::vector<std::string> dirs;
    std::string output = "-";
    bool allow_missing = false;
    app.add_option("dirs", dirs, "Output folders of the shards")->required();
    app.add_option("-o,--output", output, "Merged summary file ('-': standard output)");
    app.add_flag("--allow-missing", allow_missing, "Write the merge even if rows are missing");
    if (int code = parse_subcommand(app, argc - 1, argv + 1); code >= 0) return code;
    try {
        if (output == "-" && stdout_closed)
            throw std::runtime_error("standard output is closed: give -o FILE");
        std::vector<std::string> files;
        for (const std::string &d : dirs) {
            const auto f = vif::batch::summary_files_in(d);
            if (f.empty()) throw std::runtime_error(fmt::format("no summary in '{}'", d));
            files.insert(files.end(), f.begin(), f.end());
        }
        if (output != "-") {
            const std::string clash = vif::batch::output_over_input({output}, files);
            if (!clash.empty()) throw std::runtime_error(clash);
        }
        const auto m = vif::batch::merge_summaries(files);
        if (m.missing_shard_count) {
            std::string list;
            for (uint32_t i : m.missing_shards)
                list += (list.empty() ? "" : ", ") + std::to_string(i);
            if (m.missing_shard_count > m.missing_shards.size()) list += ", ...";
            std::fprintf(stderr,
                         "vif: %s: shards missing: %s (no summary.shard-I-of-N.csv for "
                         "them in the folders given)\n",
                         allow_missing ? "warning" : "error", list.c_str());
            if (!allow_missing) return kExitError;
        }
        if (m.missing_rows) {
            std::string list;
            for (size_t i = 0; i < m.missing.size(); ++i)
                list += (i ? ", " : "") + std::to_string(m.missing[i]);
            std::fprintf(stderr,
                         "vif: %s: %zu rows missing (%s%s): a shard not run or not "
                         "given?\n",
                         allow_missing ? "warning" : "error", m.missing_rows, list.c_str(),
                         m.missing_rows > m.missing.size() ? ", ..." : "");
            if (!allow_missing) return kExitError;
        }
        const std::string text = vif::batch::format_summary(m.rows);
        if (output == "-") {
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
                std::fflush(stdout) != 0)
                throw std::runtime_error("cannot write to standard output");
        } else {
            vif::batch::write_atomically(output, text);
        }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "vif: error: %s\n", e.what());
        return kExitError;
    }
}

} // namespace vifcli
