#include "cli/records/match_starts.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cli/records/data_identifiers.h"
#include "cli/records/pattern_scanner.h"

namespace leakhound {
namespace {

// Random texts of the characters the patterns are made of, some of them
// planted values, scanned once with Hyperscan's start tracking and once
// with the start function: the matches must be the same.
std::string RandomText(std::mt19937_64& rng) {
  static constexpr std::string_view kAlphabet =
      "0123456789012345678901234567890123456789      ()..--//++@@__%%"
      "abcdeDEGBxXzZ;\n";
  static constexpr std::string_view kPlanted[] = {
      "DE89 3704 0044 0532 0130 00",
      "GB82WEST12345698765432",
      "first.last+tag@mail.example.com",
      "_x@y.z",
      "a@b.c.d",
      "+49 (30) 123-4567",
      "+(030) 1234 5678",
      "0030 123 456 789",
      "DE89370400440532013000 12 34"};
  std::string text;
  const size_t length = 20 + rng() % 180;
  while (text.size() < length) {
    if (rng() % 8 == 0) {
      text += kPlanted[rng() % std::size(kPlanted)];
    } else {
      text += kAlphabet[rng() % kAlphabet.size()];
    }
  }
  return text;
}

void ExpectSameMatches(const std::string& regex, MatchStart start) {
  auto tracked = PatternScanner::Create({{regex, false, nullptr}});
  auto computed = PatternScanner::Create({{regex, false, start}});
  ASSERT_TRUE(tracked.ok()) << tracked.status();
  ASSERT_TRUE(computed.ok()) << computed.status();
  auto tracked_scratch = (*tracked)->NewScratch();
  auto computed_scratch = (*computed)->NewScratch();
  ASSERT_TRUE(tracked_scratch.ok() && computed_scratch.ok());
  std::mt19937_64 rng(20261128);
  size_t total = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string text = RandomText(rng);
    std::vector<PatternMatch> want, got;
    ASSERT_TRUE((*tracked)->Scan(text, **tracked_scratch, &want).ok());
    ASSERT_TRUE((*computed)->Scan(text, **computed_scratch, &got).ok());
    ASSERT_EQ(got, want) << "text: '" << text << "'";
    total += want.size();
  }
  // The texts must have exercised the function.
  EXPECT_GT(total, 5000u);
}

TEST(MatchStartsTest, IbanStartsAreHyperscansLeftmostStarts) {
  ExpectSameMatches(std::string(ValidatorPattern(Validator::kIban)), IbanStart);
}

TEST(MatchStartsTest, EmailStartsAreHyperscansLeftmostStarts) {
  ExpectSameMatches(std::string(ValidatorPattern(Validator::kEmail)),
                    EmailStart);
}

TEST(MatchStartsTest, PhoneCandidateStartsAreHyperscansLeftmostStarts) {
  ExpectSameMatches(std::string(kPhoneCandidatePattern), PhoneCandidateStart);
}

TEST(MatchStartsTest, OnlyPatternsWithACostlyStartHaveAFunction) {
  EXPECT_EQ(ValidatorPatternStart(Validator::kIban), &IbanStart);
  EXPECT_EQ(ValidatorPatternStart(Validator::kEmail), &EmailStart);
  EXPECT_EQ(ValidatorPatternStart(Validator::kCard), nullptr);
  EXPECT_EQ(ValidatorPatternStart(Validator::kNone), nullptr);
}

}  // namespace
}  // namespace leakhound
