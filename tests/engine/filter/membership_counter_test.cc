#include "engine/filter/membership_counter.h"

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

// 200 rows; row r holds fingerprints [10r, 10r + 10) of `fps`.
struct Filled {
  Filled() : geometry(*BloomGeometry::FromParams({1e-3, 64, 1.0})) {
    matrix = NewBitSlicedMatrix(geometry.bits);
    std::mt19937_64 rng(7);
    fps.resize(2000);
    for (uint64_t& f : fps) f = rng();
    std::vector<uint32_t> positions;
    for (uint32_t r = 0; r < 200; ++r) {
      matrix->AddRow();
      BitPositions(std::span<const uint64_t>(fps).subspan(10 * r, 10),
                   geometry, positions);
      matrix->SetBits(r, positions);
    }
  }
  BloomGeometry geometry;
  std::unique_ptr<RowMatrix> matrix;
  std::vector<uint64_t> fps;
};

TEST(MembershipCounterTest, EveryRowCountsTheFingerprintsItHolds) {
  Filled f;
  QueryOptions options;
  options.window = 0;
  // The query: all of row 3's and half of row 150's fingerprints.
  std::vector<uint64_t> query(f.fps.begin() + 30, f.fps.begin() + 40);
  query.insert(query.end(), f.fps.begin() + 1500, f.fps.begin() + 1505);
  const QueryWindows windows(query.size(), options);
  const RowCounts counts =
      CountMemberships(*f.matrix, f.geometry, query, windows, {});
  ASSERT_EQ(counts.slots(), 200u);
  EXPECT_GE(counts.Whole(3), 10u);
  EXPECT_GE(counts.Whole(150), 5u);
  EXPECT_DOUBLE_EQ(counts.trials, 15);
  EXPECT_TRUE(counts.chunks.empty());
}

TEST(MembershipCounterTest, BlocksAndChunksCountWhatTheWholeCountCounts) {
  Filled f;
  QueryOptions options;
  options.window = 8;  // chunks of 4 fingerprints
  const std::vector<uint64_t> query(f.fps.begin(), f.fps.begin() + 1000);
  const QueryWindows windows(query.size(), options);
  ASSERT_GT(windows.windows(), 0u);
  const RowCounts all =
      CountMemberships(*f.matrix, f.geometry, query, windows, {});
  const RowCounts some =
      CountMemberships(*f.matrix, f.geometry, query, windows, {1, 3});
  ASSERT_EQ(some.slots(), 128u);
  for (uint32_t r : {64u, 100u, 127u, 192u, 199u}) {
    EXPECT_EQ(some.Whole(r), all.Whole(r)) << "row " << r;
    EXPECT_EQ(some.InWindow(2, r), all.InWindow(2, r)) << "row " << r;
  }
  for (uint32_t r = 0; r < 200; ++r) {
    uint32_t by_chunk = 0;
    for (size_t c = 0; c < windows.chunks(); ++c) {
      by_chunk += all.chunks[c * all.slots() + r];
    }
    EXPECT_EQ(by_chunk, all.Whole(r)) << "row " << r;
  }
}

TEST(MembershipCounterTest, FullestIsTheLargestWindowButTheLast) {
  Filled f;
  QueryOptions options;
  options.window = 8;
  // Rows 0-29's fingerprints, 400 of no row, then rows 70-99's: windows
  // with hits and without, the last window with hits of its own (it is
  // left out of the fullest), rows with hits in both counted blocks.
  std::vector<uint64_t> query(f.fps.begin(), f.fps.begin() + 300);
  for (uint64_t i = 0; i < 400; ++i) query.push_back(i * 0x9E3779B97F4A7C15u);
  query.insert(query.end(), f.fps.begin() + 700, f.fps.begin() + 1000);
  const QueryWindows windows(query.size(), options);
  ASSERT_GT(windows.windows(), 2u);
  const RowCounts all =
      CountMemberships(*f.matrix, f.geometry, query, windows, {});
  const RowCounts some =
      CountMemberships(*f.matrix, f.geometry, query, windows, {1, 3});
  uint32_t any = 0;
  for (uint32_t r = 0; r < 200; ++r) {
    uint32_t fullest = 0;
    for (size_t w = 0; w + 1 < windows.windows(); ++w) {
      fullest = std::max(fullest, all.InWindow(w, r));
    }
    EXPECT_EQ(all.fullest[all.Slot(r)], fullest) << "row " << r;
    if (r >= 64 && r < 128) {
      EXPECT_EQ(some.fullest[some.Slot(r)], fullest) << "row " << r;
    }
    any = std::max(any, fullest);
  }
  EXPECT_GT(any, 0u);
  // Row 99's last fingerprints lie in the last window only.
  const size_t last = windows.windows() - 1;
  EXPECT_GT(all.InWindow(last, 99), all.fullest[99]);
}

}  // namespace
}  // namespace leakhound
