#include "cli/gateway/data_facts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/policy/policy_file.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::vector<IdentifierSpec>> Of(const char* text) {
  auto policy = ParsePolicy(text, "p.toml");
  if (!policy.ok()) return policy.status();
  return PolicyIdentifiers(&*policy);
}

TEST(DataFactsTest, APolicyAddsItsIdentifiersToTheBuiltInOnes) {
  auto specs =
      Of("[[identifier]]\nname = \"employee\"\npattern = \"EMP-\\\\d{6}\"\n"
         "[[identifier]]\nname = \"iban_account\"\nvalidator = \"mod97\"\n"
         "keywords = [\"Konto\"]\nkeyword_distance = 5\n"
         "[[rule]]\nname = \"r\"\n[rule.when]\n"
         "identifiers = { employee = 3, card = 10 }\n");
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), BuiltInIdentifiers().size() + 2);
  const IdentifierSpec& iban = specs->back();
  EXPECT_EQ(iban.name, "iban_account");
  EXPECT_EQ(iban.validator, Validator::kIban);
  EXPECT_EQ(iban.keyword_distance, 5u);
  EXPECT_EQ(PolicyIdentifiers(nullptr)->size(), BuiltInIdentifiers().size());
}

TEST(DataFactsTest, MistakesInIdentifiersNameTheLine) {
  EXPECT_THAT(std::string(Of("[[identifier]]\nname = \"x\"\nvalidator = "
                             "\"crc\"\n")
                              .status()
                              .message()),
              HasSubstr("p.toml:1: identifier 'x': unknown validator 'crc'"));
  EXPECT_THAT(std::string(Of("[[identifier]]\nname = \"card\"\nvalidator = "
                             "\"luhn\"\n")
                              .status()
                              .message()),
              HasSubstr("identifier 'card' is defined already"));
  EXPECT_THAT(std::string(Of("[[rule]]\nname = \"r\"\n[rule.when]\n"
                             "identifiers = { passport = 1 }\n")
                              .status()
                              .message()),
              HasSubstr("p.toml:1: identifiers: no identifier 'passport'"));
}

TEST(DataFactsTest, FindingsAddUpPerTableAndIdentifier) {
  DataFindings a, b;
  a.records.push_back({"customers", "k1", {"card"}, {{0, 1}}, {CellType::kCard}});
  b.records.push_back({"customers", "k2", {"card"}, {{0, 1}}, {CellType::kCard}});
  b.records.push_back({"staff", "k3", {"id"}, {{0, 1}}, {CellType::kCard}});
  a.identifiers.push_back({"card", 3, 2, {}});
  b.identifiers.push_back({"card", 1, 1, {}});
  VerdictFacts facts;
  AddDataFacts(a, &facts);
  AddDataFacts(b, &facts);
  EXPECT_EQ(facts.records, (std::vector<std::pair<std::string, uint32_t>>{
                               {"customers", 2}, {"staff", 1}}));
  EXPECT_EQ(facts.identifiers,
            (std::vector<std::pair<std::string, uint32_t>>{{"card", 3}}));
}

}  // namespace
}  // namespace leakhound
