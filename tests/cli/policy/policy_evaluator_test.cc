#include "cli/policy/policy_evaluator.h"

#include "cli/policy/policy_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

Policy Parse(const char* text) {
  auto policy = ParsePolicy(text, "test.toml");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *policy : Policy{};
}

VerdictFacts Mail(std::vector<std::string> recipients,
                  std::vector<MatchedDocument> documents) {
  VerdictFacts f;
  f.channel = "mail";
  f.sender = "bob@example.com";
  f.recipients = std::move(recipients);
  f.documents = std::move(documents);
  return f;
}

constexpr char kInternalExternal[] = R"(
internal_domains = ["example.com"]
[[rule]]
name = "confidential inside"
action = "log"
[rule.when]
labels_any = ["confidential"]
[[rule]]
name = "confidential outside"
action = "reject"
reject_text = "Confidential text may not leave the company."
[rule.when]
labels_any = ["confidential"]
external_recipient = true
)";

TEST(PolicyEvaluatorTest, OneExternalRecipientAmongInternalOnesIsExternal) {
  const Policy policy = Parse(kInternalExternal);
  const MatchedDocument memo{"board/memo.txt", {"confidential"}, 40, 0.2};
  PolicyDecision inside =
      EvaluatePolicy(policy, Mail({"a@example.com", "b@sub.example.com"}, {memo}));
  EXPECT_EQ(inside.disposition, Disposition::kLog);
  ASSERT_EQ(inside.matches.size(), 1u);
  EXPECT_EQ(inside.matches[0].rule->name, "confidential inside");

  PolicyDecision mixed = EvaluatePolicy(
      policy, Mail({"a@example.com", "x@gmail.com", "b@example.com"}, {memo}));
  EXPECT_EQ(mixed.disposition, Disposition::kReject);
  EXPECT_EQ(mixed.deciding->name, "confidential outside");
  EXPECT_EQ(mixed.matches.size(), 2u);
  // A look-alike domain is not internal.
  PolicyDecision lookalike =
      EvaluatePolicy(policy, Mail({"a@notexample.com"}, {memo}));
  EXPECT_EQ(lookalike.disposition, Disposition::kReject);
}

TEST(PolicyEvaluatorTest, APublicLabelNeverAlertsAndUnlabelledTextNeedsARule) {
  const Policy policy = Parse(kInternalExternal);
  PolicyDecision d = EvaluatePolicy(
      policy, Mail({"x@gmail.com"}, {{"faq.txt", {"public"}, 60, 0.9}}));
  EXPECT_TRUE(d.matches.empty());
  EXPECT_EQ(d.disposition, Disposition::kLog);
}

TEST(PolicyEvaluatorTest, SeverityStepsUpByShareAndByDocuments) {
  const Policy policy = Parse(R"(
[[rule]]
name = "any leak"
severity = "low"
steps = [ { share = 0.5, severity = "high" },
          { documents = 3, severity = "medium" } ]
)");
  auto severity = [&](std::vector<MatchedDocument> docs) {
    return EvaluatePolicy(policy, Mail({"x@gmail.com"}, std::move(docs)))
        .severity;
  };
  EXPECT_EQ(severity({{"a", {}, 30, 0.1}}), Severity::kLow);
  EXPECT_EQ(severity({{"a", {}, 300, 0.5}}), Severity::kHigh);
  EXPECT_EQ(severity({{"a", {}, 30, 0.1}, {"b", {}, 30, 0.1},
                      {"c", {}, 30, 0.1}}),
            Severity::kMedium);
}

TEST(PolicyEvaluatorTest, MonitorRecordsWhatWouldHappenAndDelivers) {
  const Policy policy = Parse(R"(
[[rule]]
name = "trial"
mode = "monitor"
action = "reject"
notify_sender = true
)");
  PolicyDecision d =
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {{"a", {}, 30, 0.1}}));
  EXPECT_EQ(d.disposition, Disposition::kLog);
  EXPECT_EQ(d.would, Disposition::kReject);
  EXPECT_EQ(d.deciding, nullptr);
  EXPECT_FALSE(d.notify_sender);  // monitor mode sends nothing
  ASSERT_EQ(d.matches.size(), 1u);
}

TEST(PolicyEvaluatorTest, ASenderGroupExceptionLetsLegalMailCounsel) {
  const Policy policy = Parse(R"(
internal_domains = ["example.com"]
[groups]
legal = ["alice@example.com", "@legal.example.com"]
[[rule]]
name = "outside"
action = "quarantine"
notify = ["dlp@example.com"]
[rule.when]
external_recipient = true
[[rule.unless]]
senders = ["group:legal"]
recipient_domains = ["counsel.example"]
)");
  VerdictFacts legal = Mail({"partner@counsel.example"}, {{"a", {}, 30, 0.1}});
  legal.sender = "carol@legal.example.com";
  EXPECT_TRUE(EvaluatePolicy(policy, legal).matches.empty());
  // The exception needs both: the group and counsel's domain.
  legal.recipients = {"someone@gmail.com"};
  PolicyDecision d = EvaluatePolicy(policy, legal);
  EXPECT_EQ(d.disposition, Disposition::kQuarantine);
  EXPECT_THAT(d.notify, testing::ElementsAre("dlp@example.com"));
  VerdictFacts other = Mail({"partner@counsel.example"}, {{"a", {}, 30, 0.1}});
  EXPECT_EQ(EvaluatePolicy(policy, other).disposition, Disposition::kQuarantine);
}

TEST(PolicyEvaluatorTest, TheMostRestrictiveEnforcingActionWins) {
  const Policy policy = Parse(R"(
[[rule]]
name = "tag all"
action = "tag"
[[rule]]
name = "hold big"
action = "quarantine"
[rule.when]
min_words = 100
[[rule]]
name = "strip"
action = "remove-external-recipients"
)");
  PolicyDecision small =
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {{"a", {}, 30, 0.1}}));
  EXPECT_EQ(small.disposition, Disposition::kRemoveExternalRecipients);
  PolicyDecision big =
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {{"a", {}, 300, 0.1}}));
  EXPECT_EQ(big.disposition, Disposition::kQuarantine);
  EXPECT_EQ(big.deciding->name, "hold big");
  EXPECT_EQ(big.matches.size(), 3u);
}

TEST(PolicyEvaluatorTest, ErrorsAndUnreadPartsAreConditionsOfTheirOwn) {
  const Policy policy = Parse(R"(
[[rule]]
name = "unjudged"
action = "tempfail"
[rule.when]
error = true
)");
  VerdictFacts f = Mail({"x@gmail.com"}, {});
  EXPECT_TRUE(EvaluatePolicy(policy, f).matches.empty());
  f.error = true;
  EXPECT_EQ(EvaluatePolicy(policy, f).disposition, Disposition::kTempfail);
}

}  // namespace
}  // namespace leakhound
