#include "engine/filter/row_table.h"

#include <ios>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

// Golden: StateRecord::rows_digest is on disk; a change here is a storage
// format change.
TEST(RowTableTest, RowsDigestIsPinnedAndSeesEveryField) {
  std::vector<RowInfo> rows(3);
  rows[0] = RowInfo{{Segment{7, 0, 100}, Segment{9, 0, 50}}, 150, 1200};
  rows[2] = RowInfo{{Segment{9, 50, 80}}, 30, 250};  // row 1 is free
  EXPECT_EQ(RowHash(1, rows[1]), 0u);
  const uint64_t digest = RowsDigest(rows);
  EXPECT_EQ(digest, 0xd9d6e69c9cb92285u) << std::hex << digest;
  EXPECT_EQ(RowsDigest({}), kRowsDigestSeed);
  // Every field moves it.
  for (int field = 0; field < 5; ++field) {
    std::vector<RowInfo> changed = rows;
    Segment& s = changed[0].segments[1];
    if (field == 0) ++s.doc;
    if (field == 1) ++s.begin;
    if (field == 2) ++s.end;
    if (field == 3) ++changed[0].fingerprints;
    if (field == 4) ++changed[0].bits_set;
    EXPECT_NE(RowsDigest(changed), digest) << "field " << field;
  }
  // So does the row a segment is in.
  std::vector<RowInfo> moved = rows;
  std::swap(moved[1], moved[2]);
  EXPECT_NE(RowsDigest(moved), digest);
}

}  // namespace
}  // namespace leakhound
