#include "cli/gateway/decision.h"

#include "cli/gateway/message_verdict.h"
#include "cli/milter/milter_server.h"
#include "cli/policy/policy_file.h"
#include "cli/web/web_channel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

Policy Parse(const char* text) {
  auto policy = ParsePolicy(text, "test.toml");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *policy : Policy{};
}

// The tools judge as the daemons with their default flags would.
TEST(DecisionTest, EachChannelsDefaultsAreItsDaemonsDefaults) {
  const MilterPolicy milter;
  const ChannelDefaults mail = DefaultsFor("mail");
  EXPECT_EQ(mail.on_error, DispositionOf(milter.on_error));
  EXPECT_EQ(mail.on_unreadable, DispositionOf(milter.on_unreadable));
  EXPECT_EQ(mail.on_unread_limit, DispositionOf(milter.on_unread_limit));
  const WebPolicy web;
  const ChannelDefaults upload = DefaultsFor("web");
  EXPECT_EQ(upload.on_error, web.on_error);
  EXPECT_EQ(upload.on_unreadable, web.on_unreadable);
  EXPECT_EQ(upload.on_unread_limit, web.on_unread_limit);
}

constexpr char kPolicy[] = R"(internal_domains = ["corp.test"]
[[rule]]
name = "inside only"
action = "remove-external-recipients"
when = { labels_any = ["confidential"] }
[[rule]]
name = "cards"
action = "quarantine"
when = { identifiers = { card = 3 } }
)";

TEST(DecisionTest, ARemovalThatLeavesNobodyIsARefusal) {
  const Policy policy = Parse(kPolicy);
  MessageVerdict v;
  v.kind = MessageVerdict::Kind::kLeak;
  v.matched = {{"memo", {"confidential"}, 40, 0.3}};
  const Judgement mixed = JudgeFacts(
      policy, FactsOf({"mail", "a@corp.test", {"b@corp.test", "x@ext.test"}}, v),
      v.kind, DefaultsFor("mail"));
  EXPECT_EQ(mixed.action, Disposition::kRemoveExternalRecipients);
  const Judgement outside = JudgeFacts(
      policy, FactsOf({"mail", "a@corp.test", {"x@ext.test", "y@ext.test"}}, v),
      v.kind, DefaultsFor("mail"));
  EXPECT_EQ(outside.action, Disposition::kReject);
  EXPECT_EQ(outside.decision.disposition,
            Disposition::kRemoveExternalRecipients);
  // A subdomain of an internal domain is inside.
  const Judgement sub = JudgeFacts(
      policy, FactsOf({"mail", "a@corp.test", {"b@eu.corp.test"}}, v), v.kind,
      DefaultsFor("mail"));
  EXPECT_EQ(sub.action, Disposition::kRemoveExternalRecipients);
}

TEST(DecisionTest, ARuleOnDataIdentifiersDecidesACleanVerdict) {
  const Policy policy = Parse(kPolicy);
  MessageVerdict v;  // no document matched
  v.identifiers = {{"card", 4}};
  const Judgement j =
      JudgeFacts(policy, FactsOf({"mail", "a@corp.test", {"x@ext.test"}}, v),
                 v.kind, DefaultsFor("mail"));
  EXPECT_EQ(j.action, Disposition::kQuarantine);
  EXPECT_TRUE(Eventful(v, j.decision));
  v.identifiers = {{"card", 2}};
  const Judgement below =
      JudgeFacts(policy, FactsOf({"mail", "a@corp.test", {"x@ext.test"}}, v),
                 v.kind, DefaultsFor("mail"));
  EXPECT_EQ(below.action, Disposition::kLog);
  EXPECT_FALSE(Eventful(v, below.decision));
  // Unread parts no rule speaks to get the channel's flags.
  v.unread = {"scan.png (no-text)"};
  EXPECT_EQ(JudgeFacts(policy, FactsOf({"mail", "", {}}, v), v.kind,
                       DefaultsFor("mail"))
                .action,
            Disposition::kTag);
  EXPECT_EQ(JudgeFacts(policy, FactsOf({"web", "u", {"h.example"}}, v), v.kind,
                       DefaultsFor("web"))
                .action,
            Disposition::kLog);
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

TEST(DecisionOverrideTest, MailASenderMayJustifyIsHeldNotRefused) {
  const Policy policy = Parse(R"(
[[rule]]
name = "outside"
action = "reject"
override = "justify"
override_hours = 48
when = { labels_any = ["confidential"] }
)");
  MessageVerdict v;
  v.kind = MessageVerdict::Kind::kLeak;
  v.matched = {{"memo", {"confidential"}, 40, 0.3}};
  const Judgement mail =
      JudgeFacts(policy, FactsOf({"mail", "a@corp.test", {"x@ext.test"}}, v),
                 v.kind, DefaultsFor("mail"));
  EXPECT_EQ(mail.action, Disposition::kQuarantine);
  EXPECT_EQ(mail.decision.disposition, Disposition::kReject);
  const IncidentOverride offer =
      OfferOf(mail.decision, mail.action, "mail", 1000);
  EXPECT_EQ(offer.kind, "justify");
  EXPECT_EQ(offer.rule, "outside");
  EXPECT_EQ(offer.until_ms, 1000 + 48 * 3'600'000);
  EXPECT_EQ(offer.min_chars, 20u);
  // The web's block stands: its user is coached on the block page.
  const Judgement web =
      JudgeFacts(policy, FactsOf({"web", "sam", {"paste.example"}}, v), v.kind,
                 DefaultsFor("web"));
  EXPECT_EQ(web.action, Disposition::kReject);
  EXPECT_EQ(OfferOf(web.decision, web.action, "web", 1000).until_ms,
            1000 + 10 * 60'000);
  // Delivered, nothing offered.
  EXPECT_TRUE(
      OfferOf(mail.decision, Disposition::kLog, "mail", 1000).kind.empty());
}

}  // namespace
}  // namespace leakhound
