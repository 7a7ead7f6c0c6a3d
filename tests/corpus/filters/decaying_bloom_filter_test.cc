#include "corpus/filters/decaying_bloom_filter.h"

#include <cmath>
#include <random>

#include "gtest/gtest.h"
#include "tests/sliding_buffer.h"

namespace leakhound {
namespace {

TEST(DecayingBloomFilterTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(DecayingBloomFilter::Create({0, 4, 10}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 0, 10}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 33, 10}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 4, 0}).ok());
  EXPECT_FALSE(DecayingBloomFilter::Create({64, 4, 65536}).ok());
}

TEST(DecayingBloomFilterTest,
     NoFalseNegativeWithinTheWindowAgainstAnExactBuffer) {
  // Small filters (many collisions) and repeats at every distance around
  // the window: the property must hold whatever the load.
  for (const DecayingBloomFilter::Options& o :
       {DecayingBloomFilter::Options{64, 2, 16},
        DecayingBloomFilter::Options{4096, 4, 500},
        DecayingBloomFilter::Options{1024, 8, 300}}) {
    auto filter = DecayingBloomFilter::Create(o);
    ASSERT_TRUE(filter.ok());
    const WindowRun run = RunAgainstBuffer(
        *filter, o.window, RepeatingStream(20000, o.window, o.counters));
    EXPECT_EQ(run.false_negatives, 0u);
    EXPECT_GT(run.duplicates, 2000u);
    EXPECT_LT(run.false_positives, run.negatives);
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
