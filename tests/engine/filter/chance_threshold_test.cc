#include "engine/filter/chance_threshold.h"

#include <cmath>
#include <random>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

double ExactPoissonUpperTail(double lambda, int c) {
  double tail = 0;
  for (int x = c; x < c + 2000; ++x) {
    tail += std::exp(-lambda + x * std::log(lambda) - std::lgamma(x + 1.0));
  }
  return tail;
}

TEST(ChanceThresholdTest, BoundIsAtLeastTheExactPoissonTail) {
  for (double lambda : {0.01, 0.5, 3.0, 40.0, 900.0}) {
    for (int c = static_cast<int>(lambda) + 1; c < lambda + 200; c += 3) {
      const double exact = ExactPoissonUpperTail(lambda, c);
      EXPECT_GE(LogChanceTailBound(lambda, c), std::log(exact) - 1e-9)
          << "lambda " << lambda << " c " << c;
    }
  }
}

TEST(ChanceThresholdTest, CountsAtOrBelowTheMeanAreNeverSignificant) {
  EXPECT_EQ(LogChanceTailBound(5.0, 5.0), 0.0);
  EXPECT_EQ(LogChanceTailBound(5.0, 2.0), 0.0);
  EXPECT_GT(MinSignificantCount(5.0, 0.5), 5u);
}

TEST(ChanceThresholdTest, ThresholdIsTheSmallestSignificantCount) {
  for (double lambda : {0.0, 0.2, 1.0, 7.5, 120.0, 50000.0}) {
    for (double alpha : {1e-3, 1e-6, 1e-10}) {
      const uint32_t c = MinSignificantCount(lambda, alpha);
      EXPECT_LE(LogChanceTailBound(lambda, c), std::log(alpha));
      if (c > 0) {
        EXPECT_GT(LogChanceTailBound(lambda, c - 1.0), std::log(alpha));
      }
    }
  }
}

TEST(ChanceThresholdTest, QuickRejectionAgreesWithTheBoundAtEveryCount) {
  // Every count from the mean to past the threshold, so the counts just
  // below and at MinSignificantCount (where a wrong shortcut would differ)
  // are among them.
  for (double lambda : {0.0, 0.3, 2.0, 16.0, 125.0, 7700.0, 2.5e6}) {
    for (double alpha : {1e-2, 1e-6, 1e-12}) {
      const double log_alpha = std::log(alpha);
      const uint32_t threshold = MinSignificantCount(lambda, alpha);
      const auto first = static_cast<uint32_t>(std::floor(lambda));
      int accepted = 0;
      for (uint32_t c = first; c <= threshold + 5; ++c) {
        const bool exact = LogChanceTailBound(lambda, c) <= log_alpha;
        ASSERT_EQ(IsSignificant(lambda, c, log_alpha), exact)
            << "lambda " << lambda << " alpha " << alpha << " c " << c;
        accepted += exact;
      }
      EXPECT_EQ(accepted, 6) << "lambda " << lambda << " alpha " << alpha;
    }
  }
}

TEST(ChanceThresholdTest, SimulatedBinomialExceedsThresholdNoMoreThanAlpha) {
  // Binomial(2000, 0.004): lambda = 8. At alpha = 1e-2 the bound must keep
  // the measured exceedance rate at or below 1e-2.
  std::mt19937_64 rng(17);
  std::binomial_distribution<int> hits(2000, 0.004);
  const uint32_t c = MinSignificantCount(8.0, 1e-2);
  int exceed = 0;
  const int trials = 200000;
  for (int i = 0; i < trials; ++i) exceed += hits(rng) >= static_cast<int>(c);
  EXPECT_LE(exceed / static_cast<double>(trials), 1e-2);
}

}  // namespace
}  // namespace leakhound
