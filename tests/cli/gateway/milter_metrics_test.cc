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

TEST(MilterMetricsTest, TheOutboxIsRenderedPerDestination) {
  MilterMetrics metrics;
  MilterMetrics::Gauges g;
  EXPECT_THAT(metrics.Render(g), Not(HasSubstr("leakhound_outbox")));
  OutboxDestinationState d;
  d.name = "soc\"1";
  d.delivered = 10;
  d.skipped = 2;
  d.failed = 1;
  d.dropped = 3;
  d.retried = 4;
  d.pending = 5;
  g.outbox = {d};
  const std::string text = metrics.Render(g);
  EXPECT_THAT(text, HasSubstr("# TYPE leakhound_outbox_queued_total counter\n"
                              "leakhound_outbox_queued_total{destination="
                              "\"soc\\\"1\"} 21\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_outbox_delivered_total{destination="
                              "\"soc\\\"1\"} 10\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_outbox_retried_total{destination="
                              "\"soc\\\"1\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_outbox_dropped_total{destination="
                              "\"soc\\\"1\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_outbox_pending{destination="
                              "\"soc\\\"1\"} 5\n"));
  EXPECT_THAT(text, HasSubstr("leakhound_outbox_oldest_pending_seconds{"
                              "destination=\"soc\\\"1\"} 0\n"));
}

}  // namespace
}  // namespace leakhound
