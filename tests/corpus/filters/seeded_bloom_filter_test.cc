#include "corpus/filters/seeded_bloom_filter.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

std::string Url(int i) {
  return "https://host" + std::to_string(i % 977) + ".example/page/" +
         std::to_string(i);
}

TEST(SeededBloomFilterTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(SeededBloomFilter::Create({0, 3, 1}).ok());
  EXPECT_FALSE(SeededBloomFilter::Create({64, 0, 1}).ok());
  EXPECT_FALSE(SeededBloomFilter::Create({64, 65, 1}).ok());
}

TEST(SeededBloomFilterTest, ThesisSizeIsElementsTimesHashesTimesMultiplier) {
  EXPECT_EQ(SeededBloomFilter::ThesisBits(1'000'000, 3, 2.0), 6'000'000u);
  EXPECT_EQ(SeededBloomFilter::ThesisBits(1'000'000, 4, 1.7), 6'800'000u);
}

TEST(SeededBloomFilterTest, EveryInsertedElementIsContainedUntilAReseed) {
  auto filter = SeededBloomFilter::Create({4096, 3, 7});  // heavily loaded
  ASSERT_TRUE(filter.ok());
  for (int i = 0; i < 5000; ++i) filter->Insert(Url(i));
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(filter->Contains(Url(i))) << i;
  filter->Reseed(8);
  int still = 0;
  for (int i = 0; i < 5000; ++i) still += filter->Contains(Url(i));
  EXPECT_EQ(still, 0);  // emptied
  for (int i = 0; i < 5000; ++i) filter->Insert(Url(i));
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(filter->Contains(Url(i))) << i;
}

// False positives of one filter (n = 20,000, k = 4, M = 2: f = (1 -
// e^(-1/M))^k = 0.0240) on 200,000 other URLs, marked per probe.
std::vector<bool> FalsePositives(uint64_t seed) {
  const uint64_t n = 20000;
  auto filter = SeededBloomFilter::Create(
      {SeededBloomFilter::ThesisBits(n, 4, 2.0), 4, seed});
  if (!filter.ok()) return {};
  for (uint64_t i = 0; i < n; ++i) filter->Insert(Url(static_cast<int>(i)));
  std::vector<bool> out;
  for (int i = 0; i < 200000; ++i)
    out.push_back(filter->Contains(Url(1'000'000 + i)));
  return out;
}

TEST(SeededBloomFilterTest, FalsePositiveRateFollowsTheFormula) {
  const std::vector<bool> fp = FalsePositives(1);
  ASSERT_EQ(fp.size(), 200000u);
  const double rate =
      static_cast<double>(std::count(fp.begin(), fp.end(), true)) /
      static_cast<double>(fp.size());
  const double predicted = std::pow(1 - std::exp(-0.5), 4);
  EXPECT_NEAR(rate, predicted, 0.1 * predicted);
}

TEST(SeededBloomFilterTest,
     ReseedingMakesFalsePositivesOfTwoGenerationsIndependent) {
  const std::vector<bool> first = FalsePositives(1), same = FalsePositives(1),
                          second = FalsePositives(2);
  EXPECT_EQ(first, same);  // the same seed gives the same false positives
  size_t a = 0, both = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    a += first[i];
    both += first[i] && second[i];
  }
  // The temporal scheme: a false positive in both generations has
  // probability f^2 = 0.00058, about 115 of 200,000 (standard deviation
  // 11); under the same seed it would be every one of the ~4,800.
  const double f = std::pow(1 - std::exp(-0.5), 4);
  EXPECT_NEAR(static_cast<double>(both), f * f * 200000, 45);
  EXPECT_GT(a, 40 * both);
}

}  // namespace
}  // namespace leakhound
