#include "engine/record_tables.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "index/key_format.h"

namespace leakhound {
namespace {

constexpr size_t kEntryBytes = 12;  // hash (8 LE) + row (4 LE)

uint64_t Load64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint32_t Load32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
void Append64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void Append32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// splitmix64's finalizer: the sets' digest is the sum of each entry's mix,
// so it does not depend on the order entries are visited in. PERSISTED:
// RecordTableRecord::sets_digest.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
uint64_t EntryMix(uint8_t column, uint64_t hash, uint32_t row) {
  return Mix(hash ^ Mix((uint64_t{column} << 32) | row));
}

bool IsPrimary(const RecordColumnRecord& column) {
  return column.role == static_cast<uint8_t>(RecordColumnRole::kPrimary);
}

}  // namespace

PrimarySet PrimarySet::Build(
    std::vector<std::pair<uint64_t, uint32_t>> entries) {
  std::sort(entries.begin(), entries.end());
  PrimarySet set;
  set.hashes_.reserve(entries.size());
  set.rows_.reserve(entries.size());
  for (const auto& [hash, row] : entries) {
    set.hashes_.push_back(hash);
    set.rows_.push_back(row);
  }
  set.BuildDirectory();
  return set;
}

PrimarySet::PrimarySet(size_t expected) {
  hashes_.reserve(expected);
  rows_.reserve(expected);
}

absl::Status PrimarySet::AppendChunk(std::string_view chunk) {
  if (chunk.size() % kEntryBytes != 0) {
    return absl::DataLossError("a record set chunk has a partial entry");
  }
  for (size_t at = 0; at < chunk.size(); at += kEntryBytes) {
    const uint64_t hash = Load64(chunk.data() + at);
    if (!hashes_.empty() && hash < hashes_.back()) {
      return absl::DataLossError("a record set is out of order");
    }
    hashes_.push_back(hash);
    rows_.push_back(Load32(chunk.data() + at + 8));
  }
  return absl::OkStatus();
}

absl::StatusOr<PrimarySet> PrimarySet::FromChunks(
    std::span<const std::string> chunks) {
  PrimarySet set;
  for (const std::string& chunk : chunks) {
    if (absl::Status s = set.AppendChunk(chunk); !s.ok()) return s;
  }
  set.Seal();
  return set;
}

void PrimarySet::BuildDirectory() {
  // About 4 entries per bucket: one or two cache lines to scan.
  const size_t buckets = std::max<size_t>(1, hashes_.size() / 4);
  bits_ = std::min(30, static_cast<int>(std::bit_width(buckets)) - 1);
  if (bits_ < 1) bits_ = 1;
  directory_.assign((size_t{1} << bits_) + 1, 0);
  size_t at = 0;
  for (size_t b = 0; b < (size_t{1} << bits_); ++b) {
    while (at < hashes_.size() && (hashes_[at] >> (64 - bits_)) < b) ++at;
    directory_[b] = static_cast<uint32_t>(at);
  }
  directory_.back() = static_cast<uint32_t>(hashes_.size());
}

void PrimarySet::Find(uint64_t hash, std::vector<uint32_t>* rows) const {
  if (hashes_.empty()) return;
  const size_t bucket = hash >> (64 - bits_);
  const uint32_t end = directory_[bucket + 1];
  for (uint32_t i = directory_[bucket]; i < end && hashes_[i] <= hash; ++i) {
    if (hashes_[i] == hash) rows->push_back(rows_[i]);
  }
}

std::vector<std::string> PrimarySet::Chunks() const {
  std::vector<std::string> out;
  for (size_t first = 0; first < hashes_.size();
       first += kRecordSetChunkEntries) {
    const size_t end = std::min(hashes_.size(), first + kRecordSetChunkEntries);
    std::string chunk;
    chunk.reserve((end - first) * kEntryBytes);
    for (size_t i = first; i < end; ++i) {
      Append64(chunk, hashes_[i]);
      Append32(chunk, rows_[i]);
    }
    out.push_back(std::move(chunk));
  }
  return out;
}

uint64_t PrimarySet::Digest(uint8_t column) const {
  uint64_t digest = 0;
  for (size_t i = 0; i < hashes_.size(); ++i) {
    digest += EntryMix(column, hashes_[i], rows_[i]);
  }
  return digest;
}

size_t PrimarySet::MemoryBytes() const {
  return hashes_.capacity() * sizeof(uint64_t) +
         rows_.capacity() * sizeof(uint32_t) +
         directory_.capacity() * sizeof(uint32_t);
}

namespace {

// Reads and checks the primary sets of `table` (record already set).
absl::Status LoadSets(const IndexStore& store, LoadedRecordTable& table) {
  const RecordTableRecord& r = table.record;
  if (r.set_entries.size() != r.columns.size()) {
    return absl::DataLossError(
        absl::StrCat("record table ", table.name, " has a malformed record"));
  }
  uint64_t digest = 0;
  table.sets.assign(r.columns.size(), nullptr);
  for (size_t c = 0; c < r.columns.size(); ++c) {
    if (!IsPrimary(r.columns[c])) continue;
    const auto column = static_cast<uint8_t>(c);
    // Reserved for what the record says, at most what a table can hold: a
    // torn view's count is checked below.
    auto set = std::make_shared<PrimarySet>(
        std::min<uint64_t>(r.set_entries[c], uint64_t{1} << 27));
    absl::Status s = store.ForEachRecordData(
        RecordSetKey(r.table_id, r.data_generation, column, 0),
        RecordSetKey(r.table_id, r.data_generation,
                     static_cast<uint8_t>(column + 1), 0),
        [&set](std::string_view, std::string_view value) {
          return set->AppendChunk(value);
        });
    if (!s.ok()) return s;
    set->Seal();
    if (set->size() != r.set_entries[c]) {
      return absl::DataLossError(absl::StrCat(
          "record table ", table.name, " column ", r.columns[c].name, " holds ",
          set->size(), " entries, its record says ", r.set_entries[c]));
    }
    table.sets[c] = std::move(set);
  }
  for (size_t c = 0; c < table.sets.size(); ++c) {
    if (table.sets[c] != nullptr) {
      digest += table.sets[c]->Digest(static_cast<uint8_t>(c));
    }
  }
  if (digest != r.sets_digest) {
    return absl::DataLossError(absl::StrCat("record table ", table.name,
                                            " does not match its digest"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const RecordTables>> RecordTables::Load(
    const IndexStore& store, const RecordTables* previous) {
  auto out = std::make_shared<RecordTables>();
  absl::Status s = store.ForEachRecordTable(
      [&](std::string_view name, const RecordTableRecord& record) {
        const LoadedRecordTable* old =
            previous == nullptr ? nullptr : previous->Find(name);
        if (old != nullptr && old->record == record) {
          for (const auto& t : previous->tables_) {
            if (t->name == name) out->tables_.push_back(t);
          }
          return absl::OkStatus();
        }
        auto table = std::make_shared<LoadedRecordTable>();
        table->name = std::string(name);
        table->record = record;
        absl::Status loaded = LoadSets(store, *table);
        if (!loaded.ok()) return loaded;
        out->tables_.push_back(std::move(table));
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return std::shared_ptr<const RecordTables>(std::move(out));
}

const LoadedRecordTable* RecordTables::Find(std::string_view name) const {
  for (const auto& t : tables_) {
    if (t->name == name) return t.get();
  }
  return nullptr;
}

size_t RecordTables::MemoryBytes() const {
  size_t bytes = 0;
  for (const auto& t : tables_) {
    for (const auto& set : t->sets) {
      if (set != nullptr) bytes += set->MemoryBytes();
    }
  }
  return bytes;
}

absl::StatusOr<std::vector<std::vector<uint64_t>>> RecordTables::ReadRows(
    const IndexStore& store, const LoadedRecordTable& table,
    std::span<const uint32_t> rows) {
  const RecordTableRecord& r = table.record;
  std::vector<std::string> keys;
  keys.reserve(rows.size());
  for (uint32_t row : rows) {
    keys.push_back(RecordRowKey(r.table_id, r.data_generation, row));
  }
  auto values = store.ReadRecordData(keys);
  if (!values.ok()) return values.status();
  std::vector<std::vector<uint64_t>> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::optional<std::string>& v = (*values)[i];
    if (!v.has_value() || v->size() != 8 * r.columns.size()) {
      return absl::DataLossError(
          absl::StrCat("record table ", table.name, " lacks row ", rows[i]));
    }
    std::vector<uint64_t> cells(r.columns.size());
    for (size_t c = 0; c < cells.size(); ++c) {
      cells[c] = Load64(v->data() + 8 * c);
    }
    out.push_back(std::move(cells));
  }
  return out;
}

RecordTableLoad::RecordTableLoad(IndexStore* store, std::string name,
                                 RecordTableRecord record)
    : store_(store),
      name_(std::move(name)),
      record_(std::move(record)),
      entries_(record_.columns.size()) {
  record_.rows = 0;
  record_.skipped_rows = 0;
}

absl::Status RecordTableLoad::AddRow(std::span<const uint64_t> cells) {
  const auto row = static_cast<uint32_t>(record_.rows);
  std::string value;
  value.reserve(8 * cells.size());
  for (size_t c = 0; c < cells.size(); ++c) {
    Append64(value, cells[c]);
    if (cells[c] != 0 && IsPrimary(record_.columns[c])) {
      entries_[c].emplace_back(cells[c], row);
    }
  }
  pending_.PutRecordData(
      RecordRowKey(record_.table_id, record_.data_generation, row),
      std::move(value));
  ++record_.rows;
  if (++pending_rows_ >= kRowsPerChunk) return Flush();
  return absl::OkStatus();
}

absl::Status RecordTableLoad::Flush() {
  if (pending_.empty()) return absl::OkStatus();
  absl::Status s = store_->Commit(pending_);
  pending_ = IndexBatch();
  pending_rows_ = 0;
  return s;
}

absl::StatusOr<IndexBatch> RecordTableLoad::Finish(int64_t now_unix_ms) {
  absl::Status s = Flush();
  if (!s.ok()) return s;
  record_.set_entries.assign(record_.columns.size(), 0);
  record_.sets_digest = 0;
  for (size_t c = 0; c < entries_.size(); ++c) {
    if (!IsPrimary(record_.columns[c])) continue;
    const auto column = static_cast<uint8_t>(c);
    for (const auto& [hash, row] : entries_[c]) {
      record_.sets_digest += EntryMix(column, hash, row);
    }
    const PrimarySet set = PrimarySet::Build(std::move(entries_[c]));
    record_.set_entries[c] = set.size();
    std::vector<std::string> chunks = set.Chunks();
    for (size_t i = 0; i < chunks.size(); ++i) {
      pending_.PutRecordData(
          RecordSetKey(record_.table_id, record_.data_generation, column,
                       static_cast<uint32_t>(i)),
          std::move(chunks[i]));
      // Chunks are committed a few at a time: a set of ten million
      // entries is 120 MB.
      if (i % 16 == 15) {
        s = Flush();
        if (!s.ok()) return s;
      }
    }
  }
  s = Flush();
  if (!s.ok()) return s;
  record_.added_unix_ms = now_unix_ms;
  IndexBatch naming;
  naming.PutRecordTable(name_, record_);
  return naming;
}

}  // namespace leakhound
