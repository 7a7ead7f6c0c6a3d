// RecordTables: the protected tables of an index (exact data match), in
// memory for lookups. For every primary column of every table it holds the
// column's primary set: each row's cell hash with the row's number, sorted,
// with a directory of the hashes' top bits, so that finding a hash costs
// one directory read and a scan of a few entries whatever the table's size.
// A row's other cells are read from the store only when its primary cell is
// found (ReadRows). The hashes are keyed (the records library computes
// them); nothing here is a cell's value.
//
// RecordTableLoad writes one table (a new one or the replacement of one)
// into the store in chunks under a data generation no table record names
// yet; ProtectedIndex::CommitRecordTable then names it in one atomic commit
// that also deletes the generation it replaces, so a reader sees the old
// table or the new one, never a mix.
//
// Thread-safety: a loaded RecordTables is immutable; its const methods may
// run concurrently. A RecordTableLoad is used by one thread.
#ifndef LEAKHOUND_ENGINE_RECORD_TABLES_H_
#define LEAKHOUND_ENGINE_RECORD_TABLES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "index/records.h"

namespace leakhound {

// One primary column's cell hashes with their rows, sorted by hash.
class PrimarySet {
 public:
  // From (hash, row) entries in any order.
  static PrimarySet Build(std::vector<std::pair<uint64_t, uint32_t>> entries);
  // From the stored chunks (key_format.h), in key order. DataLoss for a
  // chunk of the wrong size or entries out of order.
  static absl::StatusOr<PrimarySet> FromChunks(
      std::span<const std::string> chunks);
  // The same a chunk at a time (so that the chunks need not all be in
  // memory at once): AppendChunk each in key order, then Seal. `expected`
  // entries are reserved.
  explicit PrimarySet(size_t expected = 0);
  absl::Status AppendChunk(std::string_view chunk);
  void Seal() { BuildDirectory(); }

  // Appends the rows whose cell hash is `hash` to `rows`.
  void Find(uint64_t hash, std::vector<uint32_t>* rows) const;
  // The stored form: chunks of up to kRecordSetChunkEntries entries.
  std::vector<std::string> Chunks() const;
  size_t size() const { return hashes_.size(); }
  size_t MemoryBytes() const;
  // The set's part of RecordTableRecord::sets_digest as column `column`.
  uint64_t Digest(uint8_t column) const;

 private:
  void BuildDirectory();

  std::vector<uint64_t> hashes_;  // ascending
  std::vector<uint32_t> rows_;    // rows_[i] holds hashes_[i]
  // directory_[b]: the first entry whose top `bits_` bits are >= b; one
  // past the last bucket at the end.
  std::vector<uint32_t> directory_;
  int bits_ = 0;
};

// A table as loaded: its record and, per column, its primary set (empty
// for columns that are not primary).
struct LoadedRecordTable {
  std::string name;
  RecordTableRecord record;
  std::vector<std::shared_ptr<const PrimarySet>> sets;
};

class RecordTables {
 public:
  RecordTables() = default;

  // Loads every table of `store`. Tables of `previous` whose id, data
  // generation and digest are unchanged are shared, not read again.
  // DataLoss when a table's sets do not match its record (a reader's view
  // that mixes two states; ProtectedIndex loads again).
  static absl::StatusOr<std::shared_ptr<const RecordTables>> Load(
      const IndexStore& store, const RecordTables* previous);

  const std::vector<std::shared_ptr<const LoadedRecordTable>>& tables() const {
    return tables_;
  }
  // The table `name`; null when absent.
  const LoadedRecordTable* Find(std::string_view name) const;
  bool empty() const { return tables_.empty(); }
  // Bytes of the primary sets.
  size_t MemoryBytes() const;

  // The cell hashes of `rows` of `table` (per row, one hash per column; 0
  // for an empty cell), in the order asked. DataLoss for a row the table
  // does not hold. REQUIRES: `store` is the one the table was loaded from.
  static absl::StatusOr<std::vector<std::vector<uint64_t>>> ReadRows(
      const IndexStore& store, const LoadedRecordTable& table,
      std::span<const uint32_t> rows);

 private:
  std::vector<std::shared_ptr<const LoadedRecordTable>> tables_;  // by name
};

// Writes one table's rows under a fresh data generation, in chunks of
// kRowsPerChunk rows, each committed (durable) on its own: until
// ProtectedIndex::CommitRecordTable names the generation, nothing reads it,
// and the next load of the same table id deletes what a crash left.
class RecordTableLoad {
 public:
  static constexpr size_t kRowsPerChunk = 50000;

  // REQUIRES: `store` is a writer and outlives this object. `record`:
  // the table as it will be named (its table_id and data_generation
  // chosen by ProtectedIndex::BeginRecordTable).
  RecordTableLoad(IndexStore* store, std::string name,
                  RecordTableRecord record);

  const std::string& name() const { return name_; }
  const RecordTableRecord& record() const { return record_; }

  // Adds the next row: one hash per column (0: empty). REQUIRES: cells.
  // size() == record().columns.size(), and the row's primary cells are
  // not all empty. Errors: the store's write.
  absl::Status AddRow(std::span<const uint64_t> cells);
  // Records the most words a cell of `column` has (RecordColumnRecord::
  // max_words). REQUIRES: column < record().columns.size().
  void SetMaxWords(size_t column, uint8_t words) {
    record_.columns[column].max_words = words;
  }
  // Records the regions of the country codes most of `column`'s
  // international numbers have (RecordColumnRecord::held_regions).
  // REQUIRES: column < record().columns.size().
  void SetHeldRegions(size_t column, std::vector<std::string> regions) {
    record_.columns[column].held_regions = std::move(regions);
  }
  // Counts a row of the file that was not stored.
  void SkipRow() { ++record_.skipped_rows; }
  // Writes what is buffered and the primary sets, and returns the batch
  // that names the table (with the sets' digest); ProtectedIndex commits
  // it. Call once.
  absl::StatusOr<IndexBatch> Finish(int64_t now_unix_ms);

 private:
  absl::Status Flush();

  IndexStore* store_;
  std::string name_;
  RecordTableRecord record_;
  IndexBatch pending_;
  size_t pending_rows_ = 0;
  // Per column: (hash, row) entries of a primary column.
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> entries_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_RECORD_TABLES_H_
