#include "cli/records/cell_hasher.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace leakhound {
namespace {

// PERSISTED: stored cell hashes are these; a change here is a storage
// format change (docs/storage_format.md). The values were computed apart
// from this code, with Python's hashlib.blake2b and the derivation in
// cell_hasher.h.
TEST(CellHasherTest, HashesAreGolden) {
  const std::string key(32, '\x01');
  auto hasher = CellHasher::Create(key);
  ASSERT_TRUE(hasher.ok());
  EXPECT_EQ((*hasher)->Hash(CellType::kCard, "4111111111111111"),
            0xca47410fd9193362ULL);
  EXPECT_EQ((*hasher)->Hash(CellType::kEmail, "john.smith@example.com"),
            0x715b3d330c6e4989ULL);
}

// PERSISTED as the `row_key` of findings and incidents; computed apart
// with hashlib.blake2b as the header derives it.
TEST(CellHasherTest, RowKeysAreGoldenAndTellRowsApart) {
  auto hasher = CellHasher::Create(std::string(32, '\x01'));
  ASSERT_TRUE(hasher.ok());
  EXPECT_EQ((*hasher)->RowKey("customers", 0), "ad0bf3779b3f1608");
  EXPECT_EQ((*hasher)->RowKey("customers", 1), "971f1d881492a23f");
  EXPECT_EQ((*hasher)->RowKey("orders", 0), "92976cbf00b4709e");
}

TEST(CellHasherTest, TheKeyAndTheTypeChangeTheHash) {
  auto a = CellHasher::Create(std::string(32, '\x01'));
  auto b = CellHasher::Create(std::string(32, '\x02'));
  ASSERT_TRUE(a.ok() && b.ok());
  std::set<uint64_t> seen = {
      (*a)->Hash(CellType::kCard, "4111111111111111"),
      (*b)->Hash(CellType::kCard, "4111111111111111"),
      (*a)->Hash(CellType::kNationalId, "4111111111111111"),
  };
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ((*a)->Hash(CellType::kCard, "4111111111111111"),
            (*a)->Hash(CellType::kCard, "4111111111111111"));
}

TEST(CellHasherTest, AKeyOfTheWrongSizeIsRefused) {
  EXPECT_FALSE(CellHasher::Create("short").ok());
}

}  // namespace
}  // namespace leakhound
