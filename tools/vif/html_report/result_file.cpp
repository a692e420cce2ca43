#include "html_report/result_file.hpp"

#include "batch/summary.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace vifcli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_text(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ReportError(fmt::format("{}: cannot be read", path));
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) throw ReportError(fmt::format("{}: cannot be read", path));
    return s.str();
}

double number(const json &j, const std::string &path, const std::string &what) {
    if (!j.is_number()) throw ReportError(fmt::format("{}: {} is not a number", path, what));
    return j.get<double>();
}

} // namespace

ResultFile parse_result(const std::string &text, const std::string &path) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw ReportError(fmt::format("{}: not a vif JSON result file (vif -o FILE.json)", path));
    ResultFile r;
    r.path = path;
    r.label = fs::path(path).stem().string();
    const auto frames = j.find("frames");
    if (frames == j.end() || !frames->is_array() || frames->empty())
        throw ReportError(fmt::format("{}: no frames (not a vif JSON result file?)", path));
    // The variant: the first frame's metric names say which.
    const json &m0 = (*frames)[0]["metrics"];
    if (!m0.is_object()) throw ReportError(fmt::format("{}: frame 0 has no metrics", path));
    for (const char *p : {"integer_vif", "float_vif"})
        if (m0.contains(std::string(p) + "_scale0")) {
            r.prefix = p;
            break;
        }
    if (r.prefix.empty())
        throw ReportError(
            fmt::format("{}: no integer_vif_scale0 or float_vif_scale0 scores", path));
    const bool has_combined = m0.contains(r.prefix);
    r.frame_nums.reserve(frames->size());
    for (auto &s : r.scale) s.reserve(frames->size());
    for (size_t i = 0; i < frames->size(); ++i) {
        const json &f = (*frames)[i];
        const auto num = f.find("frameNum");
        const auto met = f.find("metrics");
        if (num == f.end() || !num->is_number_unsigned() || met == f.end() || !met->is_object())
            throw ReportError(fmt::format("{}: frame {} has no frameNum or metrics", path, i));
        r.frame_nums.push_back(num->get<uint64_t>());
        for (int s = 0; s < 4; ++s) {
            const std::string key = r.prefix + "_scale" + std::to_string(s);
            const auto v = met->find(key);
            if (v == met->end())
                throw ReportError(fmt::format("{}: frame {} has no {}", path, i, key));
            r.scale[size_t(s)].push_back(number(*v, path, key));
        }
        if (has_combined) {
            const auto v = met->find(r.prefix);
            if (v == met->end())
                throw ReportError(fmt::format("{}: frame {} has no {}", path, i, r.prefix));
            r.combined.push_back(number(*v, path, r.prefix));
        }
    }
    if (const auto p = j.find("pooled_metrics"); p != j.end() && p->is_object())
        for (const auto &[name, v] : p->items()) {
            if (!v.is_object()) continue;
            ResultFile::Pooled pm;
            pm.metric = name;
            pm.min = v.value("min", 0.0);
            pm.max = v.value("max", 0.0);
            pm.mean = v.value("mean", 0.0);
            pm.harmonic_mean = v.value("harmonic_mean", 0.0);
            r.pooled.push_back(pm);
        }
    if (const auto b = j.find("bitrate"); b != j.end() && b->is_number() && b->get<double>() > 0)
        r.bitrate = b->get<double>();
    return r;
}

std::vector<ResultFile> load_results(const std::vector<std::string> &args) {
    std::vector<ResultFile> out;
    for (const std::string &a : args) {
        std::error_code ec;
        if (!fs::is_directory(a, ec)) {
            out.push_back(parse_result(read_text(a), a));
            continue;
        }
        const std::string summary = (fs::path(a) / "summary.csv").string();
        if (!fs::exists(summary, ec))
            throw ReportError(fmt::format("{}: a folder without a summary.csv (give a ladder's "
                                          "or a batch's output folder, or result files)",
                                          a));
        std::istringstream in(read_text(summary));
        std::vector<vif::batch::SummaryRow> rows;
        try {
            rows = vif::batch::parse_summary(in, summary);
        } catch (const std::exception &e) {
            throw ReportError(e.what());
        }
        size_t used = 0;
        for (const auto &row : rows) {
            if (row.status != "ok") continue;
            const std::string file = (fs::path(a) / row.output).string();
            if (fs::path(file).extension() != ".json")
                throw ReportError(fmt::format("{}: {} is not JSON (vif report reads JSON "
                                              "results: score with --json)",
                                              summary, row.output));
            ResultFile r = parse_result(read_text(file), file);
            r.reference = row.reference;
            r.distorted = row.distorted;
            r.width = row.width;
            r.height = row.height;
            if (row.has_scores) r.summary_vif = row.vif;
            out.push_back(std::move(r));
            ++used;
        }
        if (used == 0)
            throw ReportError(fmt::format("{}: no pair was scored (no ok row)", summary));
    }
    return out;
}

void check_one_clip(const std::vector<ResultFile> &results) {
    if (results.empty()) throw ReportError("no result files");
    const ResultFile &a = results.front();
    for (const ResultFile &b : results) {
        auto refuse = [&](const std::string &why) {
            throw ReportError(fmt::format("{} and {} are not of one clip: {}; a report is of one "
                                          "clip (one pair, or one ladder's rungs)",
                                          a.path, b.path, why));
        };
        if (b.frame_nums.size() != a.frame_nums.size())
            refuse(fmt::format("{} frames against {}", a.frame_nums.size(), b.frame_nums.size()));
        if (b.frame_nums != a.frame_nums) refuse("their frame numbers differ");
        if (!a.reference.empty() && !b.reference.empty() && a.reference != b.reference)
            refuse(fmt::format("the references differ ({} and {})", a.reference, b.reference));
        if (a.width && b.width && (a.width != b.width || a.height != b.height))
            refuse(fmt::format("{}x{} against {}x{}", a.width, a.height, b.width, b.height));
        if (b.prefix != a.prefix)
            throw ReportError(fmt::format("{} ({}) and {} ({}) are of different VIF variants: "
                                          "a report compares one variant",
                                          a.path, a.prefix, b.path, b.prefix));
    }
}

} // namespace vifcli
