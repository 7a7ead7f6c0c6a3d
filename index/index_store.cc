#include "index/index_store.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "index/key_file.h"
#include "index/key_format.h"
#include "index/record_codec.h"
#include "index/record_value.h"
#include "index/rocks_database.h"
#include "index/trusted_path.h"
#include "index/writer_lock.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + dir);
  const bool ok = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return absl::ErrnoToStatus(err, "cannot sync " + dir);
  return absl::OkStatus();
}

}  // namespace

IndexStore::IndexStore(std::string dir, Mode mode)
    : dir_(std::move(dir)), mode_(mode) {}

IndexStore::~IndexStore() = default;

absl::StatusOr<std::unique_ptr<IndexStore>> IndexStore::Create(
    const std::string& dir, MetadataRecord metadata, std::string_view key,
    const std::string& key_file) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec)) {
      return absl::AlreadyExistsError(absl::StrCat(
          dir, " exists and is not an empty directory; refusing to create "
               "an index there"));
    }
    if (::chmod(dir.c_str(), 0700) != 0) {
      return absl::ErrnoToStatus(errno, "cannot chmod " + dir);
    }
  } else if (::mkdir(dir.c_str(), 0700) != 0) {
    return absl::ErrnoToStatus(errno, "cannot create " + dir);
  }
  auto lock = WriterLock::Acquire(dir);
  if (!lock.ok()) return lock.status();
  absl::Status s = PlaceKey(dir, key_file, key);
  if (!s.ok()) return s;

  if (::mkdir((dir + "/db").c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::ErrnoToStatus(errno, "cannot create " + dir + "/db");
  }
  auto store = std::unique_ptr<IndexStore>(new IndexStore(dir, Mode::kWriter));
  store->lock_ = std::move(*lock);
  auto db = RocksDatabase::OpenWriter(dir + "/db", /*create=*/true, nullptr,
                                      "cannot create the index database");
  if (!db.ok()) return db.status();
  store->db_ = std::move(*db);
  metadata.format_version = kFormatVersion;
  if (metadata.created_unix_ms == 0) {
    metadata.created_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count();
  }
  store->metadata_ = metadata;
  store->key_ = std::string(key);
  store->key_file_ = key_file;
  IndexBatch batch;
  batch.PutMetadata(metadata);
  batch.PutState(StateRecord{});
  s = store->Commit(batch);
  if (!s.ok()) return s;
  return store;
}

absl::StatusOr<std::unique_ptr<IndexStore>> IndexStore::Open(
    const std::string& dir, Mode mode) {
  return OpenWithFaults(dir, mode, nullptr);
}

namespace {

// Refuses a directory that holds no index, or one others can write.
absl::Status CheckIndexDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir + "/db/CURRENT", ec)) {
    if (fs::exists(dir, ec) && ::access(dir.c_str(), R_OK | X_OK) != 0) {
      return absl::ErrnoToStatus(errno, "cannot open index " + dir);
    }
    return absl::NotFoundError(absl::StrCat(
        "no leakhound index at ", dir,
        " (create one with: leakhound init --index ", dir, ")"));
  }
  // A folder others can write, or swap, lets them replace the key or the
  // database (init makes it 0700): refused, whoever opens it.
  return CheckTrustedFolder(dir, "index");
}

}  // namespace

absl::StatusOr<std::unique_ptr<IndexStore>> IndexStore::OpenWithFaults(
    const std::string& dir, Mode mode, IoFaults* faults) {
  absl::Status s = CheckIndexDirectory(dir);
  if (!s.ok()) return s;
  auto store = std::unique_ptr<IndexStore>(new IndexStore(dir, mode));
  struct stat db_stat {};
  if (::stat((dir + "/db").c_str(), &db_stat) == 0) {
    store->db_device_ = db_stat.st_dev;
    store->db_inode_ = db_stat.st_ino;
  }
  if (mode == Mode::kWriter) {
    auto lock = WriterLock::Acquire(dir);
    if (!lock.ok()) return lock.status();
    store->lock_ = std::move(*lock);
  }
  auto key_path = IndexKeyPath(dir);
  if (!key_path.ok()) return key_path.status();
  auto key = ReadKeyFile(*key_path);
  if (!key.ok()) return key.status();
  store->key_ = std::move(*key);
  if (*key_path != dir + "/key") store->key_file_ = *key_path;
  store->faults_ = faults;
  s = store->OpenDatabase();
  if (!s.ok()) return s;
  s = store->ReadMetadata();
  if (!s.ok()) return s;
  return store;
}

absl::Status IndexStore::OpenDatabase() {
  const std::string what = absl::StrCat("cannot open index ", dir_);
  // An index of an older storage format lacks column families this one
  // has: say so rather than let RocksDB refuse in its own words.
  auto missing = RocksDatabase::MissingFamily(
      dir_ + "/db", mode_ == Mode::kWriter, faults_, what);
  if (!missing.ok()) return missing.status();
  // A writer adds the record families to an index of the upgradable
  // format (OpenWriter creates missing families); a reader cannot.
  const bool upgradable =
      missing->has_value() && (**missing == kRecordTablesFamily ||
                               **missing == kRecordDataFamily);
  if (missing->has_value() && !(upgradable && mode_ == Mode::kWriter)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "index ", dir_, " has an older storage format (no '", **missing,
        "' family; this leakhound writes format ", kFormatVersion, "); ",
        upgradable ? "any command that changes the index (such as leakhound "
                     "compact) upgrades it in place"
                   : "create a new index and add the documents again"));
  }
  auto db = mode_ == Mode::kWriter
                ? RocksDatabase::OpenWriter(dir_ + "/db", /*create=*/false,
                                            faults_, what)
                : RocksDatabase::OpenReader(dir_ + "/db", faults_,
                                            /*meta_only=*/false, what);
  if (!db.ok()) return db.status();
  db_ = std::move(*db);
  return absl::OkStatus();
}

absl::Status IndexStore::ReadMetadata() {
  auto meta = db_->Get(IndexBatch::Family::kMeta, kMetadataKey);
  if (!meta.ok()) return meta.status();
  auto state = db_->Get(IndexBatch::Family::kMeta, kStateKey);
  if (!state.ok()) return state.status();
  if (!meta->has_value() || !state->has_value()) {
    return absl::DataLossError(absl::StrCat(
        "index ", dir_, " is incomplete (its creation was interrupted); "
        "remove it and run leakhound init again"));
  }
  // The format version is the first field of every version of the metadata
  // record; check it before trusting the rest.
  absl::Status s = DecodeRecord(**meta, &metadata_);
  if (s.ok() && mode_ == Mode::kWriter &&
      metadata_.format_version == kUpgradableFormatVersion) {
    // Format 6 only added the record families, which the writer's open
    // has just created: record the new format.
    metadata_.format_version = kFormatVersion;
    IndexBatch upgrade;
    upgrade.PutMetadata(metadata_);
    s = db_->Write(upgrade);
  }
  if (s.ok() && metadata_.format_version != kFormatVersion) {
    s = absl::FailedPreconditionError("");
  }
  if (!s.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "index ", dir_, " has storage format ", metadata_.format_version,
        " but this leakhound reads format ", kFormatVersion,
        "; use the leakhound that created it, or create a new index and "
        "add the documents again"));
  }
  return absl::OkStatus();
}

void IndexStore::CloseDatabase() { db_->Close(); }

bool IndexStore::Replaced() const {
  struct stat db_stat {};
  if (::stat((dir_ + "/db").c_str(), &db_stat) != 0) return true;
  return db_stat.st_dev != db_device_ || db_stat.st_ino != db_inode_;
}

absl::Status IndexStore::CheckNotReplaced() const {
  if (!Replaced()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "index ", dir_, " was replaced (rekey); open it again"));
}

absl::StatusOr<uint64_t> IndexStore::CommittedGeneration() const {
  if (mode_ == Mode::kWriter) {
    auto state = ReadState();
    if (!state.ok()) return state.status();
    return state->generation;
  }
  absl::Status s = CheckNotReplaced();
  if (!s.ok()) return s;
  // A fresh instance of the meta family alone, every time: one that tails
  // the writer (TryCatchUpWithPrimary) keeps a replayed value in its
  // memtable after the writer flushed a newer one, and serves the old one
  // until the next write (facebook/rocksdb issues 14444, 15051): after
  // `leakhound add` (commit, then flush on close) it read the previous
  // generation.
  auto probe = RocksDatabase::OpenReader(
      dir_ + "/db", faults_,
      /*meta_only=*/true, absl::StrCat("cannot open index ", dir_));
  if (!probe.ok()) return probe.status();
  auto bytes = (*probe)->Get(IndexBatch::Family::kMeta, kStateKey);
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value()) return absl::DataLossError("index has no state");
  StateRecord state;
  s = DecodeRecord(**bytes, &state);
  if (!s.ok()) return s;
  return state.generation;
}

absl::Status IndexStore::Reopen() {
  if (mode_ == Mode::kWriter) return absl::OkStatus();
  absl::Status s = CheckNotReplaced();
  if (!s.ok()) return s;
  // Never a caught-up instance: a secondary that tails the writer
  // (TryCatchUpWithPrimary) can serve a column family from a memtable the
  // writer has since flushed (facebook/rocksdb issue 14444): a reader saw
  // documents whose rows it did not see. A fresh instance reads the
  // database as of its open (ProtectedIndex still checks what it loads).
  auto fresh = RocksDatabase::OpenReader(
      dir_ + "/db", faults_,
      /*meta_only=*/false, absl::StrCat("cannot open index ", dir_));
  if (!fresh.ok()) return fresh.status();  // the old view stays
  db_ = std::move(*fresh);
  return absl::OkStatus();
}


absl::StatusOr<StateRecord> IndexStore::ReadState() const {
  auto state = RecordValue<StateRecord>(
      db_->Get(IndexBatch::Family::kMeta, kStateKey));
  if (!state.ok()) return state.status();
  if (!state->has_value()) return absl::DataLossError("index has no state");
  return **state;
}

absl::StatusOr<std::optional<DocumentRecord>> IndexStore::ReadDocument(
    uint32_t id) const {
  return RecordValue<DocumentRecord>(
      db_->Get(IndexBatch::Family::kDocuments, EncodeId(id)));
}

namespace {
absl::StatusOr<std::optional<uint32_t>> IdValue(
    absl::StatusOr<std::optional<std::string>> bytes) {
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value()) return std::nullopt;
  auto id = DecodeId(**bytes);
  if (!id) return absl::DataLossError("corrupt id in the index");
  return *id;
}
}  // namespace

absl::StatusOr<std::optional<uint32_t>> IndexStore::FindExternalId(
    std::string_view external_id) const {
  return IdValue(db_->Get(IndexBatch::Family::kExternalIds, external_id));
}

absl::StatusOr<std::optional<uint32_t>> IndexStore::FindDigest(
    std::string_view digest) const {
  return IdValue(db_->Get(IndexBatch::Family::kDigests, digest));
}

absl::StatusOr<FingerprintsRecord> IndexStore::ReadFingerprints(
    uint32_t id) const {
  auto record = RecordValue<FingerprintsRecord>(
      db_->Get(IndexBatch::Family::kFingerprints, EncodeId(id)));
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("document ", id, " has no fingerprint list"));
  }
  return std::move(**record);
}

absl::StatusOr<std::optional<std::string>> IndexStore::ReadRowBits(
    uint32_t row) const {
  return db_->Get(IndexBatch::Family::kRowBits, EncodeId(row));
}

absl::StatusOr<std::optional<std::string>> IndexStore::ReadGroupBits(
    uint32_t group) const {
  return db_->Get(IndexBatch::Family::kGroupBits, EncodeId(group));
}

namespace {
template <typename Record>
std::function<absl::Status(std::string_view, std::string_view)> Decoding(
    const std::function<absl::Status(uint32_t, const Record&)>& fn) {
  return [&fn](std::string_view key, std::string_view value) {
    auto id = DecodeId(key);
    if (!id) return absl::DataLossError("corrupt key in the index");
    Record record;
    absl::Status s = DecodeRecord(value, &record);
    if (!s.ok()) return s;
    return fn(*id, record);
  };
}
}  // namespace

absl::Status IndexStore::ForEachDocument(
    const std::function<absl::Status(uint32_t, const DocumentRecord&)>& fn)
    const {
  return db_->ForEach(IndexBatch::Family::kDocuments, Decoding(fn));
}

absl::Status IndexStore::ForEachRow(
    const std::function<absl::Status(uint32_t, const RowRecord&)>& fn) const {
  return db_->ForEach(IndexBatch::Family::kRows, Decoding(fn));
}

absl::Status IndexStore::ForEachRowIfChanged(
    std::span<const uint64_t> previous, std::vector<uint64_t>* hashes,
    const std::function<absl::Status(uint32_t, const RowRecord&)>& fn) const {
  hashes->clear();
  const auto decoded = Decoding(fn);
  return db_->ForEach(IndexBatch::Family::kRows, [&](std::string_view key,
                                                     std::string_view value) {
    auto id = DecodeId(key);
    if (!id) return absl::DataLossError("corrupt key in the index");
    // Never 0, which stands for an absent record.
    const uint64_t hash = absl::HashOf(value) | 1;
    if (*id >= hashes->size()) hashes->resize(size_t{*id} + 1, 0);
    (*hashes)[*id] = hash;
    if (*id < previous.size() && previous[*id] == hash) {
      return absl::OkStatus();
    }
    return decoded(key, value);
  });
}

absl::Status IndexStore::ForEachRowBits(
    const std::function<absl::Status(uint32_t, std::string_view)>& fn,
    uint32_t first, uint32_t end) const {
  return ForEachBits(IndexBatch::Family::kRowBits, fn, first, end);
}

absl::Status IndexStore::ForEachGroupBits(
    const std::function<absl::Status(uint32_t, std::string_view)>& fn) const {
  return ForEachBits(IndexBatch::Family::kGroupBits, fn);
}

absl::Status IndexStore::ForEachBits(
    IndexBatch::Family family,
    const std::function<absl::Status(uint32_t, std::string_view)>& fn,
    uint32_t first, uint32_t end) const {
  // From the very first key when first is 0, so that a corrupt key sorting
  // before every id is still seen.
  const std::string from = first == 0 ? std::string() : EncodeId(first);
  const std::string to = end == 0 ? std::string() : EncodeId(end);
  return db_->ForEach(
      family,
      [&fn](std::string_view key, std::string_view value) {
        auto id = DecodeId(key);
        if (!id) return absl::DataLossError("corrupt key in the index");
        return fn(*id, value);
      },
      from, to);
}

namespace {
std::function<absl::Status(std::string_view, std::string_view)> IdValues(
    const std::function<absl::Status(std::string_view, uint32_t)>& fn) {
  return [&fn](std::string_view key, std::string_view value) {
    auto id = DecodeId(value);
    if (!id) return absl::DataLossError("corrupt id in the index");
    return fn(key, *id);
  };
}
}  // namespace

absl::Status IndexStore::ForEachExternalId(
    const std::function<absl::Status(std::string_view, uint32_t)>& fn) const {
  return db_->ForEach(IndexBatch::Family::kExternalIds, IdValues(fn));
}

namespace {
// What a visitor returns to end a walk early: the walk's own, not an error.
constexpr char kEnough[] = "leakhound: enough records";
absl::Status Enough() { return absl::CancelledError(kEnough); }
bool IsEnough(const absl::Status& s) {
  return absl::IsCancelled(s) && s.message() == kEnough;
}
}  // namespace

absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>>
IndexStore::ReadDocumentsFrom(uint32_t first, size_t limit) const {
  std::vector<std::pair<uint32_t, DocumentRecord>> out;
  if (limit == 0) return out;
  const std::function<absl::Status(uint32_t, const DocumentRecord&)> take =
      [&out, limit](uint32_t id, const DocumentRecord& d) {
        out.emplace_back(id, d);
        return out.size() < limit ? absl::OkStatus() : Enough();
      };
  absl::Status s = db_->ForEach(IndexBatch::Family::kDocuments, Decoding(take),
                                EncodeId(first));
  if (!s.ok() && !IsEnough(s)) return s;
  return out;
}

absl::Status IndexStore::ForEachDigest(
    const std::function<absl::Status(std::string_view, uint32_t)>& fn) const {
  return db_->ForEach(IndexBatch::Family::kDigests, IdValues(fn));
}

absl::StatusOr<std::vector<CountBucketRecord>> IndexStore::ReadCountBuckets(
    std::span<const uint32_t> buckets) const {
  std::vector<std::string> keys;
  keys.reserve(buckets.size());
  for (uint32_t b : buckets) keys.push_back(EncodeCountBucket(b));
  auto values = db_->MultiGet(IndexBatch::Family::kCounts, keys);
  if (!values.ok()) return values.status();
  std::vector<CountBucketRecord> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!(*values)[i].has_value()) continue;
    absl::Status s = DecodeRecord(*(*values)[i], &out[i]);
    if (!s.ok()) return s;
  }
  return out;
}

absl::Status IndexStore::ForEachCountBucket(
    CountTable table,
    const std::function<absl::Status(uint32_t, const CountBucketRecord&)>& fn)
    const {
  return db_->ForEach(
      table == CountTable::kAll ? IndexBatch::Family::kCounts
                                : IndexBatch::Family::kSharedCounts,
      [&fn](std::string_view key, std::string_view value) {
        auto bucket = DecodeCountBucket(key);
        if (!bucket) return absl::DataLossError("corrupt count bucket key");
        CountBucketRecord record;
        absl::Status s = DecodeRecord(value, &record);
        if (!s.ok()) return s;
        return fn(*bucket, record);
      });
}

absl::Status IndexStore::Commit(const IndexBatch& batch) {
  if (mode_ != Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  return db_->Write(batch);
}

absl::Status IndexStore::CompactStorage() {
  if (mode_ != Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  return db_->CompactAll();
}

absl::Status IndexStore::Snapshot(const std::string& out_dir) const {
  if (mode_ != Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  std::error_code ec;
  if (fs::exists(out_dir, ec)) {
    return absl::AlreadyExistsError(
        absl::StrCat(out_dir, " exists; a snapshot goes to a new directory"));
  }
  const std::string partial = out_dir + ".partial";
  fs::remove_all(partial, ec);  // a snapshot interrupted before
  if (::mkdir(partial.c_str(), 0700) != 0) {
    return absl::ErrnoToStatus(errno, "cannot create " + partial);
  }
  absl::Status s = db_->Checkpoint(partial + "/db");
  // A key kept outside the index stays outside its snapshots: the
  // snapshot names it, and a host that scans with it installs the key.
  if (s.ok()) {
    s = key_file_.empty()
            ? WriteKeyFile(partial + "/key", key_)
            : WriteKeyFile(partial + "/" + kKeyLocationFile, key_file_ + "\n");
  }
  if (s.ok()) s = SyncDirectory(partial);
  if (s.ok() && ::rename(partial.c_str(), out_dir.c_str()) != 0) {
    s = absl::ErrnoToStatus(errno, "cannot rename " + partial);
  }
  if (s.ok()) {
    s = SyncDirectory(fs::path(out_dir).parent_path().empty()
                          ? "."
                          : fs::path(out_dir).parent_path().string());
  }
  if (!s.ok()) fs::remove_all(partial, ec);
  return s;
}

uint64_t IndexStore::DiskBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir_, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

}  // namespace leakhound
