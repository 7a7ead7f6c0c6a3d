#include "index/rocks_database.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_batch.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

using Family = IndexBatch::Family;

TEST(RocksDatabaseTest, AWriteIsReadBackByKeyInBatchesAndInKeyOrder) {
  TempDir tmp;
  const std::string dir = tmp.Sub("db");
  std::filesystem::create_directory(dir);
  auto db = RocksDatabase::OpenWriter(dir, /*create=*/true, nullptr, "test");
  ASSERT_TRUE(db.ok()) << db.status();
  IndexBatch batch;
  batch.PutAllowEntry("b", AllowRecord{});
  batch.PutAllowEntry("a", AllowRecord{});
  batch.PutAllowEntry("c", AllowRecord{});
  batch.DeleteAllowEntry("c");
  ASSERT_TRUE((*db)->Write(batch).ok());

  EXPECT_TRUE((*db)->Get(Family::kAllow, "a")->has_value());
  EXPECT_EQ(*(*db)->Get(Family::kAllow, "c"), std::nullopt);
  EXPECT_EQ(*(*db)->Get(Family::kRows, "a"), std::nullopt);  // other family
  const std::vector<std::string> keys = {"c", "b"};
  auto values = (*db)->MultiGet(Family::kAllow, keys);
  ASSERT_TRUE(values.ok());
  EXPECT_EQ((*values)[0], std::nullopt);
  EXPECT_EQ((*values)[1], *(*db)->Get(Family::kAllow, "b"));
  std::vector<std::string> seen;
  ASSERT_TRUE((*db)
                  ->ForEach(Family::kAllow,
                            [&](std::string_view key, std::string_view) {
                              seen.emplace_back(key);
                              return absl::OkStatus();
                            })
                  .ok());
  EXPECT_THAT(seen, ElementsAre("a", "b"));
}

TEST(RocksDatabaseTest, AReaderSeesTheDatabaseAsOfItsOpen) {
  TempDir tmp;
  const std::string dir = tmp.Sub("db");
  std::filesystem::create_directory(dir);
  auto writer = RocksDatabase::OpenWriter(dir, /*create=*/true, nullptr, "w");
  ASSERT_TRUE(writer.ok()) << writer.status();
  IndexBatch first;
  first.PutLocation("k", LocationRecord{"one", 1});
  ASSERT_TRUE((*writer)->Write(first).ok());
  auto reader = RocksDatabase::OpenReader(dir, nullptr, false, "r");
  ASSERT_TRUE(reader.ok()) << reader.status();
  IndexBatch second;
  second.PutLocation("l", LocationRecord{"two", 2});
  ASSERT_TRUE((*writer)->Write(second).ok());
  EXPECT_TRUE((*reader)->Get(Family::kLocations, "k")->has_value());
  EXPECT_EQ(*(*reader)->Get(Family::kLocations, "l"), std::nullopt);
  auto fresh = RocksDatabase::OpenReader(dir, nullptr, false, "r");
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE((*fresh)->Get(Family::kLocations, "l")->has_value());
}

TEST(RocksDatabaseTest, ANewDatabaseHasEveryFamilyAndNoDatabaseIsAnError) {
  TempDir tmp;
  const std::string dir = tmp.Sub("db");
  std::filesystem::create_directory(dir);
  {
    auto db = RocksDatabase::OpenWriter(dir, /*create=*/true, nullptr, "w");
    ASSERT_TRUE(db.ok()) << db.status();
  }
  auto missing = RocksDatabase::MissingFamily(dir, true, nullptr, "w");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(*missing, std::nullopt);
  auto none = RocksDatabase::MissingFamily(tmp.Sub("nothing"), false, nullptr,
                                           "cannot open index x");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()),
              ::testing::StartsWith("cannot open index x: "));
}

}  // namespace
}  // namespace leakhound
