// ReplayPolicy over a real incident store, against counts worked out by
// hand.
#include "cli/commands/policy_replay.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/gateway/decision.h"
#include "cli/gateway/message_verdict.h"
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

// A policy with a rule of every action, monitor mode, records,
// identifiers, unlabelled documents, errors and unread parts.
constexpr char kEveryAction[] = R"(internal_domains = ["corp.test"]
[[rule]]
name = "confidential inside"
action = "tag"
when = { labels_any = ["confidential"], external_recipient = false }
[[rule]]
name = "confidential outside"
action = "remove-external-recipients"
when = { labels_any = ["confidential"], external_recipient = true }
[[rule]]
name = "secret anywhere"
action = "quarantine"
severity = "high"
when = { labels_any = ["secret"] }
[[rule]]
name = "customer rows"
action = "reject"
when = { records = 2, tables = ["customers"] }
[[rule]]
name = "card numbers"
action = "redirect"
reviewer = "desk@corp.test"
when = { identifiers = { card = 5 } }
[[rule]]
name = "unlabelled outside"
mode = "monitor"
action = "reject"
when = { unlabelled = true, external_recipient = true }
[[rule]]
name = "unread outside"
action = "tempfail"
when = { unread = true, external_recipient = true }
[[rule]]
name = "errors"
action = "reject"
when = { error = true, channels = ["web"] }
)";

// The mail or upload of one generated case, judged as the gateway judges
// (JudgeFacts) and recorded as the milter and the web channel record
// (JudgedIncident, the envelope, the detail).
struct Generated {
  MessageVerdict v;
  Envelope envelope;
};

Generated Generate(std::mt19937& rng) {
  const auto pick = [&rng](int n) {
    return static_cast<int>(rng() % static_cast<unsigned>(n));
  };
  Generated g;
  g.envelope.channel = pick(4) == 0 ? "web" : "mail";
  g.envelope.sender = "alex@corp.test";
  const char* kTo[] = {"ann@corp.test", "bob@example.test",
                       "eve@sub.corp.test", "x@gmail.test"};
  const int recipients = g.envelope.channel == "web" ? 1 : 1 + pick(3);
  for (int r = 0; r < recipients; ++r) {
    g.envelope.recipients.push_back(
        g.envelope.channel == "web" ? (pick(2) ? "corp.test" : "paste.example")
                                    : kTo[pick(4)]);
  }
  MessageVerdict& v = g.v;
  const std::vector<std::string> kLabels[] = {
      {"confidential"}, {"public"}, {}, {"secret", "confidential"}};
  for (int d = pick(3); d > 0; --d) {
    const std::string id = absl::StrCat("doc", pick(50), ".txt");
    v.documents.push_back(id);
    v.matched.push_back(
        {id, kLabels[pick(4)], static_cast<uint32_t>(10 + pick(200)),
         pick(100) / 100.0});
  }
  if (pick(4) == 0) v.records.emplace_back("customers", 1 + pick(4));
  if (pick(4) == 0) v.identifiers.emplace_back("card", 1 + pick(10));
  if (pick(5) == 0) {
    v.unread.push_back(pick(2) ? "scan.png (no-text)" : "big.tif (limit)");
    v.unread_limit = v.unread.back().ends_with("(limit)");
  }
  v.kind = !v.matched.empty() || !v.records.empty()
               ? MessageVerdict::Kind::kLeak
               : MessageVerdict::Kind::kClean;
  if (pick(12) == 0) {
    v.kind = MessageVerdict::Kind::kError;
    v.error = "could not be extracted";
    v.unread.clear();
    v.unread_limit = false;
  }
  return g;
}

// Issue 65: replaying the very policy that decided and recorded the
// incidents changes nothing, over 1,000 incidents of every action.
TEST(PolicyReplayTest, ReplayingTheRecordingPolicyChangesNothing) {
  TempDir dir;
  auto store = IncidentStore::Open(dir.Sub("incidents"));
  ASSERT_TRUE(store.ok());
  auto policy = ParsePolicy(kEveryAction, "every.toml");
  ASSERT_TRUE(policy.ok()) << policy.status();
  std::mt19937 rng(65);
  std::vector<Incident> batch;
  std::map<std::string, int> actions;
  while (batch.size() < 1000) {
    Generated g = Generate(rng);
    const VerdictFacts facts = FactsOf(g.envelope, g.v);
    const Judgement j = JudgeFacts(*policy, facts, g.v.kind, ChannelDefaults{});
    if (!Eventful(g.v, j.decision)) continue;
    const bool web = g.envelope.channel == "web";
    Incident i = JudgedIncident(web ? "web" : "milter", g.v, j.action,
                                absl::StrCat("LH-", batch.size()), &*policy,
                                j.decision);
    i.time_ms = 1000 + static_cast<int64_t>(batch.size());
    i.sender = g.envelope.sender;
    i.recipients = g.envelope.recipients;
    i.detail = g.v.kind == MessageVerdict::Kind::kError
                   ? g.v.error
                   : absl::StrJoin(g.v.unread, ", ");
    ++actions[i.action];
    batch.push_back(std::move(i));
  }
  ASSERT_TRUE((*store)->Insert(batch).ok());
  // Every action the policy can give was recorded, the refusal of a removal
  // that would leave nobody among the rejects.
  for (const char* a : {"log", "tag", "remove-external-recipients",
                        "redirect", "quarantine", "tempfail", "reject"}) {
    EXPECT_GT(actions[a], 0) << a;
  }
  IncidentFilter all;
  all.limit = 2000;
  auto report = ReplayPolicy(**store, all, *policy);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->incidents, 1000u);
  EXPECT_EQ(report->changed, 0u);
  uint64_t matched = 0;
  for (const RuleReplay& r : report->rules) matched += r.matched;
  // "(no rule)" counts the incidents no rule matches.
  EXPECT_GT(report->rules.back().matched, 0u);
  EXPECT_GE(matched, 1000u);
}

}  // namespace
}  // namespace leakhound
