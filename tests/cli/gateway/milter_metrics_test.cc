#include "cli/gateway/milter_metrics.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(MilterMetricsTest, CountsRenderWithCumulativeBucketsAndEscapedLabels) {
  MilterMetrics m;
  m.CountMessage("leak", "reject", 0, 0.004, 1000);
  m.CountMessage("leak", "reject", 0.0002, 0.02, 3000);
  m.CountMessage("clean", "accept", 0, 0.0003, 500);
  m.CountMessage("clean", "accept", 0, 45, 500);  // past the last bound
  m.CountError("oversize");
  m.CountUnread("no-\"text\"");
  MilterMetrics::Gauges g;
  g.index_generation = 7;
  g.index_documents = 5;
  const std::string text = m.Render(g);
  EXPECT_THAT(text,
              HasSubstr("# TYPE leakhound_milter_messages_total counter\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_milter_messages_total{verdict="
                              "\"leak\",action=\"reject\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_milter_messages_total{verdict="
                              "\"clean\",action=\"accept\"} 2\n"));
  // Cumulative: 0.0003 <= 0.0005; 0.004 <= 0.005; 0.02 <= 0.025; 45 only +Inf.
  EXPECT_THAT(
      text,
      HasSubstr("leakhound_milter_scan_seconds_bucket{le=\"0.0005\"} 1\n"));
  EXPECT_THAT(
      text,
      HasSubstr("leakhound_milter_scan_seconds_bucket{le=\"0.005\"} 2\n"));
  EXPECT_THAT(
      text,
      HasSubstr("leakhound_milter_scan_seconds_bucket{le=\"0.025\"} 3\n"));
  EXPECT_THAT(text,
              HasSubstr("leakhound_milter_scan_seconds_bucket{le=\"30\"} 3\n"));
  EXPECT_THAT(
      text, HasSubstr("leakhound_milter_scan_seconds_bucket{le=\"+Inf\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_milter_scan_seconds_count 4\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_milter_scanned_bytes_total 5000\n"));
  EXPECT_THAT(
      text, HasSubstr("leakhound_milter_errors_total{cause=\"oversize\"} 1\n"));
  EXPECT_THAT(text, HasSubstr(
      "leakhound_milter_unread_parts_total{class=\"no-\\\"text\\\"\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_index_generation 7\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_index_documents 5\n"));
}

}  // namespace
}  // namespace leakhound
