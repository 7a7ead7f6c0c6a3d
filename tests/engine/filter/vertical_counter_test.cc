#include "engine/filter/vertical_counter.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

// Adds n random vectors of the given density and compares with a plain
// per-bit count.
void ExpectCountsMatchModel(uint32_t words, size_t n, int density_shift,
                            uint64_t seed) {
  VerticalCounter counter(words);
  std::vector<uint32_t> model(size_t{words} * 64, 0);
  std::mt19937_64 rng(seed);
  for (size_t v = 0; v < n; ++v) {
    uint64_t* in = counter.NextInput();
    for (uint32_t w = 0; w < words; ++w) {
      uint64_t x = ~uint64_t{0};
      for (int i = 0; i < density_shift; ++i) x &= rng();
      in[w] = x;
      for (uint32_t b = 0; b < 64; ++b) model[w * 64 + b] += (x >> b) & 1;
    }
  }
  std::vector<uint32_t> counts(size_t{words} * 64, 5);  // Finish adds
  counter.Finish(counts);
  for (size_t i = 0; i < counts.size(); ++i) {
    ASSERT_EQ(counts[i], model[i] + 5) << "position " << i << " after " << n;
  }
}

TEST(VerticalCounterTest, CountsEqualPerBitSumsForAnyNumberOfVectors) {
  // Around block boundaries (16), far past the 4-bit planes, all-ones
  // vectors (every carry fires) and sparse ones.
  for (size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 255, 1000}) {
    ExpectCountsMatchModel(3, n, 0, n);  // all ones
    ExpectCountsMatchModel(5, n, 1, n + 1);
    ExpectCountsMatchModel(2, n, 4, n + 2);
  }
}

TEST(VerticalCounterTest, FinishResetsForTheNextQuery) {
  VerticalCounter counter(1);
  for (int i = 0; i < 20; ++i) *counter.NextInput() = 0b101;
  std::vector<uint32_t> first(64, 0);
  counter.Finish(first);
  EXPECT_EQ(first[0], 20u);
  EXPECT_EQ(first[1], 0u);
  EXPECT_EQ(first[2], 20u);
  *counter.NextInput() = 0b10;
  std::vector<uint32_t> second(64, 0);
  counter.Finish(second);
  EXPECT_EQ(second[0], 0u);
  EXPECT_EQ(second[1], 1u);
  EXPECT_EQ(second[2], 0u);
}

TEST(VerticalCounterTest, FinishDropsPositionsPastTheCountsGiven) {
  VerticalCounter counter(2);
  uint64_t* in = counter.NextInput();
  in[0] = 1;
  in[1] = ~uint64_t{0};
  std::vector<uint32_t> counts(70, 0);  // positions 70..127 dropped
  counter.Finish(counts);
  EXPECT_EQ(counts[0], 1u);
  EXPECT_EQ(counts[1], 0u);
  EXPECT_EQ(counts[64], 1u);
  EXPECT_EQ(counts[69], 1u);
}

}  // namespace
}  // namespace leakhound
