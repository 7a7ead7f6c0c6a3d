#include "corpus/filters/spatial_bloom_filter.h"

#include <cmath>
#include <string>

#include "corpus/filters/seeded_bloom_filter.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

std::string Url(int i) {
  return "https://host" + std::to_string(i % 977) + ".example/doc/" +
         std::to_string(i);
}

template <typename Filter>
double FalsePositiveRate(Filter& filter, int n, int probes) {
  for (int i = 0; i < n; ++i) filter.Insert(Url(i));
  for (int i = 0; i < n; ++i) {
    if (!filter.Contains(Url(i))) return -1;  // a false negative
  }
  int hits = 0;
  for (int i = 0; i < probes; ++i) hits += filter.Contains(Url(10'000'000 + i));
  return static_cast<double>(hits) / probes;
}

TEST(SpatialBloomFilterTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(SpatialBloomFilter::Create({0, 1024, 3, 1}).ok());
  EXPECT_FALSE(SpatialBloomFilter::Create({17, 1024, 3, 1}).ok());
  EXPECT_FALSE(SpatialBloomFilter::Create({2, 1024, 0, 1}).ok());
}

TEST(SpatialBloomFilterTest, FiltersAreIndependentSoTheirRatesMultiply) {
  // n = 20,000, k = 3, M = 1.7 per filter: f = (1 - e^(-1/1.7))^3 = 0.0880;
  // two filters f^2 = 0.00774.
  const int n = 20000;
  const uint64_t bits = SeededBloomFilter::ThesisBits(n, 3, 1.7);
  auto one = SpatialBloomFilter::Create({1, bits, 3, 5});
  auto two = SpatialBloomFilter::Create({2, bits, 3, 5});
  ASSERT_TRUE(one.ok() && two.ok());
  const double f = std::pow(1 - std::exp(-1 / 1.7), 3);
  EXPECT_NEAR(FalsePositiveRate(*one, n, 200000), f, 0.08 * f);
  EXPECT_NEAR(FalsePositiveRate(*two, n, 200000), f * f, 0.15 * f * f);
}

TEST(SpatialBloomFilterTest,
     TwoFiltersEqualOneWithTwiceTheHashesAtEqualMemory) {
  // The thesis's finding (its Tables 5.17-5.19): F filters of k hashes and m
  // bits each give the false positives of one filter of F*k hashes and F*m
  // bits: (1 - e^(-1/M))^(F k) either way.
  const int n = 20000;
  const uint64_t bits = SeededBloomFilter::ThesisBits(n, 3, 1.7);
  auto spatial = SpatialBloomFilter::Create({2, bits, 3, 9});
  auto single = SeededBloomFilter::Create({2 * bits, 6, 9});
  ASSERT_TRUE(spatial.ok() && single.ok());
  ASSERT_EQ(spatial->MemoryBytes(), single->MemoryBytes());
  const double a = FalsePositiveRate(*spatial, n, 400000);
  const double b = FalsePositiveRate(*single, n, 400000);
  const double predicted = std::pow(1 - std::exp(-1 / 1.7), 6);  // 0.00774
  EXPECT_NEAR(a, predicted, 0.12 * predicted);
  EXPECT_NEAR(b, predicted, 0.12 * predicted);
}

TEST(SpatialBloomFilterTest, ReseedEmptiesEveryFilterAndKeepsNoFalseNegative) {
  auto filter = SpatialBloomFilter::Create({3, 1 << 14, 4, 1});
  ASSERT_TRUE(filter.ok());
  for (int i = 0; i < 2000; ++i) filter->Insert(Url(i));
  filter->Reseed(2);
  int still = 0;
  for (int i = 0; i < 2000; ++i) still += filter->Contains(Url(i));
  EXPECT_EQ(still, 0);
  EXPECT_GE(FalsePositiveRate(*filter, 2000, 1000), 0);  // -1: a false negative
}

}  // namespace
}  // namespace leakhound
