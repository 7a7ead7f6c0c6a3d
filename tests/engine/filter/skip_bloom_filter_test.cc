#include "engine/filter/skip_bloom_filter.h"

#include <cmath>
#include <random>
#include <unordered_set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sliding_buffer.h"

namespace leakhound {
namespace {

TEST(SkipBloomFilterTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(SkipBloomFilter::Create({0, 4, 10}).ok());
  EXPECT_FALSE(SkipBloomFilter::Create({64, 0, 10}).ok());
  EXPECT_FALSE(SkipBloomFilter::Create({64, 33, 10}).ok());
  EXPECT_FALSE(SkipBloomFilter::Create({64, 4, 0}).ok());
}

TEST(SkipBloomFilterTest, NoFalseNegativeWithinTheWindowAgainstAnExactBuffer) {
  // Small filters (many collisions) and a stream that repeats elements at
  // every distance around the window: the property must hold whatever the
  // false-positive rate.
  for (const SkipBloomFilter::Options& o :
       {SkipBloomFilter::Options{64, 2, 16},
        SkipBloomFilter::Options{4096, 4, 500},
        SkipBloomFilter::Options{1024, 8, 300}}) {
    auto filter = SkipBloomFilter::Create(o);
    ASSERT_TRUE(filter.ok());
    const WindowRun run = RunAgainstBuffer(
        *filter, o.window, RepeatingStream(20000, o.window, o.counters));
    EXPECT_EQ(run.false_negatives, 0u);
    EXPECT_GT(run.duplicates, 2000u);
    EXPECT_LT(run.false_positives,
              run.negatives);  // a filter, not "always yes"
  }
}

TEST(SkipBloomFilterTest, ElementsOlderThanTwoWindowsAreForgotten) {
  auto filter = SkipBloomFilter::Create({1 << 16, 4, 100});
  ASSERT_TRUE(filter.ok());
  filter->Insert(42);
  EXPECT_TRUE(filter->Contains(42));
  for (uint64_t i = 0; i < 200; ++i) filter->Insert(1000 + i);
  EXPECT_FALSE(filter->Contains(42));
}

TEST(SkipBloomFilterTest, FalsePositiveRateMatchesOneFullArray) {
  // Right after a swap (30,000 = 3 w insertions) the old array holds w
  // elements, every one still inside the window, and the new one is
  // empty: an element never inserted is a false positive with probability
  // (1 - (1 - 1/m)^(wk))^k = 0.0436 for m = 65,536, k = 4, w = 10,000.
  // (The paper's bound, with 2m for m, would be 0.0048: it holds only when
  // the window's elements are spread over both arrays.)
  auto filter = SkipBloomFilter::Create({65536, 4, 10000});
  ASSERT_TRUE(filter.ok());
  std::mt19937_64 rng(7);
  for (int i = 0; i < 30000; ++i) filter->Insert(rng());
  size_t hits = 0;
  const size_t probes = 200000;
  for (size_t i = 0; i < probes; ++i) hits += filter->Contains(rng());
  const double rate = static_cast<double>(hits) / probes;
  const double bound = std::pow(1 - std::pow(1 - 1.0 / 65536, 40000.0), 4);
  EXPECT_NEAR(rate, bound, 0.15 * bound);
}

}  // namespace
}  // namespace leakhound
