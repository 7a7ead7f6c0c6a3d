// ReplayPolicy over a real incident store, against counts worked out by
// hand.
#include "cli/commands/policy_replay.h"

#include "cli/policy/policy_file.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

Incident Mail(const std::string& action, const std::string& to,
              std::vector<IncidentDocument> facts) {
  Incident i;
  i.time_ms = 1000;
  i.source = "milter";
  i.kind = "leak";
  i.action = action;
  i.sender = "alex@corp.test";
  i.recipients = {to};
  i.facts = std::move(facts);
  return i;
}

TEST(PolicyReplayTest, CountsPerRuleTheIncidentsWhoseActionChanges) {
  TempDir dir;
  auto store = IncidentStore::Open(dir.Sub("incidents"));
  ASSERT_TRUE(store.ok());
  const IncidentDocument memo{"memo", {"confidential"}, 80, 0.2};
  const IncidentDocument faq{"faq", {"public"}, 40, 0.1};
  std::vector<Incident> batch = {
      // Under the new policy: confidential outside -> reject.
      Mail("reject", "bob@example.test", {memo}),  // unchanged
      Mail("accept", "bob@example.test", {memo}),  // log -> reject
      Mail("tag", "bob@example.test", {memo}),     // tag -> reject
      // Confidential inside -> log.
      Mail("reject", "ann@corp.test", {memo}),  // reject -> log
      // Public only: no rule -> log.
      Mail("reject", "bob@example.test", {faq}),  // reject -> log
      Mail("log", "bob@example.test", {faq}),     // unchanged
  };
  // An error no rule speaks to keeps the action the flags gave it.
  Incident error;
  error.time_ms = 1000;
  error.source = "milter";
  error.kind = "error";
  error.action = "tempfail";
  batch.push_back(error);
  // A scan report takes no action: skipped.
  Incident report;
  report.time_ms = 1000;
  report.source = "scan";
  report.kind = "leak";
  report.action = "reported";
  report.facts = {memo};
  batch.push_back(report);
  // An incident from before facts were kept: its matches say the same.
  Incident old = Mail("tag", "bob@example.test", {});
  IncidentMatch m;
  m.document = "memo";
  m.labels = {"confidential"};
  m.words = 30;
  m.coverage = 0.2;
  old.matches = {m, m};
  batch.push_back(old);  // tag -> reject
  ASSERT_TRUE((*store)->Insert(batch).ok());

  auto policy = ParsePolicy(R"(
internal_domains = ["corp.test"]
[[rule]]
name = "inside"
action = "log"
[rule.when]
labels_any = ["confidential"]
external_recipient = false
[[rule]]
name = "outside"
action = "reject"
[rule.when]
labels_any = ["confidential"]
external_recipient = true
)",
                            "new.toml");
  ASSERT_TRUE(policy.ok()) << policy.status();
  auto r = ReplayPolicy(**store, IncidentFilter(), *policy);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->incidents, 8u);
  EXPECT_EQ(r->skipped, 1u);
  EXPECT_EQ(r->changed, 5u);
  ASSERT_EQ(r->rules.size(), 3u);
  EXPECT_EQ(r->rules[0].rule, "inside");
  EXPECT_EQ(r->rules[0].matched, 1u);
  EXPECT_EQ(r->rules[0].changed, 1u);
  EXPECT_EQ((r->rules[0].transitions.at({"reject", "log"})), 1u);
  EXPECT_EQ(r->rules[1].rule, "outside");
  EXPECT_EQ(r->rules[1].matched, 4u);
  EXPECT_EQ(r->rules[1].changed, 3u);
  EXPECT_EQ((r->rules[1].transitions.at({"log", "reject"})), 1u);
  EXPECT_EQ((r->rules[1].transitions.at({"tag", "reject"})), 2u);
  EXPECT_EQ(r->rules[2].rule, "(no rule)");
  EXPECT_EQ(r->rules[2].changed, 1u);
  EXPECT_EQ((r->rules[2].transitions.at({"reject", "log"})), 1u);
}

TEST(PolicyReplayTest, FactsOfAnOldIncidentComeFromItsMatches) {
  Incident i;
  i.source = "milter";
  i.kind = "leak";
  i.sender = "Alex@Corp.Test";
  i.recipients = {"Bob@Example.Test"};
  i.detail = "logo.png (no text)";
  IncidentMatch a;
  a.document = "memo";
  a.labels = {"board"};
  a.words = 30;
  a.coverage = 0.25;
  IncidentMatch b = a;
  b.words = 12;
  i.matches = {a, b};
  const VerdictFacts f = FactsOfIncident(i);
  EXPECT_EQ(f.channel, "mail");
  EXPECT_EQ(f.sender, "alex@corp.test");
  EXPECT_EQ(f.recipients, std::vector<std::string>{"bob@example.test"});
  EXPECT_TRUE(f.unread);
  ASSERT_EQ(f.documents.size(), 1u);
  EXPECT_EQ(f.documents[0].words, 42u);
  EXPECT_DOUBLE_EQ(f.documents[0].share, 0.25);
  EXPECT_EQ(f.documents[0].labels, std::vector<std::string>{"board"});
}

}  // namespace
}  // namespace leakhound
