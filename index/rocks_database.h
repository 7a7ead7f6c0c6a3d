// RocksDatabase: the RocksDB database of an index directory, one column
// family per IndexBatch::Family (docs/storage_format.md). The one place
// that calls RocksDB (besides the fault-injection file system of the
// tests) and turns its errors into absl::Status: IndexStore reads and
// writes records through it and never sees a RocksDB type.
//
// A writer opens the database itself; a reader opens a secondary instance,
// which reads the database as of its open (IndexStore::Reopen opens a
// fresh one).
//
// Thread-safety: const methods may run concurrently with each other and
// with Write (RocksDB's DB is thread-safe); Close and destruction need
// exclusive access.
#ifndef LEAKHOUND_INDEX_ROCKS_DATABASE_H_
#define LEAKHOUND_INDEX_ROCKS_DATABASE_H_

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "index/index_batch.h"
#include "index/io_faults.h"

namespace leakhound {

class RocksDatabase {
 public:
  // Opens the writer's database in `db_dir`; with `create`, creates it
  // with every family (it must not exist). With `faults` (tests only,
  // must outlive the database) it runs on a faulty file system
  // (faulty_file_system.h). RocksDB's info log goes to db_dir/LOG (0600).
  // Errors are RocksDB's, prefixed with `what`.
  static absl::StatusOr<std::unique_ptr<RocksDatabase>> OpenWriter(
      const std::string& db_dir, bool create, IoFaults* faults,
      std::string_view what);
  // Opens a secondary instance of the database in `db_dir`, with its own
  // RocksDB info directory under $TMPDIR (removed by Close); with
  // `meta_only`, of the meta family alone. `faults` as for OpenWriter.
  static absl::StatusOr<std::unique_ptr<RocksDatabase>> OpenReader(
      const std::string& db_dir, IoFaults* faults, bool meta_only,
      std::string_view what);
  // The first family this leakhound writes that the database in `db_dir`
  // lacks (an index of an older storage format); nullopt if none. `writer`
  // lists it with the writer's options (and `faults`).
  static absl::StatusOr<std::optional<std::string>> MissingFamily(
      const std::string& db_dir, bool writer, IoFaults* faults,
      std::string_view what);

  ~RocksDatabase();

  // Closes the database (a writer flushes its memtables first, best
  // effort). Idempotent; afterwards only destruction is allowed.
  void Close();

  // The value of `key`, nullopt if absent.
  absl::StatusOr<std::optional<std::string>> Get(
      IndexBatch::Family family, std::string_view key) const;
  // The values of `keys` in one batched read, nullopt for those absent.
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      IndexBatch::Family family, std::span<const std::string> keys) const;
  // Calls fn(key, value) for every entry of `family` in key order whose
  // key is in [from, to) (an empty `to`: no upper bound); stops at (and
  // returns) fn's first error. Reads ahead in large reads and keeps the
  // blocks out of the block cache. Safe to call from several threads at
  // once (RocksDB's reads are).
  absl::Status ForEach(
      IndexBatch::Family family,
      const std::function<absl::Status(std::string_view, std::string_view)>&
          fn,
      std::string_view from = {}, std::string_view to = {}) const;
  // Applies `batch` atomically, synced. REQUIRES: a writer.
  absl::Status Write(const IndexBatch& batch);
  // Compacts every family's files. REQUIRES: a writer.
  absl::Status CompactAll();
  // Writes a checkpoint (hard links where it can) of the database into
  // `dir`, which must not exist. REQUIRES: a writer.
  absl::Status Checkpoint(const std::string& dir) const;

 private:
  struct Handles;  // RocksDB's objects, defined in rocks_database.cc
  explicit RocksDatabase(bool writer);

  const bool writer_;
  std::unique_ptr<Handles> handles_;
};

// The RocksDB library version, e.g. "7.8.3" (for `leakhound --version`).
std::string RocksDbVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_ROCKS_DATABASE_H_
