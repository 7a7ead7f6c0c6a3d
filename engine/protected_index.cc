#include "engine/protected_index.h"

#include <unistd.h>

#include <algorithm>
#include <string_view>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "engine/matrix_records.h"
#include "index/mapped_pages.h"
#include "shingler/fingerprint_key.h"

namespace leakhound {
namespace {

// Decoded documents kept for the second stage of scans, per open index.
constexpr size_t kDocumentCacheBytes = size_t{64} << 20;

// A shingler with the index's fingerprint key and shingling options.
absl::StatusOr<std::unique_ptr<Shingler>> StoredShingler(
    const IndexStore& store) {
  std::span<const uint8_t> key_bytes(
      reinterpret_cast<const uint8_t*>(store.key().data()), store.key().size());
  auto key = FingerprintKey::FromBytes(key_bytes);
  if (!key.ok()) {
    return absl::DataLossError(
        absl::StrCat("key file of index ", store.dir(), " is damaged"));
  }
  const MetadataRecord& meta = store.metadata();
  ShinglerOptions options;
  options.shingle_words = static_cast<int>(meta.shingle_words);
  options.cjk_chars_per_word = static_cast<int>(meta.cjk_chars_per_word);
  options.winnow_window = static_cast<int>(meta.winnow_window);
  options.filter_winnow_window = static_cast<int>(meta.filter_winnow_window);
  return Shingler::Create(options, *key);
}

}  // namespace

ProtectedIndex::ProtectedIndex(std::unique_ptr<IndexStore> store,
                               std::unique_ptr<Shingler> shingler)
    : store_(std::move(store)),
      shingler_(std::move(shingler)),
      documents_(
          std::make_unique<DocumentCache>(*store_, kDocumentCacheBytes)) {}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> ProtectedIndex::Create(
    const std::string& dir, const IndexOptions& options) {
  auto geometry = BloomGeometry::FromParams(options.filter);
  if (!geometry.ok()) return geometry.status();
  auto key = options.key.has_value()
                 ? absl::StatusOr<FingerprintKey>(*options.key)
                 : FingerprintKey::Generate();
  if (!key.ok()) return key.status();
  auto shingler = Shingler::Create(options.shingler, *key);
  if (!shingler.ok()) return shingler.status();

  MetadataRecord meta;
  meta.shingler_version = kShinglerVersion;
  meta.unicode_version = UnicodeVersion();
  meta.shingle_words = static_cast<uint32_t>(options.shingler.shingle_words);
  meta.cjk_chars_per_word =
      static_cast<uint32_t>(options.shingler.cjk_chars_per_word);
  meta.winnow_window = static_cast<uint32_t>(options.shingler.winnow_window);
  meta.filter_winnow_window =
      static_cast<uint32_t>(options.shingler.filter_winnow_window);
  meta.fpr = options.filter.fpr;
  meta.row_capacity = options.filter.row_capacity;
  meta.fill = options.filter.fill;
  meta.bits = geometry->bits;
  meta.hashes = geometry->hashes;
  meta.packing = static_cast<uint8_t>(options.packing);
  meta.group_rows = options.group_rows;
  const auto& bytes = key->bytes();
  auto store = IndexStore::Create(
      dir, meta,
      std::string_view(reinterpret_cast<const char*>(bytes.data()),
                       bytes.size()),
      options.key_file);
  if (!store.ok()) return store.status();
  auto index = std::unique_ptr<ProtectedIndex>(
      new ProtectedIndex(std::move(*store), std::move(*shingler)));
  absl::Status s = index->Load();
  if (!s.ok()) return s;
  return index;
}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> ProtectedIndex::Open(
    const std::string& dir, OpenMode mode) {
  return OpenWithFaults(dir, mode, nullptr);
}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> ProtectedIndex::OpenWithFaults(
    const std::string& dir, OpenMode mode, IoFaults* faults) {
  auto store = IndexStore::OpenWithFaults(dir,
                                          mode == OpenMode::kRead
                                              ? IndexStore::Mode::kReader
                                              : IndexStore::Mode::kWriter,
                                          faults);
  if (!store.ok()) return store.status();
  const MetadataRecord& meta = (*store)->metadata();
  if (meta.shingler_version != kShinglerVersion && mode != OpenMode::kRebuild) {
    return absl::FailedPreconditionError(absl::StrCat(
        "index ", dir, " was built with shingler version ",
        meta.shingler_version, " but this leakhound fingerprints text with "
        "version ", kShinglerVersion,
        "; its fingerprints would never match: rebuild it from its "
        "documents' sources with leakhound rekey, or use the leakhound that "
        "built it"));
  }
  auto geometry = BloomGeometry::FromParams(MatrixOptionsOf(meta).filter);
  if (!geometry.ok() || geometry->bits != meta.bits ||
      geometry->hashes != meta.hashes) {
    return absl::DataLossError(absl::StrCat(
        "index ", dir, " has filter parameters this leakhound does not "
        "derive the same geometry from"));
  }
  auto shingler = StoredShingler(**store);
  if (!shingler.ok()) return shingler.status();
  auto index = std::unique_ptr<ProtectedIndex>(
      new ProtectedIndex(std::move(*store), std::move(*shingler)));
  index->rebuild_only_ = mode == OpenMode::kRebuild;
  absl::Status s = index->LoadConsistent();
  if (!s.ok()) return s;
  return index;
}

absl::Status ProtectedIndex::Load() {
  auto state = store_->ReadState();
  if (!state.ok()) return state.status();
  std::vector<uint64_t> hashes;
  auto matrix = LoadMatrix(*store_, *state, &hashes);
  if (!matrix.ok()) return matrix.status();
  absl::Status s = LoadSideTables();
  if (!s.ok()) return s;
  // The first view replaced in a LoadConsistent stays, for its check.
  if (previous_ == nullptr) previous_ = std::move(matrix_);
  matrix_ = std::move(*matrix);
  record_hashes_ = std::move(hashes);
  rows_read_ = matrix_->rows().size();
  state_ = *state;
  pending_next_id_ = state_.next_doc_id;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<RowChanges>> ProtectedIndex::LoadChanges() {
  auto state = store_->ReadState();
  if (!state.ok()) return state.status();
  auto changes = LoadChangedRows(*store_, *state, *matrix_, &record_hashes_);
  if (absl::IsFailedPrecondition(changes.status())) return std::nullopt;
  absl::Status s = changes.status();
  if (s.ok()) s = LoadSideTables();
  if (!s.ok()) {
    record_hashes_.clear();
    return s;
  }
  rows_read_ = changes->rows.size();
  state_ = *state;
  pending_next_id_ = state_.next_doc_id;
  return std::move(*changes);
}

absl::Status ProtectedIndex::LoadSideTables() {
  absl::Status s = LoadAllowList();
  if (!s.ok()) return s;
  s = LoadLocations();
  if (!s.ok()) return s;
  auto frequency = DocumentFrequency::Load(*store_);
  if (!frequency.ok()) return frequency.status();
  frequency_ = std::make_unique<DocumentFrequency>(std::move(*frequency));
  auto tables = RecordTables::Load(*store_, record_tables_.get());
  if (!tables.ok()) return tables.status();
  // Loading the tables' primary sets read their family whole through the
  // mapped table files: give those pages back (index/mapped_pages.h).
  if (!(*tables)->tables().empty() && *tables != record_tables_) {
    ReleaseMappedPages(store_->dir());
  }
  record_tables_ = std::move(*tables);
  return absl::OkStatus();
}

absl::Status ProtectedIndex::LoadConsistent() {
  // A view torn while the writer works is followed by a fresh one; torn
  // again at an unchanged generation, kSameGenerationAttempts times, the
  // index itself is so.
  constexpr int kAttempts = 20;
  constexpr int kSameGenerationAttempts = 3;
  absl::Status loaded;
  int same_generation = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) {
      ::usleep(static_cast<useconds_t>(1000 * attempt));
      auto latest = store_->CommittedGeneration();
      if (!latest.ok()) return latest.status();
      same_generation = *latest == state_.generation ? same_generation + 1 : 0;
      if (same_generation >= kSameGenerationAttempts) break;
      absl::Status s = store_->Reopen();
      if (!s.ok()) return s;
    }
    // A reader that loaded a view before catches up in place; a view torn
    // on the way is loaded whole next.
    std::optional<RowChanges> patched;
    if (store_->mode() == IndexStore::Mode::kReader &&
        !record_hashes_.empty()) {
      auto changes = LoadChanges();
      loaded = changes.status();
      if (changes.ok()) patched = std::move(*changes);
      if (changes.ok() && !patched.has_value()) loaded = Load();
    } else {
      loaded = Load();
    }
    if (!loaded.ok() && store_->mode() == IndexStore::Mode::kWriter) {
      return loaded;
    }
    // A reader's view may mix two states of the index (IndexStore::Reopen).
    bool torn = !loaded.ok();
    if (loaded.ok() && store_->mode() == IndexStore::Mode::kReader) {
      auto whole = ViewIsWhole(patched.has_value() ? &*patched : nullptr);
      if (!whole.ok()) {  // unchecked: the next load starts afresh
        record_hashes_.clear();
        row_hashes_.reset();
        return whole.status();
      }
      torn = !*whole;
    }
    if (!torn) {
      previous_.reset();
      return absl::OkStatus();
    }
    ++torn_views_;
    // The next view is loaded whole; and if the filter was patched in place
    // it is neither the last whole view nor a state: check all of the next.
    record_hashes_.clear();
    if (patched.has_value() || !loaded.ok()) row_hashes_.reset();
  }
  previous_.reset();
  row_hashes_.reset();  // the next view is checked whole
  if (!loaded.ok()) return loaded;
  return absl::DataLossError(absl::StrCat(
      "index ", store_->dir(), " has document records that its row table does "
      "not name (or the reverse); run leakhound verify"));
}

namespace {

// Whether every document record is named by the row table, is held by as
// many documents as the table names, and has its external id mapped back
// to it: the first view's check. Two sequential scans on two threads (the
// external ids, the documents) instead of a point read per document: 0.8
// s of 2.0 for 816,000 documents.
absl::StatusOr<bool> EveryDocumentIsNamed(const IndexStore& store,
                                          const PseudoMatrix& matrix) {
  using IdHash = std::pair<uint32_t, size_t>;  // doc id, hash of its id
  std::vector<IdHash> mapped;
  absl::Status mapped_status;
  std::thread worker([&]() {
    mapped_status = store.ForEachExternalId(
        [&](std::string_view external_id, uint32_t id) {
          mapped.emplace_back(id, absl::HashOf(external_id));
          return absl::OkStatus();
        });
    std::sort(mapped.begin(), mapped.end());
  });
  std::vector<IdHash> documents;
  bool named = true;
  absl::Status s =
      store.ForEachDocument([&](uint32_t id, const DocumentRecord& d) {
        named &= !matrix.RowsOf(id).empty();
        documents.emplace_back(id,
                               absl::HashOf(std::string_view(d.external_id)));
        return absl::OkStatus();
      });
  worker.join();
  if (!s.ok()) return s;
  if (!mapped_status.ok()) return mapped_status;
  if (!named || documents.size() != matrix.documents()) return false;
  // Both in id order: each document's (id, hash) must be among the map's.
  for (const IdHash& d : documents) {
    if (!std::binary_search(mapped.begin(), mapped.end(), d)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ProtectedIndex::ViewIsWhole(const RowChanges* patched) {
  const std::span<const RowInfo> rows = matrix_->rows();
  std::vector<uint64_t> hashes;
  uint64_t digest;
  if (patched != nullptr && row_hashes_.has_value()) {
    // Only the changed rows' hashes are new (the digest is an XOR).
    hashes = *row_hashes_;
    hashes.resize(rows.size(), 0);
    digest = kRowsDigestSeed;
    for (uint64_t h : hashes) digest ^= h;
    for (uint32_t r : patched->rows) {
      const uint64_t now = RowHash(r, rows[r]);
      digest ^= hashes[r] ^ now;
      hashes[r] = now;
    }
  } else {
    digest = RowsDigest(rows, &hashes);
  }
  // The row table of the state read (its record holds the digest), or of
  // another.
  const bool recorded = state_.rows_digest != 0;
  if (recorded && digest != state_.rows_digest) return false;
  // A document record and its id map are read for what the row table
  // names: all of it in the first view, then only the rows changed since
  // the last whole view (and the documents they no longer name must have
  // no record). Without a recorded digest the row table may itself be
  // stale, so every view is checked whole.
  absl::flat_hash_set<uint32_t> named, dropped;
  const bool incremental = recorded && row_hashes_.has_value();
  if (incremental && patched != nullptr) {
    for (uint32_t r : patched->rows) {
      for (const Segment& s : rows[r].segments) named.insert(s.doc);
    }
    dropped.insert(patched->dropped.begin(), patched->dropped.end());
  } else if (incremental) {
    const size_t n = std::max(rows.size(), row_hashes_->size());
    for (size_t r = 0; r < n; ++r) {
      const uint64_t now = r < hashes.size() ? hashes[r] : 0;
      const uint64_t before = r < row_hashes_->size() ? (*row_hashes_)[r] : 0;
      if (now == before) continue;
      if (r < rows.size()) {
        for (const Segment& s : rows[r].segments) named.insert(s.doc);
      }
      if (previous_ != nullptr && r < previous_->rows().size()) {
        for (const Segment& s : previous_->rows()[r].segments) {
          if (matrix_->RowsOf(s.doc).empty()) dropped.insert(s.doc);
        }
      }
    }
  }
  bool whole = true;
  auto check = [&](uint32_t id, const DocumentRecord& d) {
    if (matrix_->RowsOf(id).empty()) {
      whole = false;
      return absl::OkStatus();
    }
    auto back = store_->FindExternalId(d.external_id);
    if (!back.ok()) return back.status();
    whole &= back->has_value() && **back == id;
    return absl::OkStatus();
  };
  if (incremental) {
    for (uint32_t id : named) {
      auto record = store_->ReadDocument(id);
      if (!record.ok()) return record.status();
      if (!record->has_value()) return false;
      absl::Status s = check(id, **record);
      if (!s.ok()) return s;
    }
    for (uint32_t id : dropped) {
      auto record = store_->ReadDocument(id);
      if (!record.ok()) return record.status();
      if (record->has_value()) return false;
    }
  } else {
    auto every = EveryDocumentIsNamed(*store_, *matrix_);
    if (!every.ok()) return every.status();
    whole = *every;
  }
  if (!whole) return false;
  if (recorded) {
    row_hashes_ = std::move(hashes);
  } else {
    row_hashes_.reset();
  }
  return true;
}

absl::Status ProtectedIndex::LoadAllowList() {
  absl::flat_hash_set<uint64_t> allowed;
  absl::Status s = store_->ForEachAllowEntry(
      [&allowed](std::string_view, const AllowRecord& entry) {
        allowed.insert(entry.fingerprints.begin(), entry.fingerprints.end());
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  allowed_ = std::move(allowed);
  return absl::OkStatus();
}

absl::Status ProtectedIndex::LoadLocations() {
  auto listed = ListLocations();
  if (!listed.ok()) return listed.status();
  std::vector<std::string> keys;
  for (auto& [key, record] : *listed) keys.push_back(std::move(key));
  locations_ = std::make_unique<ProtectedLocations>(std::move(keys));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<std::string, LocationRecord>>>
ProtectedIndex::ListLocations() const {
  std::vector<std::pair<std::string, LocationRecord>> out;
  absl::Status s = store_->ForEachLocation(
      [&out](std::string_view key, const LocationRecord& record) {
        out.emplace_back(std::string(key), record);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::unique_ptr<Shingler>> ProtectedIndex::NewShingler() const {
  return StoredShingler(*store_);
}

absl::StatusOr<bool> ProtectedIndex::Refresh() {
  if (store_->mode() == IndexStore::Mode::kWriter) return false;
  auto latest = store_->CommittedGeneration();
  if (!latest.ok()) return latest.status();
  if (loaded_ && *latest == state_.generation) return false;
  // Until a load succeeds, what is in memory may be part old, part new.
  loaded_ = false;
  absl::Status s = store_->Reopen();
  if (!s.ok()) return s;
  s = LoadConsistent();
  if (!s.ok()) return s;
  loaded_ = true;
  return true;
}

IndexOptions ProtectedIndex::options() const {
  IndexOptions options;
  options.shingler = shingler_->options();
  const MetadataRecord& m = metadata();
  options.filter = FilterParams{m.fpr, m.row_capacity, m.fill};
  options.packing = static_cast<PackingMode>(m.packing);
  options.group_rows = m.group_rows;
  return options;
}

absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>>
ProtectedIndex::DocumentsFrom(uint32_t first, size_t limit) const {
  return store_->ReadDocumentsFrom(first, limit);
}

absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>>
ProtectedIndex::FindDocuments(std::string_view text, std::string_view from,
                              size_t limit) const {
  std::shared_ptr<const IdCatalog> catalog;
  {
    absl::MutexLock lock(&catalog_mu_);
    if (catalog_ == nullptr || catalog_generation_ != state_.generation) {
      auto loaded = IdCatalog::Load(*store_);
      if (!loaded.ok()) return loaded.status();
      catalog_ = std::make_shared<const IdCatalog>(std::move(*loaded));
      catalog_generation_ = state_.generation;
    }
    catalog = catalog_;
  }
  const std::vector<uint32_t> ids = catalog->Find(text, from, limit);
  std::vector<std::pair<uint32_t, DocumentRecord>> out;
  for (uint32_t id : ids) {
    auto record = store_->ReadDocument(id);
    if (!record.ok()) return record.status();
    // Removed since the key was read: a reader's view is of one state, so
    // only a torn view could do that; the page then shows one fewer.
    if (record->has_value()) out.emplace_back(id, std::move(**record));
  }
  return out;
}

absl::Status ProtectedIndex::ForEachDocument(
    const std::function<absl::Status(uint32_t, const DocumentRecord&)>& fn)
    const {
  return store_->ForEachDocument(fn);
}

}  // namespace leakhound
