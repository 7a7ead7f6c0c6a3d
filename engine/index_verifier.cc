#include "engine/index_verifier.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "engine/filter/bloom_geometry.h"
#include "engine/filter/pseudo_matrix.h"
#include "engine/filter/row_table.h"
#include "engine/matrix_records.h"

namespace leakhound {
namespace {

// Keeps at most kMaxProblems messages (and counts the rest).
class Problems {
 public:
  static constexpr size_t kMaxProblems = 100;
  explicit Problems(std::vector<std::string>& out) : out_(out) {}
  template <typename... Args>
  void Add(const Args&... args) {
    ++count_;
    if (out_.size() < kMaxProblems) out_.push_back(absl::StrCat(args...));
  }
  void Finish() {
    if (count_ > out_.size()) {
      out_.push_back(absl::StrCat("... and ", count_ - out_.size(),
                                  " more problems"));
    }
  }

 private:
  std::vector<std::string>& out_;
  size_t count_ = 0;
};

// One run of the check: what it read so far, and the steps that read and
// check it, in the order Run calls them.
class Verifier {
 public:
  Verifier(const IndexStore& store, VerifyReport& report)
      : store_(store), report_(report), problems_(report.problems) {}

  absl::Status Run();

 private:
  // Documents and the two id maps pointing back to them.
  void ReadDocuments();
  // The row table: ids contiguous, open row, digest, segments and counts.
  void ReadRows();
  // Each document's list, counts and segments tiling [0, fingerprints).
  void CheckDocuments();
  void CheckDocument(uint32_t id, const DocumentRecord& d);
  // Both document-frequency tables against the recount from the lists.
  void CheckFrequencies();
  // Allow-list entries decode and hold sorted, distinct fingerprints.
  void CheckAllowList();
  // Each row's bits against a rebuild from its segments' fingerprints.
  absl::Status CheckRowBits(const BloomGeometry& geometry);
  // Each row group's filter holds every fingerprint of its rows.
  absl::Status CheckGroupBits(const BloomGeometry& geometry);
  // How many bits of the fingerprints of group g's rows are clear in
  // `group_bits` (the group's filter).
  uint64_t MissingGroupBits(uint32_t g, const BloomGeometry& group_geometry,
                            std::span<const uint64_t> group_bits);

  const IndexStore& store_;
  VerifyReport& report_;
  Problems problems_;
  StateRecord state_;
  std::map<uint32_t, DocumentRecord> docs_;
  std::map<uint32_t, std::string> external_of_, digest_of_;
  std::map<uint32_t, RowRecord> rows_;
  std::map<uint32_t, std::vector<std::pair<uint32_t, SegmentRecord>>>
      segments_of_;  // doc -> (row, segment)
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> lists_;
  absl::flat_hash_map<uint64_t, uint32_t> doc_frequency_;  // recounted
};

absl::Status Verifier::Run() {
  auto state = store_.ReadState();
  if (!state.ok()) return state.status();
  state_ = *state;
  ReadDocuments();
  ReadRows();
  CheckDocuments();
  CheckFrequencies();
  doc_frequency_ = {};
  CheckAllowList();
  const MetadataRecord& meta = store_.metadata();
  auto geometry = BloomGeometry::FromParams(MatrixOptionsOf(meta).filter);
  if (!geometry.ok()) return geometry.status();
  absl::Status s = CheckRowBits(*geometry);
  if (!s.ok()) return s;
  if (meta.group_rows > 0) {
    s = CheckGroupBits(*geometry);
    if (!s.ok()) return s;
  }
  problems_.Finish();
  return absl::OkStatus();
}

void Verifier::ReadDocuments() {
  absl::Status s = store_.ForEachDocument(
      [&](uint32_t id, const DocumentRecord& d) {
        docs_.emplace(id, d);
        return absl::OkStatus();
      });
  if (!s.ok()) problems_.Add("documents: ", s.message());
  report_.documents = static_cast<uint32_t>(docs_.size());
  s = store_.ForEachExternalId([&](std::string_view key_view, uint32_t id) {
    const std::string key(key_view);
    auto it = docs_.find(id);
    if (it == docs_.end()) {
      problems_.Add("external id '", key, "' points to missing document ",
                    id);
    } else if (it->second.external_id != key) {
      problems_.Add("external id '", key, "' points to document ", id,
                    " whose id is '", it->second.external_id, "'");
    }
    external_of_[id] = key;
    return absl::OkStatus();
  });
  if (!s.ok()) problems_.Add("external ids: ", s.message());
  s = store_.ForEachDigest([&](std::string_view key, uint32_t id) {
    auto it = docs_.find(id);
    if (it == docs_.end()) {
      problems_.Add("a digest points to missing document ", id);
    } else if (it->second.digest != key) {
      problems_.Add("a digest points to document ", id,
                    " whose digest differs");
    }
    digest_of_[id] = std::string(key);
    return absl::OkStatus();
  });
  if (!s.ok()) problems_.Add("digests: ", s.message());
}

void Verifier::ReadRows() {
  absl::Status s = store_.ForEachRow([&](uint32_t id, const RowRecord& r) {
    rows_.emplace(id, r);
    return absl::OkStatus();
  });
  if (!s.ok()) problems_.Add("rows: ", s.message());
  report_.rows = static_cast<uint32_t>(rows_.size());
  if (!rows_.empty() && rows_.rbegin()->first + 1 != rows_.size()) {
    problems_.Add("row ids are not contiguous: ", rows_.size(),
                  " rows, highest id ", rows_.rbegin()->first);
  }
  if (state_.open_row < -1 ||
      state_.open_row >= static_cast<int64_t>(rows_.size())) {
    problems_.Add("open row ", state_.open_row, " does not exist");
  }
  if (state_.rows_digest != 0) {  // recorded (StateRecord v2)
    uint64_t digest = kRowsDigestSeed;
    for (const auto& [row, r] : rows_) digest ^= RowHash(row, RowInfoOf(r));
    if (digest != state_.rows_digest) {
      problems_.Add("the state's rows digest is not the row table's");
    }
  }
  for (const auto& [row, r] : rows_) {
    uint32_t sum = 0;
    for (const SegmentRecord& seg : r.segments) {
      segments_of_[seg.doc].emplace_back(row, seg);
      sum += seg.end - seg.begin;
      if (seg.begin >= seg.end) {
        problems_.Add("row ", row, " has an empty segment of document ",
                      seg.doc);
      }
      if (!docs_.contains(seg.doc)) {
        problems_.Add("row ", row, " holds missing document ", seg.doc);
      }
    }
    if (sum != r.fingerprints) {
      problems_.Add("row ", row, " counts ", r.fingerprints,
                    " fingerprints but its segments hold ", sum);
    }
  }
}

void Verifier::CheckDocuments() {
  for (const auto& [id, d] : docs_) CheckDocument(id, d);
}

void Verifier::CheckDocument(uint32_t id, const DocumentRecord& d) {
  if (id >= state_.next_doc_id) {
    problems_.Add("document ", id, " is not below the next id ",
                  state_.next_doc_id);
  }
  if (!external_of_.contains(id)) {
    problems_.Add("document ", id, " ('", d.external_id,
                  "') has no external id entry");
  }
  if (!digest_of_.contains(id)) {
    problems_.Add("document ", id, " has no digest entry");
  }
  auto list = store_.ReadFingerprints(id);
  if (!list.ok()) {
    problems_.Add("document ", id, " fingerprint list: ",
                  list.status().message());
    return;
  }
  report_.occurrences += list->occurrences.size();
  if (list->occurrences.size() != d.occurrences) {
    problems_.Add("document ", id, " records ", d.occurrences,
                  " shingles but its list has ", list->occurrences.size());
  }
  auto [distinct, filter] =
      ListsOf(*list, store_.metadata().filter_winnow_window);
  const bool truncates = static_cast<PackingMode>(store_.metadata().packing) ==
                         PackingMode::kOneDocumentPerRow;
  if (truncates ? filter.size() < d.fingerprints
                : filter.size() != d.fingerprints) {
    problems_.Add("document ", id, " records ", d.fingerprints,
                  " fingerprints but its list has ", filter.size());
  }
  auto segs = segments_of_[id];
  std::sort(segs.begin(), segs.end(), [](const auto& a, const auto& b) {
    return a.second.begin < b.second.begin;
  });
  uint32_t next = 0;
  std::vector<uint32_t> seg_rows;
  for (const auto& [row, seg] : segs) {
    if (seg.begin != next) {
      problems_.Add("document ", id, " fingerprints [", next, ", ", seg.begin,
                    ") are in no row (or overlap)");
    }
    next = std::max(next, seg.end);
    seg_rows.push_back(row);
  }
  if (next != d.fingerprints) {
    problems_.Add("document ", id, " has ", d.fingerprints,
                  " fingerprints but its rows hold up to ", next);
  }
  std::sort(seg_rows.begin(), seg_rows.end());
  seg_rows.erase(std::unique(seg_rows.begin(), seg_rows.end()),
                 seg_rows.end());
  if (seg_rows != d.rows) {
    problems_.Add("document ", id, " lists rows that differ from the rows "
                  "holding it");
  }
  for (uint64_t fp : distinct) ++doc_frequency_[fp];
  lists_[id] = std::move(filter);
  // Bound the memory of the check: lists are reloaded per row if evicted.
  if (lists_.size() > 4096) lists_.clear();
}

// The full table holds every fingerprint with its count, the shared one
// those held by two or more; each entry in the bucket of its key.
void Verifier::CheckFrequencies() {
  for (CountTable table : {CountTable::kAll, CountTable::kShared}) {
    uint64_t wrong = 0, seen = 0, expected_entries = 0;
    const uint32_t min_documents = table == CountTable::kAll ? 1 : 2;
    for (const auto& [fp, count] : doc_frequency_) {
      expected_entries += count >= min_documents;
    }
    absl::Status s = store_.ForEachCountBucket(
        table, [&](uint32_t bucket, const CountBucketRecord& record) {
          for (const FingerprintCount& e : record.entries) {
            ++seen;
            auto it = doc_frequency_.find(e.fingerprint);
            const uint32_t expected =
                it == doc_frequency_.end() ? 0 : it->second;
            if (CountBucketOf(e.fingerprint, table) != bucket ||
                e.documents != expected || expected < min_documents) {
              ++wrong;
            }
          }
          return absl::OkStatus();
        });
    if (!s.ok()) problems_.Add("document frequencies: ", s.message());
    // Entries never recorded: those expected minus the right ones seen.
    wrong += expected_entries - std::min(expected_entries, seen - wrong);
    if (wrong > 0) {
      problems_.Add(wrong, " fingerprints have a wrong document frequency in ",
                    table == CountTable::kAll ? "fp_counts" : "shared_counts");
    }
  }
}

void Verifier::CheckAllowList() {
  absl::Status s = store_.ForEachAllowEntry([&](std::string_view name,
                                                const AllowRecord& r) {
    if (std::adjacent_find(r.fingerprints.begin(), r.fingerprints.end(),
                           std::greater_equal<uint64_t>()) !=
        r.fingerprints.end()) {
      problems_.Add("allow-list entry '", std::string(name),
                    "' has unsorted fingerprints");
    }
    return absl::OkStatus();
  });
  if (!s.ok()) problems_.Add("allow-list: ", s.message());
}

absl::Status Verifier::CheckRowBits(const BloomGeometry& geometry) {
  const uint32_t row_words = RowWords(geometry.bits);
  std::vector<uint64_t> rebuilt(row_words), stored(row_words);
  std::vector<uint32_t> positions(geometry.hashes);
  for (const auto& [row, r] : rows_) {
    std::fill(rebuilt.begin(), rebuilt.end(), 0);
    bool complete = true;
    for (const SegmentRecord& seg : r.segments) {
      if (!lists_.contains(seg.doc)) {
        auto list = store_.ReadFingerprints(seg.doc);
        if (!list.ok()) {
          complete = false;
          continue;
        }
        lists_[seg.doc] =
            FilterFingerprints(*list, store_.metadata().filter_winnow_window);
      }
      const std::vector<uint64_t>& list = lists_[seg.doc];
      for (uint32_t i = seg.begin; i < seg.end && i < list.size(); ++i) {
        BitPositions(list[i], geometry, positions);
        for (uint32_t pos : positions) {
          rebuilt[pos / 64] |= uint64_t{1} << (pos % 64);
        }
      }
    }
    auto bits = store_.ReadRowBits(row);
    if (!bits.ok()) return bits.status();
    std::fill(stored.begin(), stored.end(), 0);
    if (bits->has_value()) {
      if ((*bits)->size() != size_t{row_words} * 8) {
        problems_.Add("row ", row, " has ", (*bits)->size(),
                      " bytes of bits, expected ", row_words * 8);
        continue;
      }
      std::memcpy(stored.data(), (*bits)->data(), (*bits)->size());
    } else if (!r.segments.empty()) {
      problems_.Add("row ", row, " holds documents but has no bits");
      continue;
    }
    uint32_t popcount = 0;
    for (uint64_t w : stored)
      popcount += static_cast<uint32_t>(std::popcount(w));
    if (popcount != r.bits_set) {
      problems_.Add("row ", row, " records ", r.bits_set,
                    " set bits but has ", popcount);
    }
    if (complete && rebuilt != stored) {
      problems_.Add("row ", row,
                    " bits differ from the rebuild from its documents");
    }
  }
  return absl::OkStatus();
}

// A superset is correct: removal leaves removed fingerprints in.
absl::Status Verifier::CheckGroupBits(const BloomGeometry& geometry) {
  const uint32_t per = store_.metadata().group_rows;
  BloomGeometry group_geometry = geometry;
  group_geometry.bits = per * geometry.bits;
  const size_t group_words = RowWords(group_geometry.bits);
  std::vector<uint64_t> group_bits(group_words);
  const uint32_t row_count = rows_.empty() ? 0 : rows_.rbegin()->first + 1;
  const uint32_t groups = (row_count + per - 1) / per;
  for (uint32_t g = 0; g < groups; ++g) {
    auto bits = store_.ReadGroupBits(g);
    if (!bits.ok()) return bits.status();
    bool in_use = false;
    for (auto it = rows_.lower_bound(g * per);
         it != rows_.end() && it->first < (g + 1) * per; ++it) {
      in_use |= !it->second.segments.empty();
    }
    if (!bits->has_value()) {
      if (in_use) problems_.Add("row group ", g, " holds rows but has no bits");
      continue;
    }
    if ((*bits)->size() != group_words * 8) {
      problems_.Add("row group ", g, " has ", (*bits)->size(),
                    " bytes of bits, expected ", group_words * 8);
      continue;
    }
    std::memcpy(group_bits.data(), (*bits)->data(), (*bits)->size());
    const uint64_t missing = MissingGroupBits(g, group_geometry, group_bits);
    if (missing > 0) {
      problems_.Add("row group ", g, " lacks ", missing,
                    " bits of its rows' fingerprints");
    }
  }
  uint32_t extra = 0;
  absl::Status groups_scan =
      store_.ForEachGroupBits([&](uint32_t g, std::string_view) {
        extra += g >= groups ? 1 : 0;
        return absl::OkStatus();
      });
  if (!groups_scan.ok()) return groups_scan;
  if (extra > 0) problems_.Add(extra, " row groups beyond the last row");
  return absl::OkStatus();
}

uint64_t Verifier::MissingGroupBits(uint32_t g,
                                    const BloomGeometry& group_geometry,
                                    std::span<const uint64_t> group_bits) {
  const uint32_t per = store_.metadata().group_rows;
  std::vector<uint32_t> positions(group_geometry.hashes);
  uint64_t missing = 0;
  for (auto it = rows_.lower_bound(g * per);
       it != rows_.end() && it->first < (g + 1) * per; ++it) {
    for (const SegmentRecord& seg : it->second.segments) {
      auto list = lists_.find(seg.doc);
      if (list == lists_.end()) continue;  // reported with its row
      for (uint32_t i = seg.begin; i < seg.end && i < list->second.size();
           ++i) {
        BitPositions(list->second[i], group_geometry, positions);
        for (uint32_t pos : positions) {
          missing += (group_bits[pos / 64] >> (pos % 64) & 1) ^ 1;
        }
      }
    }
  }
  return missing;
}

}  // namespace

absl::StatusOr<VerifyReport> VerifyIndex(const IndexStore& store) {
  VerifyReport report;
  absl::Status s = Verifier(store, report).Run();
  if (!s.ok()) return s;
  return report;
}

}  // namespace leakhound
