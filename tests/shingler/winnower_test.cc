#include "shingler/winnower.h"

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

TEST(WinnowerTest, WindowOfOneOrZeroSelectsEverything) {
  std::vector<uint64_t> f = {5, 3, 9};
  EXPECT_THAT(WinnowPositions(f, 0), ElementsAre(0, 1, 2));
  EXPECT_THAT(WinnowPositions(f, 1), ElementsAre(0, 1, 2));
}

TEST(WinnowerTest, EmptyInputSelectsNothing) {
  EXPECT_TRUE(WinnowPositions({}, 4).empty());
}

TEST(WinnowerTest, SchleimerPaperExample) {
  // The hash sequence of Fig. 2 of Schleimer et al.; with window 4 robust
  // winnowing selects positions 3, 6, 8, 11, 15: the paper's
  // {17, 17, 8, 39, 17}.
  std::vector<uint64_t> f = {77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39,
                             77, 74, 42, 17, 98};
  std::vector<size_t> pos = WinnowPositions(f, 4);
  EXPECT_THAT(pos, ElementsAre(3, 6, 8, 11, 15));
  std::vector<uint64_t> values;
  for (size_t p : pos) values.push_back(f[p]);
  EXPECT_THAT(values, ElementsAre(17, 17, 8, 39, 17));
}

TEST(WinnowerTest, TiesSelectTheRightmostMinimum) {
  std::vector<uint64_t> f = {4, 4, 4, 4};
  EXPECT_THAT(WinnowPositions(f, 2), ElementsAre(1, 2, 3));
  EXPECT_THAT(WinnowPositions(f, 4), ElementsAre(3));
}

TEST(WinnowerTest, SequenceShorterThanWindowSelectsItsMinimum) {
  std::vector<uint64_t> f = {9, 2, 7};
  EXPECT_THAT(WinnowPositions(f, 10), ElementsAre(1));
}

TEST(WinnowerTest, WinnowedDistinctKeepsEachSelectedValueOnceInFirstOrder) {
  // The paper's sequence: positions 3, 6, 8, 11, 15 hold 17, 17, 8, 39, 17.
  std::vector<uint64_t> f = {77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39,
                             77, 74, 42, 17, 98};
  EXPECT_THAT(WinnowedDistinct(f, 4), ElementsAre(17, 8, 39));
  EXPECT_THAT(WinnowedDistinct(std::vector<uint64_t>{5, 3, 5, 9}, 1),
              ElementsAre(5, 3, 9));
  EXPECT_TRUE(WinnowedDistinct({}, 4).empty());
}

TEST(WinnowerTest, AnySharedRunOfWindowLengthSharesASelection) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 2000; ++iter) {
    const size_t window = 2 + rng() % 20;
    auto random_seq = [&](size_t n) {
      std::vector<uint64_t> v(n);
      for (auto& x : v) x = rng() % 1000;  // small range: many ties
      return v;
    };
    std::vector<uint64_t> shared = random_seq(window);
    std::vector<uint64_t> a = random_seq(rng() % 50);
    std::vector<uint64_t> b = random_seq(rng() % 50);
    a.insert(a.begin() + static_cast<long>(a.empty() ? 0 : rng() % a.size()),
             shared.begin(), shared.end());
    b.insert(b.begin() + static_cast<long>(b.empty() ? 0 : rng() % b.size()),
             shared.begin(), shared.end());
    std::set<uint64_t> selected_a;
    for (size_t p : WinnowPositions(a, window)) selected_a.insert(a[p]);
    bool common = false;
    for (size_t p : WinnowPositions(b, window)) {
      common = common || selected_a.count(b[p]) > 0;
    }
    ASSERT_TRUE(common) << "iteration " << iter << " window " << window;
  }
}

TEST(WinnowerTest, DensityOnRandomInputIsAboutTwoOverWindowPlusOne) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> f(200000);
  for (auto& x : f) x = rng();
  for (size_t window : {4u, 8u, 16u}) {
    const double selected =
        static_cast<double>(WinnowPositions(f, window).size());
    const double expected = 2.0 / static_cast<double>(window + 1);
    EXPECT_NEAR(selected / static_cast<double>(f.size()), expected,
                0.1 * expected)
        << "window " << window;
  }
}

}  // namespace
}  // namespace leakhound
