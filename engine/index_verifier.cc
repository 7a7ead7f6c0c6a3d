#include "engine/index_verifier.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "engine/filter/bloom_geometry.h"
#include "engine/protected_index.h"
#include "engine/filter/pseudo_matrix.h"

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

}  // namespace

absl::StatusOr<VerifyReport> VerifyIndex(const IndexStore& store) {
  VerifyReport report;
  Problems problems(report.problems);
  const MetadataRecord& meta = store.metadata();

  auto state = store.ReadState();
  if (!state.ok()) return state.status();

  // Documents and the two id maps.
  std::map<uint32_t, DocumentRecord> docs;
  absl::Status s = store.ForEachDocument(
      [&](uint32_t id, const DocumentRecord& d) {
        docs.emplace(id, d);
        return absl::OkStatus();
      });
  if (!s.ok()) problems.Add("documents: ", s.message());
  report.documents = static_cast<uint32_t>(docs.size());
  std::map<uint32_t, std::string> external_of, digest_of;
  s = store.ForEachExternalId([&](std::string_view key_view, uint32_t id) {
    const std::string key(key_view);
    auto it = docs.find(id);
    if (it == docs.end()) {
      problems.Add("external id '", key, "' points to missing document ",
                   id);
    } else if (it->second.external_id != key) {
      problems.Add("external id '", key, "' points to document ", id,
                   " whose id is '", it->second.external_id, "'");
    }
    external_of[id] = key;
    return absl::OkStatus();
  });
  if (!s.ok()) problems.Add("external ids: ", s.message());
  s = store.ForEachDigest([&](std::string_view key, uint32_t id) {
    auto it = docs.find(id);
    if (it == docs.end()) {
      problems.Add("a digest points to missing document ", id);
    } else if (it->second.digest != key) {
      problems.Add("a digest points to document ", id,
                   " whose digest differs");
    }
    digest_of[id] = std::string(key);
    return absl::OkStatus();
  });
  if (!s.ok()) problems.Add("digests: ", s.message());

  // Rows.
  std::map<uint32_t, RowRecord> rows;
  s = store.ForEachRow([&](uint32_t id, const RowRecord& r) {
    rows.emplace(id, r);
    return absl::OkStatus();
  });
  if (!s.ok()) problems.Add("rows: ", s.message());
  report.rows = static_cast<uint32_t>(rows.size());
  if (!rows.empty() && rows.rbegin()->first + 1 != rows.size()) {
    problems.Add("row ids are not contiguous: ", rows.size(),
                 " rows, highest id ", rows.rbegin()->first);
  }
  if (state->open_row < -1 ||
      state->open_row >= static_cast<int64_t>(rows.size())) {
    problems.Add("open row ", state->open_row, " does not exist");
  }
  if (state->rows_digest != 0) {  // recorded (StateRecord v2)
    uint64_t digest = kRowsDigestSeed;
    for (const auto& [row, r] : rows) digest ^= RowHash(row, RowInfoOf(r));
    if (digest != state->rows_digest) {
      problems.Add("the state's rows digest is not the row table's");
    }
  }

  // Per document: id maps, list, segments tiling [0, fingerprints).
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> lists;
  absl::flat_hash_map<uint64_t, uint32_t> doc_frequency;  // recounted
  std::map<uint32_t, std::vector<std::pair<uint32_t, SegmentRecord>>>
      segments_of;  // doc -> (row, segment)
  for (const auto& [row, r] : rows) {
    uint32_t sum = 0;
    for (const SegmentRecord& seg : r.segments) {
      segments_of[seg.doc].emplace_back(row, seg);
      sum += seg.end - seg.begin;
      if (seg.begin >= seg.end) {
        problems.Add("row ", row, " has an empty segment of document ",
                     seg.doc);
      }
      if (!docs.contains(seg.doc)) {
        problems.Add("row ", row, " holds missing document ", seg.doc);
      }
    }
    if (sum != r.fingerprints) {
      problems.Add("row ", row, " counts ", r.fingerprints,
                   " fingerprints but its segments hold ", sum);
    }
  }
  for (const auto& [id, d] : docs) {
    if (id >= state->next_doc_id) {
      problems.Add("document ", id, " is not below the next id ",
                   state->next_doc_id);
    }
    if (!external_of.contains(id)) {
      problems.Add("document ", id, " ('", d.external_id,
                   "') has no external id entry");
    }
    if (!digest_of.contains(id)) {
      problems.Add("document ", id, " has no digest entry");
    }
    auto list = store.ReadFingerprints(id);
    if (!list.ok()) {
      problems.Add("document ", id, " fingerprint list: ",
                   list.status().message());
      continue;
    }
    report.occurrences += list->occurrences.size();
    if (list->occurrences.size() != d.occurrences) {
      problems.Add("document ", id, " records ", d.occurrences,
                   " shingles but its list has ", list->occurrences.size());
    }
    std::vector<uint64_t> distinct = DistinctFingerprints(*list);
    const bool truncates =
        static_cast<PackingMode>(meta.packing) ==
        PackingMode::kOneDocumentPerRow;
    if (truncates ? distinct.size() < d.fingerprints
                  : distinct.size() != d.fingerprints) {
      problems.Add("document ", id, " records ", d.fingerprints,
                   " fingerprints but its list has ", distinct.size());
    }
    auto segs = segments_of[id];
    std::sort(segs.begin(), segs.end(), [](const auto& a, const auto& b) {
      return a.second.begin < b.second.begin;
    });
    uint32_t next = 0;
    std::vector<uint32_t> seg_rows;
    for (const auto& [row, seg] : segs) {
      if (seg.begin != next) {
        problems.Add("document ", id, " fingerprints [", next, ", ",
                     seg.begin, ") are in no row (or overlap)");
      }
      next = std::max(next, seg.end);
      seg_rows.push_back(row);
    }
    if (next != d.fingerprints) {
      problems.Add("document ", id, " has ", d.fingerprints,
                   " fingerprints but its rows hold up to ", next);
    }
    std::sort(seg_rows.begin(), seg_rows.end());
    seg_rows.erase(std::unique(seg_rows.begin(), seg_rows.end()),
                   seg_rows.end());
    if (seg_rows != d.rows) {
      problems.Add("document ", id, " lists rows that differ from the rows "
                   "holding it");
    }
    for (uint64_t fp : distinct) ++doc_frequency[fp];
    lists[id] = std::move(distinct);
    // Bound the memory of the check: lists are reloaded per row if evicted.
    if (lists.size() > 4096) lists.clear();
  }

  // Both document-frequency tables against the recount from the lists:
  // the full one holds every fingerprint with its count, the shared one
  // those held by two or more; each entry in the bucket of its key.
  for (CountTable table : {CountTable::kAll, CountTable::kShared}) {
    uint64_t wrong = 0, seen = 0, expected_entries = 0;
    const uint32_t min_documents = table == CountTable::kAll ? 1 : 2;
    for (const auto& [fp, count] : doc_frequency) {
      expected_entries += count >= min_documents;
    }
    s = store.ForEachCountBucket(
        table, [&](uint32_t bucket, const CountBucketRecord& record) {
          for (const FingerprintCount& e : record.entries) {
            ++seen;
            auto it = doc_frequency.find(e.fingerprint);
            const uint32_t expected =
                it == doc_frequency.end() ? 0 : it->second;
            if (CountBucketOf(e.fingerprint, table) != bucket ||
                e.documents != expected || expected < min_documents) {
              ++wrong;
            }
          }
          return absl::OkStatus();
        });
    if (!s.ok()) problems.Add("document frequencies: ", s.message());
    // Entries never recorded: those expected minus the right ones seen.
    wrong += expected_entries - std::min(expected_entries, seen - wrong);
    if (wrong > 0) {
      problems.Add(wrong, " fingerprints have a wrong document frequency in ",
                   table == CountTable::kAll ? "fp_counts" : "shared_counts");
    }
  }
  doc_frequency = {};

  // Allow-list entries decode and hold sorted, distinct fingerprints.
  s = store.ForEachAllowEntry([&](std::string_view name,
                                  const AllowRecord& r) {
    if (std::adjacent_find(r.fingerprints.begin(), r.fingerprints.end(),
                           std::greater_equal<uint64_t>()) !=
        r.fingerprints.end()) {
      problems.Add("allow-list entry '", std::string(name),
                   "' has unsorted fingerprints");
    }
    return absl::OkStatus();
  });
  if (!s.ok()) problems.Add("allow-list: ", s.message());

  // Row bits against a rebuild from the fingerprints.
  auto geometry = BloomGeometry::FromParams(
      FilterParams{meta.fpr, meta.row_capacity, meta.fill});
  if (!geometry.ok()) return geometry.status();
  const uint32_t row_words = (geometry->bits + 63) / 64;
  std::vector<uint64_t> rebuilt(row_words), stored(row_words);
  std::vector<uint32_t> positions(geometry->hashes);
  for (const auto& [row, r] : rows) {
    std::fill(rebuilt.begin(), rebuilt.end(), 0);
    bool complete = true;
    for (const SegmentRecord& seg : r.segments) {
      if (!lists.contains(seg.doc)) {
        auto list = store.ReadFingerprints(seg.doc);
        if (!list.ok()) {
          complete = false;
          continue;
        }
        lists[seg.doc] = DistinctFingerprints(*list);
      }
      const std::vector<uint64_t>& list = lists[seg.doc];
      for (uint32_t i = seg.begin; i < seg.end && i < list.size(); ++i) {
        BitPositions(list[i], *geometry, positions);
        for (uint32_t pos : positions) {
          rebuilt[pos / 64] |= uint64_t{1} << (pos % 64);
        }
      }
    }
    auto bits = store.ReadRowBits(row);
    if (!bits.ok()) return bits.status();
    std::fill(stored.begin(), stored.end(), 0);
    if (bits->has_value()) {
      if ((*bits)->size() != size_t{row_words} * 8) {
        problems.Add("row ", row, " has ", (*bits)->size(),
                     " bytes of bits, expected ", row_words * 8);
        continue;
      }
      std::memcpy(stored.data(), (*bits)->data(), (*bits)->size());
    } else if (!r.segments.empty()) {
      problems.Add("row ", row, " holds documents but has no bits");
      continue;
    }
    uint32_t popcount = 0;
    for (uint64_t w : stored) popcount += static_cast<uint32_t>(std::popcount(w));
    if (popcount != r.bits_set) {
      problems.Add("row ", row, " records ", r.bits_set,
                   " set bits but has ", popcount);
    }
    if (complete && rebuilt != stored) {
      problems.Add("row ", row,
                   " bits differ from the rebuild from its documents");
    }
  }
  // Row groups: each group's filter must hold every fingerprint of its
  // rows (a superset is correct: removal leaves removed fingerprints in).
  if (meta.group_rows > 0) {
    const uint32_t per = meta.group_rows;
    BloomGeometry group_geometry = *geometry;
    group_geometry.bits = per * geometry->bits;
    const size_t group_words = (size_t{group_geometry.bits} + 63) / 64;
    std::vector<uint64_t> group_bits(group_words);
    const uint32_t row_count = rows.empty() ? 0 : rows.rbegin()->first + 1;
    const uint32_t groups = (row_count + per - 1) / per;
    for (uint32_t g = 0; g < groups; ++g) {
      auto bits = store.ReadGroupBits(g);
      if (!bits.ok()) return bits.status();
      bool in_use = false;
      for (auto it = rows.lower_bound(g * per);
           it != rows.end() && it->first < (g + 1) * per; ++it) {
        in_use |= !it->second.segments.empty();
      }
      if (!bits->has_value()) {
        if (in_use) problems.Add("row group ", g, " holds rows but has no bits");
        continue;
      }
      if ((*bits)->size() != group_words * 8) {
        problems.Add("row group ", g, " has ", (*bits)->size(),
                     " bytes of bits, expected ", group_words * 8);
        continue;
      }
      std::memcpy(group_bits.data(), (*bits)->data(), (*bits)->size());
      uint64_t missing = 0;
      for (auto it = rows.lower_bound(g * per);
           it != rows.end() && it->first < (g + 1) * per; ++it) {
        for (const SegmentRecord& seg : it->second.segments) {
          auto list = lists.find(seg.doc);
          if (list == lists.end()) continue;  // reported with its row
          for (uint32_t i = seg.begin; i < seg.end && i < list->second.size();
               ++i) {
            BitPositions(list->second[i], group_geometry, positions);
            for (uint32_t pos : positions) {
              missing += (group_bits[pos / 64] >> (pos % 64) & 1) ^ 1;
            }
          }
        }
      }
      if (missing > 0) {
        problems.Add("row group ", g, " lacks ", missing,
                     " bits of its rows' fingerprints");
      }
    }
    uint32_t extra = 0;
    absl::Status groups_scan =
        store.ForEachGroupBits([&](uint32_t g, std::string_view) {
          extra += g >= groups ? 1 : 0;
          return absl::OkStatus();
        });
    if (!groups_scan.ok()) return groups_scan;
    if (extra > 0) problems.Add(extra, " row groups beyond the last row");
  }
  problems.Finish();
  return report;
}

}  // namespace leakhound
