// SvgChart: the dashboard's charts as inline SVG, rendered on the server
// (no JavaScript): stacked bars over days, and horizontal bars for a
// ranking. Every label is escaped (html_text.h).
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_SVG_CHART_H_
#define LEAKHOUND_CLI_CONSOLE_SVG_CHART_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace leakhound {

struct ChartSeries {
  std::string name;
  std::string color;            // a CSS color, from the caller's palette
  std::vector<int64_t> values;  // one per column
};

// One column per `columns` label, each the stack of the series' values
// there; a legend names the series. REQUIRES: every series has
// columns.size() values.
std::string StackedBarChart(const std::string& title,
                            const std::vector<std::string>& columns,
                            const std::vector<ChartSeries>& series);

// One bar per (name, count), longest first as given.
std::string RankingChart(
    const std::string& title,
    const std::vector<std::pair<std::string, int64_t>>& rows);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_SVG_CHART_H_
