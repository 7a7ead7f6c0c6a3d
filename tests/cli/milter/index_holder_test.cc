// IndexHolder on a real index (RocksDB in a temp dir): a reload picks up
// the writer's add while a snapshot taken before stays usable.
#include "cli/milter/index_holder.h"

#include <fstream>

#include "engine/leak_scanner.h"
#include "gtest/gtest.h"
#include "tests/cli/run_leakhound.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

TEST(IndexHolderTest, ReloadPicksUpAnAddWhileOldSnapshotsStayUsable) {
  TempDir tmp;
  const std::string dir = tmp.Sub("index");
  auto writer = ProtectedIndex::Create(dir, IndexOptions{});
  ASSERT_TRUE(writer.ok()) << writer.status();
  const std::string first =
      "The quarterly figures for the northern region show a decline in "
      "orders of eleven percent, mostly from the loss of two wholesale "
      "customers whose contracts ended in the spring and were not renewed.";
  ASSERT_TRUE((*writer)->Add(DocumentInput{"q.txt", "q.txt", {}, first}).ok());
  auto holder = IndexHolder::Open(dir);
  ASSERT_TRUE(holder.ok()) << holder.status();

  // Nothing new: no swap, same generation.
  const IndexHolder::Snapshot before = (*holder)->Current();
  auto unchanged = (*holder)->Reload();
  ASSERT_TRUE(unchanged.ok()) << unchanged.status();
  EXPECT_FALSE(*unchanged);
  EXPECT_EQ((*holder)->Current().generation, before.generation);
  EXPECT_EQ((*holder)->Current().serial, before.serial);

  const std::string second =
      "The relocation of the archive servers to the Tallinn site begins on "
      "the fourth of May; the tape library moves first, the indexing cluster "
      "follows a week later, and the old racks are returned to the landlord "
      "at the end of June.";
  ASSERT_TRUE((*writer)->Add(DocumentInput{"plan.txt", "plan.txt", {}, second}).ok());
  auto reloaded = (*holder)->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_TRUE(*reloaded);
  const IndexHolder::Snapshot after = (*holder)->Current();
  EXPECT_GT(after.generation, before.generation);
  EXPECT_GT(after.serial, before.serial);

  auto scan = [&](const IndexHolder::Snapshot& s) {
    auto scanner = LeakScanner::Create(*s.index, ScanOptions{});
    EXPECT_TRUE(scanner.ok());
    auto report = (*scanner)->Scan(second);
    EXPECT_TRUE(report.ok());
    return report.ok() ? report->matches.size() : size_t{99};
  };
  EXPECT_EQ(scan(after), 1u);
  // The snapshot taken before the reload still answers as it did: a scan
  // in flight completes against its own view.
  EXPECT_EQ(scan(before), 0u);

  // Nothing new since: no swap, whether the retired instance is still held
  // (`before` holds it: a fresh one is opened as the standby) or not.
  auto third = (*holder)->Reload();
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(*third);
  EXPECT_EQ((*holder)->Current().serial, after.serial);
}

TEST(IndexHolderTest, AfterARekeyTheReloadOpensTheNewIndex) {
  // `leakhound rekey` swaps another database into the directory: a reader
  // must open it, not catch up with it as if it were the old one.
  TempDir tmp;
  const std::string dir = tmp.Sub("index"), source = tmp.Sub("memo.txt");
  const std::string text =
      "The relocation of the archive servers to the Tallinn site begins on "
      "the fourth of May; the tape library moves first, the indexing cluster "
      "follows a week later, and the old racks are returned to the landlord "
      "at the end of June.";
  std::ofstream(source) << text;
  ASSERT_EQ(RunLeakhound({"init", "--index", dir}).exit, 0);
  ASSERT_EQ(RunLeakhound({"add", "--index", dir, source}).exit, 0);
  auto holder = IndexHolder::Open(dir);
  ASSERT_TRUE(holder.ok()) << holder.status();
  const uint64_t serial = (*holder)->Current().serial;
  EXPECT_FALSE((*holder)->Current().index->replaced());

  RunResult rekey = RunLeakhound({"rekey", "--index", dir});
  ASSERT_EQ(rekey.exit, 0) << rekey.err;
  EXPECT_TRUE((*holder)->Current().index->replaced());
  for (int i = 0; i < 2; ++i) {  // the second reload reuses the old standby
    auto reloaded = (*holder)->Reload();
    ASSERT_TRUE(reloaded.ok()) << reloaded.status();
    if (i == 0) {
      EXPECT_TRUE(*reloaded);
    }
  }
  const IndexHolder::Snapshot now = (*holder)->Current();
  EXPECT_NE(now.serial, serial);
  EXPECT_FALSE(now.index->replaced());
  auto scanner = LeakScanner::Create(*now.index, ScanOptions{});
  ASSERT_TRUE(scanner.ok());
  auto report = (*scanner)->Scan(text);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->matches.size(), 1u);
  EXPECT_EQ(report->matches[0].external_id, source);
}

}  // namespace
}  // namespace leakhound
