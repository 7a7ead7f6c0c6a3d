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
  PolicyDecision inside = EvaluatePolicy(
      policy, Mail({"a@example.com", "b@sub.example.com"}, {memo}));
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

// `unlabelled` makes "documents with no label" a rule of its own, not only
// an exception; a protected location is no unlabelled document.
TEST(PolicyEvaluatorTest, AnUnlabelledRuleMatchesOnlyDocumentsWithoutLabels) {
  const Policy policy = Parse(R"(
internal_domains = ["example.com"]
[[rule]]
name = "unlabelled outside"
action = "quarantine"
when = { unlabelled = true, external_recipient = true }
[[rule]]
name = "labelled outside"
action = "tag"
when = { unlabelled = false, external_recipient = true }
)");
  const MatchedDocument bare{"drafts/plan.txt", {}, 40, 0.2};
  const MatchedDocument memo{"board/memo.txt", {"confidential"}, 40, 0.2};
  const MatchedDocument location{"location //wiki/finance", {}, 1, 0};
  PolicyDecision d = EvaluatePolicy(policy, Mail({"x@gmail.com"}, {bare}));
  ASSERT_EQ(d.matches.size(), 1u);
  EXPECT_EQ(d.matches[0].rule->name, "unlabelled outside");
  EXPECT_EQ(d.disposition, Disposition::kQuarantine);
  d = EvaluatePolicy(policy, Mail({"x@gmail.com"}, {memo}));
  ASSERT_EQ(d.matches.size(), 1u);
  EXPECT_EQ(d.matches[0].rule->name, "labelled outside");
  d = EvaluatePolicy(policy, Mail({"x@gmail.com"}, {location}));
  for (const auto& m : d.matches) EXPECT_NE(m.rule->name, "unlabelled outside");
  d = EvaluatePolicy(policy, Mail({"a@example.com"}, {bare}));
  EXPECT_TRUE(d.matches.empty());
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
  EXPECT_EQ(
      severity({{"a", {}, 30, 0.1}, {"b", {}, 30, 0.1}, {"c", {}, 30, 0.1}}),
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
  EXPECT_EQ(EvaluatePolicy(policy, other).disposition,
            Disposition::kQuarantine);
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

TEST(PolicyEvaluatorTest, PartsUnreadForLackOfTimeCanBeTreatedApart) {
  // The milter holds such mail by default (--on-unread-limit); a rule can
  // deliver it tagged for one sender and leave the rest to the default.
  const Policy policy = Parse(R"(
[[rule]]
name = "scanner outbox"
action = "tag"
[rule.when]
unread_limit = true
senders = ["scanner@example.com"]
)");
  VerdictFacts f = Mail({"x@gmail.com"}, {});
  f.sender = "scanner@example.com";
  f.unread = true;
  EXPECT_TRUE(EvaluatePolicy(policy, f).matches.empty());
  f.unread_limit = true;
  const PolicyDecision d = EvaluatePolicy(policy, f);
  EXPECT_EQ(d.disposition, Disposition::kTag);
  ASSERT_EQ(d.matches.size(), 1u);
  f.sender = "bob@example.com";
  EXPECT_TRUE(EvaluatePolicy(policy, f).matches.empty());
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

TEST(PolicyEvaluatorTest,
     AllRecipientDomainsExceptsOnlyWhenEveryRecipientIsInThem) {
  const Policy policy = Parse(R"(
[groups]
legal = ["@legal.example.com"]
[[rule]]
name = "r"
action = "reject"
[rule.when]
labels_any = ["confidential"]
[[rule.unless]]
senders = ["group:legal"]
all_recipient_domains = ["counsel.example"]
)");
  const MatchedDocument memo{"memo", {"confidential"}, 40, 0.2};
  VerdictFacts f = Mail({"lee@counsel.example"}, {memo});
  f.sender = "dana@legal.example.com";
  EXPECT_EQ(EvaluatePolicy(policy, f).disposition, Disposition::kLog);
  f.recipients.push_back("x@gmail.com");
  EXPECT_EQ(EvaluatePolicy(policy, f).disposition, Disposition::kReject);
  f.recipients.clear();  // no recipient: not "all in counsel.example"
  EXPECT_EQ(EvaluatePolicy(policy, f).disposition, Disposition::kReject);
}

TEST(PolicyEvaluatorTest,
     ExplainNamesTheFirstConditionThatFailsOrTheException) {
  const Policy policy = Parse(kInternalExternal);
  const MatchedDocument memo{"board/memo.txt", {"confidential"}, 40, 0.2};
  const VerdictFacts inside = Mail({"a@example.com"}, {memo});
  EXPECT_EQ(ExplainRule(policy, policy.rules[0], inside),
            "yes: board/memo.txt");
  EXPECT_THAT(ExplainRule(policy, policy.rules[1], inside),
              ::testing::StartsWith("no: external_recipient = true"));
  const Policy excepted = Parse(R"(
[[rule]]
name = "r"
[rule.when]
labels_any = ["confidential"]
[[rule.unless]]
min_share = 0.1
)");
  EXPECT_EQ(ExplainRule(excepted, excepted.rules[0], inside),
            "no: exception 1 holds");
}

TEST(PolicyEvaluatorTest, LabelsDecideAlikeCompiledOrCompared) {
  Policy compiled = Parse(R"(
[[rule]]
name = "any"
action = "tag"
[rule.when]
labels_any = ["finance", "hr"]
[[rule]]
name = "all"
action = "reject"
[rule.when]
labels_all = ["finance", "board"]
)");
  ASSERT_TRUE(compiled.label_bits);
  Policy text = compiled;
  text.label_bits = false;  // as a policy with more than 64 labels
  for (const std::vector<std::string>& labels :
       std::vector<std::vector<std::string>>{
           {}, {"finance"}, {"board", "finance"}, {"hr", "board"}, {"other"}}) {
    const VerdictFacts f = Mail({"a@x.test"}, {{"d", labels, 40, 0.2}});
    const PolicyDecision a = EvaluatePolicy(compiled, f);
    const PolicyDecision b = EvaluatePolicy(text, f);
    EXPECT_EQ(a.disposition, b.disposition);
    EXPECT_EQ(a.matches.size(), b.matches.size());
  }
  // 65 labels: compared as text, still right.
  Policy many;
  PolicyRule r;
  r.name = "many";
  r.disposition = Disposition::kReject;
  for (int i = 0; i < 65; ++i)
    r.when.labels_any.push_back("l" + std::to_string(i));
  many.rules.push_back(r);
  CompileLabels(&many);
  EXPECT_FALSE(many.label_bits);
  EXPECT_EQ(EvaluatePolicy(many, Mail({"a@x.test"}, {{"d", {"l64"}, 40, 0.2}}))
                .disposition,
            Disposition::kReject);
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

constexpr char kRecords[] = R"(
internal_domains = ["example.com"]
[[identifier]]
name = "iban_account"
validator = "iban"
keywords = ["account", "Konto"]
[[rule]]
name = "customer rows outside"
severity = "high"
action = "reject"
[rule.when]
tables = ["customers"]
records = 5
external_recipient = true
[[rule]]
name = "card export"
action = "quarantine"
[rule.when]
identifiers = { card = 10 }
[[rule]]
name = "anything protected"
action = "tag"
)";

TEST(PolicyEvaluatorTest, RecordAndIdentifierConditionsCountWhatTheScanFound) {
  const Policy policy = Parse(kRecords);
  ASSERT_EQ(policy.identifiers.size(), 1u);
  EXPECT_EQ(policy.identifiers[0].keywords.size(), 2u);
  VerdictFacts f = Mail({"x@gmail.com"}, {});
  f.records = {{"customers", 4}, {"staff", 9}};
  PolicyDecision d = EvaluatePolicy(policy, f);
  // 4 customer rows: not the first rule; a record is protected: the last.
  EXPECT_EQ(d.disposition, Disposition::kTag);
  f.records[0].second = 5;
  d = EvaluatePolicy(policy, f);
  EXPECT_EQ(d.disposition, Disposition::kReject);
  EXPECT_EQ(d.severity, Severity::kHigh);

  VerdictFacts cards = Mail({"x@gmail.com"}, {});
  cards.identifiers = {{"card", 9}};
  EXPECT_EQ(EvaluatePolicy(policy, cards).disposition, Disposition::kLog);
  cards.identifiers = {{"card", 10}};
  EXPECT_EQ(EvaluatePolicy(policy, cards).disposition,
            Disposition::kQuarantine);
  // Identifiers alone are not a protected document or record.
  ASSERT_EQ(EvaluatePolicy(policy, cards).matches.size(), 1u);
}

TEST(PolicyEvaluatorTest, ExplainSaysHowManyRecordsWereFoundAndNeeded) {
  const Policy policy = Parse(kRecords);
  VerdictFacts f = Mail({"x@gmail.com"}, {});
  f.records = {{"customers", 2}};
  EXPECT_THAT(ExplainRule(policy, policy.rules[0], f),
              ::testing::HasSubstr("records: 2 rows of customers matched, 5 "
                                   "needed"));
  EXPECT_THAT(ExplainRule(policy, policy.rules[1], f),
              ::testing::HasSubstr("identifiers: 0 distinct card found, 10 "
                                   "needed"));
}

TEST(PolicyFileTest, IdentifierConditionsAndDefinitionsAreChecked) {
  EXPECT_THAT(
      std::string(ParsePolicy("[[rule]]\nname=\"r\"\n[rule.when]\n"
                              "identifiers = { card = 0 }\n",
                              "p.toml")
                      .status()
                      .message()),
      ::testing::HasSubstr("p.toml:4: identifiers: 'card' must be a whole "
                           "number from 1"));
  EXPECT_THAT(std::string(ParsePolicy("[[identifier]]\nname=\"x\"\n", "p.toml")
                              .status()
                              .message()),
              ::testing::HasSubstr("identifier 'x' needs a pattern or a "
                                   "validator"));
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

constexpr char kOverride[] = R"(
internal_domains = ["example.com"]
[[rule]]
name = "confidential outside"
action = "reject"
severity = "medium"
override = "justify"
override_hours = 24
override_min_chars = 30
override_severities = ["low", "medium"]
override_never_labels = ["restricted"]
steps = [{ documents = 2, severity = "high" }]
[rule.when]
labels_any = ["confidential", "restricted"]
external_recipient = true
)";

TEST(PolicyEvaluatorOverrideTest, TheOverrideIsReadWithItsLimits) {
  const Policy policy = Parse(kOverride);
  const OverrideSettings& o = policy.rules[0].override_offer;
  EXPECT_EQ(o.kind, "justify");
  EXPECT_EQ(o.hours, 24u);
  EXPECT_EQ(o.minutes, 10u);  // the default
  EXPECT_EQ(o.min_chars, 30u);
  EXPECT_EQ(o.per_day, 0u);
  EXPECT_EQ(o.severities,
            (std::vector<Severity>{Severity::kLow, Severity::kMedium}));
  EXPECT_EQ(o.never_labels, std::vector<std::string>{"restricted"});
}

TEST(PolicyEvaluatorOverrideTest, AnOverrideIsOfferedOnlyWithinItsLimits) {
  const Policy policy = Parse(kOverride);
  const MatchedDocument memo{"memo", {"confidential"}, 40, 0.2};
  const MatchedDocument plan{"plan", {"confidential"}, 40, 0.2};
  const MatchedDocument vault{"vault", {"restricted"}, 40, 0.2};
  const PolicyDecision one =
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {memo}));
  ASSERT_NE(one.override_rule, nullptr);
  EXPECT_EQ(one.override_rule->name, "confidential outside");
  // Two documents step the severity up to high: not one it allows.
  EXPECT_EQ(
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {memo, plan})).override_rule,
      nullptr);
  // A document labelled `restricted` is never overridden.
  EXPECT_EQ(
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {vault})).override_rule,
      nullptr);
  // Nothing stopped, nothing to override.
  EXPECT_EQ(
      EvaluatePolicy(policy, Mail({"a@example.com"}, {memo})).override_rule,
      nullptr);
  // A scan has no one to justify it.
  VerdictFacts scan = Mail({"x@gmail.com"}, {memo});
  scan.channel = "scan";
  EXPECT_EQ(EvaluatePolicy(policy, scan).override_rule, nullptr);
}

TEST(PolicyEvaluatorOverrideTest, ABlockingRuleWithoutAnOverrideWithdrawsIt) {
  const std::string text = std::string(kOverride) + R"(
[[rule]]
name = "board papers"
action = "quarantine"
[rule.when]
documents = ["memo"]
)";
  const Policy policy = Parse(text.c_str());
  const MatchedDocument memo{"memo", {"confidential"}, 40, 0.2};
  const MatchedDocument other{"other", {"confidential"}, 40, 0.2};
  EXPECT_EQ(EvaluatePolicy(policy, Mail({"x@gmail.com"}, {memo})).override_rule,
            nullptr);
  EXPECT_NE(
      EvaluatePolicy(policy, Mail({"x@gmail.com"}, {other})).override_rule,
      nullptr);
}

TEST(PolicyEvaluatorOverrideTest, AnOverrideNeedsARuleThatStops) {
  for (const char* text :
       {"[[rule]]\nname = \"r\"\naction = \"tag\"\noverride = \"justify\"\n",
        "[[rule]]\nname = \"r\"\naction = \"reject\"\noverride = \"maybe\"\n",
        "[[rule]]\nname = \"r\"\naction = \"reject\"\noverride = "
        "\"justify\"\noverride_hours = 0\n",
        "[[rule]]\nname = \"r\"\naction = \"reject\"\noverride = "
        "\"justify\"\noverride_severities = [\"urgent\"]\n"}) {
    EXPECT_FALSE(ParsePolicy(text, "t.toml").ok()) << text;
  }
}

}  // namespace
}  // namespace leakhound
