#include "batch/csv.hpp"

namespace vif::batch {

std::vector<CsvField> split_csv_line(const std::string& line, bool* unterminated) {
    std::vector<CsvField> out;
    CsvField cur;
    bool in_quotes = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (in_quotes) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                cur.text += '"', ++i;
            else if (c == '"')
                in_quotes = false;
            else
                cur.text += c;
        } else if (c == '"') {
            in_quotes = cur.quoted = true;
        } else if (c == ',') {
            out.push_back(std::move(cur));
            cur = CsvField{};
        } else if (c != '\r') {
            cur.text += c;
        }
    }
    if (unterminated) *unterminated = in_quotes;
    out.push_back(std::move(cur));
    return out;
}

} // namespace vif::batch
