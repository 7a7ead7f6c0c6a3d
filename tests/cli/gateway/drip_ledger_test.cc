#include "cli/gateway/drip_ledger.h"

#include "cli/policy/policy_evaluator.h"
#include "cli/policy/policy_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

constexpr int64_t kDay = 86'400'000;

constexpr char kPolicy[] = R"(
[[rule]]
name = "drip"
action = "quarantine"
when = { cumulative = { words = 300, days = 30 } }

[[rule]]
name = "drip-domain"
action = "log"
when = { cumulative = { words = 300, days = 30, per = "sender-domain" } }

[[rule]]
name = "half"
action = "log"
when = { cumulative = { share = 0.5, days = 7 } }
)";

Policy Parse(const char* text) {
  auto p = ParsePolicy(text, "p.toml");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : Policy{};
}

// A passage of 25 words at word `at` of a 700-word document.
std::vector<DripSpan> Passage(uint32_t at) {
  DripSpan s;
  s.target = "handbook.txt";
  s.begin = at;
  s.end = at + 25;
  s.total = 700;
  return {s};
}

class DripLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(IncidentStore::Open(store_).ok());  // created
  }
  // The rules a message of `sender` sending `spans` on day `day` fires.
  std::vector<std::string> Send(const std::string& sender,
                                std::vector<DripSpan> spans, int day,
                                std::vector<CumulativeFact>* sums = nullptr) {
    const std::string reference = "LH-" + std::to_string(++n_);
    auto got = ledger_.Account(policy_, sender, "mail", spans, reference,
                               start_ + day * kDay, true);
    EXPECT_TRUE(got.ok()) << got.status();
    VerdictFacts f;
    f.channel = "mail";
    f.sender = sender;
    f.documents = {{"handbook.txt", {}, 25, 25.0 / 700}};
    if (got.ok()) f.cumulative = *got;
    if (sums != nullptr && got.ok()) *sums = *got;
    std::vector<std::string> out;
    for (const RuleMatch& m : EvaluatePolicy(policy_, f).matches) {
      out.push_back(m.rule->name);
    }
    return out;
  }

  TempDir dir_;
  std::string store_ = dir_.Sub("incidents");
  DripLedger ledger_{store_};
  Policy policy_ = Parse(kPolicy);
  int64_t start_ = 1'790'000'000'000;
  int n_ = 0;
};

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(DripLedgerTest, TwelveDistinctPassagesOverTwelveDaysCrossThreeHundred) {
  for (int day = 0; day < 11; ++day) {
    EXPECT_THAT(Send("alice@corp.test", Passage(25 * day), day), IsEmpty())
        << day;
  }
  std::vector<CumulativeFact> sums;
  EXPECT_THAT(Send("alice@corp.test", Passage(275), 11, &sums),
              ElementsAre("drip", "drip-domain"));
  ASSERT_FALSE(sums.empty());
  EXPECT_EQ(sums[0].words, 300u);
  EXPECT_EQ(sums[0].earlier.size(), 11u);
  EXPECT_EQ(sums[0].earlier.front(), "LH-1");
}

TEST_F(DripLedgerTest, TheSamePassageTwentyTimesCountsOnce) {
  std::vector<CumulativeFact> sums;
  for (int day = 0; day < 20; ++day) {
    EXPECT_THAT(Send("alice@corp.test", Passage(100), day, &sums), IsEmpty());
  }
  EXPECT_EQ(sums[0].words, 25u);
}

TEST_F(DripLedgerTest, TwoSendersAddUpOnlyPerDomain) {
  for (int i = 0; i < 6; ++i) {
    EXPECT_THAT(Send("alice@corp.test", Passage(25 * i), i), IsEmpty());
  }
  for (int i = 6; i < 11; ++i) {
    EXPECT_THAT(Send("bob@corp.test", Passage(25 * i), i), IsEmpty());
  }
  EXPECT_THAT(Send("bob@corp.test", Passage(275), 11),
              ElementsAre("drip-domain"));
}

TEST_F(DripLedgerTest, WhatLeftTheWindowNoLongerCounts) {
  for (int i = 0; i < 11; ++i) Send("alice@corp.test", Passage(25 * i), i);
  // Forty days later: the first eleven are out of the 30-day window.
  std::vector<CumulativeFact> sums;
  EXPECT_THAT(Send("alice@corp.test", Passage(275), 51, &sums), IsEmpty());
  EXPECT_EQ(sums[0].words, 25u);
}

TEST_F(DripLedgerTest, AShareOfTheDocumentWithinItsOwnWindow) {
  // 14 passages in 7 days: 350 of 700 words.
  for (int i = 0; i < 13; ++i) Send("carl@corp.test", Passage(25 * i), i / 2);
  EXPECT_THAT(Send("carl@corp.test", Passage(325), 6),
              ElementsAre("drip", "drip-domain", "half"));
}

TEST_F(DripLedgerTest, ReplayReadsTheSumAsItWasWhenTheMessageWasJudged) {
  for (int i = 0; i < 12; ++i) Send("alice@corp.test", Passage(25 * i), i);
  // Message 6 (LH-6) saw 150 words; the ones after it are not counted.
  auto then = ledger_.AsOf(policy_, "alice@corp.test", {"handbook.txt"},
                           "LH-6", start_ + 5 * kDay);
  ASSERT_TRUE(then.ok()) << then.status();
  ASSERT_FALSE(then->empty());
  EXPECT_EQ((*then)[0].words, 150u);
  EXPECT_EQ((*then)[0].earlier.size(), 5u);
}

TEST(DripSumTest, RowsOfATableCountOnceEach) {
  std::vector<DripSpan> earlier;
  for (const char* row : {"aa", "bb", "aa"}) {
    DripSpan s;
    s.sender = "alice@corp.test";
    s.target = "table customers";
    s.row = row;
    s.time_ms = 1000;
    s.reference = std::string("LH-") + row;
    earlier.push_back(s);
  }
  DripSpan own = earlier[0];
  own.row = "cc";
  own.reference = "LH-now";
  const auto sums = SumDrip({{"sender", 30}}, earlier, {own}, "LH-now", 2000);
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_EQ(sums[0].rows, 3u);
  EXPECT_EQ(sums[0].words, 0u);
  EXPECT_EQ(sums[0].earlier, (std::vector<std::string>{"LH-aa", "LH-bb"}));
}

TEST(DripPolicyTest, TheFileRefusesACumulativeConditionWithoutOneThreshold) {
  const char* bad[] = {
      "[[rule]]\nname = \"x\"\naction = \"log\"\nwhen = { cumulative = { "
      "days = 30 } }\n",
      "[[rule]]\nname = \"x\"\naction = \"log\"\nwhen = { cumulative = { "
      "words = 3, share = 0.5, days = 30 } }\n",
      "[[rule]]\nname = \"x\"\naction = \"log\"\nwhen = { cumulative = { "
      "words = 3 } }\n",
      "[[rule]]\nname = \"x\"\naction = \"log\"\nwhen = { cumulative = { "
      "words = 3, days = 3, per = \"recipient\" } }\n"};
  for (const char* text : bad) {
    EXPECT_FALSE(ParsePolicy(text, "p.toml").ok()) << text;
  }
}

}  // namespace
}  // namespace leakhound
