// `vif report` in a build without nlohmann-json (the result files' reader): a clear refusal.
#include "commands/report_command.hpp"

#include "options.hpp"

#include <cstdio>

namespace vifcli {

int report_main(int, const char *const *) {
    std::fprintf(stderr, "vif: error: vif report is not in this build: it was built without "
                         "nlohmann-json (nlohmann-json3-dev)\n");
    return kExitError;
}

} // namespace vifcli
