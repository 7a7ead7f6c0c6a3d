#include "engine/filter/row_matrix.h"

#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

// Both layouts must agree with a brute-force model of d rows of m bits.
class RowMatrixTest : public ::testing::TestWithParam<bool> {
 protected:
  std::unique_ptr<RowMatrix> Make(uint32_t bits) {
    return GetParam() ? NewBitSlicedMatrix(bits) : NewRowMajorMatrix(bits);
  }
};

TEST_P(RowMatrixTest, SetTestAndClearFollowTheModel) {
  const uint32_t m = 1000;
  auto matrix = Make(m);
  std::vector<std::vector<bool>> model;
  std::mt19937_64 rng(1);
  for (int r = 0; r < 300; ++r) {  // crosses several re-layouts
    EXPECT_EQ(matrix->AddRow(), static_cast<uint32_t>(r));
    model.emplace_back(m, false);
    for (int i = 0; i < 50; ++i) {
      const auto pos = static_cast<uint32_t>(rng() % m);
      EXPECT_EQ(matrix->Set(static_cast<uint32_t>(r), pos), !model[r][pos]);
      model[r][pos] = true;
    }
  }
  matrix->ClearRow(7);
  model[7].assign(m, false);
  for (uint32_t r = 0; r < 300; ++r) {
    for (uint32_t pos = 0; pos < m; ++pos) {
      ASSERT_EQ(matrix->Test(r, pos), model[r][pos]) << r << " " << pos;
    }
  }
}

TEST_P(RowMatrixTest, CountsMatchBruteForce) {
  const uint32_t m = 4099, k = 3;
  auto matrix = Make(m);
  matrix->Reserve(130);
  std::mt19937_64 rng(2);
  std::vector<std::set<uint32_t>> model(130);
  for (uint32_t r = 0; r < 130; ++r) {
    matrix->AddRow();
    for (int i = 0; i < 1500; ++i) {
      const auto pos = static_cast<uint32_t>(rng() % m);
      matrix->Set(r, pos);
      model[r].insert(pos);
    }
  }
  std::vector<uint32_t> positions;
  for (int i = 0; i < 300 * static_cast<int>(k); ++i) {
    positions.push_back(static_cast<uint32_t>(rng() % m));
  }
  std::vector<uint32_t> counts(130, 0), expected(130, 0);
  matrix->CountMembership(positions, k, counts);
  for (uint32_t r = 0; r < 130; ++r) {
    for (size_t f = 0; f < positions.size() / k; ++f) {
      bool all = true;
      for (uint32_t j = 0; j < k; ++j)
        all = all && model[r].count(positions[f * k + j]);
      expected[r] += all;
    }
  }
  EXPECT_EQ(counts, expected);

  std::set<uint32_t> filter(positions.begin(), positions.end());
  std::vector<uint32_t> distinct(filter.begin(), filter.end());
  std::vector<uint32_t> and_counts(130, 0), and_expected(130, 0);
  matrix->CountAndPopcount(distinct, and_counts);
  for (uint32_t r = 0; r < 130; ++r) {
    for (uint32_t pos : distinct) and_expected[r] += model[r].count(pos);
  }
  EXPECT_EQ(and_counts, and_expected);
}

TEST_P(RowMatrixTest, BulkSetRowsEqualsBitByBitSet) {
  const uint32_t m = 1000, words = (m + 63) / 64;
  auto bulk = Make(m);
  auto single = Make(m);
  std::mt19937_64 rng(4);
  for (int r = 0; r < 200; ++r) {
    bulk->AddRow();
    single->AddRow();
  }
  // Rows 37..166: not aligned to 64 at either end.
  std::vector<uint64_t> data(130 * words);
  for (auto& w : data) w = rng() & rng();
  bulk->SetRows(37, 130, data);
  for (uint32_t r = 0; r < 130; ++r) {
    for (uint32_t pos = 0; pos < m; ++pos) {
      if ((data[r * words + pos / 64] >> (pos % 64)) & 1)
        single->Set(37 + r, pos);
    }
  }
  for (uint32_t r = 0; r < 200; ++r) {
    for (uint32_t pos = 0; pos < m; ++pos) {
      ASSERT_EQ(bulk->Test(r, pos), single->Test(r, pos)) << r << " " << pos;
    }
  }
}

// The sliced layout holds rows in bytes of 8: a slice of 201 rows is 26
// bytes, not the 32 of whole 64-row words.
TEST(BitSlicedMatrixTest, ReservedRowsCostOneByteOfSlicePerEightRows) {
  const uint32_t m = 100000;
  auto matrix = NewBitSlicedMatrix(m);
  matrix->Reserve(201);
  const size_t exact = size_t{m} * 26;
  EXPECT_GE(matrix->MemoryBytes(), exact);
  EXPECT_LE(matrix->MemoryBytes(), exact + 128);  // tail word + alignment
}

// The paper's layout holds whole 64-bit words per row, with no slack once
// the row count is reserved.
TEST(RowMajorMatrixTest, ReservedRowsCostWholeWordsPerRow) {
  const uint32_t m = 100000;
  auto matrix = NewRowMajorMatrix(m);
  matrix->Reserve(201);
  const size_t exact = size_t{201} * ((m + 63) / 64) * 8;
  EXPECT_GE(matrix->MemoryBytes(), exact);
  EXPECT_LE(matrix->MemoryBytes(), exact + 64);  // cache-line rounding
}

// SetBits sets what Set sets, bit by bit, and counts the bits it found
// clear, repeats included once.
TEST_P(RowMatrixTest, SetBitsEqualsSetBitByBit) {
  const uint32_t m = 3001;
  auto many = Make(m);
  auto single = Make(m);
  std::mt19937_64 rng(5);
  for (uint32_t r = 0; r < 70; ++r) {
    many->AddRow();
    single->AddRow();
  }
  for (int round = 0; round < 40; ++round) {
    const auto row = static_cast<uint32_t>(rng() % 70);
    std::vector<uint32_t> positions(rng() % 200);
    for (auto& p : positions)
      p = static_cast<uint32_t>(rng() % 300);  // repeats
    uint32_t newly = 0;
    for (uint32_t p : positions) newly += single->Set(row, p) ? 1u : 0u;
    ASSERT_EQ(many->SetBits(row, positions), newly);
  }
  for (uint32_t r = 0; r < 70; ++r) {
    for (uint32_t p = 0; p < m; ++p) {
      ASSERT_EQ(many->Test(r, p), single->Test(r, p)) << r << " " << p;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, RowMatrixTest, ::testing::Values(true, false),
                         [](const auto& param_info) {
                           return param_info.param ? "BitSliced" : "RowMajor";
                         });

}  // namespace
}  // namespace leakhound
