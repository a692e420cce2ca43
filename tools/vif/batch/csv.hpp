// One line of CSV split into its fields, RFC 4180 style: a field in double quotes may hold
// commas, and "" inside it is one quote; a CR outside quotes is dropped (CRLF files). The
// manifest reader and the summary reader both use it, each with its own rules on top (the
// manifest trims unquoted fields and refuses an unterminated quote).
#ifndef VIF_TOOLS_BATCH_CSV_HPP
#define VIF_TOOLS_BATCH_CSV_HPP

#include <string>
#include <vector>

namespace vif::batch {

struct CsvField {
    std::string text;
    bool quoted = false; ///< the field had quotes (its text is then kept as written)
};

/** The fields of `line`; *unterminated (if given) says whether a quote was left open. */
std::vector<CsvField> split_csv_line(const std::string& line, bool* unterminated = nullptr);

} // namespace vif::batch

#endif
