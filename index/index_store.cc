#include "index/index_store.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "index/faulty_file_system.h"
#include "index/key_format.h"
#include "index/record_codec.h"
#include "index/writer_lock.h"
#include "rocksdb/version.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/checkpoint.h"
#include "rocksdb/write_batch.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

// RocksDB's info log, appended with write(2) whose failures are ignored.
// RocksDB's own file logger asserts when it writes again after a failed
// write: with the disk full, its error handler's next log line aborted the
// whole process (Debian's RocksDB 7.8 keeps its assertions; fixed upstream
// in 9.1). A log line must never cost the operation. The file is mode 0600
// and restarted when it passes kMaxInfoLogBytes at open (one old copy).
class InfoLog final : public rocksdb::Logger {
 public:
  static constexpr off_t kMaxInfoLogBytes = off_t{4} << 20;

  explicit InfoLog(const std::string& path)
      : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && st.st_size > kMaxInfoLogBytes) {
      (void)::rename(path.c_str(), (path + ".old").c_str());
    }
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  }
  ~InfoLog() override {
    if (fd_ >= 0) ::close(fd_);
  }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    if (fd_ < 0) return;
    char line[1024];
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    int n = std::snprintf(
        line, sizeof line, "%lld ",
        static_cast<long long>(
            std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
    if (n < 0) return;
    const int body = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n) - 1,
                                    format, ap);
    if (body < 0) return;
    size_t len = std::min(sizeof line - 2, static_cast<size_t>(n + body));
    line[len++] = '\n';
    (void)!::write(fd_, line, len);  // a lost log line is not an error
  }

 private:
  int fd_ = -1;
};

// The one place RocksDB's errors become absl::Status.
absl::Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  const std::string msg = absl::StrCat(std::string(what), ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(msg);
  if (s.IsCorruption()) return absl::DataLossError(msg);
  if (s.IsIOError() && s.subcode() == rocksdb::Status::kNoSpace) {
    return absl::ResourceExhaustedError(msg);
  }
  // RocksDB's own words ("Compaction too large: ") do not say why: its
  // compaction found too little free space for the files it would write.
  if (s.IsCompactionTooLarge()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        std::string(what), ": No space left on device for the compacted files (RocksDB: ",
        s.ToString(), ")"));
  }
  if (s.IsBusy() || s.IsTimedOut() || s.IsTryAgain()) {
    return absl::UnavailableError(msg);
  }
  if (s.IsInvalidArgument()) return absl::InvalidArgumentError(msg);
  return absl::InternalError(msg);
}

// PERSISTED order: Family values index this array.
constexpr std::string_view kFamilies[] = {
    kMetaFamily,         kDocumentsFamily, kExternalIdsFamily, kDigestsFamily,
    kFingerprintsFamily, kRowsFamily,      kRowBitsFamily, kGroupBitsFamily,
    kAllowFamily,        kCountsFamily,    kSharedCountsFamily, kLocationsFamily,
};
constexpr size_t kFamilyCount = std::size(kFamilies);

// Read-ahead of whole-family scans (Impl::ForEach).
constexpr size_t kScanReadahead = size_t{4} << 20;

std::vector<rocksdb::ColumnFamilyDescriptor> Descriptors() {
  std::vector<rocksdb::ColumnFamilyDescriptor> out;
  out.emplace_back(rocksdb::kDefaultColumnFamilyName,
                   rocksdb::ColumnFamilyOptions());
  for (std::string_view name : kFamilies) {
    rocksdb::ColumnFamilyOptions cf;
    // Row and group bits (about half set), fingerprints and count buckets
    // (keyed hashes) do not compress; the other records are small.
    if (name == kRowBitsFamily || name == kGroupBitsFamily ||
        name == kFingerprintsFamily ||
        name == kCountsFamily || name == kSharedCountsFamily) {
      cf.compression = rocksdb::kNoCompression;
    }
    out.emplace_back(std::string(name), cf);
  }
  return out;
}

// The writer's database options.
rocksdb::DBOptions WriterOptions() {
  rocksdb::DBOptions options;
  // Every flush writes all families' memtables in one MANIFEST record. A
  // reader opening while the writer flushed families one by one (at close,
  // after `leakhound add`) saw the last commit's state record but not its
  // documents and rows: a consistent-looking view of the generation before,
  // labelled with the new one, which it then kept (IndexHolderTest).
  options.atomic_flush = true;
  return options;
}

absl::Status WriteKeyFile(const std::string& path, std::string_view key) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot create " + path);
  const bool ok =
      ::write(fd, key.data(), key.size()) ==
          static_cast<ssize_t>(key.size()) &&
      ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return absl::ErrnoToStatus(err, "cannot write " + path);
  return absl::OkStatus();
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + dir);
  const bool ok = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return absl::ErrnoToStatus(err, "cannot sync " + dir);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadKeyFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, "cannot stat " + path);
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "key file ", path, " is accessible to other users (mode ",
        absl::StrFormat("%04o", st.st_mode & 07777), "); run chmod 600 on it"));
  }
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof(buf));
  const int err = errno;
  ::close(fd);
  if (n < 0) return absl::ErrnoToStatus(err, "cannot read " + path);
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

class IndexStore::Impl {
 public:
  ~Impl() { CloseDatabase(); }

  // Closes RocksDB (a writer flushes first); the writer lock stays held
  // until the object is destroyed.
  void CloseDatabase() {
    if (db_ == nullptr) return;
    if (lock_ != nullptr) {
      // A writer leaves its memtables flushed to table files, so readers
      // opening later need not replay the write-ahead log. Best effort:
      // the log is durable either way.
      std::vector<rocksdb::ColumnFamilyHandle*> families(
          handles_.begin() + 1, handles_.end());
      (void)db_->Flush(rocksdb::FlushOptions(), families);
    }
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
    handles_.clear();
    delete db_;
    db_ = nullptr;
    if (!secondary_dir_.empty()) {
      std::error_code ignored;
      fs::remove_all(secondary_dir_, ignored);
    }
  }

  rocksdb::ColumnFamilyHandle* family(IndexBatch::Family f) const {
    return handles_[1 + static_cast<size_t>(f)];
  }

  absl::StatusOr<std::optional<std::string>> Get(IndexBatch::Family f,
                                                 std::string_view key) const {
    std::string value;
    const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), family(f),
                                       rocksdb::Slice(key), &value);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) return FromRocks(s, "cannot read the index");
    return value;
  }

  absl::Status ForEach(
      IndexBatch::Family f,
      const std::function<absl::Status(std::string_view, std::string_view)>&
          fn) const {
    // A whole-family scan (open reads every row's bits): a writer reads
    // table files with pread, so read ahead in large reads (readers map the
    // files; see Open); and keep the blocks out of the block cache, which
    // serves the point reads.
    rocksdb::ReadOptions options;
    options.readahead_size = kScanReadahead;
    options.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options, family(f)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const rocksdb::Slice k = it->key(), v = it->value();
      absl::Status s = fn(std::string_view(k.data(), k.size()),
                          std::string_view(v.data(), v.size()));
      if (!s.ok()) return s;
    }
    return FromRocks(it->status(), "cannot read the index");
  }

  // With `faults`, runs the database opened with `options` on a faulty
  // file system (faulty_file_system.h); without, changes nothing.
  void UseFaults(IoFaults* faults, rocksdb::DBOptions& options) {
    if (faults == nullptr) return;
    env_ = NewFaultyEnv(*faults);
    options.env = env_.get();
  }

  // The faulty file system's Env when opened with IoFaults; declared
  // before db_, so it outlives the database (CloseDatabase runs first).
  std::unique_ptr<rocksdb::Env> env_;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<WriterLock> lock_;
  std::string secondary_dir_;  // readers' own RocksDB info directory
};

// Opens `impl` as a secondary instance of the database in `dir`, with its
// own RocksDB info directory under $TMPDIR; with `meta_only`, of the meta
// family alone (the probe that reads the state's generation).
absl::Status IndexStore::OpenReader(const std::string& dir, Impl& impl,
                                   IoFaults* faults, bool meta_only) {
  rocksdb::DBOptions options;
  impl.UseFaults(faults, options);
  // A secondary instance keeps every table file open (required), so the
  // writer deleting a compacted file never pulls data from under it.
  options.max_open_files = -1;
  // Scans look up many scattered keys (document frequencies, fingerprint
  // lists): reading table files through mmap spares a pread per block.
  // Not under injected faults, which see reads only through the file
  // system (so a fault test can fail every read of an open or a load).
  options.allow_mmap_reads = faults == nullptr;
  // But not advised random: open reads every row's bits in one pass, and
  // with MADV_RANDOM each page faulted in alone (a cold open ran at 45 MB/s
  // against 1.8 GB/s for reading the files whole; BM_OpenRows).
  options.advise_random_on_open = false;
  std::error_code ec;
  const fs::path tmpl = fs::temp_directory_path(ec) / "leakhound-reader-XXXXXX";
  std::string path = tmpl.string();
  if (::mkdtemp(path.data()) == nullptr) {
    return absl::ErrnoToStatus(errno, "cannot create a reader directory");
  }
  impl.secondary_dir_ = path;
  options.info_log = std::make_shared<InfoLog>(path + "/LOG");
  std::vector<rocksdb::ColumnFamilyDescriptor> families = Descriptors();
  // The default family, then kMeta (Family value 0): Impl::family holds.
  static_assert(static_cast<int>(IndexBatch::Family::kMeta) == 0);
  if (meta_only) families.resize(2);
  return FromRocks(
      rocksdb::DB::OpenAsSecondary(options, dir + "/db", path, families,
                                   &impl.handles_, &impl.db_),
      absl::StrCat("cannot open index ", dir));
}

IndexStore::IndexStore(std::string dir, Mode mode)
    : dir_(std::move(dir)), mode_(mode), impl_(std::make_unique<Impl>()) {}

IndexStore::~IndexStore() = default;

absl::StatusOr<std::unique_ptr<IndexStore>> IndexStore::Create(
    const std::string& dir, MetadataRecord metadata, std::string_view key,
    IoFaults* faults) {
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
  absl::Status s = WriteKeyFile(dir + "/key", key);
  if (!s.ok()) return s;

  rocksdb::DBOptions options = WriterOptions();
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.error_if_exists = true;
  if (::mkdir((dir + "/db").c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::ErrnoToStatus(errno, "cannot create " + dir + "/db");
  }
  options.info_log = std::make_shared<InfoLog>(dir + "/db/LOG");
  auto store = std::unique_ptr<IndexStore>(new IndexStore(dir, Mode::kWriter));
  store->impl_->lock_ = std::move(*lock);
  store->impl_->UseFaults(faults, options);
  s = FromRocks(rocksdb::DB::Open(options, dir + "/db", Descriptors(),
                                  &store->impl_->handles_,
                                  &store->impl_->db_),
                "cannot create the index database");
  if (!s.ok()) return s;
  metadata.format_version = kFormatVersion;
  if (metadata.created_unix_ms == 0) {
    metadata.created_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count();
  }
  store->metadata_ = metadata;
  store->key_ = std::string(key);
  IndexBatch batch;
  batch.PutMetadata(metadata);
  batch.PutState(StateRecord{});
  s = store->Commit(batch);
  if (!s.ok()) return s;
  return store;
}

absl::StatusOr<std::unique_ptr<IndexStore>> IndexStore::Open(
    const std::string& dir, Mode mode, IoFaults* faults) {
  std::error_code ec;
  if (!fs::exists(dir + "/db/CURRENT", ec)) {
    if (fs::exists(dir, ec) && ::access(dir.c_str(), R_OK | X_OK) != 0) {
      return absl::ErrnoToStatus(errno, "cannot open index " + dir);
    }
    return absl::NotFoundError(absl::StrCat(
        "no leakhound index at ", dir,
        " (create one with: leakhound init --index ", dir, ")"));
  }
  auto store = std::unique_ptr<IndexStore>(new IndexStore(dir, mode));
  struct stat db_stat {};
  if (::stat((dir + "/db").c_str(), &db_stat) == 0) {
    store->db_device_ = db_stat.st_dev;
    store->db_inode_ = db_stat.st_ino;
  }
  if (mode == Mode::kWriter) {
    auto lock = WriterLock::Acquire(dir);
    if (!lock.ok()) return lock.status();
    store->impl_->lock_ = std::move(*lock);
  }
  auto key = ReadKeyFile(dir + "/key");
  if (!key.ok()) return key.status();
  store->key_ = std::move(*key);

  store->faults_ = faults;
  rocksdb::DBOptions options =
      mode == Mode::kWriter ? WriterOptions() : rocksdb::DBOptions();
  if (mode == Mode::kWriter) store->impl_->UseFaults(faults, options);
  // An index of an older storage format lacks column families this one
  // has: say so rather than let RocksDB refuse in its own words.
  std::vector<std::string> existing;
  rocksdb::Status rs =
      rocksdb::DB::ListColumnFamilies(options, dir + "/db", &existing);
  if (!rs.ok()) return FromRocks(rs, absl::StrCat("cannot open index ", dir));
  for (std::string_view name : kFamilies) {
    if (std::find(existing.begin(), existing.end(), name) == existing.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "index ", dir, " has an older storage format (no '",
          std::string(name), "' family; this leakhound writes format ",
          kFormatVersion, "); create a new index and add the documents again"));
    }
  }
  if (mode == Mode::kWriter) {
    options.info_log = std::make_shared<InfoLog>(dir + "/db/LOG");
    rs = rocksdb::DB::Open(options, dir + "/db", Descriptors(),
                           &store->impl_->handles_, &store->impl_->db_);
  }
  absl::Status s =
      mode == Mode::kWriter
          ? FromRocks(rs, absl::StrCat("cannot open index ", dir))
          : OpenReader(dir, *store->impl_, faults, /*meta_only=*/false);
  if (!s.ok()) return s;

  auto meta = store->impl_->Get(IndexBatch::Family::kMeta, kMetadataKey);
  if (!meta.ok()) return meta.status();
  auto state = store->impl_->Get(IndexBatch::Family::kMeta, kStateKey);
  if (!state.ok()) return state.status();
  if (!meta->has_value() || !state->has_value()) {
    return absl::DataLossError(absl::StrCat(
        "index ", dir, " is incomplete (its creation was interrupted); "
        "remove it and run leakhound init again"));
  }
  // The format version is the first field of every version of the metadata
  // record; check it before trusting the rest.
  s = DecodeRecord(**meta, &store->metadata_);
  if (s.ok() && store->metadata_.format_version != kFormatVersion) {
    s = absl::FailedPreconditionError("");
  }
  if (!s.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "index ", dir, " has storage format ",
        store->metadata_.format_version, " but this leakhound reads format ",
        kFormatVersion,
        "; use the leakhound that created it, or create a new index and "
        "add the documents again"));
  }
  return store;
}

void IndexStore::CloseDatabase() { impl_->CloseDatabase(); }

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
  Impl probe;
  s = OpenReader(dir_, probe, faults_, /*meta_only=*/true);
  if (!s.ok()) return s;
  auto bytes = probe.Get(IndexBatch::Family::kMeta, kStateKey);
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
  auto fresh = std::make_unique<Impl>();
  s = OpenReader(dir_, *fresh, faults_, /*meta_only=*/false);
  if (!s.ok()) return s;  // the old view stays
  impl_ = std::move(fresh);
  return absl::OkStatus();
}

namespace {
// The record read by Impl::Get, decoded; nullopt when the key is absent.
template <class Record>
absl::StatusOr<std::optional<Record>> RecordValue(
    absl::StatusOr<std::optional<std::string>> bytes) {
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value()) return std::nullopt;
  Record record;
  absl::Status s = DecodeRecord(**bytes, &record);
  if (!s.ok()) return s;
  return record;
}
}  // namespace

absl::StatusOr<StateRecord> IndexStore::ReadState() const {
  auto state = RecordValue<StateRecord>(
      impl_->Get(IndexBatch::Family::kMeta, kStateKey));
  if (!state.ok()) return state.status();
  if (!state->has_value()) return absl::DataLossError("index has no state");
  return **state;
}

absl::StatusOr<std::optional<DocumentRecord>> IndexStore::ReadDocument(
    uint32_t id) const {
  return RecordValue<DocumentRecord>(
      impl_->Get(IndexBatch::Family::kDocuments, EncodeId(id)));
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
  return IdValue(impl_->Get(IndexBatch::Family::kExternalIds, external_id));
}

absl::StatusOr<std::optional<uint32_t>> IndexStore::FindDigest(
    std::string_view digest) const {
  return IdValue(impl_->Get(IndexBatch::Family::kDigests, digest));
}

absl::StatusOr<FingerprintsRecord> IndexStore::ReadFingerprints(
    uint32_t id) const {
  auto record = RecordValue<FingerprintsRecord>(
      impl_->Get(IndexBatch::Family::kFingerprints, EncodeId(id)));
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("document ", id, " has no fingerprint list"));
  }
  return std::move(**record);
}

absl::StatusOr<std::optional<std::string>> IndexStore::ReadRowBits(
    uint32_t row) const {
  return impl_->Get(IndexBatch::Family::kRowBits, EncodeId(row));
}

absl::StatusOr<std::optional<std::string>> IndexStore::ReadGroupBits(
    uint32_t group) const {
  return impl_->Get(IndexBatch::Family::kGroupBits, EncodeId(group));
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
  return impl_->ForEach(IndexBatch::Family::kDocuments, Decoding(fn));
}

absl::Status IndexStore::ForEachRow(
    const std::function<absl::Status(uint32_t, const RowRecord&)>& fn) const {
  return impl_->ForEach(IndexBatch::Family::kRows, Decoding(fn));
}

absl::Status IndexStore::ForEachRowBits(
    const std::function<absl::Status(uint32_t, std::string_view)>& fn) const {
  return ForEachBits(IndexBatch::Family::kRowBits, fn);
}

absl::Status IndexStore::ForEachGroupBits(
    const std::function<absl::Status(uint32_t, std::string_view)>& fn) const {
  return ForEachBits(IndexBatch::Family::kGroupBits, fn);
}

absl::Status IndexStore::ForEachBits(
    IndexBatch::Family family,
    const std::function<absl::Status(uint32_t, std::string_view)>& fn) const {
  return impl_->ForEach(family,
                        [&fn](std::string_view key, std::string_view value) {
                          auto id = DecodeId(key);
                          if (!id) {
                            return absl::DataLossError(
                                "corrupt key in the index");
                          }
                          return fn(*id, value);
                        });
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
  return impl_->ForEach(IndexBatch::Family::kExternalIds, IdValues(fn));
}

absl::Status IndexStore::ForEachDigest(
    const std::function<absl::Status(std::string_view, uint32_t)>& fn) const {
  return impl_->ForEach(IndexBatch::Family::kDigests, IdValues(fn));
}

absl::StatusOr<std::vector<CountBucketRecord>> IndexStore::ReadCountBuckets(
    std::span<const uint32_t> buckets) const {
  std::vector<std::string> keys;
  keys.reserve(buckets.size());
  for (uint32_t b : buckets) keys.push_back(EncodeCountBucket(b));
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  impl_->db_->MultiGet(rocksdb::ReadOptions(),
                       impl_->family(IndexBatch::Family::kCounts),
                       slices.size(), slices.data(), values.data(),
                       statuses.data(), /*sorted_input=*/false);
  std::vector<CountBucketRecord> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) {
      return FromRocks(statuses[i], "cannot read the index");
    }
    absl::Status s = DecodeRecord(
        std::string_view(values[i].data(), values[i].size()), &out[i]);
    if (!s.ok()) return s;
  }
  return out;
}

absl::Status IndexStore::ForEachCountBucket(
    CountTable table,
    const std::function<absl::Status(uint32_t, const CountBucketRecord&)>& fn)
    const {
  return impl_->ForEach(
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

absl::StatusOr<std::optional<AllowRecord>> IndexStore::ReadAllowEntry(
    std::string_view name) const {
  return RecordValue<AllowRecord>(
      impl_->Get(IndexBatch::Family::kAllow, name));
}

absl::Status IndexStore::ForEachAllowEntry(
    const std::function<absl::Status(std::string_view, const AllowRecord&)>&
        fn) const {
  return impl_->ForEach(IndexBatch::Family::kAllow,
                        [&fn](std::string_view key, std::string_view value) {
                          AllowRecord record;
                          absl::Status s = DecodeRecord(value, &record);
                          if (!s.ok()) return s;
                          return fn(key, record);
                        });
}

absl::Status IndexStore::ForEachLocation(
    const std::function<absl::Status(std::string_view,
                                     const LocationRecord&)>& fn) const {
  return impl_->ForEach(IndexBatch::Family::kLocations,
                        [&fn](std::string_view key, std::string_view value) {
                          LocationRecord record;
                          absl::Status s = DecodeRecord(value, &record);
                          if (!s.ok()) return s;
                          return fn(key, record);
                        });
}

absl::Status IndexStore::Commit(const IndexBatch& batch) {
  if (mode_ != Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  rocksdb::WriteBatch wb;
  for (const IndexBatch::Op& op : batch.ops()) {
    rocksdb::ColumnFamilyHandle* cf = impl_->family(op.family);
    const rocksdb::Slice key(op.key);
    const rocksdb::Status s =
        op.value ? wb.Put(cf, key, rocksdb::Slice(*op.value))
                 : wb.Delete(cf, key);
    if (!s.ok()) return FromRocks(s, "cannot build the index write");
  }
  rocksdb::WriteOptions options;
  options.sync = true;
  return FromRocks(impl_->db_->Write(options, &wb),
                   "cannot write the index");
}

absl::Status IndexStore::CompactStorage() {
  if (mode_ != Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  rocksdb::CompactRangeOptions options;
  for (size_t i = 1; i <= kFamilyCount; ++i) {
    absl::Status s = FromRocks(
        impl_->db_->CompactRange(options, impl_->handles_[i], nullptr,
                                 nullptr),
        "cannot compact the index database");
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
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
  rocksdb::Checkpoint* raw = nullptr;
  absl::Status s = FromRocks(rocksdb::Checkpoint::Create(impl_->db_, &raw),
                             "cannot snapshot the index");
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  if (s.ok()) {
    s = FromRocks(checkpoint->CreateCheckpoint(partial + "/db"),
                  "cannot snapshot the index");
  }
  if (s.ok()) s = WriteKeyFile(partial + "/key", key_);
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

std::string RocksDbVersion() { return rocksdb::GetRocksVersionAsString(true); }

}  // namespace leakhound
