#include "engine/decaying_bloom_filter.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/engine/sliding_buffer.h"

namespace leakhound {
namespace {

TEST(DecayingBloomFilterTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(DecayingBloomFilter::Create({0, 4, 10}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 0, 10}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 33, 10}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 4, 0}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 4, 65536}).ok());
}

TEST(DecayingBloomFilterTest, NoFalseNegativeWithinTheWindowAgainstAnExactBuffer) {
  // Every third element repeats the one d back, d sweeping 1 .. 2w: the
  // repeats at d <= w must be found whatever the load.
  for (const DecayingBloomFilter::Options& o :
       {DecayingBloomFilter::Options{64, 2, 16},
        DecayingBloomFilter::Options{4096, 4, 500},
        DecayingBloomFilter::Options{1024, 8, 300}}) {
    auto filter = DecayingBloomFilter::Create(o);
    ASSERT_TRUE(filter.ok());
    SlidingBuffer exact(o.window);
    std::mt19937_64 rng(o.counters);
    std::vector<uint64_t> history;
    size_t duplicates = 0, false_positives = 0, negatives = 0, d = 0;
    for (size_t i = 0; i < 12000; ++i) {
      uint64_t x = rng();
      if (i % 3 == 0 && !history.empty()) {
        d = d % (2 * o.window) + 1;
        x = history[history.size() - std::min(d, history.size())];
      }
      const bool truth = exact.Contains(x);
      const bool seen = filter->TestAndInsert(x);
      if (truth) {
        ++duplicates;
        ASSERT_TRUE(seen) << "false negative at element " << i;
      } else {
        ++negatives;
        false_positives += seen;
      }
      exact.Insert(x);
      history.push_back(x);
    }
    EXPECT_GT(duplicates, 1000u);
    EXPECT_LT(false_positives, negatives);
  }
}

TEST(DecayingBloomFilterTest, AnElementIsForgottenExactlyOneWindowLater) {
  auto filter = DecayingBloomFilter::Create({1 << 16, 4, 100});
  ASSERT_TRUE(filter.ok());
  filter->Insert(42);
  for (uint64_t i = 0; i < 99; ++i) filter->Insert(1000 + i);
  EXPECT_TRUE(filter->Contains(42));  // 100th most recent
  filter->Insert(5000);
  EXPECT_FALSE(filter->Contains(42));  // 101st
}

TEST(DecayingBloomFilterTest, FalsePositiveRateFollowsTheFormula) {
  // In steady state the counters hold exactly the last w elements:
  // (1 - e^(-kw/m))^k = 0.0435 for m = 16,384, k = 4, w = 2,500.
  auto filter = DecayingBloomFilter::Create({16384, 4, 2500});
  ASSERT_TRUE(filter.ok());
  std::mt19937_64 rng(9);
  for (int i = 0; i < 5000; ++i) filter->Insert(rng());
  size_t hits = 0;
  const size_t probes = 200000;
  for (size_t i = 0; i < probes; ++i) hits += filter->Contains(rng());
  const double rate = static_cast<double>(hits) / probes;
  const double predicted = std::pow(1 - std::exp(-4.0 * 2500 / 16384), 4);
  EXPECT_NEAR(rate, predicted, 0.1 * predicted);
}

}  // namespace
}  // namespace leakhound
