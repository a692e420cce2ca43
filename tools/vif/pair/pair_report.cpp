#include "pair/pair_report.hpp"

#include "pair/failure.hpp"
#include "pair/parity.hpp"
#include "pair/timeline.hpp"
#include "report.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vifcli {

void open_output(const Options &o, const StdStreams &streams, std::optional<OutputFile> *out) {
    // Where the scores go: a file, or standard output (-o -, a format flag without -o, or the
    // summary).
    const bool to_stdout =
        !o.read_only && (o.output.empty() || names_std_fd(o.output, 1) || o.output == "-");
    const bool anything_to_stdout = to_stdout && (!o.output.empty() || o.format_given || !o.quiet);
    if (anything_to_stdout && streams.closed[1])
        throw Failure{"standard output is closed: give -o FILE"};

    if (!o.read_only && (!o.output.empty() || o.format_given)) {
        try {
            out->emplace(o.output.empty() ? std::string("-") : o.output,
                         std::vector<std::string>{o.reference, o.distorted});
        } catch (const OutputError &e) {
            throw Failure{e.what()};
        }
    }
}

int write_report(const Options &o, const Variants &variants, std::vector<uint64_t> frame_nums,
                 double fps, const VideoInfo &ri, const std::string &backend,
                 std::optional<OutputFile> &out) {
    Report r;
    r.fps = fps;
    r.width = ri.width;
    r.height = ri.height;
    r.bitdepth = ri.bitdepth;
    r.backend = backend;
    r.reference = o.reference;
    r.distorted = o.distorted;
    r.subsample = o.subsample;
    r.details = o.details;
    const int nmetrics = o.debug_metrics ? VIF_METRIC_COUNT : VIF_METRIC_SCALE3 + 1;
    for (const auto &v : variants) {
        const VifStatus st = add_variant_columns(r, v->cfg, v->primary.scores, nmetrics);
        if (st != VIF_OK) throw Failure{vif_error("metric name", st)};
    }
    r.frame_nums = std::move(frame_nums);

    int code = 0;
    if (o.check_parity && !check_parity(variants[0]->cfg, variants[0]->primary.scores,
                                        variants[0]->secondary.scores, r.frame_nums))
        code = kExitParity;

    try {
        if (out) {
            out->commit(render(r, o.format, o.precision));
        } else if (!o.quiet) {
            const std::string text = render_summary(r, o.precision);
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
                std::fflush(stdout) != 0)
                throw OutputError(fmt::format("cannot write the summary to standard output: {}",
                                              std::strerror(errno)));
        }
    } catch (const OutputError &e) {
        throw Failure{e.what()};
    }
    g_timeline.mark("output written");
    return code;
}

void flush_stdout() {
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
        throw Failure{fmt::format("cannot write to standard output: {}", std::strerror(errno))};
}

} // namespace vifcli
