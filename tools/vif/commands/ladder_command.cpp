// `vif -r SRC -d R1 -d R2 ... -o DIR`: a ladder, every rung against one reference.
#include "commands/batch_commands.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "batch/manifest.hpp"
#include "batch/outputs.hpp"
#include "batch/summary.hpp"
#include "commands/group_runner.hpp"
#include "commands/subcommand_options.hpp"
#include "std_streams.hpp"

namespace vifcli {

bool is_ladder_command_line(int argc, const char *const *argv) {
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        n += a == "-d" || a == "--distorted" || a.rfind("--distorted=", 0) == 0;
    }
    return n > 1;
}

int ladder_main(int argc, const char *const *argv) {
    CLI::App app{"vif ladder: every rung (-d, several) against one reference (-r), the reference "
                 "decoded once; rungs of another size upscaled to the reference's (FFmpeg's "
                 "scale filter, bicubic by default). Writes DIR/<rung>.json and DIR/summary.csv."};
    app.name("vif");
    std::string reference, out_dir, pix;
    std::vector<std::string> rungs;
    uint32_t width = 0, height = 0, bitdepth = 0;
    bool resume = false;
    CommonOptions c;
    app.set_help_flag("--help", "Print this help"); // -h is the raw height, as in `vif`
    app.add_option("-r,--reference", reference, "Reference video")->required();
    app.add_option("-d,--distorted", rungs, "A rung (give -d once per rung)")->required();
    app.add_option("-o,--output", out_dir, "Output folder")->required();
    app.add_option("-w,--width", width, "Raw YUV: width");
    app.add_option("-h,--height", height, "Raw YUV: height");
    app.add_option("-b,--bitdepth", bitdepth, "Raw YUV: bit depth");
    app.add_option("-p,--pixel-format", pix, "Raw YUV: 420, 422, 444 or 400");
    app.add_flag("--resume", resume, "Skip rungs whose complete output is already in DIR");
    add_common(app, c);
    if (int code = parse_subcommand(app, argc, argv); code >= 0) return code;
    return leave_process(exit_code_of([&] {
        // Standard input is one stream: it can be one input at most.
        int stdin_inputs = names_std_fd(reference, 0);
        for (const std::string &r : rungs) stdin_inputs += names_std_fd(r, 0);
        if (stdin_inputs > 1)
            throw std::invalid_argument("standard input ('-') is given as " +
                                        std::to_string(stdin_inputs) +
                                        " inputs: it can be read as one input only");
        std::vector<vif::batch::ManifestRow> rows;
        for (size_t i = 0; i < rungs.size(); ++i) {
            vif::batch::ManifestRow r;
            r.row = i + 1;
            r.reference = reference;
            r.distorted = rungs[i];
            r.width = width;
            r.height = height;
            r.bitdepth = bitdepth;
            r.pixel_format = pix;
            rows.push_back(r);
        }
        const auto stems = vif::batch::output_stems(rows);
        std::vector<RungJob> group;
        for (size_t i = 0; i < rows.size(); ++i) group.push_back({rows[i], stems[i], std::nullopt});
        LadderSettings s = settings_from(c, out_dir);
        s.resume = resume;
        s.manifest_id =
            vif::batch::manifest_identity(vif::batch::canonical_rows(rows), rows.size());
        std::vector<std::string> inputs = {reference};
        inputs.insert(inputs.end(), rungs.begin(), rungs.end());
        // Every GPU by default: the ladder's rungs are spread over them (group_runner.hpp).
        DeviceSet devices;
        std::string dev_err;
        if (!choose_devices("", s.backend, &devices, &dev_err))
            throw std::invalid_argument(dev_err);
        return run_groups({group}, s, devices, std::max<size_t>(1, devices.devices.size()),
                          (std::filesystem::path(out_dir) / "summary.csv").string(), inputs,
                          c.quiet);
    }));
}

} // namespace vifcli
