#include "engine/index_verifier.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "index/key_format.h"
#include "tests/engine/real_documents.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

// verify's report on the index in `dir`, opened as a reader: its problems,
// one per line.
std::string StoredProblems(const std::string& dir) {
  auto store = IndexStore::Open(dir, IndexStore::Mode::kReader);
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return "cannot open";
  auto report = VerifyIndex(**store);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return "cannot verify";
  std::string all;
  for (const std::string& p : report->problems) all += p + "\n";
  return all;
}

TEST(IndexVerifierTest, ReportsAWrongDocumentFrequency) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    ASSERT_TRUE(CreateWith(dir, 3).ok());
  }
  auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  ASSERT_TRUE(store.ok());
  // A fingerprint no document holds, added to its bucket.
  const std::vector<uint32_t> bucket = {CountBucketOf(12345)};
  auto read = (*store)->ReadCountBuckets(bucket);
  ASSERT_TRUE(read.ok());
  CountBucketRecord record{
      {FingerprintCount{12345, 1}}};  // ascending: smallest
  const auto& rest = read->front().entries;
  record.entries.insert(record.entries.end(), rest.begin(), rest.end());
  IndexBatch batch;
  batch.PutCountBucket(CountTable::kAll, bucket[0], record);
  ASSERT_TRUE((*store)->Commit(batch).ok());
  auto report = VerifyIndex(**store);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_THAT(report->problems[0],
              HasSubstr("1 fingerprints have a wrong document frequency"));
}

TEST(IndexVerifierTest, ReportsTamperedRowBitsAndCounts) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    ASSERT_TRUE(CreateWith(dir, 20).ok());
  }
  {
    auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok());
    auto bits = (*store)->ReadRowBits(1);
    ASSERT_TRUE(bits.ok() && bits->has_value());
    std::string flipped = **bits;
    flipped[3] = static_cast<char>(flipped[3] ^ 0x10);
    RowRecord row;
    ASSERT_TRUE((*store)
                    ->ForEachRow([&](uint32_t id, const RowRecord& r) {
                      if (id == 1) row = r;
                      return absl::OkStatus();
                    })
                    .ok());
    row.fingerprints += 1;
    IndexBatch batch;
    batch.PutRow(1, row, flipped);
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  const std::string all = StoredProblems(dir);
  EXPECT_THAT(all, HasSubstr("row 1 bits differ"));
  EXPECT_THAT(all, HasSubstr("row 1 records"));
  EXPECT_THAT(all, HasSubstr("row 1 counts"));
  EXPECT_THAT(all, HasSubstr("the state's rows digest is not the row table's"));
}

TEST(IndexVerifierTest, ReportsAGroupLackingItsRowsFingerprints) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    IndexOptions options = SmallRows();
    options.group_rows = 64;
    auto index = ProtectedIndex::Create(dir, options);
    ASSERT_TRUE(index.ok());
    for (size_t i = 0; i < 20; ++i) {
      ASSERT_TRUE(AddDoc(**index, RealDocuments()[i]).ok());
    }
  }
  {
    auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok());
    auto bits = (*store)->ReadGroupBits(0);
    ASSERT_TRUE(bits.ok() && bits->has_value());
    IndexBatch batch;
    batch.PutGroupBits(0, std::string((*bits)->size(), '\0'));
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  const std::string all = StoredProblems(dir);
  EXPECT_THAT(all, HasSubstr("row group 0 lacks"));
}

}  // namespace
}  // namespace leakhound
