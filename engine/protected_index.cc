#include "engine/protected_index.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "engine/content_digest.h"
#include "engine/index_verifier.h"
#include "shingler/fingerprint_key.h"

namespace leakhound {

// Row bits are persisted as little-endian words and loaded by memcpy.
static_assert(std::endian::native == std::endian::little,
              "the index stores row bits little-endian");

namespace {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Decoded documents kept for the second stage of scans, per open index.
constexpr size_t kDocumentCacheBytes = size_t{64} << 20;

uint32_t RowWords(uint32_t bits) { return (bits + 63) / 64; }

PseudoMatrixOptions MatrixOptions(const MetadataRecord& m) {
  PseudoMatrixOptions o;
  o.filter = {m.fpr, m.row_capacity, m.fill};
  o.packing = static_cast<PackingMode>(m.packing);
  o.group_rows = m.group_rows;
  return o;
}

// Distinct fingerprint lists of the documents one operation needs, loaded
// from the store before the operation mutates anything (a FingerprintSource
// cannot fail).
class ListCache {
 public:
  explicit ListCache(const IndexStore& store) : store_(store) {}

  absl::Status Load(DocId doc) {
    if (lists_.contains(doc)) return absl::OkStatus();
    auto record = store_.ReadFingerprints(doc);
    if (!record.ok()) return record.status();
    lists_[doc] = DistinctFingerprints(*record);
    return absl::OkStatus();
  }
  // Loads every document with a segment in `rows`, except `skip`.
  absl::Status LoadRows(const PseudoMatrix& matrix,
                        std::span<const uint32_t> rows, DocId skip) {
    for (uint32_t row : rows) {
      for (const Segment& s : matrix.rows()[row].segments) {
        if (s.doc == skip) continue;
        absl::Status status = Load(s.doc);
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  }
  FingerprintSource Source() const {
    return [this](DocId doc) -> std::span<const uint64_t> {
      return lists_.at(doc);
    };
  }

 private:
  const IndexStore& store_;
  absl::flat_hash_map<DocId, std::vector<uint64_t>> lists_;
};

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
  return Shingler::Create(options, *key);
}

}  // namespace

RowInfo RowInfoOf(const RowRecord& record) {
  RowInfo info;
  info.segments.reserve(record.segments.size());
  for (const SegmentRecord& seg : record.segments) {
    info.segments.push_back(Segment{seg.doc, seg.begin, seg.end});
  }
  info.fingerprints = record.fingerprints;
  info.bits_set = record.bits_set;
  return info;
}

std::vector<uint64_t> DistinctFingerprints(const FingerprintsRecord& record) {
  std::vector<uint64_t> out;
  out.reserve(record.occurrences.size());
  absl::flat_hash_set<uint64_t> seen;
  seen.reserve(record.occurrences.size());
  for (const Occurrence& o : record.occurrences) {
    if (seen.insert(o.fingerprint).second) out.push_back(o.fingerprint);
  }
  return out;
}

ProtectedIndex::ProtectedIndex(std::unique_ptr<IndexStore> store,
                               std::unique_ptr<Shingler> shingler)
    : store_(std::move(store)),
      shingler_(std::move(shingler)),
      documents_(std::make_unique<DocumentCache>(*store_, kDocumentCacheBytes)) {}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> ProtectedIndex::Create(
    const std::string& dir, const IndexOptions& options, IoFaults* faults) {
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
      faults);
  if (!store.ok()) return store.status();
  auto index = std::unique_ptr<ProtectedIndex>(
      new ProtectedIndex(std::move(*store), std::move(*shingler)));
  absl::Status s = index->Load();
  if (!s.ok()) return s;
  return index;
}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> ProtectedIndex::Open(
    const std::string& dir, OpenMode mode, IoFaults* faults) {
  auto store = IndexStore::Open(dir,
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
  auto geometry = BloomGeometry::FromParams(MatrixOptions(meta).filter);
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
  std::vector<RowInfo> rows;
  absl::Status s =
      store_->ForEachRow([&rows](uint32_t id, const RowRecord& record) {
        if (id >= rows.size()) rows.resize(size_t{id} + 1);
        rows[id] = RowInfoOf(record);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  const auto row_count = static_cast<uint32_t>(rows.size());
  auto matrix = PseudoMatrix::Restore(MatrixOptions(metadata()),
                                      std::move(rows), state->open_row);
  if (!matrix.ok()) {
    return absl::DataLossError(absl::StrCat(
        "index ", store_->dir(), " has an inconsistent row table (",
        matrix.status().message(), "); run leakhound verify"));
  }
  // Bits arrive in row order; load them kLoadRows at a time: a bit-sliced
  // matrix then fills whole 64-byte lines of each slice (512 rows) while
  // they are in cache; 64 rows at a time wrote 8 bytes per slice and missed
  // the cache on every slice, 60 % of an open.
  constexpr uint32_t kLoadRows = 512;
  const uint32_t row_words = RowWords(metadata().bits);
  const size_t row_bytes = size_t{row_words} * 8;
  std::vector<uint64_t> group(size_t{kLoadRows} * row_words);
  int64_t group_first = -1;
  auto flush = [&]() {
    if (group_first < 0) return;
    const auto first = static_cast<uint32_t>(group_first);
    const uint32_t count = std::min<uint32_t>(kLoadRows, row_count - first);
    (*matrix)->LoadRowBits(
        first, count,
        std::span<const uint64_t>(group.data(), size_t{count} * row_words));
    std::fill(group.begin(), group.end(), 0);
  };
  s = store_->ForEachRowBits([&](uint32_t row, std::string_view bits) {
    // The row record counts the row's set bits: bits of another length or
    // count are damaged, or (a reader) from another state of the index.
    uint32_t popcount = 0;
    for (size_t i = 0; i + 8 <= bits.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, bits.data() + i, 8);
      popcount += static_cast<uint32_t>(std::popcount(w));
    }
    if (row >= row_count || bits.size() != row_bytes ||
        popcount != (*matrix)->rows()[row].bits_set) {
      return absl::DataLossError(absl::StrCat(
          "index ", store_->dir(), " has damaged bits for row ", row,
          "; run leakhound verify"));
    }
    const int64_t first = row / kLoadRows * kLoadRows;
    if (first != group_first) {
      flush();
      group_first = first;
    }
    std::memcpy(group.data() + size_t{row - static_cast<uint32_t>(first)} *
                                   row_words,
                bits.data(), row_bytes);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  flush();
  s = LoadGroupBits(**matrix);
  if (!s.ok()) return s;
  s = LoadAllowList();
  if (!s.ok()) return s;
  s = LoadLocations();
  if (!s.ok()) return s;
  auto frequency = DocumentFrequency::Load(*store_);
  if (!frequency.ok()) return frequency.status();
  // The first view replaced in a LoadConsistent stays, for its check.
  if (previous_ == nullptr) previous_ = std::move(matrix_);
  matrix_ = std::move(*matrix);
  frequency_ = std::make_unique<DocumentFrequency>(std::move(*frequency));
  state_ = *state;
  pending_next_id_ = state_.next_doc_id;
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
    loaded = Load();
    if (!loaded.ok() && store_->mode() == IndexStore::Mode::kWriter) {
      return loaded;
    }
    // A reader's view may mix two states of the index (IndexStore::Reopen).
    bool torn = !loaded.ok();
    if (loaded.ok() && store_->mode() == IndexStore::Mode::kReader) {
      auto whole = ViewIsWhole();
      if (!whole.ok()) return whole.status();
      torn = !*whole;
    }
    if (!torn) {
      previous_.reset();
      return absl::OkStatus();
    }
    ++torn_views_;
  }
  previous_.reset();
  row_hashes_.reset();  // the next view is checked whole
  if (!loaded.ok()) return loaded;
  return absl::DataLossError(absl::StrCat(
      "index ", store_->dir(), " has document records that its row table does "
      "not name (or the reverse); run leakhound verify"));
}

absl::StatusOr<bool> ProtectedIndex::ViewIsWhole() {
  const std::span<const RowInfo> rows = matrix_->rows();
  std::vector<uint64_t> hashes;
  const uint64_t digest = RowsDigest(rows, &hashes);
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
  if (incremental) {
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
    size_t listed = 0;
    absl::Status s =
        store_->ForEachDocument([&](uint32_t id, const DocumentRecord& d) {
          ++listed;
          return check(id, d);
        });
    if (!s.ok()) return s;
    whole &= listed == matrix_->documents();
  }
  if (!whole) return false;
  if (recorded) {
    row_hashes_ = std::move(hashes);
  } else {
    row_hashes_.reset();
  }
  return true;
}

absl::Status ProtectedIndex::LoadGroupBits(PseudoMatrix& matrix) const {
  const uint32_t per = metadata().group_rows;
  if (per == 0) return absl::OkStatus();
  const auto groups =
      static_cast<uint32_t>((matrix.rows().size() + per - 1) / per);
  const size_t words = RowWords(per * metadata().bits);
  // 64 groups at a time: the sliced layout transposes 64 rows at once.
  constexpr uint32_t kLoadGroups = 64;
  std::vector<uint64_t> batch;
  int64_t batch_first = -1;
  auto flush = [&]() {
    if (batch_first < 0) return;
    const auto first = static_cast<uint32_t>(batch_first);
    const uint32_t count = std::min(kLoadGroups, groups - first);
    matrix.LoadGroupBits(first, count,
                         std::span<const uint64_t>(batch.data(), count * words));
  };
  absl::Status s = store_->ForEachGroupBits([&](uint32_t g, std::string_view bits) {
    if (g >= groups || bits.size() != words * 8) {
      return absl::DataLossError(absl::StrCat(
          "index ", store_->dir(), " has damaged bits for row group ", g,
          "; run leakhound verify"));
    }
    const int64_t first = g / kLoadGroups * kLoadGroups;
    if (first != batch_first) {
      flush();
      batch_first = first;
      batch.assign(
          std::min<size_t>(kLoadGroups, groups - static_cast<uint32_t>(first)) *
              words,
          0);
    }
    std::memcpy(batch.data() + size_t{g - static_cast<uint32_t>(first)} * words,
                bits.data(), bits.size());
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  flush();
  return absl::OkStatus();
}

void ProtectedIndex::PutGroups(const std::vector<uint32_t>& rows,
                               IndexBatch& batch) const {
  const uint32_t per = metadata().group_rows;
  if (per == 0) return;
  std::vector<uint32_t> groups;
  for (uint32_t row : rows) groups.push_back(row / per);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::vector<uint64_t> words(RowWords(per * metadata().bits));
  for (uint32_t g : groups) {
    bool in_use = false;
    for (uint32_t r = g * per; r < (g + 1) * per && r < matrix_->rows().size();
         ++r) {
      in_use |= !matrix_->rows()[r].segments.empty();
    }
    std::string bits;
    if (in_use) {
      matrix_->GroupBits(g, words);
      bits.assign(reinterpret_cast<const char*>(words.data()), words.size() * 8);
    }
    batch.PutGroupBits(g, std::move(bits));
  }
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

absl::Status ProtectedIndex::CheckWritable() const {
  if (store_->mode() != IndexStore::Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  if (broken_) {
    return absl::FailedPreconditionError(
        "an earlier write to the index failed; reopen it");
  }
  if (rebuild_only_) {
    return absl::FailedPreconditionError(
        "index is open to be rebuilt, not changed");
  }
  return absl::OkStatus();
}

void ProtectedIndex::PutRows(const std::vector<uint32_t>& rows,
                             IndexBatch& batch) const {
  const uint32_t row_words = RowWords(metadata().bits);
  std::vector<uint64_t> words(row_words);
  for (uint32_t row : rows) {
    const RowInfo& info = matrix_->rows()[row];
    RowRecord record;
    for (const Segment& s : info.segments) {
      record.segments.push_back(SegmentRecord{s.doc, s.begin, s.end});
    }
    record.fingerprints = info.fingerprints;
    record.bits_set = info.bits_set;
    std::string bits;
    if (!info.segments.empty()) {
      matrix_->RowBits(row, words);
      bits.assign(reinterpret_cast<const char*>(words.data()),
                  words.size() * 8);
    }
    batch.PutRow(row, record, std::move(bits));
  }
}

absl::Status ProtectedIndex::CommitWithState(IndexBatch& batch,
                                             uint32_t next_doc_id) {
  StateRecord next = state_;
  next.next_doc_id = next_doc_id;
  next.generation += 1;
  next.open_row = matrix_->open_row();
  next.rows_digest = RowsDigest(matrix_->rows());
  batch.PutState(next);
  absl::Status s = store_->Commit(batch);
  if (!s.ok()) {
    broken_ = true;
    return s;
  }
  state_ = next;
  return absl::OkStatus();
}

absl::StatusOr<PreparedDocument> ProtectedIndex::Prepare(
    Shingler& shingler, const DocumentInput& document) {
  if (document.external_id.empty()) {
    return absl::InvalidArgumentError("a document id must not be empty");
  }
  PreparedDocument out;
  out.external_id = document.external_id;
  out.source = document.source;
  out.labels = document.labels;
  out.digest = ContentDigest(document.text);
  out.bytes = document.text.size();
  auto shingled = shingler.Shingle(document.text);
  if (!shingled.ok()) return shingled.status();
  if (shingled->shingles.empty()) {
    return absl::InvalidArgumentError(
        "no words to fingerprint (empty, or only symbols and spaces)");
  }
  if (shingled->shingles.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("document too large");
  }
  FingerprintsRecord list;
  list.occurrences.reserve(shingled->shingles.size());
  for (const Shingle& sh : shingled->shingles) {
    list.occurrences.push_back(Occurrence{sh.fingerprint, sh.token_begin,
                                          sh.token_end, sh.byte_begin,
                                          sh.byte_end});
  }
  out.occurrences = static_cast<uint32_t>(list.occurrences.size());
  out.encoded_list = EncodeRecord(list);
  out.distinct = DistinctFingerprints(list);
  return out;
}

absl::StatusOr<AddResult> ProtectedIndex::Add(const DocumentInput& document) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  auto prepared = Prepare(*shingler_, document);
  if (!prepared.ok()) return prepared.status();
  auto result = Stage(std::move(*prepared));
  if (!result.ok()) return result.status();
  s = Commit();
  if (!s.ok()) return s;
  return result;
}

absl::StatusOr<AddResult> ProtectedIndex::Stage(PreparedDocument document) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  if (document.external_id.empty()) {
    return absl::InvalidArgumentError("a document id must not be empty");
  }
  // The store does not see what is pending: a document whose id or text is
  // pending commits the pending ones first, and so does a replacement
  // (its rows may hold pending documents, whose lists are not stored yet).
  if (pending_ids_.contains(document.external_id) ||
      pending_digests_.contains(document.digest)) {
    s = Commit();
    if (!s.ok()) return s;
  }
  AddResult result;
  auto existing = store_->FindExternalId(document.external_id);
  if (!existing.ok()) return existing.status();
  std::optional<DocumentRecord> old;
  if (existing->has_value()) {
    auto record = store_->ReadDocument(**existing);
    if (!record.ok()) return record.status();
    if (!record->has_value()) {
      return absl::DataLossError(absl::StrCat(
          "id ", document.external_id,
          " points to a missing document; run leakhound verify"));
    }
    old = std::move(**record);
    if (old->digest == document.digest) {
      result.outcome = AddOutcome::kUnchanged;
      result.fingerprints = old->fingerprints;
      return result;
    }
    s = Commit();
    if (!s.ok()) return s;
  }
  auto same = store_->FindDigest(document.digest);
  if (!same.ok()) return same.status();
  if (same->has_value()) {
    auto other = store_->ReadDocument(**same);
    if (!other.ok()) return other.status();
    result.outcome = AddOutcome::kDuplicateContent;
    result.existing_id = other->has_value() ? (*other)->external_id : "?";
    return result;
  }
  if (pending_next_id_ == std::numeric_limits<uint32_t>::max()) {
    return absl::ResourceExhaustedError("the index has used every document id");
  }
  const std::vector<uint64_t>& distinct = document.distinct;
  if (distinct.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("document too large");
  }

  std::vector<uint64_t> old_distinct;
  ListCache cache(*store_);
  if (old) {
    auto old_list = store_->ReadFingerprints(**existing);
    if (!old_list.ok()) return old_list.status();
    old_distinct = DistinctFingerprints(*old_list);
    s = cache.LoadRows(*matrix_, matrix_->RowsOf(**existing), **existing);
    if (!s.ok()) return s;
  }
  // Everything that can fail without changing state is done; now mutate.
  std::set<uint32_t> touched;  // rows this document changes
  if (old) {
    const DocId old_id = **existing;
    auto removed = matrix_->Remove(old_id, cache.Source());
    if (!removed.ok()) {
      broken_ = true;
      return removed.status();
    }
    touched.insert(removed->rows.begin(), removed->rows.end());
    pending_.DeleteDocument(old_id, *old);
    result.outcome = AddOutcome::kReplaced;
  }
  frequency_->Apply(distinct, old_distinct);
  const DocId id = pending_next_id_++;
  result.fingerprints = matrix_->Add(id, distinct);
  std::span<const uint32_t> rows = matrix_->RowsOf(id);

  DocumentRecord record;
  record.external_id = document.external_id;
  record.source = std::move(document.source);
  record.digest = document.digest;
  record.bytes = document.bytes;
  record.fingerprints = result.fingerprints;
  record.occurrences = document.occurrences;
  record.rows.assign(rows.begin(), rows.end());
  record.added_unix_ms =
      document.added_unix_ms != 0 ? document.added_unix_ms : NowUnixMs();
  record.labels = std::move(document.labels);
  pending_.PutDocument(id, record, std::move(document.encoded_list));
  pending_ids_.insert(std::move(document.external_id));
  pending_digests_.insert(std::move(document.digest));
  touched.insert(rows.begin(), rows.end());
  pending_rows_.insert(touched.begin(), touched.end());
  result.rows_written = static_cast<uint32_t>(touched.size());
  return result;
}

absl::Status ProtectedIndex::Commit() {
  if (pending_ids_.empty() && pending_.empty()) return absl::OkStatus();
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = frequency_->Flush(pending_);
  if (!s.ok()) {
    broken_ = true;
    return s;
  }
  const std::vector<uint32_t> rows(pending_rows_.begin(), pending_rows_.end());
  PutRows(rows, pending_);
  PutGroups(rows, pending_);
  s = CommitWithState(pending_, pending_next_id_);
  pending_ = IndexBatch();
  pending_rows_.clear();
  pending_ids_.clear();
  pending_digests_.clear();
  return s;
}

absl::StatusOr<RebuildStats> ProtectedIndex::Remove(
    std::string_view external_id) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto id = store_->FindExternalId(external_id);
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no document with id ", std::string(external_id)));
  }
  const DocId doc = **id;
  auto record = store_->ReadDocument(doc);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::DataLossError(absl::StrCat(
        "id ", std::string(external_id),
        " points to a missing document; run leakhound verify"));
  }
  IndexBatch batch;
  auto list = store_->ReadFingerprints(doc);
  if (!list.ok()) return list.status();
  ListCache cache(*store_);
  s = cache.LoadRows(*matrix_, matrix_->RowsOf(doc), doc);
  if (!s.ok()) return s;
  frequency_->Apply({}, DistinctFingerprints(*list));
  s = frequency_->Flush(batch);
  if (!s.ok()) return s;
  auto stats = matrix_->Remove(doc, cache.Source());
  if (!stats.ok()) {
    // The row index knows no such document. Nothing is on disk, but the
    // frequencies in memory are ahead: refuse further changes.
    broken_ = true;
    return absl::DataLossError(absl::StrCat(
        "document ", std::string(external_id),
        " is in no row; run leakhound verify"));
  }
  batch.DeleteDocument(doc, **record);
  PutRows(stats->rows, batch);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return stats;
}

absl::StatusOr<RebuildStats> ProtectedIndex::Compact(double underfill) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  // The lists and records of the documents whose rows move, read before
  // any change so a read error leaves everything as it was.
  ListCache cache(*store_);
  const std::vector<uint32_t> victims = matrix_->UnderfilledRows(underfill);
  std::vector<std::pair<DocId, DocumentRecord>> moved;
  if (!victims.empty()) {
    // Every document of the victims' row groups: their filters are rebuilt.
    s = cache.LoadRows(*matrix_, matrix_->GroupRows(victims),
                       std::numeric_limits<DocId>::max());
    if (!s.ok()) return s;
    std::set<DocId> docs;
    for (uint32_t row : victims) {
      for (const Segment& seg : matrix_->rows()[row].segments) {
        docs.insert(seg.doc);
      }
    }
    for (DocId doc : docs) {
      auto record = store_->ReadDocument(doc);
      if (!record.ok()) return record.status();
      if (!record->has_value()) {
        return absl::DataLossError(absl::StrCat(
            "row index names missing document ", doc,
            "; run leakhound verify"));
      }
      moved.emplace_back(doc, std::move(**record));
    }
  }
  RebuildStats stats = matrix_->Compact(cache.Source(), underfill);
  if (!stats.rows.empty()) {
    IndexBatch batch;
    PutRows(stats.rows, batch);
    // The victims' groups were rebuilt; the rows they moved to are among
    // the victims (Compact refills only them).
    PutGroups(stats.rows, batch);
    for (auto& [doc, record] : moved) {
      std::span<const uint32_t> rows = matrix_->RowsOf(doc);
      record.rows.assign(rows.begin(), rows.end());
      batch.PutDocumentRecord(doc, record);  // list and id maps unchanged
    }
    s = CommitWithState(batch, state_.next_doc_id);
    if (!s.ok()) return s;
  }
  s = store_->CompactStorage();
  if (!s.ok()) return s;
  return stats;
}

absl::StatusOr<AllowResult> ProtectedIndex::AddAllowed(
    std::string_view name, std::string_view source, std::string_view text) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  if (name.empty()) {
    return absl::InvalidArgumentError("an allow-list name must not be empty");
  }
  auto shingled = shingler_->Shingle(text);
  if (!shingled.ok()) return shingled.status();
  if (shingled->shingles.empty()) {
    return absl::InvalidArgumentError(
        "no words to fingerprint (empty, or only symbols and spaces)");
  }
  AllowRecord record;
  record.source = std::string(source);
  record.digest = ContentDigest(text);
  record.added_unix_ms = NowUnixMs();
  for (const Shingle& sh : shingled->shingles) {
    record.fingerprints.push_back(sh.fingerprint);
  }
  std::sort(record.fingerprints.begin(), record.fingerprints.end());
  record.fingerprints.erase(
      std::unique(record.fingerprints.begin(), record.fingerprints.end()),
      record.fingerprints.end());
  auto existing = store_->ReadAllowEntry(name);
  if (!existing.ok()) return existing.status();
  AllowResult result;
  result.fingerprints = static_cast<uint32_t>(record.fingerprints.size());
  if (existing->has_value() && (*existing)->digest == record.digest) {
    result.outcome = AddOutcome::kUnchanged;
    return result;
  }
  result.outcome =
      existing->has_value() ? AddOutcome::kReplaced : AddOutcome::kAdded;
  IndexBatch batch;
  batch.PutAllowEntry(name, record);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  s = LoadAllowList();
  if (!s.ok()) return s;
  return result;
}

absl::Status ProtectedIndex::RemoveAllowed(std::string_view name) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto existing = store_->ReadAllowEntry(name);
  if (!existing.ok()) return existing.status();
  if (!existing->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no allow-list entry named ", std::string(name)));
  }
  IndexBatch batch;
  batch.DeleteAllowEntry(name);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return LoadAllowList();
}

absl::StatusOr<absl::flat_hash_set<std::string>>
ProtectedIndex::BeginLocationChange() {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto listed = ListLocations();
  if (!listed.ok()) return listed.status();
  absl::flat_hash_set<std::string> present;
  for (const auto& [key, record] : *listed) present.insert(key);
  return present;
}

absl::Status ProtectedIndex::CommitLocationChange(IndexBatch& batch) {
  if (batch.empty()) return absl::OkStatus();
  absl::Status s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return LoadLocations();
}

absl::StatusOr<std::vector<std::pair<std::string, bool>>>
ProtectedIndex::AddLocations(std::span<const std::string> given) {
  auto present = BeginLocationChange();
  if (!present.ok()) return present.status();
  std::vector<std::pair<std::string, bool>> result;
  IndexBatch batch;
  const int64_t now = NowUnixMs();
  for (const std::string& location : given) {
    auto key = ProtectedLocations::Normalize(location);
    if (!key.ok()) return key.status();
    const bool added = present->insert(*key).second;
    if (added) batch.PutLocation(*key, LocationRecord{location, now});
    result.emplace_back(std::move(*key), added);
  }
  absl::Status s = CommitLocationChange(batch);
  if (!s.ok()) return s;
  return result;
}

absl::Status ProtectedIndex::RemoveLocations(
    std::span<const std::string> given) {
  auto present = BeginLocationChange();
  if (!present.ok()) return present.status();
  IndexBatch batch;
  for (const std::string& location : given) {
    auto key = ProtectedLocations::Normalize(location);
    if (!key.ok()) return key.status();
    if (present->erase(*key) == 0) {
      return absl::NotFoundError(absl::StrCat(
          "location ", location, " is not protected (its key: ", *key, ")"));
    }
    batch.DeleteLocation(*key);
  }
  return CommitLocationChange(batch);
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

absl::StatusOr<VerifyReport> ProtectedIndex::Verify() const {
  return VerifyIndex(*store_);
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

absl::Status ProtectedIndex::ForEachDocument(
    const std::function<absl::Status(uint32_t, const DocumentRecord&)>& fn)
    const {
  return store_->ForEachDocument(fn);
}

}  // namespace leakhound
