// IndexHolder on a real index (RocksDB in a temp dir): a reload picks up
// the writer's add while a snapshot taken before stays usable.
#include "cli/gateway/index_holder.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/scan/leak_scanner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "tests/cli/commands/run_leakhound.h"
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
  ASSERT_TRUE(
      (*writer)->Add(DocumentInput{"plan.txt", "plan.txt", {}, second}).ok());
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

// A reload that loads a view failing the consistency check must keep
// failing until a good state is committed, and never serve that view (the
// checks: ProtectedIndex::ViewIsWhole). The
// previous reader consumed its database-files stamp on the failed load:
// the next reload saw "no change" and swapped in the half-loaded instance
// (a daemon listed 6 documents where the writers had left 7), and nothing
// was reloaded until some later write.
TEST(IndexHolderTest, AViewThatFailedItsCheckIsNeverServedAndTheRepairIs) {
  TempDir tmp;
  const std::string dir = tmp.Sub("index");
  auto add = [&](const std::string& id, const std::string& text) {
    auto writer = ProtectedIndex::Open(dir, OpenMode::kWrite);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE((*writer)->Add(DocumentInput{id, id, {}, text}).ok());
  };
  ASSERT_TRUE(ProtectedIndex::Create(dir, IndexOptions{}).ok());
  add("q.txt", "The quarterly figures for the northern region show a decline.");
  auto holder = IndexHolder::Open(dir);
  ASSERT_TRUE(holder.ok()) << holder.status();
  const IndexHolder::Snapshot good = (*holder)->Current();

  // A document added, then its record lost in a later commit: a row names
  // a document the view has no record of (what a reader sees of a torn
  // view, made to last).
  add("plan.txt", "The relocation of the archive servers to the Tallinn "
                  "site begins on the fourth of May.");
  auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  ASSERT_TRUE(store.ok()) << store.status();
  auto plan_id = (*store)->FindExternalId("plan.txt");
  ASSERT_TRUE(plan_id.ok() && plan_id->has_value());
  const DocumentRecord plan = **(*store)->ReadDocument(**plan_id);
  StateRecord state = *(*store)->ReadState();
  IndexBatch damage;
  damage.DeleteDocument(**plan_id, plan);
  ++state.generation;
  damage.PutState(state);
  ASSERT_TRUE((*store)->Commit(damage).ok());

  for (int attempt = 0; attempt < 3; ++attempt) {
    auto reloaded = (*holder)->Reload();
    EXPECT_FALSE(reloaded.ok()) << "attempt " << attempt;
    EXPECT_EQ((*holder)->Current().serial, good.serial)
        << "attempt " << attempt;
    EXPECT_EQ((*holder)->Current().generation, good.generation);
  }

  // A rows digest that is not the row table's: rows from another state.
  IndexBatch restore;
  restore.PutDocument(**plan_id, plan, FingerprintsRecord{});
  ++state.generation;
  const uint64_t right = state.rows_digest;
  state.rows_digest = right ^ 1;
  restore.PutState(state);
  ASSERT_TRUE((*store)->Commit(restore).ok());
  EXPECT_FALSE((*holder)->Reload().ok());
  EXPECT_EQ((*holder)->Current().serial, good.serial);

  IndexBatch repair;
  ++state.generation;
  state.rows_digest = right;
  repair.PutState(state);
  ASSERT_TRUE((*store)->Commit(repair).ok());
  auto reloaded = (*holder)->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_TRUE(*reloaded);
  EXPECT_EQ((*holder)->Current().generation, state.generation);
  EXPECT_EQ((*holder)->Current().index->matrix().documents(), 2u);
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

TEST(IndexHolderTest, ASwitchedReplicaSymlinkIsPickedUpWithoutARestart) {
  // A gateway node's flow (docs/scale.md): snapshots arrive as new
  // directories and a symlink "current" is switched to the newest by
  // rename(2); the daemon runs with --index current.
  TempDir tmp;
  const std::string writer = tmp.Sub("writer"), memo = tmp.Sub("memo.txt"),
                    plan = tmp.Sub("plan.txt");
  const std::string memo_text =
      "The relocation of the archive servers to the Tallinn site begins on "
      "the fourth of May; the tape library moves first, the indexing cluster "
      "follows a week later, and the old racks are returned at the end of "
      "June.";
  const std::string plan_text =
      "Pricing for the northern region rises by four percent in the spring, "
      "the distributor discount falls to eleven percent, and the loyalty "
      "programme closes to new members once the autumn catalogue ships.";
  std::ofstream(memo) << memo_text;
  std::ofstream(plan) << plan_text;
  ASSERT_EQ(RunLeakhound({"init", "--index", writer}).exit, 0);
  ASSERT_EQ(RunLeakhound({"add", "--index", writer, memo}).exit, 0);
  ASSERT_EQ(
      RunLeakhound({"snapshot", "--index", writer, tmp.Sub("snap-1")}).exit, 0);
  ASSERT_EQ(RunLeakhound({"add", "--index", writer, plan}).exit, 0);
  ASSERT_EQ(
      RunLeakhound({"snapshot", "--index", writer, tmp.Sub("snap-2")}).exit, 0);
  const std::string current = tmp.Sub("current");
  ASSERT_EQ(::symlink("snap-1", current.c_str()), 0);

  auto holder = IndexHolder::Open(current);
  ASSERT_TRUE(holder.ok()) << holder.status();
  auto found = [&](const std::string& text) {
    auto scanner =
        LeakScanner::Create(*(*holder)->Current().index, ScanOptions{});
    EXPECT_TRUE(scanner.ok());
    auto report = (*scanner)->Scan(text);
    EXPECT_TRUE(report.ok());
    return report.ok() && report->matches.size() == 1;
  };
  EXPECT_TRUE(found(memo_text));
  EXPECT_FALSE(found(plan_text));
  auto unchanged = (*holder)->Reload();
  ASSERT_TRUE(unchanged.ok()) << unchanged.status();
  EXPECT_FALSE(*unchanged);

  ASSERT_EQ(::symlink("snap-2", tmp.Sub("current.new").c_str()), 0);
  ASSERT_EQ(::rename(tmp.Sub("current.new").c_str(), current.c_str()), 0);
  auto reloaded = (*holder)->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_TRUE(*reloaded);
  EXPECT_TRUE(found(memo_text));
  EXPECT_TRUE(found(plan_text));
}

// The milter's view while `leakhound add` and `leakhound remove` processes
// change the index: every reload succeeds, and in every snapshot each
// document is found by its text exactly when the snapshot lists it (no
// half-applied add or removal); after the writers, a reload shows exactly
// what they left.
TEST(IndexHolderTest, ReloadsWhileWriterProcessesWorkNeverFailAndConverge) {
  TempDir tmp;
  const std::string dir = tmp.Sub("index");
  ASSERT_EQ(
      RunLeakhound({"init", "--index", dir, "--row-capacity", "256"}).exit, 0);
  // Texts of distinct random words: no two share a shingle.
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> texts;  // id -> text
  for (int f = 0; f < 12; ++f) {
    std::string text;
    for (int w = 0; w < 200; ++w) {
      for (int c = 0; c < 4 + static_cast<int>(rng() % 5); ++c) {
        text += static_cast<char>('a' + rng() % 26);
      }
      text += (w % 15 == 14) ? ".\n" : " ";
    }
    const std::string id = "f" + std::to_string(f) + ".txt";
    std::ofstream(tmp.Sub(id)) << text;
    texts[id] = text;
  }
  ASSERT_EQ(RunLeakhound({"add", "--index", dir, "--id", "f0.txt",
                          tmp.Sub("f0.txt")})
                .exit,
            0);
  auto holder = IndexHolder::Open(dir);
  ASSERT_TRUE(holder.ok()) << holder.status();

  std::atomic<bool> stop{false};
  std::atomic<int> reloads{0}, swaps{0}, checks{0};
  std::mutex mu;
  std::vector<std::string> failures;
  auto fail = [&](std::string what) {
    std::lock_guard<std::mutex> lock(mu);
    if (failures.size() < 10) failures.push_back(std::move(what));
  };
  std::thread reader([&] {
    while (!stop.load()) {
      auto reloaded = (*holder)->Reload();
      ++reloads;
      if (!reloaded.ok()) {
        fail("reload: " + reloaded.status().ToString());
        continue;
      }
      if (!*reloaded) continue;
      ++swaps;
      const IndexHolder::Snapshot snap = (*holder)->Current();
      std::set<std::string> listed;
      const absl::Status s = snap.index->ForEachDocument(
          [&](uint32_t, const DocumentRecord& d) {
            listed.insert(d.external_id);
            return absl::OkStatus();
          });
      if (!s.ok()) fail("list: " + s.ToString());
      auto scanner = LeakScanner::Create(*snap.index, ScanOptions{});
      if (!scanner.ok()) {
        fail("scanner: " + scanner.status().ToString());
        continue;
      }
      for (const auto& [id, text] : texts) {
        auto report = (*scanner)->Scan(text);
        if (!report.ok()) {
          fail("scan: " + report.status().ToString());
          continue;
        }
        const bool found = !report->matches.empty() &&
                           report->matches[0].external_id == id;
        if (found != listed.contains(id)) {
          fail(id +
               (found ? " found but not listed" : " listed but not found") +
               " at generation " + std::to_string(snap.generation));
        }
        ++checks;
      }
    }
  });

  // The writers: 40 commands, each a process of its own.
  std::set<std::string> held = {"f0.txt"};
  for (int op = 0; op < 40; ++op) {
    const std::string id = "f" + std::to_string(rng() % 12) + ".txt";
    if (held.contains(id)) {
      EXPECT_EQ(RunLeakhound({"remove", "--index", dir, id}).exit, 0);
      held.erase(id);
    } else {
      EXPECT_EQ(
          RunLeakhound({"add", "--index", dir, "--id", id, tmp.Sub(id)}).exit,
          0);
      held.insert(id);
    }
  }
  stop.store(true);
  reader.join();

  EXPECT_THAT(failures, ::testing::IsEmpty());
  auto last = (*holder)->Reload();
  ASSERT_TRUE(last.ok()) << last.status();
  std::set<std::string> listed;
  ASSERT_TRUE((*holder)->Current().index->ForEachDocument(
      [&](uint32_t, const DocumentRecord& d) {
        listed.insert(d.external_id);
        return absl::OkStatus();
      }).ok());
  EXPECT_EQ(listed, held);
  EXPECT_GT(swaps.load(), 5) << "the reader saw too few changes to prove much";
  std::printf("milter view under writers: %d reloads, %d new views, %d scans "
              "checked, 0 failures\n",
              reloads.load(), swaps.load(), checks.load());
}

}  // namespace
}  // namespace leakhound
