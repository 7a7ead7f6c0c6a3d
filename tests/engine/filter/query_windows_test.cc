#include "engine/filter/query_windows.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(QueryWindowsTest, ChunksAreHalfWindowsAndTheLastIsShorter) {
  QueryOptions options;  // window 256
  const QueryWindows w(1000, options);
  EXPECT_EQ(w.chunks(), 8u);   // ceil(1000 / 128)
  EXPECT_EQ(w.windows(), 7u);  // window w is chunks w and w + 1
  EXPECT_EQ(w.ChunkBegin(1), 128u);
  EXPECT_EQ(w.ChunkEnd(1), 256u);
  EXPECT_EQ(w.ChunkBegin(7), 896u);
  EXPECT_EQ(w.ChunkEnd(7), 1000u);
}

TEST(QueryWindowsTest, AShortQueryOrThePopcountScoreHasNoWindow) {
  QueryOptions options;
  const QueryWindows shorter(256, options);
  EXPECT_EQ(shorter.windows(), 0u);
  EXPECT_EQ(shorter.chunks(), 1u);
  EXPECT_EQ(shorter.ChunkEnd(0), 256u);
  options.scoring = ScoringMode::kAndPopcount;
  EXPECT_EQ(QueryWindows(1000, options).windows(), 0u);
  options = QueryOptions{};
  options.window = 0;
  EXPECT_EQ(QueryWindows(1000, options).windows(), 0u);
}

TEST(QueryWindowsTest, AWholeQuerySignificanceComesBeforeAnyWindow) {
  QueryOptions options;
  const QueryWindows w(1000, options);
  const double p = 1e-4;  // 0.1 chance hits over the query
  int window_calls = 0;
  auto e = w.Test(std::log(1e-9), 40, p, 1000, [&](size_t) {
    ++window_calls;
    return 0u;
  });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->count, 40u);
  EXPECT_DOUBLE_EQ(e->expected, 1000 * p);
  EXPECT_EQ(window_calls, 0);
}

TEST(QueryWindowsTest, APassageStandsOutInItsWindowAgainstALongText) {
  QueryOptions options;
  const size_t size = 256 * 40;
  const QueryWindows w(size, options);
  const double p = 1e-3;  // 10 chance hits over the whole text
  // 20 hits, all in window 5: not significant against 10 expected over the
  // text at this alpha, but against 0.256 expected in one window.
  const double log_alpha = std::log(1e-9);
  ASSERT_FALSE(IsSignificant(size * p, 20, log_alpha));
  auto e = w.Test(log_alpha, 20, p, static_cast<double>(size),
                  [](size_t window) { return window == 5 ? 20u : 0u; });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->count, 20u);
  EXPECT_DOUBLE_EQ(e->expected, 256 * p);
  // Spread over the windows, the same hits are chance.
  EXPECT_FALSE(w.Test(log_alpha, 20, p, static_cast<double>(size),
                      [](size_t window) { return window % 8 == 0 ? 4u : 0u; })
                   .has_value());
}

TEST(QueryWindowsTest, FewerHitsThanTheMinimumCountAreNeverEvidence) {
  QueryOptions options;  // min_count 3
  const QueryWindows w(100, options);
  EXPECT_FALSE(w.Test(std::log(1e-6), 2, 0.0, 100, [](size_t) { return 2u; })
                   .has_value());
  EXPECT_TRUE(w.Test(std::log(1e-6), 3, 0.0, 100, [](size_t) { return 3u; })
                  .has_value());
}

TEST(QueryWindowsTest, ChancePerTrialIsTheFillToTheKForMembership) {
  EXPECT_DOUBLE_EQ(ChancePerTrial(50, 100, 3, ScoringMode::kMembership), 0.125);
  EXPECT_DOUBLE_EQ(ChancePerTrial(50, 100, 3, ScoringMode::kAndPopcount), 0.5);
}

}  // namespace
}  // namespace leakhound
