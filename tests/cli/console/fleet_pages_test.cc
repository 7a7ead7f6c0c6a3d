// The fleet's pages: what each shows, and every outside value escaped.
#include "cli/console/fleet_pages.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

const PageContext kViewer{"ada", "viewer", "tok"};

NodeState Node(const std::string& name, int64_t heartbeat_ms,
               int64_t generation, const std::string& digest) {
  NodeState n;
  n.name = name;
  n.role = "milter";
  n.heartbeat_ms = heartbeat_ms;
  n.generation_ms = heartbeat_ms;
  n.index_generation = generation;
  n.policy_digest = digest;
  return n;
}

TEST(FleetStatusTest, FlagsASilentNodeOneBehindTheWriterAndOneOnAnotherPolicy) {
  const int64_t now = 10'000'000;
  NodeState writer = Node("writer", now, 9, "");
  writer.role = "writer";
  writer.generation_ms = now - 20 * 60'000;  // generation 9 for 20 min
  PolicyVersion published;
  published.version = 3;
  published.digest = "pub";
  const FleetAssessment f = AssessFleet(
      {Node("mx1", now - 1000, 9, "pub"), Node("mx2", now - 120'000, 9, "pub"),
       Node("mx3", now - 1000, 8, "pub"), Node("web", now - 1000, 9, "old"),
       writer},
      published, now, FleetThresholds{60'000, 10 * 60'000});
  ASSERT_EQ(f.nodes.size(), 5u);
  EXPECT_EQ(f.reference_generation, 9);
  EXPECT_TRUE(f.nodes[0].ok());
  EXPECT_TRUE(f.nodes[1].silent);
  EXPECT_TRUE(f.nodes[2].behind);
  EXPECT_TRUE(f.nodes[3].other_policy);
  EXPECT_TRUE(f.nodes[4].ok());  // the writer enforces no policy
}

TEST(FleetStatusTest, ANewGenerationIsNotFlaggedBeforeTheNodesHadTimeToTakeIt) {
  const int64_t now = 10'000'000;
  NodeState writer = Node("writer", now, 10, "");
  writer.role = "writer";
  writer.generation_ms = now - 60'000;  // a minute old
  const FleetAssessment f =
      AssessFleet({Node("mx1", now, 9, ""), writer}, std::nullopt, now,
                  FleetThresholds{60'000, 10 * 60'000});
  EXPECT_FALSE(f.nodes[0].behind);
  EXPECT_FALSE(f.nodes[0].other_policy);  // nothing published
}

TEST(FleetPagesTest, TheNodesPageEscapesWhatNodesReport) {
  NodesView view;
  view.now_ms = 5'000'000;
  NodeState n = Node("<script>x</script>", 1, 1, "\"><b>");
  n.host = "<img src=x>";
  n.version = "<v>";
  view.fleet = AssessFleet({n}, std::nullopt, view.now_ms, view.thresholds);
  const std::string page = NodesPage(kViewer, view);
  EXPECT_EQ(page.find("<script>x"), std::string::npos);
  EXPECT_EQ(page.find("<img src=x>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("silent for"), std::string::npos);
}

TEST(FleetPagesTest, APendingRequestSaysItWaitsForItsNode) {
  Incident i;
  i.node = "mx2";
  HeldMailView view;
  view.now_ms = 1'000'000;
  view.node_heartbeat_ms = 1'000'000 - 300'000;
  MailRequest r;
  r.action = "release";
  r.state = "pending";
  r.requested_by = "console:<ada>";
  view.requests = {r};
  std::string out;
  AppendMailRequests(i, view, &out);
  EXPECT_NE(out.find("waits for mx2 (last heard 5 min ago)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("console:&lt;ada&gt;"), std::string::npos);
  view.node_heartbeat_ms = 0;
  out.clear();
  AppendMailRequests(i, view, &out);
  EXPECT_NE(out.find("has never reported"), std::string::npos) << out;
}

TEST(FleetPagesTest, PolicyVersionsNameTheNodesRunningEach) {
  PolicyVersion v1{1, 0, "ada", "d1", "first", ""};
  PolicyVersion v2{2, 0, "ada", "d2", "<i>x</i>", ""};
  std::string out;
  AppendPolicyVersions({v2, v1},
                       {Node("mx1", 0, 1, "d2"), Node("mx2", 0, 1, "d2"),
                        Node("mx3", 0, 1, "d1")},
                       &out);
  EXPECT_NE(out.find("mx1, mx2"), std::string::npos) << out;
  EXPECT_NE(out.find("mx3"), std::string::npos);
  EXPECT_NE(out.find("&lt;i&gt;x"), std::string::npos);
}

}  // namespace
}  // namespace leakhound
