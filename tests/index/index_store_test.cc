#include "index/index_store.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

const std::string kKey(32, 'k');

MetadataRecord Metadata() {
  MetadataRecord m;
  m.shingler_version = 1;
  m.shingle_words = 5;
  m.fpr = 1e-3;
  m.row_capacity = 128;
  m.fill = 1.0;
  m.bits = 1840;
  m.hashes = 10;
  return m;
}

DocumentRecord Doc(const std::string& id, char digest) {
  DocumentRecord d;
  d.external_id = id;
  d.source = "/src/" + id;
  d.digest = std::string(32, digest);
  d.bytes = 100;
  d.fingerprints = 2;
  d.occurrences = 2;
  d.rows = {0};
  return d;
}

FingerprintsRecord Fps() {
  return FingerprintsRecord{{{11, 0, 5, 0, 20}, {12, 1, 6, 3, 25}}, "abcdef"};
}

TEST(IndexStoreTest, CreateThenOpenReturnsMetadataAndKey) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    auto store = IndexStore::Create(dir, Metadata(), kKey);
    ASSERT_TRUE(store.ok()) << store.status();
  }
  auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  ASSERT_TRUE(store.ok()) << store.status();
  MetadataRecord expected = Metadata();
  expected.format_version = kFormatVersion;
  expected.created_unix_ms = (*store)->metadata().created_unix_ms;
  EXPECT_GT(expected.created_unix_ms, 0);
  EXPECT_EQ((*store)->metadata(), expected);
  EXPECT_EQ((*store)->key(), kKey);
  auto state = (*store)->ReadState();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, StateRecord{});
}

TEST(IndexStoreTest, DirectoryAndKeyAreOwnerOnly) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  ASSERT_TRUE(IndexStore::Create(dir, Metadata(), kKey).ok());
  struct stat st;
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((dir + "/key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(IndexStoreTest, CreateRefusesANonEmptyDirectory) {
  TempDir tmp;
  std::ofstream(tmp.Sub("precious.txt")) << "data";
  auto store = IndexStore::Create(tmp.path(), Metadata(), kKey);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(std::filesystem::exists(tmp.Sub("precious.txt")));
}

TEST(IndexStoreTest, OpeningAMissingIndexSaysHowToCreateOne) {
  TempDir tmp;
  auto store = IndexStore::Open(tmp.Sub("nope"), IndexStore::Mode::kReader);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(store.status().message()),
              HasSubstr("leakhound init"));
}

TEST(IndexStoreTest, KeyReadableByOthersIsRefused) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  ASSERT_TRUE(IndexStore::Create(dir, Metadata(), kKey).ok());
  ASSERT_EQ(::chmod((dir + "/key").c_str(), 0644), 0);
  auto store = IndexStore::Open(dir, IndexStore::Mode::kReader);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("chmod 600"));
}

TEST(IndexStoreTest, SecondWriterIsRefusedWhileReadersAreFine) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto writer = IndexStore::Create(dir, Metadata(), kKey);
  ASSERT_TRUE(writer.ok());
  auto second = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("locked by"));
  auto reader = IndexStore::Open(dir, IndexStore::Mode::kReader);
  EXPECT_TRUE(reader.ok()) << reader.status();
}

TEST(IndexStoreTest, CommittedBatchIsReadBack) {
  TempDir tmp;
  auto store = IndexStore::Create(tmp.Sub("idx"), Metadata(), kKey);
  ASSERT_TRUE(store.ok());
  IndexBatch batch;
  batch.PutDocument(5, Doc("a", 'x'), Fps());
  batch.PutRow(0, RowRecord{{{5, 0, 2}}, 2, 20}, std::string(232, '\x0f'));
  batch.PutState(StateRecord{6, 1, 0});
  ASSERT_TRUE((*store)->Commit(batch).ok());

  auto doc = (*store)->ReadDocument(5);
  ASSERT_TRUE(doc.ok() && doc->has_value());
  EXPECT_EQ(**doc, Doc("a", 'x'));
  EXPECT_EQ(*(*store)->FindExternalId("a"), std::optional<uint32_t>(5));
  EXPECT_EQ(*(*store)->FindDigest(std::string(32, 'x')),
            std::optional<uint32_t>(5));
  EXPECT_EQ(*(*store)->ReadFingerprints(5), Fps());
  EXPECT_EQ(**(*store)->ReadRowBits(0), std::string(232, '\x0f'));
  EXPECT_EQ((*store)->ReadState()->next_doc_id, 6u);
  int rows = 0;
  ASSERT_TRUE((*store)
                  ->ForEachRow([&](uint32_t id, const RowRecord& r) {
                    EXPECT_EQ(id, 0u);
                    EXPECT_EQ(r.fingerprints, 2u);
                    ++rows;
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(rows, 1);

  IndexBatch remove;
  remove.DeleteDocument(5, Doc("a", 'x'));
  remove.PutRow(0, RowRecord{}, "");
  ASSERT_TRUE((*store)->Commit(remove).ok());
  EXPECT_FALSE((*store)->ReadDocument(5)->has_value());
  EXPECT_FALSE((*store)->FindExternalId("a")->has_value());
  EXPECT_FALSE((*store)->ReadRowBits(0)->has_value());
  EXPECT_EQ((*store)->ReadFingerprints(5).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(IndexStoreTest, CountBucketsAreReadInTheOrderAskedAndEmptyOnesDeleted) {
  TempDir tmp;
  auto store = IndexStore::Create(tmp.Sub("idx"), Metadata(), kKey);
  ASSERT_TRUE(store.ok());
  const CountBucketRecord high{{{0xffff000000000001ULL, 3}}};
  const CountBucketRecord low{{{7, 1}, {9, 2}}};
  const CountBucketRecord shared{{{9, 2}}};
  IndexBatch batch;
  batch.PutCountBucket(CountTable::kAll, 0xffff, high);
  batch.PutCountBucket(CountTable::kAll, 0, low);
  batch.PutCountBucket(CountTable::kShared, 0, shared);
  ASSERT_TRUE((*store)->Commit(batch).ok());
  // Out of key order, with a repeat and an absent bucket: answers follow
  // the question; the shared table is apart.
  const std::vector<uint32_t> ask = {0xffff, 5, 0, 0};
  auto read = (*store)->ReadCountBuckets(ask);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, (std::vector<CountBucketRecord>{high, {}, low, low}));

  IndexBatch drop;
  drop.PutCountBucket(CountTable::kAll, 0, CountBucketRecord{});  // deletes
  ASSERT_TRUE((*store)->Commit(drop).ok());
  for (CountTable table : {CountTable::kAll, CountTable::kShared}) {
    std::vector<std::pair<uint32_t, CountBucketRecord>> all;
    ASSERT_TRUE((*store)
                    ->ForEachCountBucket(table,
                                         [&](uint32_t b,
                                             const CountBucketRecord& r) {
                                           all.emplace_back(b, r);
                                           return absl::OkStatus();
                                         })
                    .ok());
    if (table == CountTable::kAll) {
      EXPECT_EQ(all, (std::vector<std::pair<uint32_t, CountBucketRecord>>{
                         {0xffff, high}}));
    } else {
      EXPECT_EQ(all, (std::vector<std::pair<uint32_t, CountBucketRecord>>{
                         {0, shared}}));
    }
  }
}

TEST(IndexStoreTest, AllowEntriesAreStoredByName) {
  TempDir tmp;
  auto store = IndexStore::Create(tmp.Sub("idx"), Metadata(), kKey);
  ASSERT_TRUE(store.ok());
  const AllowRecord entry{"disclaimer.txt", std::string(32, 'd'), 5, {1, 9}};
  IndexBatch batch;
  batch.PutAllowEntry("disclaimer", entry);
  ASSERT_TRUE((*store)->Commit(batch).ok());
  EXPECT_EQ(**(*store)->ReadAllowEntry("disclaimer"), entry);
  EXPECT_FALSE((*store)->ReadAllowEntry("other")->has_value());
  int seen = 0;
  ASSERT_TRUE((*store)
                  ->ForEachAllowEntry([&](std::string_view name,
                                          const AllowRecord& r) {
                    EXPECT_EQ(name, "disclaimer");
                    EXPECT_EQ(r, entry);
                    ++seen;
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(seen, 1);
  IndexBatch remove;
  remove.DeleteAllowEntry("disclaimer");
  ASSERT_TRUE((*store)->Commit(remove).ok());
  EXPECT_FALSE((*store)->ReadAllowEntry("disclaimer")->has_value());
}

TEST(IndexStoreTest, ReaderSeesWritesOnlyAfterReopenAndReadsTheGeneration) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto writer = IndexStore::Create(dir, Metadata(), kKey);
  ASSERT_TRUE(writer.ok());
  auto reader = IndexStore::Open(dir, IndexStore::Mode::kReader);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(*(*reader)->CommittedGeneration(), 0u);

  IndexBatch batch;
  batch.PutDocument(0, Doc("a", 'x'), Fps());
  batch.PutState(StateRecord{1, 1, 0});
  ASSERT_TRUE((*writer)->Commit(batch).ok());

  EXPECT_EQ(*(*reader)->CommittedGeneration(), 1u);
  EXPECT_EQ(*(*writer)->CommittedGeneration(), 1u);
  EXPECT_FALSE((*reader)->ReadDocument(0)->has_value());  // the old view
  ASSERT_TRUE((*reader)->Reopen().ok());
  EXPECT_TRUE((*reader)->ReadDocument(0)->has_value());
  EXPECT_EQ((*reader)->ReadState()->generation, 1u);
  EXPECT_EQ((*reader)->Commit(batch).code(),
            absl::StatusCode::kFailedPrecondition);
}

// The case a reader that tails the writer gets wrong (rocksdb issues
// 14444, 15051): the writer commits, then flushes and closes (what
// `leakhound add` does), with a reader polling between the steps or not.
TEST(IndexStoreTest, GenerationIsReadAfterTheWriterFlushedAndClosed) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto reader_holder = [&]() -> std::unique_ptr<IndexStore> {
    auto w = IndexStore::Create(dir, Metadata(), kKey);
    if (!w.ok()) return nullptr;
    auto r = IndexStore::Open(dir, IndexStore::Mode::kReader);
    return r.ok() ? std::move(*r) : nullptr;
  }();
  ASSERT_NE(reader_holder, nullptr);
  for (uint32_t g = 1; g <= 5; ++g) {
    auto writer = IndexStore::Open(dir, IndexStore::Mode::kWriter);
    ASSERT_TRUE(writer.ok()) << writer.status();
    IndexBatch batch;
    batch.PutDocument(g, Doc(absl::StrCat("d", g), static_cast<char>('a' + g)),
                      Fps());
    batch.PutState(StateRecord{g + 1, g, 0});
    ASSERT_TRUE((*writer)->Commit(batch).ok());
    // Read between the commit and the close or not: a reader that had
    // replayed the log before the flush kept the older generation.
    if (g % 2 == 0) {
      EXPECT_EQ(*reader_holder->CommittedGeneration(), g);
    }
    writer->reset();  // flushes every family, then closes
    EXPECT_EQ(*reader_holder->CommittedGeneration(), g) << "generation " << g;
  }
}

TEST(IndexStoreTest, OtherFormatVersionIsRefusedWithAdvice) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    auto store = IndexStore::Create(dir, Metadata(), kKey);
    ASSERT_TRUE(store.ok());
    MetadataRecord future = (*store)->metadata();
    future.format_version = 99;
    IndexBatch batch;
    batch.PutMetadata(future);
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  auto store = IndexStore::Open(dir, IndexStore::Mode::kReader);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(store.status().message()),
              HasSubstr("storage format 99"));
}

TEST(IndexStoreTest, CompactStorageKeepsTheRecords) {
  TempDir tmp;
  auto store = IndexStore::Create(tmp.Sub("idx"), Metadata(), kKey);
  ASSERT_TRUE(store.ok());
  for (uint32_t i = 0; i < 50; ++i) {
    IndexBatch batch;
    batch.PutDocument(i, Doc("d" + std::to_string(i), static_cast<char>(i)),
                      Fps());
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  for (uint32_t i = 0; i < 50; i += 2) {
    IndexBatch batch;
    batch.DeleteDocument(i, Doc("d" + std::to_string(i), static_cast<char>(i)));
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  ASSERT_TRUE((*store)->CompactStorage().ok());
  int docs = 0;
  ASSERT_TRUE((*store)
                  ->ForEachDocument([&](uint32_t id, const DocumentRecord&) {
                    EXPECT_EQ(id % 2, 1u);
                    ++docs;
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(docs, 25);
  EXPECT_GT((*store)->DiskBytes(), 0u);
}

}  // namespace
}  // namespace leakhound
