#include "cli/console/svg_chart.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

// The number in `svg` after the first `before` (e.g. `width="`).
double NumberAfter(const std::string& svg, const std::string& before) {
  const size_t at = svg.find(before);
  if (at == std::string::npos) return -1;
  return std::stod(svg.substr(at + before.size()));
}

// The last day's label ends inside the chart (it was clipped when it
// started at its bar, near the right edge).
TEST(SvgChartTest, TheLastColumnsLabelEndsInsideTheChart) {
  std::vector<std::string> days;
  std::vector<int64_t> counts;
  for (int d = 1; d <= 30; ++d) {
    days.push_back("2026-11-" + std::string(d < 10 ? "0" : "") +
                   std::to_string(d));
    counts.push_back(d % 4);
  }
  const std::string svg =
      StackedBarChart("Incidents", days, {ChartSeries{"leak", "#c00", counts}});
  const double width = NumberAfter(svg, "<svg class=\"chart\" role=\"img\" "
                                        "viewBox=\"0 0 ");
  const std::string last_label =
      "text-anchor=\"end\" class=\"axis\">2026-11-30</text>";
  const size_t label = svg.find(last_label);
  ASSERT_NE(label, std::string::npos) << svg;
  // The label's x: the last `<text x="` before it.
  const size_t text = svg.rfind("<text x=\"", label);
  ASSERT_NE(text, std::string::npos);
  const double x = NumberAfter(svg.substr(text), "<text x=\"");
  EXPECT_GT(width, 0);
  EXPECT_GT(x, width / 2);
  EXPECT_LE(x, width);
  // Earlier labels still start at their bars.
  EXPECT_THAT(svg, ::testing::HasSubstr("class=\"axis\">2026-11-01</text>"));
}

}  // namespace
}  // namespace leakhound
