#include "engine/filter/bloom_geometry.h"

#include <cmath>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(BloomGeometryTest, ReproducesThePapersTable1RowSize) {
  // Butakov Table 1: p = 0.05, n = 123,000 -> m = 766,933 bits.
  auto g = BloomGeometry::FromParams({0.05, 123000, 1.0});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->bits, 766933u);
  EXPECT_EQ(g->hashes, 4u);
  EXPECT_EQ(g->fill_limit, 123000u);
}

TEST(BloomGeometryTest, OneInAThousandNeedsAbout14Point4BitsAndTenHashes) {
  auto g = BloomGeometry::FromParams({1e-3, 10000, 0.5});
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->bits / 10000.0, 14.38, 0.01);
  EXPECT_EQ(g->hashes, 10u);
  EXPECT_EQ(g->fill_limit, 5000u);
}

TEST(BloomGeometryTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(BloomGeometry::FromParams({0.0, 1000, 1.0}).ok());
  EXPECT_FALSE(BloomGeometry::FromParams({0.6, 1000, 1.0}).ok());
  EXPECT_FALSE(BloomGeometry::FromParams({0.01, 10, 1.0}).ok());
  EXPECT_FALSE(BloomGeometry::FromParams({0.01, 1000, 0.0}).ok());
  EXPECT_FALSE(BloomGeometry::FromParams({0.01, 1000, 1.5}).ok());
}

TEST(BloomGeometryTest, BitPositionsArePinned) {
  // Golden: persisted row bits depend on this mapping.
  BloomGeometry g{1000003, 4, 1};
  std::vector<uint32_t> p(4);
  BitPositions(0x0123456789abcdefull, g, p);
  EXPECT_THAT(p, ::testing::ElementsAre(530457u, 63365u, 318922u, 416441u));
}

TEST(BloomGeometryTest, PositionsStayInRangeAndNeverRepeatOneValue) {
  BloomGeometry g{777, 8, 1};
  std::vector<uint32_t> p(8);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    BitPositions(rng(), g, p);
    for (uint32_t x : p) ASSERT_LT(x, 777u);
    bool all_same = true;
    for (uint32_t x : p) all_same = all_same && x == p[0];
    ASSERT_FALSE(all_same);
  }
}

TEST(BloomGeometryTest, MeasuredFalsePositiveRateMatchesTheory) {
  // n random fingerprints in one m-bit filter; the rate of random
  // non-members that pass must match (1 - e^(-kn/m))^k within 10 %.
  auto g = *BloomGeometry::FromParams({0.01, 20000, 1.0});
  std::vector<bool> bits(g.bits);
  std::vector<uint32_t> p(g.hashes);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    BitPositions(rng(), g, p);
    for (uint32_t x : p) bits[x] = true;
  }
  int passes = 0;
  const int trials = 400000;
  for (int i = 0; i < trials; ++i) {
    BitPositions(rng(), g, p);
    bool all = true;
    for (uint32_t x : p) all = all && bits[x];
    passes += all;
  }
  const double theory = std::pow(
      1 - std::exp(-static_cast<double>(g.hashes) * 20000.0 / g.bits),
      static_cast<double>(g.hashes));
  EXPECT_NEAR(passes / static_cast<double>(trials), theory, 0.1 * theory);
}

}  // namespace
}  // namespace leakhound
