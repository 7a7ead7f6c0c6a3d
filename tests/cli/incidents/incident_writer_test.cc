// IncidentWriter against a real SQLite file, held locked by a second
// connection to stand for a busy or stuck store.
#include "cli/incidents/incident_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cli/incidents/incident_spool.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

Incident Leak(int64_t n) {
  Incident i;
  i.time_ms = n;
  i.source = "milter";
  i.kind = "leak";
  i.action = "reject";
  return i;
}

// Waits (bounded) until `predicate` holds.
template <typename P>
bool Eventually(P predicate) {
  for (int i = 0; i < 1000; ++i) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return predicate();
}

class LockedStore {
 public:
  explicit LockedStore(const std::string& path) {
    sqlite3_open(path.c_str(), &db_);
    sqlite3_exec(db_, "PRAGMA journal_mode=WAL; BEGIN EXCLUSIVE", nullptr,
                 nullptr, nullptr);
  }
  void Unlock() {
    if (db_ == nullptr) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }
  ~LockedStore() { Unlock(); }

 private:
  sqlite3* db_ = nullptr;
};

// The writer's log lines, collected from its thread.
class LogLines {
 public:
  IncidentWriter::Log Sink() {
    return [this](const std::string& line) {
      std::lock_guard g(mu_);
      lines_.push_back(line);
    };
  }
  std::vector<std::string> Lines() {
    std::lock_guard g(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

IncidentWriter::Options Quick(size_t capacity) {
  IncidentWriter::Options o;
  o.spool_capacity = capacity;
  o.busy_timeout_ms = 20;
  o.min_retry_ms = 10;
  o.max_retry_ms = 50;
  return o;
}

TEST(IncidentWriterTest, WritesEverySubmittedIncident) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  {
    IncidentWriter writer(path, Quick(1000), [](const std::string&) {});
    for (int i = 0; i < 600; ++i) writer.Submit(Leak(i));
    writer.Stop(10);
    const IncidentWriter::Counters c = writer.counters();
    EXPECT_EQ(c.submitted, 600u);
    EXPECT_EQ(c.written, 600u);
    EXPECT_EQ(c.dropped, 0u);
  }
  auto store = IncidentStore::Open(path);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(*(*store)->Count(IncidentFilter{}), 600);
}

TEST(IncidentWriterTest, ALockedStoreKeepsRecordsSpooledUntilItIsFree) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  LogLines log;
  IncidentWriter writer(path, Quick(1000), log.Sink());
  for (int i = 0; i < 50; ++i) writer.Submit(Leak(i));
  ASSERT_TRUE(Eventually([&] { return writer.counters().failed_writes >= 2; }));
  EXPECT_EQ(writer.counters().written, 0u);
  EXPECT_EQ(writer.counters().spooled, 50u);
  lock.Unlock();
  ASSERT_TRUE(Eventually([&] { return writer.counters().written == 50; }));
  EXPECT_EQ(writer.counters().dropped, 0u);
  writer.Stop(5);
  const std::vector<std::string> lines = log.Lines();
  ASSERT_GE(lines.size(), 2u);
  EXPECT_NE(lines.front().find("cannot write"), std::string::npos)
      << lines.front();
  EXPECT_NE(lines.back().find("again"), std::string::npos) << lines.back();
}

TEST(IncidentWriterTest, AFullSpoolDropsAndCountsWhatDoesNotFit) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  LogLines log;
  IncidentWriter writer(path, Quick(10), log.Sink());
  for (int i = 0; i < 15; ++i) writer.Submit(Leak(i));
  ASSERT_TRUE(Eventually([&] { return writer.counters().dropped == 5; }));
  lock.Unlock();
  ASSERT_TRUE(Eventually([&] { return writer.counters().written == 10; }));
  writer.Stop(5);
  EXPECT_EQ(writer.counters().dropped, 5u);
  bool logged = false;
  for (const std::string& l : log.Lines()) {
    logged |= l.find("dropped") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

TEST(IncidentWriterTest, StopOnAStuckStoreCountsTheUnwrittenAsDropped) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  IncidentWriter writer(path, Quick(100), [](const std::string&) {});
  for (int i = 0; i < 7; ++i) writer.Submit(Leak(i));
  writer.Stop(0.2);
  const IncidentWriter::Counters c = writer.counters();
  EXPECT_EQ(c.written, 0u);
  EXPECT_EQ(c.dropped, 7u);
  EXPECT_EQ(c.spooled, 0u);
  writer.Submit(Leak(8));  // after Stop: counted, not kept
  EXPECT_EQ(writer.counters().dropped, 8u);
}

IncidentWriter::Options Spooled(const std::string& dir) {
  IncidentWriter::Options o = Quick(1000);
  o.spool_dir = dir;
  return o;
}

TEST(IncidentWriterTest,
     WhatTheStoreCannotTakeIsSpooledAndStoredAfterARestart) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  {
    LogLines log;
    IncidentWriter writer(path, Spooled(dir.Sub("spool")), log.Sink());
    for (int i = 0; i < 50; ++i) writer.Submit(Leak(i));
    ASSERT_TRUE(
        Eventually([&] { return writer.counters().disk_spooled == 50; }));
    for (int i = 50; i < 60; ++i) writer.Submit(Leak(i));
    writer.Stop(0.2);  // the last ten go to the spool too, not lost
    const IncidentWriter::Counters c = writer.counters();
    EXPECT_EQ(c.written, 0u);
    EXPECT_EQ(c.dropped, 0u);
    EXPECT_EQ(c.disk_spooled, 60u);
    EXPECT_EQ(c.oldest_spooled_ms, 0);  // Leak(0)'s time
    EXPECT_NE(log.Lines().back().find("kept in"), std::string::npos);
  }
  lock.Unlock();
  IncidentWriter again(path, Spooled(dir.Sub("spool")),
                       [](const std::string&) {});
  ASSERT_TRUE(Eventually([&] { return again.counters().written == 60; }));
  again.Stop(5);
  EXPECT_EQ(again.counters().disk_spooled, 0u);
  auto store = IncidentStore::Open(path);
  IncidentFilter all;
  all.limit = 100;
  auto stored = (*store)->List(all);
  ASSERT_EQ(stored->size(), 60u);
  // In order: the oldest first, ids rising with the time.
  for (size_t k = 0; k + 1 < stored->size(); ++k) {
    EXPECT_GT((*stored)[k].id, (*stored)[k + 1].id);
  }
}

TEST(IncidentWriterTest,
     WhileTheStoreIsDownANewIncidentIsSpooledWithoutWaiting) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  IncidentWriter::Options o = Spooled(dir.Sub("spool"));
  o.min_retry_ms = 60'000;  // the next try of the store is a minute away
  o.max_retry_ms = 60'000;
  IncidentWriter writer(path, o, [](const std::string&) {});
  writer.Submit(Leak(1));
  ASSERT_TRUE(Eventually([&] { return writer.counters().disk_spooled == 1; }));
  const auto start = std::chrono::steady_clock::now();
  writer.Submit(Leak(2));
  ASSERT_TRUE(Eventually([&] { return writer.counters().disk_spooled == 2; }));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  writer.Stop(0);
  EXPECT_EQ(writer.counters().dropped, 0u);
}

TEST(IncidentWriterTest, AFullSpoolFolderKeepsTheRestInMemoryWithoutSpinning) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  IncidentWriter::Options o = Spooled(dir.Sub("spool"));
  o.spool_max_incidents = 2;
  o.batch = 1;  // batches of one: two fit
  o.min_retry_ms = 200;
  o.max_retry_ms = 200;
  LogLines log;
  IncidentWriter writer(path, o, log.Sink());
  for (int i = 0; i < 5; ++i) writer.Submit(Leak(i));
  ASSERT_TRUE(Eventually([&] { return writer.counters().disk_spooled == 2; }));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  // One refusal per try of the store (every 200 ms), not a loop.
  EXPECT_LT(log.Lines().size(), 30u);
  EXPECT_EQ(writer.counters().spooled, 3u);
  lock.Unlock();
  ASSERT_TRUE(Eventually([&] { return writer.counters().written == 5; }));
  writer.Stop(5);
  EXPECT_EQ(writer.counters().dropped, 0u);
}

TEST(IncidentWriterTest, ABatchStoredBeforeItsSpoolFileWentIsStoredOnce) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  std::vector<Incident> batch = {Leak(1), Leak(2), Leak(3)};
  for (size_t k = 0; k < batch.size(); ++k)
    batch[k].uid = "uid-" + std::to_string(k);
  {
    // A crash between the store's commit and the file's removal.
    auto spool = IncidentSpool::OpenSlot(dir.Sub("spool"), 100);
    ASSERT_TRUE(spool.ok()) << spool.status();
    ASSERT_TRUE((*spool)->Put(batch).ok());
    auto store = IncidentStore::Open(path);
    ASSERT_TRUE((*store)->Insert(batch).ok());
  }
  IncidentWriter writer(path, Spooled(dir.Sub("spool")),
                        [](const std::string&) {});
  ASSERT_TRUE(Eventually([&] { return writer.counters().written == 3; }));
  writer.Stop(5);
  auto store = IncidentStore::Open(path);
  EXPECT_EQ(*(*store)->Count(IncidentFilter{}), 3);
}

TEST(IncidentWriterTest, AKilledGatewayLosesNothingItHadSpooled) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  const std::string spool = dir.Sub("spool");
  ASSERT_TRUE(IncidentStore::Open(path).ok());
  LockedStore lock(path);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the gateway: spools 40, says so, waits to be killed
    IncidentWriter writer(path, Spooled(spool), [](const std::string&) {});
    for (int i = 0; i < 40; ++i) writer.Submit(Leak(i));
    for (int t = 0; t < 1000 && writer.counters().disk_spooled < 40; ++t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const char done = writer.counters().disk_spooled == 40 ? 'y' : 'n';
    if (::write(ready[1], &done, 1) != 1) ::_exit(2);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char done = 0;
  ASSERT_EQ(::read(ready[0], &done, 1), 1);
  ::close(ready[0]);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_EQ(done, 'y');
  lock.Unlock();
  IncidentWriter writer(path, Spooled(spool), [](const std::string&) {});
  ASSERT_TRUE(Eventually([&] { return writer.counters().written == 40; }));
  writer.Stop(5);
  auto store = IncidentStore::Open(path);
  EXPECT_EQ(*(*store)->Count(IncidentFilter{}), 40);
}

}  // namespace
}  // namespace leakhound
