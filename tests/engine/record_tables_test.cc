#include "engine/record_tables.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "engine/protected_index.h"
#include "index/key_format.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

uint64_t CellOf(uint64_t tag, uint32_t row, uint64_t column) {
  uint64_t x = (tag << 40) ^ (uint64_t{row} << 8) ^ column;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  return (x | 1);  // never 0, the empty cell
}

RecordTableRecord Shape() {
  RecordTableRecord shape;
  shape.min_matches = 1;
  shape.proximity = 50;
  shape.columns = {
      {"key", 3, static_cast<uint8_t>(RecordColumnRole::kPrimary), 0, "", "",
       {}, false},
      {"other", 7, static_cast<uint8_t>(RecordColumnRole::kCorroborating), 0,
       "", "", {}, false}};
  return shape;
}

// Loads table "t" with `rows` rows of generation `tag` and commits it.
absl::Status LoadTable(ProtectedIndex& index, uint64_t tag, uint32_t rows,
                       bool replace) {
  auto load = index.BeginRecordTable("t", Shape(), replace);
  if (!load.ok()) return load.status();
  for (uint32_t r = 0; r < rows; ++r) {
    const uint64_t cells[] = {CellOf(tag, r, 0), CellOf(tag, r, 1)};
    if (absl::Status s = (*load)->AddRow(cells); !s.ok()) return s;
  }
  return index.CommitRecordTable(**load).status();
}

size_t DataKeys(const ProtectedIndex& index) {
  size_t n = 0;
  EXPECT_TRUE(index.store()
                  .ForEachRecordData("", "",
                                     [&n](std::string_view, std::string_view) {
                                       ++n;
                                       return absl::OkStatus();
                                     })
                  .ok());
  return n;
}

TEST(PrimarySetTest, FindsEveryRowOfAHashWhateverTheSize) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{100000}}) {
    std::vector<std::pair<uint64_t, uint32_t>> entries;
    for (uint32_t i = 0; i < n; ++i) entries.emplace_back(CellOf(1, i, 0), i);
    if (n > 0) entries.emplace_back(CellOf(1, 0, 0), 4242);  // a shared value
    const PrimarySet set = PrimarySet::Build(entries);
    std::vector<uint32_t> rows;
    for (uint32_t i = 0; i < n; i += 997) {
      rows.clear();
      set.Find(CellOf(1, i, 0), &rows);
      ASSERT_FALSE(rows.empty()) << n << " " << i;
      EXPECT_EQ(rows.front() == i || rows.back() == i, true);
    }
    if (n > 0) {
      rows.clear();
      set.Find(CellOf(1, 0, 0), &rows);
      EXPECT_EQ(rows.size(), 2u);
    }
    rows.clear();
    set.Find(CellOf(2, 3, 0), &rows);
    EXPECT_TRUE(rows.empty());
    // Stored and read back: the same set.
    auto back = PrimarySet::FromChunks(set.Chunks());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->size(), set.size());
    EXPECT_EQ(back->Digest(0), set.Digest(0));
  }
}

TEST(PrimarySetTest, ChunksOutOfOrderOrCutAreDataLoss) {
  std::vector<std::pair<uint64_t, uint32_t>> entries = {{5, 1}, {9, 2}};
  std::vector<std::string> chunks = PrimarySet::Build(entries).Chunks();
  ASSERT_EQ(chunks.size(), 1u);
  const std::vector<std::string> cut = {chunks[0].substr(0, 13)};
  EXPECT_TRUE(absl::IsDataLoss(PrimarySet::FromChunks(cut).status()));
  const std::vector<std::string> swapped = {chunks[0].substr(12) +
                                            chunks[0].substr(0, 12)};
  EXPECT_TRUE(absl::IsDataLoss(PrimarySet::FromChunks(swapped).status()));
}

TEST(RecordTablesTest, ATableIsStoredReadByReadersAndRemoved) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto writer = ProtectedIndex::Create(dir, IndexOptions());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(LoadTable(**writer, 1, 1000, false).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(LoadTable(**writer, 1, 10, false)));
  EXPECT_TRUE(absl::IsNotFound(
      (*writer)->BeginRecordTable("u", Shape(), true).status()));
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  auto tables = (*reader)->record_tables();
  const LoadedRecordTable* t = tables->Find("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->record.rows, 1000u);
  std::vector<uint32_t> rows;
  t->sets[0]->Find(CellOf(1, 123, 0), &rows);
  ASSERT_EQ(rows.size(), 1u);
  auto cells = RecordTables::ReadRows((*reader)->store(), *t, rows);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0][1], CellOf(1, 123, 1));
  EXPECT_EQ(t->sets[1], nullptr);  // not primary: not in memory

  ASSERT_TRUE((*writer)->RemoveRecordTable("t").ok());
  EXPECT_TRUE(absl::IsNotFound((*writer)->RemoveRecordTable("t")));
  EXPECT_EQ(DataKeys(**writer), 0u);
  ASSERT_TRUE((*reader)->Refresh().ok());
  EXPECT_TRUE((*reader)->record_tables()->empty());
}

TEST(RecordTablesTest, WhatAnInterruptedLoadLeftIsNeverReadAndIsDeletedNext) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    auto writer = ProtectedIndex::Create(dir, IndexOptions());
    ASSERT_TRUE(writer.ok());
    auto load = (*writer)->BeginRecordTable("t", Shape(), false);
    ASSERT_TRUE(load.ok());
    // More than a chunk: some rows are durable, nothing names them.
    for (uint32_t r = 0; r < RecordTableLoad::kRowsPerChunk + 10; ++r) {
      const uint64_t cells[] = {CellOf(1, r, 0), CellOf(1, r, 1)};
      ASSERT_TRUE((*load)->AddRow(cells).ok());
    }
  }  // dropped without CommitRecordTable: an interrupted `records add`
  auto writer = ProtectedIndex::Open(dir, OpenMode::kWrite);
  ASSERT_TRUE(writer.ok());
  EXPECT_TRUE((*writer)->record_tables()->empty());
  EXPECT_EQ(DataKeys(**writer), RecordTableLoad::kRowsPerChunk);
  ASSERT_TRUE(LoadTable(**writer, 2, 100, false).ok());
  // 100 rows and one set chunk: the leftovers are gone.
  EXPECT_EQ(DataKeys(**writer), 101u);
}

int ConcurrencySeconds() {
  const char* env = std::getenv("LEAKHOUND_CONCURRENCY_SECONDS");
  return env != nullptr ? std::max(1, std::atoi(env)) : 4;
}

// The writer process of the test below, started by it (fork and exec of
// this binary): replaces table "t" until its deadline, alternating two
// generations of rows. Skipped when not started so.
TEST(RecordTablesWriterChild, ReplacesTheTableUntilItsDeadline) {
  const char* spec = std::getenv("LEAKHOUND_RECORDS_CHILD");
  if (spec == nullptr) GTEST_SKIP() << "runs as the child of a test";
  const std::string dir(spec);
  auto writer = ProtectedIndex::Open(dir, OpenMode::kWrite);
  ASSERT_TRUE(writer.ok()) << writer.status();
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::seconds(ConcurrencySeconds());
  for (uint64_t tag = 2; std::chrono::steady_clock::now() < end; ++tag) {
    ASSERT_TRUE(LoadTable(**writer, 1 + tag % 2, 20000, true).ok());
  }
}

// A writer process replaces table "t" again and again, alternating two
// generations of different rows, while this reader refreshes and looks:
// every view holds one generation whole (its set finds that generation's
// rows and not the other's, and each row read has that generation's
// cells), never a mix.
TEST(RecordTablesConcurrencyTest, AReaderSeesTheOldTableOrTheNewNeverAMix) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  constexpr uint32_t kRows = 20000;
  {
    auto writer = ProtectedIndex::Create(dir, IndexOptions());
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(LoadTable(**writer, 1, kRows, false).ok());
  }
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  // A process of its own (fork and exec: RocksDB's threads do not survive
  // a bare fork).
  const std::string spec = "LEAKHOUND_RECORDS_CHILD=" + dir;
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(const_cast<char*>(spec.c_str()));
  env.push_back(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::execle("/proc/self/exe", "engine_test",
             "--gtest_filter=RecordTablesWriterChild.*", nullptr, env.data());
    ::_exit(10);
  }
  std::mt19937 rng(7);
  size_t views = 0, generations_seen = 0;
  uint32_t last_generation = 0;
  bool done = false;
  while (!done) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
      done = true;
    }
    auto changed = (*reader)->Refresh();
    ASSERT_TRUE(changed.ok()) << changed.status();
    auto tables = (*reader)->record_tables();
    const LoadedRecordTable* t = tables->Find("t");
    ASSERT_NE(t, nullptr);
    ++views;
    if (t->record.data_generation != last_generation) ++generations_seen;
    last_generation = t->record.data_generation;
    ASSERT_EQ(t->sets[0]->size(), kRows);
    const uint32_t probe = rng() % kRows;
    std::vector<uint32_t> one, two;
    t->sets[0]->Find(CellOf(1, probe, 0), &one);
    t->sets[0]->Find(CellOf(2, probe, 0), &two);
    ASSERT_EQ(one.size() + two.size(), 1u) << "a mixed view";
    const uint64_t tag = one.empty() ? 2 : 1;
    std::vector<uint32_t> rows;
    for (int i = 0; i < 8; ++i) {
      t->sets[0]->Find(CellOf(tag, rng() % kRows, 0), &rows);
    }
    ASSERT_EQ(rows.size(), 8u);
    auto cells = RecordTables::ReadRows((*reader)->store(), *t, rows);
    ASSERT_TRUE(cells.ok()) << cells.status();
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ((*cells)[i][1], CellOf(tag, rows[i], 1)) << "a mixed row";
    }
  }
  EXPECT_GT(generations_seen, 1u) << views << " views";
}

}  // namespace
}  // namespace leakhound
