#include "commands/report_command.hpp"

#include "batch/outputs.hpp"
#include "commands/subcommand_options.hpp"
#include "container_bitrate.hpp"
#include "html_report/frame_pictures.hpp"
#include "html_report/report_page.hpp"
#include "html_report/result_file.hpp"
#include "maps/png_encode.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <vif/vif.h>

#include <filesystem>
#include <string>
#include <vector>

namespace vifcli {

int report_main(int argc, const char *const *argv) {
    CLI::App app{"vif report: one self-contained HTML page (no network) of vif JSON results: "
                 "per-frame curves, the pooled table, the worst frames (with the reference, "
                 "the distorted frame and the local VIF map when the inputs are given) and, for "
                 "a ladder, every rung on one chart and the score against the bitrate."};
    app.name("vif report");
    std::vector<std::string> results, distorted;
    std::string reference, output, title, pix;
    uint32_t width = 0, height = 0, bitdepth = 0;
    size_t worst = 4;
    app.set_help_flag("--help", "Print this help"); // -h is the raw height, as in `vif`
    app.add_option("results", results,
                   "vif JSON result files, or ladder/batch folders (with their summary.csv)")
        ->required();
    app.add_option("-o,--output", output, "The HTML file written")->required();
    app.add_option("-r,--ref,--reference", reference, "The reference video (for the pictures)");
    app.add_option("-d,--dist,--distorted", distorted,
                   "The distorted video of each result, in the same order (pictures, bitrate)");
    app.add_option("-w,--width", width, "Raw YUV: width");
    app.add_option("-h,--height", height, "Raw YUV: height");
    app.add_option("-b,--bitdepth", bitdepth, "Raw YUV: bit depth");
    app.add_option("-p,--pixel-format", pix, "Raw YUV: 420, 422, 444 or 400");
    app.add_option("--worst", worst, "How many worst frames each pair shows (0: none)")
        ->check(CLI::Range(size_t(0), size_t(100)))
        ->capture_default_str();
    app.add_option("--title", title, "The page's title (default: VIF report)");
    if (int code = parse_subcommand(app, argc - 1, argv + 1); code >= 0) return code;
    return exit_code_of([&] {
        std::vector<ResultFile> loaded;
        try {
            loaded = load_results(results);
            check_one_clip(loaded);
        } catch (const ReportError &e) {
            std::fprintf(stderr, "vif: error: %s\n", e.what());
            return kExitError;
        }
        if (!distorted.empty() && distorted.size() != loaded.size())
            throw std::invalid_argument(fmt::format(
                "-d given {} times for {} results: give one distorted input per result, in "
                "order",
                distorted.size(), loaded.size()));
        if (!distorted.empty() && reference.empty() && loaded.front().reference.empty())
            throw std::invalid_argument("-d needs -r (the reference, for the pictures)");
        std::vector<std::string> inputs = results;
        for (const ResultFile &r : loaded) inputs.push_back(r.path);
        if (const std::string clash = vif::batch::output_over_input({output}, inputs);
            !clash.empty())
            throw std::invalid_argument(clash);
        ReportPage page;
        page.title = title.empty() ? "VIF report" : title;
        page.generator = std::string("vif ") + vif_version();
        for (size_t i = 0; i < loaded.size(); ++i) {
            ReportPair p;
            p.result = std::move(loaded[i]);
            const ResultFile &r = p.result;
            const std::string dist = distorted.empty() ? r.distorted : distorted[i];
            const std::string ref = reference.empty() ? r.reference : reference;
            p.bitrate = dist.empty() ? std::nullopt : container_bitrate(dist);
            if (!p.bitrate) p.bitrate = r.bitrate;
            p.worst = worst_frames(r, worst);
            if (p.worst.empty()) {
            } else if (ref.empty() || dist.empty()) {
                p.note = "No pictures: give the inputs (-r REF -d DIST) to see the worst frames.";
            } else if (!png_available()) {
                p.note = "No pictures: this vif was built without libpng.";
            } else {
                PairInputs in{ref, dist, width, height, bitdepth, pix};
                std::vector<uint64_t> frames;
                for (size_t w : p.worst) frames.push_back(r.frame_nums[w]);
                const VifVariant v =
                    r.prefix == "float_vif" ? VIF_VARIANT_FLOAT : VIF_VARIANT_INTEGER;
                const bool given = !reference.empty() || !distorted.empty();
                try {
                    auto pics = frame_pictures(in, v, frames, 320);
                    // Worst first, as the table.
                    for (uint64_t f : frames)
                        for (auto &pic : pics)
                            if (pic.frame == f) p.pictures.push_back(std::move(pic));
                } catch (const std::exception &e) {
                    // Inputs named on the command line must work; a summary's may have moved.
                    if (given) throw std::runtime_error(std::string("the pictures: ") + e.what());
                    p.note = std::string("No pictures: ") + e.what();
                }
            }
            page.pairs.push_back(std::move(p));
        }
        vif::batch::write_atomically(output, render_report(page));
        return 0;
    });
}

} // namespace vifcli
