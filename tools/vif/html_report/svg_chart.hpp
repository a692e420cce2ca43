// The report's charts: inline SVG drawn here (no script, no library, nothing fetched), so that
// the page works offline and prints as it shows.
#ifndef VIF_TOOLS_HTML_REPORT_SVG_CHART_HPP
#define VIF_TOOLS_HTML_REPORT_SVG_CHART_HPP

#include <string>
#include <vector>

namespace vifcli {

struct ChartSeries {
    std::string name, colour; ///< colour: a CSS colour
    std::vector<double> x, y;
    std::vector<std::string> labels; ///< markers: each point's name (else the series')
};

struct ChartSpec {
    std::string title, x_label, y_label;
    std::vector<ChartSeries> series;
    bool markers = false;     ///< a dot and the name at each point (score against bitrate)
    bool y_from_zero = false; ///< the y axis starts at 0 (else at the data's minimum, rounded)
    bool integer_x = false;   ///< x ticks on whole numbers (frame numbers)
};

/** An <svg class="chart"> of line series. A series with more points than the plot has pixel
 *  columns is drawn one point per column, the lowest value of the column's points, so that a
 *  bad frame is never averaged away. */
std::string line_chart(const ChartSpec &spec);

/** Text made safe for HTML and SVG (& < > " '). */
std::string html_escape(const std::string &s);

} // namespace vifcli

#endif
