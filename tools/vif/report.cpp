#include "report.hpp"

#include <memory>
#include <stdexcept>
#include <vector>

namespace vifcli {

namespace {

[[noreturn]] void throw_log_error(const char *what) {
    throw std::runtime_error(std::string(what) + ": " + vif_last_error());
}

std::string render_log(const Report &r, VifLogFormat format, int precision) {
    VifLogRun run{};
    run.width = r.width;
    run.height = r.height;
    run.bitdepth = r.bitdepth;
    run.fps = r.fps;
    run.backend = r.backend.c_str();
    run.reference = r.reference.c_str();
    run.distorted = r.distorted.c_str();
    run.subsample = r.subsample;
    run.precision = precision;
    run.details = r.details ? 1 : 0;
    VifLog *raw = nullptr;
    if (vif_log_create(&raw, format, &run, nullptr) != VIF_OK) throw_log_error("report");
    const std::unique_ptr<VifLog, void (*)(VifLog *)> log(raw, vif_log_destroy);
    std::vector<int> index(r.variants.size()); // every variant first, then the frames
    for (size_t k = 0; k < r.variants.size(); ++k)
        if (vif_log_add_variant(log.get(), &r.variants[k].cfg, r.variants[k].metrics, &index[k]) !=
            VIF_OK)
            throw_log_error("report");
    for (size_t k = 0; k < r.variants.size(); ++k) {
        const std::vector<VifScores> &scores = r.variants[k].scores;
        if (scores.size() != r.frame_nums.size())
            throw std::runtime_error(
                "report: a variant's frame count differs from the frames read");
        for (size_t i = 0; i < scores.size(); ++i)
            if (vif_log_add_frame(log.get(), index[k], r.frame_nums[i], &scores[i]) != VIF_OK)
                throw_log_error("report");
    }
    size_t length = 0;
    if (vif_log_render(log.get(), format, nullptr, 0, &length) != VIF_OK) throw_log_error("report");
    std::string text(length + 1, '\0');
    if (vif_log_render(log.get(), format, &text[0], text.size(), &length) != VIF_OK)
        throw_log_error("report");
    text.resize(length);
    return text;
}

} // namespace

VifStatus add_variant_columns(Report &r, const VifConfig &cfg, const std::vector<VifScores> &scores,
                              int metrics) {
    for (int m = 0; m < metrics; ++m) { // the names are checked now, where the caller can say so
        char name[64];
        const VifStatus st = vif_metric_name(&cfg, VifMetric(m), name, sizeof name);
        if (st != VIF_OK) return st;
    }
    r.variants.push_back({cfg, scores, metrics});
    return VIF_OK;
}

std::string format_value(double v, int precision) {
    char buf[400];
    if (vif_log_format_value(v, precision, buf, sizeof buf) != VIF_OK)
        throw_log_error("format_value");
    return buf;
}

std::string render(const Report &r, Format f, int precision) {
    switch (f) {
    case Format::kCsv:
        return render_log(r, VIF_LOG_CSV, precision);
    case Format::kXml:
        return render_log(r, VIF_LOG_XML, precision);
    case Format::kJson:
        break;
    }
    return render_log(r, VIF_LOG_JSON, precision);
}

std::string render_summary(const Report &r, int precision) {
    return render_log(r, VIF_LOG_SUMMARY, precision);
}

} // namespace vifcli
