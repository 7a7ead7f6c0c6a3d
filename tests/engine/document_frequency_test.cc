#include "engine/document_frequency.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_store.h"
#include "index/key_format.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";

std::unique_ptr<IndexStore> NewStore(TempDir& tmp) {
  MetadataRecord meta;
  auto store = IndexStore::Create(tmp.Sub("idx"), meta, kKey);
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

// Flushes into a batch and commits it.
void FlushAndCommit(DocumentFrequency& frequency, IndexStore& store) {
  IndexBatch batch;
  ASSERT_TRUE(frequency.Flush(batch).ok());
  ASSERT_TRUE(store.Commit(batch).ok());
}

uint32_t StoredCount(const IndexStore& store, uint64_t fp) {
  const std::vector<uint32_t> bucket = {CountBucketOf(fp)};
  auto read = store.ReadCountBuckets(bucket);
  EXPECT_TRUE(read.ok());
  for (const FingerprintCount& e : read->front().entries) {
    if (e.fingerprint == fp) return e.documents;
  }
  return 0;
}

// Two fingerprints in one bucket of each table, one far away.
constexpr uint64_t kA = 0x1234000000000001ULL;
constexpr uint64_t kB = 0x1234000000000002ULL;
constexpr uint64_t kC = 0xfedc000000000003ULL;

TEST(DocumentFrequencyTest, CountsFollowArrivalsAndDeparturesOnlyAfterFlush) {
  TempDir tmp;
  auto store = NewStore(tmp);
  auto frequency = DocumentFrequency::Load(*store);
  ASSERT_TRUE(frequency.ok());
  const std::vector<uint64_t> first = {kA, kB}, second = {kA, kC},
                              third = {kA};
  frequency->Apply(first, {});
  frequency->Apply(second, {});
  EXPECT_EQ(frequency->pending(), 4u);
  EXPECT_EQ(frequency->SharedCount(kA), 0u);  // not flushed yet
  FlushAndCommit(*frequency, *store);
  EXPECT_EQ(frequency->SharedCount(kA), 2u);
  EXPECT_EQ(frequency->SharedCount(kB), 0u);  // one document: not shared
  EXPECT_EQ(StoredCount(*store, kB), 1u);
  EXPECT_EQ(StoredCount(*store, kC), 1u);
  // A third document arrives and the first leaves, in one flush.
  frequency->Apply(third, first);
  FlushAndCommit(*frequency, *store);
  EXPECT_EQ(frequency->SharedCount(kA), 2u);
  EXPECT_EQ(StoredCount(*store, kB), 0u);
  // A reader loading the store sees the same shared counts.
  auto reloaded = DocumentFrequency::Load(*store);
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(reloaded->SharedCount(kA), 2u);
  EXPECT_EQ(reloaded->shared_size(), 1u);
}

TEST(DocumentFrequencyTest,
     RemovingAnUnknownFingerprintIsDataLossAndChangesNothing) {
  TempDir tmp;
  auto store = NewStore(tmp);
  auto frequency = DocumentFrequency::Load(*store);
  ASSERT_TRUE(frequency.ok());
  const std::vector<uint64_t> held = {kA, kB}, again = {kA}, unknown = {kC};
  frequency->Apply(held, {});
  frequency->Apply(again, {});
  FlushAndCommit(*frequency, *store);
  frequency->Apply({}, again);
  frequency->Apply({}, unknown);
  IndexBatch batch;
  EXPECT_EQ(frequency->Flush(batch).code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(frequency->pending(), 0u);
  EXPECT_EQ(frequency->SharedCount(kA), 2u);
}

TEST(DocumentFrequencyTest,
     LoadRefusesABucketHoldingAnotherBucketsFingerprint) {
  TempDir tmp;
  auto store = NewStore(tmp);
  IndexBatch batch;
  batch.PutCountBucket(CountTable::kShared,
                       CountBucketOf(kA, CountTable::kShared) + 1,
                       CountBucketRecord{{{kA, 2}}});
  ASSERT_TRUE(store->Commit(batch).ok());
  EXPECT_EQ(DocumentFrequency::Load(*store).status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace leakhound
