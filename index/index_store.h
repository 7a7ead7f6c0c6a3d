// IndexStore: a leakhound index directory on disk, backed by RocksDB.
//
//   DIR/          mode 0700
//     key         the fingerprint key, 32 bytes, mode 0600, never printed
//     lock        the writer lock (writer_lock.h)
//     db/         RocksDB: one column family per record type (key_format.h)
//
// One writer process at a time (Mode::kWriter takes the lock). Readers
// (Mode::kReader) are RocksDB secondary instances: they never block the
// writer, see the index as of their last (re)open, and poll the committed
// generation to learn when to reopen. Every change is one atomic, synced
// RocksDB write batch (IndexBatch), so a crash at any moment leaves each
// operation entirely applied or entirely absent.
//
// Thread-safety: const methods may run concurrently; Commit, Reopen and
// CompactStorage need exclusive access to the object.
#ifndef LEAKHOUND_INDEX_INDEX_STORE_H_
#define LEAKHOUND_INDEX_INDEX_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "index/index_batch.h"
#include "index/io_faults.h"
#include "index/records.h"

namespace leakhound {

class RocksDatabase;  // rocks_database.h
class WriterLock;     // writer_lock.h

class IndexStore {
 public:
  enum class Mode { kWriter, kReader };

  // Creates an index in `dir`, which must not exist or be an empty
  // directory (else AlreadyExists), with `metadata` (its format_version is
  // set to kFormatVersion) and the fingerprint key, and an initial state.
  // The key goes to DIR/key, or with `key_file` set to that absolute path
  // outside the folder (index/key_file.h). Returns the store open as the
  // writer.
  static absl::StatusOr<std::unique_ptr<IndexStore>> Create(
      const std::string& dir, MetadataRecord metadata, std::string_view key,
      const std::string& key_file = "");

  // Opens an existing index. Errors, each one line: NotFound (no index at
  // dir), Unavailable (a writer: locked by another writer),
  // FailedPrecondition (other storage format; key file readable by others),
  // PermissionDenied, DataLoss.
  static absl::StatusOr<std::unique_ptr<IndexStore>> Open(
      const std::string& dir, Mode mode);
  // For fault-injection tests only: Open, with every file operation of the
  // database (a reader's later views too) consulting `faults`
  // (io_faults.h), which must outlive the store. A null `faults` is Open.
  static absl::StatusOr<std::unique_ptr<IndexStore>> OpenWithFaults(
      const std::string& dir, Mode mode, IoFaults* faults);

  ~IndexStore();
  IndexStore(const IndexStore&) = delete;
  IndexStore& operator=(const IndexStore&) = delete;

  const std::string& dir() const { return dir_; }
  Mode mode() const { return mode_; }
  const MetadataRecord& metadata() const { return metadata_; }
  // The fingerprint key's bytes. Lifetime: that of the store.
  const std::string& key() const { return key_; }

  // The generation of the writer's last committed state (StateRecord),
  // read now. A reader opens a fresh instance of the meta family for it
  // (about a millisecond; never one that tails the writer, see the .cc), so
  // no commit can be missed whatever the database's files look like.
  // Writer: its own state's. FailedPrecondition if dir() now holds another
  // index (Replaced); open errors.
  absl::StatusOr<uint64_t> CommittedGeneration() const;
  // Reader: replaces the view with a fresh instance of the database as it
  // is now; on error the old view stays. Such a view is not always one
  // state of the index: RocksDB's secondary instances can mix two
  // (docs/reliability.md), so ProtectedIndex checks what it loads. Writer:
  // no-op. FailedPrecondition if dir() now holds another index (Replaced).
  absl::Status Reopen();
  // Whether dir()/db is no longer the database this object opened: the
  // index was replaced as a whole (`leakhound rekey` swaps in a rebuilt
  // index). A reader must open the new one; catching up would mix two
  // databases.
  bool Replaced() const;

  absl::StatusOr<StateRecord> ReadState() const;
  // nullopt when absent.
  absl::StatusOr<std::optional<DocumentRecord>> ReadDocument(
      uint32_t id) const;
  absl::StatusOr<std::optional<uint32_t>> FindExternalId(
      std::string_view external_id) const;
  absl::StatusOr<std::optional<uint32_t>> FindDigest(
      std::string_view digest) const;
  // NotFound when the document has no list.
  absl::StatusOr<FingerprintsRecord> ReadFingerprints(uint32_t id) const;
  // nullopt for an empty row (no bits stored).
  absl::StatusOr<std::optional<std::string>> ReadRowBits(uint32_t row) const;
  // nullopt for a group without rows in use, or an index without groups.
  absl::StatusOr<std::optional<std::string>> ReadGroupBits(
      uint32_t group) const;

  // Visit every record of a family in id order; stop at the first error
  // `fn` returns and return it.
  absl::Status ForEachDocument(
      const std::function<absl::Status(uint32_t, const DocumentRecord&)>& fn)
      const;
  absl::Status ForEachRow(
      const std::function<absl::Status(uint32_t, const RowRecord&)>& fn)
      const;
  // The row records changed since a previous walk, for a reader that
  // keeps its matrix and loads only what a commit changed: sets
  // (*hashes)[id] to a hash of each row record's stored bytes (hashes->
  // size(): one past the last row id; absent ids hash 0) and decodes and
  // visits only the records whose hash differs from previous[id] (ids
  // past previous.size() differ). Hashes are of this process only (absl
  // hashing is seeded per process): never persist them. Empty `previous`:
  // every record is visited.
  absl::Status ForEachRowIfChanged(
      std::span<const uint64_t> previous, std::vector<uint64_t>* hashes,
      const std::function<absl::Status(uint32_t, const RowRecord&)>& fn) const;
  // `bits` is valid only during the call. Rows [first, end) only (end 0:
  // to the last); calls for disjoint ranges may run on several threads.
  absl::Status ForEachRowBits(
      const std::function<absl::Status(uint32_t, std::string_view bits)>& fn,
      uint32_t first = 0, uint32_t end = 0) const;
  // The same for the row groups' filters.
  absl::Status ForEachGroupBits(
      const std::function<absl::Status(uint32_t, std::string_view bits)>& fn)
      const;
  // Up to `limit` documents with ids >= `first`, in id order: one page of a
  // listing, read without walking the rest.
  absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>>
  ReadDocumentsFrom(uint32_t first, size_t limit) const;
  // Every key of the external_ids (or digests) family with its id.
  absl::Status ForEachExternalId(
      const std::function<absl::Status(std::string_view, uint32_t)>& fn)
      const;
  absl::Status ForEachDigest(
      const std::function<absl::Status(std::string_view, uint32_t)>& fn)
      const;

  // The buckets of the kAll document-frequency table, in the order asked;
  // an absent bucket reads as empty.
  absl::StatusOr<std::vector<CountBucketRecord>> ReadCountBuckets(
      std::span<const uint32_t> buckets) const;
  // Every non-empty bucket of `table` in bucket order.
  absl::Status ForEachCountBucket(
      CountTable table,
      const std::function<absl::Status(uint32_t, const CountBucketRecord&)>&
          fn) const;

  // The allow-list entry `name`; nullopt when absent.
  absl::StatusOr<std::optional<AllowRecord>> ReadAllowEntry(
      std::string_view name) const;
  // Every allow-list entry in name order.
  absl::Status ForEachAllowEntry(
      const std::function<absl::Status(std::string_view, const AllowRecord&)>&
          fn) const;

  // Every protected location: key (normalized form) and record, in key
  // order.
  absl::Status ForEachLocation(
      const std::function<absl::Status(std::string_view,
                                       const LocationRecord&)>& fn) const;

  // The protected table `name`; nullopt when absent.
  absl::StatusOr<std::optional<RecordTableRecord>> ReadRecordTable(
      std::string_view name) const;
  // Every protected table in name order.
  absl::Status ForEachRecordTable(
      const std::function<absl::Status(std::string_view,
                                       const RecordTableRecord&)>& fn) const;
  // The values of record-data keys (key_format.h), nullopt for those
  // absent, in one batched read.
  absl::StatusOr<std::vector<std::optional<std::string>>> ReadRecordData(
      std::span<const std::string> keys) const;
  // Every record-data entry with a key in [from, to), in key order.
  absl::Status ForEachRecordData(
      std::string_view from, std::string_view to,
      const std::function<absl::Status(std::string_view, std::string_view)>&
          fn) const;

  // The protected source `name` (key_format.h, SourceKey); nullopt when
  // absent.
  absl::StatusOr<std::optional<SourceRecord>> ReadSource(
      std::string_view name) const;
  // Every protected source in name order.
  absl::Status ForEachSource(
      const std::function<absl::Status(std::string_view, const SourceRecord&)>&
          fn) const;

  // Applies the batch atomically and durably (WAL, fsync).
  // REQUIRES: mode() == kWriter.
  absl::Status Commit(const IndexBatch& batch);
  // Rewrites RocksDB's files so deleted records stop taking space.
  // REQUIRES: mode() == kWriter.
  absl::Status CompactStorage();
  // Writes a consistent copy of the index as it is now to `out_dir`, which
  // must not exist (AlreadyExists): a RocksDB checkpoint (hard links to the
  // immutable files where `out_dir` is on the same file system, else
  // copies) and the key file, built in "OUT_DIR.partial" and renamed into
  // place, so `out_dir` either holds a whole index or does not exist. The
  // copy opens like any index (a replica for readers elsewhere).
  // REQUIRES: mode() == kWriter (no change can run meanwhile).
  absl::Status Snapshot(const std::string& out_dir) const;
  // Bytes of all files under dir().
  uint64_t DiskBytes() const;
  // Closes the database (a writer flushes it) but keeps the writer lock
  // until this object is destroyed: for swapping another index into dir()
  // (`leakhound rekey`) without writing into it afterwards. Afterwards only
  // destruction is allowed.
  void CloseDatabase();

 private:
  IndexStore(std::string dir, Mode mode);

  // Steps of OpenWithFaults: the database, refusing an older storage
  // format a writer cannot upgrade; then the metadata, upgraded in place
  // by a writer when its format is kUpgradableFormatVersion.
  absl::Status OpenDatabase();
  absl::Status ReadMetadata();
  absl::Status CheckNotReplaced() const;
  absl::Status ForEachBits(
      IndexBatch::Family family,
      const std::function<absl::Status(uint32_t, std::string_view bits)>& fn,
      uint32_t first = 0, uint32_t end = 0) const;

  const std::string dir_;
  const Mode mode_;
  uint64_t db_device_ = 0, db_inode_ = 0;  // of dir_/db at open
  IoFaults* faults_ = nullptr;  // not owned; null but in fault tests
  MetadataRecord metadata_;
  std::string key_;
  std::string key_file_;  // "": DIR/key; else the outside key's path
  // A writer's lock, held until destruction (after the database closes).
  std::unique_ptr<WriterLock> lock_;
  std::unique_ptr<RocksDatabase> db_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_INDEX_STORE_H_
