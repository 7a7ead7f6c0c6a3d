#include "index/io_faults.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_store.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(IoFaultsTest, FailsTheNthOperationOfTheArmedKindsOnly) {
  IoFaults faults;
  faults.Arm(IoMask(IoKind::kWrite) | IoMask(IoKind::kSync), 3, false);
  EXPECT_FALSE(faults.ShouldFail(IoKind::kWrite));  // 1
  EXPECT_FALSE(faults.ShouldFail(IoKind::kRead));   // not armed: not counted
  EXPECT_FALSE(faults.ShouldFail(IoKind::kSync));   // 2
  EXPECT_TRUE(faults.ShouldFail(IoKind::kWrite));   // 3
  EXPECT_FALSE(faults.ShouldFail(IoKind::kWrite));  // 4: not sticky
  EXPECT_EQ(faults.injected(), 1u);
  EXPECT_EQ(faults.seen(IoKind::kWrite), 3u);
  EXPECT_EQ(faults.seen(IoKind::kRead), 1u);
}

TEST(IoFaultsTest, StickyFailsEverythingFromTheNthOnUntilDisarmed) {
  IoFaults faults;
  faults.Arm(IoMask(IoKind::kRead), 2, true);
  EXPECT_FALSE(faults.ShouldFail(IoKind::kRead));
  EXPECT_TRUE(faults.ShouldFail(IoKind::kRead));
  EXPECT_TRUE(faults.ShouldFail(IoKind::kRead));
  faults.Disarm();
  EXPECT_FALSE(faults.ShouldFail(IoKind::kRead));
  EXPECT_EQ(faults.injected(), 2u);
  faults.Arm(IoMask(IoKind::kRead), 1, false);  // counts start again
  EXPECT_EQ(faults.injected(), 0u);
  EXPECT_TRUE(faults.ShouldFail(IoKind::kRead));
}

// The faults reach RocksDB: with every write failing, a commit fails in
// one line naming the injected error, and the store as reopened without
// faults lacks what the commit carried.
TEST(IoFaultsTest, AStoreOpenedWithFaultsFailsItsCommitsInOneLine) {
  TempDir tmp;
  const std::string dir = tmp.Sub("index");
  MetadataRecord metadata;
  metadata.shingle_words = 5;
  {
    auto store = IndexStore::Create(dir, metadata, std::string(32, 'k'));
    ASSERT_TRUE(store.ok()) << store.status();
  }
  IoFaults faults;
  {
    auto store =
        IndexStore::OpenWithFaults(dir, IndexStore::Mode::kWriter, &faults);
    ASSERT_TRUE(store.ok()) << store.status();
    faults.Arm(IoMask(IoKind::kWrite), 1, true);
    IndexBatch batch;
    batch.PutState(StateRecord{7, 9, -1});
    const absl::Status s = (*store)->Commit(batch);
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr("injected I/O error"));
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << s;
    EXPECT_GT(faults.injected(), 0u);
    faults.Disarm();
  }
  auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  ASSERT_TRUE(store.ok()) << store.status();
  auto state = (*store)->ReadState();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->generation, 0u);
}

}  // namespace
}  // namespace leakhound
