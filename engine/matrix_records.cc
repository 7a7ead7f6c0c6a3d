#include "engine/matrix_records.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "shingler/winnower.h"

namespace leakhound {

// Row bits are persisted as little-endian words and loaded by memcpy.
static_assert(std::endian::native == std::endian::little,
              "the index stores row bits little-endian");

namespace {

absl::Status Damaged(const IndexStore& store, const char* what,
                     uint32_t id) {
  return absl::DataLossError(absl::StrCat("index ", store.dir(),
                                          " has damaged bits for ", what, " ",
                                          id, "; run leakhound verify"));
}

// The set bits of a stored row. Multiversioned like AndPopcount
// (row_major_matrix.cc): Debian builds for baseline x86-64, where
// std::popcount is a slow bit trick (4 % of an open of 1 GB of rows).
__attribute__((target_clones("popcnt", "default")))
uint32_t PopcountBits(std::string_view bits) {
  uint32_t popcount = 0;
  for (size_t i = 0; i + 8 <= bits.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bits.data() + i, 8);
    popcount += static_cast<uint32_t>(__builtin_popcountll(w));
  }
  return popcount;
}

// Whether a row's stored bits have the length of a row and the set bits
// its record counts: else they are damaged, or (a reader) of another state
// of the index.
bool BitsMatch(std::string_view bits, size_t row_bytes, const RowInfo& info) {
  return bits.size() == row_bytes && PopcountBits(bits) == info.bits_set;
}

// Bits arrive in row order; load them kLoadRows at a time: a bit-sliced
// matrix then fills whole 64-byte lines of each slice (512 rows) while
// they are in cache; 64 rows at a time wrote 8 bytes per slice and missed
// the cache on every slice, 60 % of an open.
constexpr uint32_t kLoadRows = 512;

// Loads the stored bits of rows [first, end) (end 0: to the last stored
// row). REQUIRES: first is a multiple of kLoadRows.
absl::Status LoadRowBitRange(const IndexStore& store, PseudoMatrix& matrix,
                             uint32_t first_row, uint32_t end_row) {
  const auto row_count = static_cast<uint32_t>(matrix.rows().size());
  const uint32_t row_words = RowWords(matrix.geometry().bits);
  const size_t row_bytes = size_t{row_words} * 8;
  std::vector<uint64_t> group(size_t{kLoadRows} * row_words);
  int64_t group_first = -1;
  auto flush = [&]() {
    if (group_first < 0) return;
    const auto first = static_cast<uint32_t>(group_first);
    const uint32_t count = std::min<uint32_t>(kLoadRows, row_count - first);
    matrix.LoadRowBits(
        first, count,
        std::span<const uint64_t>(group.data(), size_t{count} * row_words));
    std::fill(group.begin(), group.end(), 0);
  };
  absl::Status s = store.ForEachRowBits(
      [&](uint32_t row, std::string_view bits) {
        if (row >= row_count ||
            !BitsMatch(bits, row_bytes, matrix.rows()[row])) {
          return Damaged(store, "row", row);
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
      },
      first_row, end_row);
  if (!s.ok()) return s;
  flush();
  return absl::OkStatus();
}

// From this many rows on, the bits load on two threads, each half of the
// rows (the bits of 1 GB of rows took 1.4 s on one thread).
constexpr uint32_t kParallelLoadRows = 8192;

// Loads every row's stored bits into `matrix`, whose row table is loaded.
absl::Status LoadRowBits(const IndexStore& store, PseudoMatrix& matrix) {
  const auto row_count = static_cast<uint32_t>(matrix.rows().size());
  if (row_count < kParallelLoadRows) {
    return LoadRowBitRange(store, matrix, 0, 0);
  }
  // Split at a multiple of kLoadRows: the halves write disjoint bytes of
  // every slice (PseudoMatrix::LoadRowBits).
  const uint32_t split = row_count / 2 / kLoadRows * kLoadRows;
  absl::Status second;
  std::thread worker(
      [&]() { second = LoadRowBitRange(store, matrix, split, 0); });
  absl::Status first = LoadRowBitRange(store, matrix, 0, split);
  worker.join();
  return first.ok() ? second : first;
}

// Loads the stored group filters into `matrix` (none without row groups).
absl::Status LoadGroupBits(const IndexStore& store, PseudoMatrix& matrix) {
  const uint32_t per = matrix.options().group_rows;
  if (per == 0) return absl::OkStatus();
  const auto groups =
      static_cast<uint32_t>((matrix.rows().size() + per - 1) / per);
  const size_t words = RowWords(per * matrix.geometry().bits);
  // 64 groups at a time: the sliced layout transposes 64 rows at once.
  constexpr uint32_t kLoadGroups = 64;
  std::vector<uint64_t> batch;
  int64_t batch_first = -1;
  auto flush = [&]() {
    if (batch_first < 0) return;
    const auto first = static_cast<uint32_t>(batch_first);
    const uint32_t count = std::min(kLoadGroups, groups - first);
    matrix.LoadGroupBits(
        first, count, std::span<const uint64_t>(batch.data(), count * words));
  };
  absl::Status s = store.ForEachGroupBits([&](uint32_t g,
                                              std::string_view bits) {
    if (g >= groups || bits.size() != words * 8) {
      return Damaged(store, "row group", g);
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

absl::Status InconsistentRowTable(const IndexStore& store,
                                  const absl::Status& why) {
  return absl::DataLossError(
      absl::StrCat("index ", store.dir(), " has an inconsistent row table (",
                   why.message(), "); run leakhound verify"));
}

// Loads the stored bits of `row`, whose record `matrix` holds, after
// ReplaceRows cleared them.
absl::Status LoadOneRowBits(const IndexStore& store, PseudoMatrix& matrix,
                            uint32_t row, std::vector<uint64_t>& words) {
  auto bits = store.ReadRowBits(row);
  if (!bits.ok()) return bits.status();
  const RowInfo& info = matrix.rows()[row];
  if (!bits->has_value()) {
    return info.segments.empty() ? absl::OkStatus()
                                 : Damaged(store, "row", row);
  }
  if (!BitsMatch(**bits, words.size() * 8, info)) {
    return Damaged(store, "row", row);
  }
  std::memcpy(words.data(), (*bits)->data(), (*bits)->size());
  matrix.LoadRowBits(row, 1, words);
  return absl::OkStatus();
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

std::vector<uint64_t> FilterFingerprints(const FingerprintsRecord& record,
                                         uint32_t filter_winnow_window) {
  if (filter_winnow_window <= 1) return DistinctFingerprints(record);
  std::vector<uint64_t> in_order(record.occurrences.size());
  for (size_t i = 0; i < in_order.size(); ++i) {
    in_order[i] = record.occurrences[i].fingerprint;
  }
  return WinnowedDistinct(in_order, filter_winnow_window);
}

DocumentLists ListsOf(const FingerprintsRecord& record,
                      uint32_t filter_winnow_window) {
  DocumentLists lists;
  lists.distinct = DistinctFingerprints(record);
  lists.filter = filter_winnow_window <= 1
                     ? lists.distinct
                     : FilterFingerprints(record, filter_winnow_window);
  return lists;
}

PseudoMatrixOptions MatrixOptionsOf(const MetadataRecord& metadata) {
  PseudoMatrixOptions o;
  o.filter = {metadata.fpr, metadata.row_capacity, metadata.fill};
  o.packing = static_cast<PackingMode>(metadata.packing);
  o.group_rows = metadata.group_rows;
  return o;
}

absl::StatusOr<std::unique_ptr<PseudoMatrix>> LoadMatrix(
    const IndexStore& store, const StateRecord& state,
    std::vector<uint64_t>* record_hashes) {
  std::vector<RowInfo> rows;
  std::vector<uint64_t> hashes;
  absl::Status s = store.ForEachRowIfChanged(
      {}, &hashes, [&rows](uint32_t id, const RowRecord& record) {
        if (id >= rows.size()) rows.resize(size_t{id} + 1);
        rows[id] = RowInfoOf(record);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if (record_hashes != nullptr) *record_hashes = std::move(hashes);
  auto matrix = PseudoMatrix::Restore(MatrixOptionsOf(store.metadata()),
                                      std::move(rows), state.open_row);
  if (!matrix.ok()) return InconsistentRowTable(store, matrix.status());
  s = LoadRowBits(store, **matrix);
  if (!s.ok()) return s;
  s = LoadGroupBits(store, **matrix);
  if (!s.ok()) return s;
  return matrix;
}

absl::StatusOr<RowChanges> LoadChangedRows(
    const IndexStore& store, const StateRecord& state, PseudoMatrix& matrix,
    std::vector<uint64_t>* record_hashes) {
  std::vector<uint64_t> hashes;
  std::vector<std::pair<uint32_t, RowInfo>> changed;
  absl::Status s = store.ForEachRowIfChanged(
      *record_hashes, &hashes, [&changed](uint32_t id, const RowRecord& r) {
        changed.emplace_back(id, RowInfoOf(r));
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  const std::vector<uint64_t>& before = *record_hashes;
  bool lost = hashes.size() < before.size();
  for (size_t r = 0; r < hashes.size() && !lost; ++r) {
    lost = hashes[r] == 0 && r < before.size() && before[r] != 0;
  }
  if (lost || changed.size() > hashes.size() / 4) {
    return absl::FailedPreconditionError("load the matrix whole");
  }
  auto dropped = matrix.ReplaceRows(
      changed, static_cast<uint32_t>(hashes.size()), state.open_row);
  if (!dropped.ok()) return InconsistentRowTable(store, dropped.status());
  RowChanges out;
  out.dropped = std::move(*dropped);
  std::vector<uint64_t> words(RowWords(matrix.geometry().bits));
  for (const auto& [row, info] : changed) {
    out.rows.push_back(row);
    s = LoadOneRowBits(store, matrix, row, words);
    if (!s.ok()) return s;
  }
  if (matrix.options().group_rows > 0) {
    words.assign(RowWords(matrix.options().group_rows * matrix.geometry().bits),
                 0);
    for (uint32_t g : matrix.GroupsOf(out.rows)) {
      auto bits = store.ReadGroupBits(g);
      if (!bits.ok()) return bits.status();
      if (!bits->has_value()) continue;  // a group without rows in use
      if ((*bits)->size() != words.size() * 8) {
        return Damaged(store, "row group", g);
      }
      std::memcpy(words.data(), (*bits)->data(), (*bits)->size());
      matrix.LoadGroupBits(g, 1, words);
    }
  }
  *record_hashes = std::move(hashes);
  return out;
}

void PutRows(const PseudoMatrix& matrix, std::span<const uint32_t> rows,
             IndexBatch& batch) {
  std::vector<uint64_t> words(RowWords(matrix.geometry().bits));
  for (uint32_t row : rows) {
    const RowInfo& info = matrix.rows()[row];
    RowRecord record;
    for (const Segment& s : info.segments) {
      record.segments.push_back(SegmentRecord{s.doc, s.begin, s.end});
    }
    record.fingerprints = info.fingerprints;
    record.bits_set = info.bits_set;
    std::string bits;
    if (!info.segments.empty()) {
      matrix.RowBits(row, words);
      bits.assign(reinterpret_cast<const char*>(words.data()),
                  words.size() * 8);
    }
    batch.PutRow(row, record, std::move(bits));
  }
}

void PutGroups(const PseudoMatrix& matrix, std::span<const uint32_t> rows,
               IndexBatch& batch) {
  const uint32_t per = matrix.options().group_rows;
  if (per == 0) return;
  std::vector<uint64_t> words(RowWords(per * matrix.geometry().bits));
  for (uint32_t g : matrix.GroupsOf(rows)) {
    bool in_use = false;
    for (uint32_t r = g * per; r < (g + 1) * per && r < matrix.rows().size();
         ++r) {
      in_use |= !matrix.rows()[r].segments.empty();
    }
    std::string bits;
    if (in_use) {
      matrix.GroupBits(g, words);
      bits.assign(reinterpret_cast<const char*>(words.data()),
                  words.size() * 8);
    }
    batch.PutGroupBits(g, std::move(bits));
  }
}

absl::Status ListCache::Load(DocId doc) {
  if (lists_.contains(doc)) return absl::OkStatus();
  auto record = store_.ReadFingerprints(doc);
  if (!record.ok()) return record.status();
  lists_[doc] =
      FilterFingerprints(*record, store_.metadata().filter_winnow_window);
  return absl::OkStatus();
}

absl::Status ListCache::LoadRows(const PseudoMatrix& matrix,
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

FingerprintSource ListCache::Source() const {
  return [this](DocId doc) -> std::span<const uint64_t> {
    return lists_.at(doc);
  };
}

}  // namespace leakhound
