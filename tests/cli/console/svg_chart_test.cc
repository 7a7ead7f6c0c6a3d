#include "cli/console/svg_chart.h"

#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

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
  std::smatch width;
  ASSERT_TRUE(std::regex_search(svg, width, std::regex(R"re(width="(\d+)")re")));
  std::smatch last;
  ASSERT_TRUE(std::regex_search(
      svg, last,
      std::regex(R"re(<text x="([0-9.]+)" y="\d+" text-anchor="end" class="axis">2026-11-30</text>)re")));
  EXPECT_LE(std::stod(last[1].str()), std::stod(width[1].str()));
  // Earlier labels still start at their bars.
  EXPECT_THAT(svg, ::testing::HasSubstr("class=\"axis\">2026-11-01</text>"));
}

}  // namespace
}  // namespace leakhound
