#include "cli/gateway/duplicate_cache.h"

#include "engine/content_digest.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

MessageVerdict Leak(const std::string& doc) {
  MessageVerdict v;
  v.kind = MessageVerdict::Kind::kLeak;
  v.documents = {doc};
  return v;
}

TEST(DuplicateCacheTest, AVerdictIsReusedForTheSameTextAndIndexGeneration) {
  auto cache = DuplicateCache::Create(100);
  ASSERT_TRUE(cache.ok());
  const std::string a = ContentDigest("message a"),
                    b = ContentDigest("message b");
  EXPECT_FALSE((*cache)->Lookup(a, 1).has_value());
  (*cache)->Insert(a, 1, Leak("memo"));
  auto hit = (*cache)->Lookup(a, 1);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->documents, std::vector<std::string>{"memo"});
  EXPECT_FALSE((*cache)->Lookup(b, 1).has_value());
  // After a reload (a new generation) the verdict is stale.
  EXPECT_FALSE((*cache)->Lookup(a, 2).has_value());
  const DuplicateCache::Stats s = (*cache)->stats();
  EXPECT_EQ(s.lookups, 4u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_GE(s.filter_positives, 1u);
}

TEST(DuplicateCacheTest, OnlyTheLastWindowOfMessagesIsRemembered) {
  auto cache = DuplicateCache::Create(50);
  ASSERT_TRUE(cache.ok());
  const std::string first = ContentDigest("first");
  (*cache)->Insert(first, 1, Leak("x"));
  for (int i = 0; i < 49; ++i) {
    (*cache)->Insert(ContentDigest(std::to_string(i)), 1, MessageVerdict{});
  }
  EXPECT_TRUE((*cache)->Lookup(first, 1).has_value());
  (*cache)->Insert(ContentDigest("one more"), 1, MessageVerdict{});
  EXPECT_FALSE((*cache)->Lookup(first, 1).has_value());
}

}  // namespace
}  // namespace leakhound
