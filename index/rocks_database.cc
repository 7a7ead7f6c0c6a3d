#include "index/rocks_database.h"

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
#include <system_error>

#include "absl/strings/str_cat.h"
#include "index/faulty_file_system.h"
#include "index/key_format.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/utilities/checkpoint.h"
#include "rocksdb/version.h"
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
            std::chrono::duration_cast<std::chrono::milliseconds>(now)
                .count()));
    if (n < 0) return;
    const int body = std::vsnprintf(
        line + n, sizeof line - static_cast<size_t>(n) - 1, format, ap);
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
        std::string(what),
        ": No space left on device for the compacted files (RocksDB: ",
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
    kMetaFamily,    kDocumentsFamily,    kExternalIdsFamily,
    kDigestsFamily, kFingerprintsFamily, kRowsFamily,
    kRowBitsFamily, kGroupBitsFamily,    kAllowFamily,
    kCountsFamily,  kSharedCountsFamily, kLocationsFamily,
    kRecordTablesFamily, kRecordDataFamily,
};
constexpr size_t kFamilyCount = std::size(kFamilies);

// The writer's memtable budget over all families.
constexpr size_t kWriterMemtableBytes = size_t{32} << 20;

// Read-ahead of whole-family scans (RocksDatabase::ForEach).
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
        name == kCountsFamily || name == kSharedCountsFamily ||
        name == kRecordDataFamily) {
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
  // Every family's memtables together, not 64 MB each: a `leakhound add`
  // of 84 MB of text held 189 MB of memtables (heaptrack) in its 12
  // families. Past the budget the families flush together (atomic_flush).
  options.db_write_buffer_size = kWriterMemtableBytes;
  return options;
}

}  // namespace

struct RocksDatabase::Handles {
  // The faulty file system's Env when opened with IoFaults; declared
  // before db, so it outlives the database (Close runs first).
  std::unique_ptr<rocksdb::Env> env;
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> families;  // default first
  std::string secondary_dir;  // a reader's own RocksDB info directory

  rocksdb::ColumnFamilyHandle* family(IndexBatch::Family f) const {
    return families[1 + static_cast<size_t>(f)];
  }
  // With `faults`, runs the database opened with `options` on a faulty
  // file system (faulty_file_system.h); without, changes nothing.
  void UseFaults(IoFaults* faults, rocksdb::DBOptions& options) {
    if (faults == nullptr) return;
    env = NewFaultyEnv(*faults);
    options.env = env.get();
  }
};

RocksDatabase::RocksDatabase(bool writer)
    : writer_(writer), handles_(std::make_unique<Handles>()) {}

RocksDatabase::~RocksDatabase() { Close(); }

absl::StatusOr<std::unique_ptr<RocksDatabase>> RocksDatabase::OpenWriter(
    const std::string& db_dir, bool create, IoFaults* faults,
    std::string_view what) {
  rocksdb::DBOptions options = WriterOptions();
  // An index of the upgradable format lacks the record families
  // (key_format.h); the writer adds them.
  options.create_missing_column_families = true;
  if (create) {
    options.create_if_missing = true;
    options.error_if_exists = true;
  }
  options.info_log = std::make_shared<InfoLog>(db_dir + "/LOG");
  auto db = std::unique_ptr<RocksDatabase>(new RocksDatabase(true));
  Handles& h = *db->handles_;
  h.UseFaults(faults, options);
  absl::Status s = FromRocks(
      rocksdb::DB::Open(options, db_dir, Descriptors(), &h.families, &h.db),
      what);
  if (!s.ok()) return s;
  return db;
}

absl::StatusOr<std::unique_ptr<RocksDatabase>> RocksDatabase::OpenReader(
    const std::string& db_dir, IoFaults* faults, bool meta_only,
    std::string_view what) {
  auto db = std::unique_ptr<RocksDatabase>(new RocksDatabase(false));
  Handles& h = *db->handles_;
  rocksdb::DBOptions options;
  h.UseFaults(faults, options);
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
  h.secondary_dir = path;
  options.info_log = std::make_shared<InfoLog>(path + "/LOG");
  std::vector<rocksdb::ColumnFamilyDescriptor> families = Descriptors();
  // The default family, then kMeta (Family value 0): Handles::family holds.
  static_assert(static_cast<int>(IndexBatch::Family::kMeta) == 0);
  if (meta_only) families.resize(2);
  absl::Status s = FromRocks(
      rocksdb::DB::OpenAsSecondary(options, db_dir, path, families,
                                   &h.families, &h.db),
      what);
  if (!s.ok()) return s;
  return db;
}

absl::StatusOr<std::optional<std::string>> RocksDatabase::MissingFamily(
    const std::string& db_dir, bool writer, IoFaults* faults,
    std::string_view what) {
  rocksdb::DBOptions options = writer ? WriterOptions() : rocksdb::DBOptions();
  Handles env_holder;
  if (writer) env_holder.UseFaults(faults, options);
  std::vector<std::string> existing;
  absl::Status s = FromRocks(
      rocksdb::DB::ListColumnFamilies(options, db_dir, &existing), what);
  if (!s.ok()) return s;
  for (std::string_view name : kFamilies) {
    if (std::find(existing.begin(), existing.end(), name) == existing.end()) {
      return std::string(name);
    }
  }
  return std::nullopt;
}

void RocksDatabase::Close() {
  Handles& h = *handles_;
  if (h.db == nullptr) return;
  if (writer_) {
    // A writer leaves its memtables flushed to table files, so readers
    // opening later need not replay the write-ahead log. Best effort: the
    // log is durable either way.
    std::vector<rocksdb::ColumnFamilyHandle*> families(h.families.begin() + 1,
                                                       h.families.end());
    (void)h.db->Flush(rocksdb::FlushOptions(), families);
  }
  for (auto* f : h.families) h.db->DestroyColumnFamilyHandle(f);
  h.families.clear();
  delete h.db;
  h.db = nullptr;
  if (!h.secondary_dir.empty()) {
    std::error_code ignored;
    fs::remove_all(h.secondary_dir, ignored);
  }
}

absl::StatusOr<std::optional<std::string>> RocksDatabase::Get(
    IndexBatch::Family family, std::string_view key) const {
  std::string value;
  const rocksdb::Status s =
      handles_->db->Get(rocksdb::ReadOptions(), handles_->family(family),
                        rocksdb::Slice(key), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "cannot read the index");
  return value;
}

absl::StatusOr<std::vector<std::optional<std::string>>> RocksDatabase::MultiGet(
    IndexBatch::Family family, std::span<const std::string> keys) const {
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  handles_->db->MultiGet(rocksdb::ReadOptions(), handles_->family(family),
                         slices.size(), slices.data(), values.data(),
                         statuses.data(), /*sorted_input=*/false);
  std::vector<std::optional<std::string>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) {
      return FromRocks(statuses[i], "cannot read the index");
    }
    out[i].emplace(values[i].data(), values[i].size());
  }
  return out;
}

absl::Status RocksDatabase::ForEach(
    IndexBatch::Family family,
    const std::function<absl::Status(std::string_view, std::string_view)>& fn,
    std::string_view from, std::string_view to) const {
  // A whole-family scan (open reads every row's bits): a writer reads
  // table files with pread, so read ahead in large reads (readers map the
  // files; see OpenReader); and keep the blocks out of the block cache,
  // which serves the point reads.
  rocksdb::ReadOptions options;
  options.readahead_size = kScanReadahead;
  options.fill_cache = false;
  const rocksdb::Slice upper(to.data(), to.size());
  if (!to.empty()) options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      handles_->db->NewIterator(options, handles_->family(family)));
  for (it->Seek(rocksdb::Slice(from.data(), from.size())); it->Valid();
       it->Next()) {
    const rocksdb::Slice k = it->key(), v = it->value();
    absl::Status s = fn(std::string_view(k.data(), k.size()),
                        std::string_view(v.data(), v.size()));
    if (!s.ok()) return s;
  }
  return FromRocks(it->status(), "cannot read the index");
}

absl::Status RocksDatabase::Write(const IndexBatch& batch) {
  rocksdb::WriteBatch wb;
  for (const IndexBatch::Op& op : batch.ops()) {
    rocksdb::ColumnFamilyHandle* cf = handles_->family(op.family);
    const rocksdb::Slice key(op.key);
    const rocksdb::Status s =
        op.range_end ? wb.DeleteRange(cf, key, rocksdb::Slice(*op.range_end))
        : op.value   ? wb.Put(cf, key, rocksdb::Slice(*op.value))
                     : wb.Delete(cf, key);
    if (!s.ok()) return FromRocks(s, "cannot build the index write");
  }
  rocksdb::WriteOptions options;
  options.sync = true;
  return FromRocks(handles_->db->Write(options, &wb),
                   "cannot write the index");
}

absl::Status RocksDatabase::CompactAll() {
  rocksdb::CompactRangeOptions options;
  for (size_t i = 1; i <= kFamilyCount; ++i) {
    absl::Status s = FromRocks(
        handles_->db->CompactRange(options, handles_->families[i], nullptr,
                                   nullptr),
        "cannot compact the index database");
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RocksDatabase::Checkpoint(const std::string& dir) const {
  rocksdb::Checkpoint* raw = nullptr;
  absl::Status s = FromRocks(rocksdb::Checkpoint::Create(handles_->db, &raw),
                             "cannot snapshot the index");
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  if (s.ok()) {
    s = FromRocks(checkpoint->CreateCheckpoint(dir),
                  "cannot snapshot the index");
  }
  return s;
}

std::string RocksDbVersion() { return rocksdb::GetRocksVersionAsString(true); }

}  // namespace leakhound
