#include "corpus/near_copy_referee.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

// Tokens 1..n as hashes; `changed` positions get hashes no source holds.
std::vector<uint64_t> Tokens(uint64_t first, uint32_t n) {
  std::vector<uint64_t> out;
  for (uint32_t i = 0; i < n; ++i) out.push_back(first + i);
  return out;
}

// Every token one word (2 units of 2), unless listed as boilerplate.
uint32_t Words(const std::vector<uint64_t>& scanned,
               const std::vector<uint64_t>& source,
               const std::vector<uint32_t>& boilerplate = {}) {
  std::vector<uint32_t> counts(scanned.size() + 1, 0);
  for (size_t t = 0; t < scanned.size(); ++t) {
    bool common = false;
    for (uint32_t b : boilerplate) common = common || b == t;
    counts[t + 1] = counts[t] + (common ? 0 : 2);
  }
  return LongestNearCopyWords({scanned, counts, 2}, source, RefereeOptions{});
}

TEST(NearCopyRefereeTest, ACopyCountsEveryWord) {
  const std::vector<uint64_t> source = Tokens(1000, 60);
  std::vector<uint64_t> scanned = Tokens(1, 20);
  for (uint32_t i = 10; i < 40; ++i) scanned.push_back(source[i]);
  EXPECT_EQ(Words(scanned, source), 30u);
  EXPECT_EQ(Words(Tokens(1, 50), source), 0u);
}

TEST(NearCopyRefereeTest, SubstitutedWordsCountUpToOneInFive) {
  const std::vector<uint64_t> source = Tokens(1000, 60);
  // 30 words, every sixth substituted (5 of 30): one passage of 30.
  std::vector<uint64_t> scanned(source.begin() + 10, source.begin() + 40);
  for (size_t i = 5; i < scanned.size(); i += 6) scanned[i] = 7;
  EXPECT_EQ(Words(scanned, source), 29u);  // the last word was substituted
  // Four substituted within five words of a 27-word sentence (a module name
  // and its options changed): still 27 words, 4 of them substituted.
  std::vector<uint64_t> sentence(source.begin(), source.begin() + 27);
  for (size_t i : {17, 18, 20, 21}) sentence[i] = 9;
  EXPECT_EQ(Words(sentence, source), 27u);
  // One word in two substituted: runs of equal tokens too short to seed.
  for (size_t i = 0; i < scanned.size(); i += 2) scanned[i] = 8;
  EXPECT_EQ(Words(scanned, source), 0u);
  // One in three, in runs of five equal tokens: no longer one passage.
  std::vector<uint64_t> third(source.begin(), source.begin() + 45);
  for (size_t i = 5; i < third.size(); i += 6) third[i] = 5, third[i - 1] = 6;
  EXPECT_LT(Words(third, source), 22u);
}

TEST(NearCopyRefereeTest, BoilerplateTokensDoNotCount) {
  const std::vector<uint64_t> source = Tokens(1000, 40);
  const std::vector<uint64_t> scanned(source.begin(), source.begin() + 30);
  EXPECT_EQ(Words(scanned, source, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 20u);
}

TEST(NearCopyRefereeTest, PiecesChainInSourceOrderWithinTheGap) {
  const std::vector<uint64_t> source = Tokens(1000, 100);
  // Source 0-15, five words inserted, source 15-30: one passage of 30.
  std::vector<uint64_t> scanned(source.begin(), source.begin() + 15);
  for (int i = 0; i < 5; ++i) scanned.push_back(500 + i);
  scanned.insert(scanned.end(), source.begin() + 15, source.begin() + 30);
  EXPECT_EQ(Words(scanned, source), 30u);
  // Forty words inserted: two passages of 15.
  scanned.assign(source.begin(), source.begin() + 15);
  for (int i = 0; i < 40; ++i) scanned.push_back(500 + i);
  scanned.insert(scanned.end(), source.begin() + 15, source.begin() + 30);
  EXPECT_EQ(Words(scanned, source), 15u);
  // One source sentence sent twice is one sentence's words.
  scanned.assign(source.begin(), source.begin() + 15);
  scanned.insert(scanned.end(), source.begin(), source.begin() + 15);
  EXPECT_EQ(Words(scanned, source), 15u);
}

}  // namespace
}  // namespace leakhound
