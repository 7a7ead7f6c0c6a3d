#include "engine/document_cache.h"

#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "index/index_store.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";

// A store holding documents 0..count-1, each with `occurrences` shingles.
std::unique_ptr<IndexStore> StoreWith(TempDir& tmp, uint32_t count,
                                      uint32_t occurrences) {
  auto store = IndexStore::Create(tmp.Sub("idx"), MetadataRecord{}, kKey);
  EXPECT_TRUE(store.ok());
  IndexBatch batch;
  for (uint32_t id = 0; id < count; ++id) {
    DocumentRecord doc;
    doc.external_id = "doc" + std::to_string(id);
    doc.digest = std::string(32, static_cast<char>(id));
    FingerprintsRecord list;
    for (uint32_t i = 0; i < occurrences; ++i) {
      list.occurrences.push_back({uint64_t{id} * 1000 + i, i, i + 5, i, i + 9});
    }
    batch.PutDocument(id, doc, list);
  }
  EXPECT_TRUE((*store)->Commit(batch).ok());
  return std::move(*store);
}

TEST(DocumentCacheTest, ReturnsTheStoredDocumentAndKeepsItWithinBudget) {
  TempDir tmp;
  auto store = StoreWith(tmp, 3, 100);
  DocumentCache cache(*store, 1 << 20);
  auto first = cache.Get(1);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->external_id, "doc1");
  ASSERT_EQ((*first)->list.occurrences.size(), 100u);
  EXPECT_EQ((*first)->list.occurrences[7].fingerprint, 1007u);
  auto again = cache.Get(1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first->get(), again->get());  // the same decoded copy
  EXPECT_EQ(cache.Get(9).status().code(), absl::StatusCode::kNotFound);
}

TEST(DocumentCacheTest, EvictsTheOldestBeyondTheBudget) {
  TempDir tmp;
  auto store = StoreWith(tmp, 4, 1000);  // about 24 KB decoded each
  DocumentCache cache(*store, 60 << 10);
  auto d0 = cache.Get(0);
  ASSERT_TRUE(d0.ok());
  for (uint32_t id : {1u, 2u, 3u}) ASSERT_TRUE(cache.Get(id).ok());
  auto d0_again = cache.Get(0);
  ASSERT_TRUE(d0_again.ok());
  EXPECT_NE(d0->get(), d0_again->get());  // evicted, read again
  EXPECT_EQ((*d0_again)->list, (*d0)->list);
}

TEST(DocumentCacheTest, ConcurrentReadersAgree) {
  TempDir tmp;
  auto store = StoreWith(tmp, 20, 200);
  DocumentCache cache(*store, 100 << 10);
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        const auto id = static_cast<uint32_t>((i * 7 + t) % 20);
        auto d = cache.Get(id);
        if (!d.ok() || (*d)->external_id != "doc" + std::to_string(id)) {
          ++wrong[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace leakhound
