#include "cli/policy/label_conditions.h"

#include "cli/policy/policy_evaluator.h"
#include "cli/policy/policy_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

constexpr char kPublic[] = "87867195-f2b8-4ac2-b0b6-6bb73cb33afc";
constexpr char kConfidential[] = "f42aa342-8706-4288-bd11-ebb85995028c";
constexpr char kHighly[] = "3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162";

// The names of [labels] differ from the files' (another language): the
// table wins.
constexpr char kPolicy[] = R"(
internal_domains = ["example.com"]
[labels]
order = ["Public", "General", "Confidential", "Highly Confidential"]
"87867195-f2b8-4ac2-b0b6-6bb73cb33afc" = "Public"
"{F42AA342-8706-4288-BD11-EBB85995028C}" = "Confidential"
"3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162" = "Highly Confidential"

[[rule]]
name = "highly"
action = "reject"
when = { sensitivity = ["highly confidential"], external_recipient = true }

[[rule]]
name = "at-least-confidential"
action = "tag"
when = { sensitivity_at_least = "Confidential" }

[[rule]]
name = "unlabelled"
action = "quarantine"
when = { unlabelled_attachment = true }

[[rule]]
name = "downgrade"
action = "reject"
when = { label_downgrade = true }
)";

Policy Parse(const char* text) {
  auto policy = ParsePolicy(text, "test.toml");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *policy : Policy{};
}

PartFacts Part(std::string name, std::vector<LabelFact> labels,
               std::vector<std::string> documents = {}) {
  return PartFacts{std::move(name), true, std::move(labels),
                   std::move(documents)};
}

VerdictFacts Mail(std::vector<PartFacts> parts,
                  std::vector<MatchedDocument> documents = {}) {
  VerdictFacts f;
  f.channel = "mail";
  f.sender = "ann@example.com";
  f.recipients = {"bob@example.org"};
  f.parts = std::move(parts);
  f.documents = std::move(documents);
  return f;
}

std::vector<std::string> Fired(const Policy& policy, const VerdictFacts& f) {
  std::vector<std::string> out;
  for (const RuleMatch& m : EvaluatePolicy(policy, f).matches) {
    out.push_back(m.rule->name);
  }
  return out;
}

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(LabelConditionsTest, TheTableNamesALabelWhateverTheFileCallsIt) {
  const Policy policy = Parse(kPolicy);
  EXPECT_EQ(
      LabelName(policy.sensitivity_labels, {kConfidential, "Vertraulich"}),
      "Confidential");
  EXPECT_EQ(LabelName(policy.sensitivity_labels,
                      {"00000000-0000-0000-0000-000000000001", "Secret"}),
            "Secret");
  EXPECT_EQ(LabelName(policy.sensitivity_labels,
                      {"00000000-0000-0000-0000-000000000001", ""}),
            "00000000-0000-0000-0000-000000000001");
  EXPECT_EQ(LabelRank(policy.sensitivity_labels, "confidential"), 2u);
  EXPECT_EQ(LabelRank(policy.sensitivity_labels, "Secret"), std::nullopt);
}

TEST(LabelConditionsTest, SensitivityHoldsWhenAnyPartCarriesTheLabel) {
  const Policy policy = Parse(kPolicy);
  // The attachment carries it, by id only (LabelInfo.xml names none).
  EXPECT_THAT(
      Fired(policy, Mail({Part("", {}), Part("a.xlsx", {{kHighly, ""}})})),
      ElementsAre("highly", "at-least-confidential"));
  // The message itself (its msip_labels header) carries it.
  EXPECT_THAT(
      Fired(policy, Mail({Part("", {{kHighly, "Streng vertraulich"}})})),
      ElementsAre("highly", "at-least-confidential"));
  // Inside the company: the same label does not make "highly" fire.
  VerdictFacts inside = Mail({Part("", {{kHighly, ""}})});
  inside.recipients = {"carl@example.com"};
  EXPECT_THAT(Fired(policy, inside), ElementsAre("at-least-confidential"));
}

TEST(LabelConditionsTest, SensitivityAtLeastComparesRanks) {
  const Policy policy = Parse(kPolicy);
  EXPECT_THAT(Fired(policy, Mail({Part("", {{kConfidential, ""}})})),
              ElementsAre("at-least-confidential"));
  EXPECT_THAT(Fired(policy, Mail({Part("", {{kPublic, ""}})})), IsEmpty());
  // A label the table does not rank reaches no rank.
  EXPECT_THAT(
      Fired(policy, Mail({Part("", {{"00000000-0000-0000-0000-000000000001",
                                     "Confidential-ish"}})})),
      IsEmpty());
}

TEST(LabelConditionsTest, UnlabelledAttachmentIsAnAttachmentThatCouldCarryOne) {
  const Policy policy = Parse(kPolicy);
  EXPECT_THAT(Fired(policy, Mail({Part("", {}), Part("price.docx", {})})),
              ElementsAre("unlabelled"));
  // The message's own text is no attachment.
  EXPECT_THAT(Fired(policy, Mail({Part("", {})})), IsEmpty());
  // A text file cannot carry a label.
  PartFacts text = Part("notes.txt", {});
  text.labellable = false;
  EXPECT_THAT(Fired(policy, Mail({text})), IsEmpty());
  EXPECT_THAT(Fired(policy, Mail({Part("price.docx", {{kPublic, ""}})})),
              IsEmpty());
}

TEST(LabelConditionsTest, ADowngradeQuotesAHigherLabelledDocument) {
  const Policy policy = Parse(kPolicy);
  MatchedDocument merger{"deals/merger.docx", {}, 44, 1.0};
  merger.sensitivity = {{kConfidential, "Confidential"}};
  // Pasted into a docx labelled Public: a downgrade.
  EXPECT_THAT(
      Fired(policy,
            Mail({Part("copy.docx", {{kPublic, ""}}, {"deals/merger.docx"})},
                 {merger})),
      ElementsAre("downgrade"));
  // Into one labelled Confidential: none.
  EXPECT_THAT(Fired(policy, Mail({Part("copy.docx", {{kConfidential, ""}},
                                       {"deals/merger.docx"})},
                                 {merger})),
              ElementsAre("at-least-confidential"));
  // The Public part quotes nothing; another part quotes the document.
  EXPECT_THAT(Fired(policy, Mail({Part("a.docx", {{kPublic, ""}}),
                                  Part("", {}, {"deals/merger.docx"})},
                                 {merger})),
              IsEmpty());
  // A protected document given a name alone (add --sensitivity) ranks too.
  merger.sensitivity = {{"", "Highly Confidential"}};
  EXPECT_THAT(Fired(policy, Mail({Part("copy.docx", {{kConfidential, ""}},
                                       {"deals/merger.docx"})},
                                 {merger})),
              ElementsAre("at-least-confidential", "downgrade"));
}

TEST(LabelConditionsTest, ExplainSaysWhichLabelConditionFailed) {
  const Policy policy = Parse(kPolicy);
  const VerdictFacts f = Mail({Part("", {{kPublic, ""}})});
  EXPECT_EQ(ExplainRule(policy, policy.rules[1], f),
            "no: sensitivity_at_least: no part carries a label ranked at or "
            "above 'Confidential'");
  EXPECT_THAT(ExplainRule(policy, policy.rules[3], f),
              ::testing::StartsWith("no: label_downgrade = true"));
}

TEST(LabelConditionsTest, TheFileRefusesWhatCannotBeRanked) {
  EXPECT_THAT(
      ParsePolicy("[[rule]]\nname = \"x\"\naction = \"log\"\nwhen = { "
                  "label_downgrade = true }\n",
                  "p.toml")
          .status()
          .message(),
      ::testing::HasSubstr("'label_downgrade' needs the labels ranked"));
  EXPECT_THAT(
      ParsePolicy("[labels]\norder = [\"Public\"]\n[[rule]]\nname = \"x\"\n"
                  "action = \"log\"\nwhen = { sensitivity_at_least = "
                  "\"Secret\" }\n",
                  "p.toml")
          .status()
          .message(),
      ::testing::HasSubstr("'Secret' is not in [labels] order"));
  EXPECT_THAT(ParsePolicy("[labels]\nConfidential = \"x\"\n", "p.toml")
                  .status()
                  .message(),
              ::testing::HasSubstr("neither 'order' nor a label id"));
}

}  // namespace
}  // namespace leakhound
