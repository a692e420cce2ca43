// `vif report RESULT... -o report.html`: the per-frame results of a pair or a ladder as one
// self-contained HTML page (docs/cli.md, "vif report"; html_report/ draws it).
#ifndef VIF_TOOLS_COMMANDS_REPORT_COMMAND_HPP
#define VIF_TOOLS_COMMANDS_REPORT_COMMAND_HPP

namespace vifcli {

/** argv[1] is "report". */
int report_main(int argc, const char *const *argv);

} // namespace vifcli

#endif
