#include "engine/document_frequency.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "index/key_format.h"

namespace leakhound {
namespace {

absl::Status CheckBucket(CountTable table, uint32_t bucket,
                         const CountBucketRecord& record) {
  const uint32_t min_documents = table == CountTable::kAll ? 1 : 2;
  for (const FingerprintCount& e : record.entries) {
    if (CountBucketOf(e.fingerprint, table) != bucket ||
        e.documents < min_documents) {
      return absl::DataLossError(absl::StrCat(
          "document-frequency bucket ", bucket,
          " is inconsistent; run leakhound verify"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DocumentFrequency> DocumentFrequency::Load(
    const IndexStore& store) {
  DocumentFrequency out(store);
  absl::Status s = store.ForEachCountBucket(
      CountTable::kShared,
      [&out](uint32_t bucket, const CountBucketRecord& record) {
        absl::Status check = CheckBucket(CountTable::kShared, bucket, record);
        if (!check.ok()) return check;
        out.shared_.reserve(out.shared_.size() + record.entries.size());
        for (const FingerprintCount& e : record.entries) {
          out.shared_.emplace(e.fingerprint, e.documents);
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
}

void DocumentFrequency::Apply(std::span<const uint64_t> added,
                              std::span<const uint64_t> removed) {
  for (uint64_t fp : added) changes_.push_back({fp, +1});
  for (uint64_t fp : removed) changes_.push_back({fp, -1});
}

std::vector<DocumentFrequency::Change> DocumentFrequency::NetChanges(
    std::vector<Change> recorded) {
  // Sorted by fingerprint: partitioned by bucket (a counting sort on the
  // top bits, linear), then each bucket's few changes sorted.
  std::vector<Change> changes(recorded.size());
  constexpr uint32_t kBuckets = CountBuckets(CountTable::kAll);
  std::vector<uint32_t> start(size_t{kBuckets} + 1, 0);
  for (const Change& c : recorded) ++start[CountBucketOf(c.fingerprint) + 1];
  for (uint32_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (const Change& c : recorded) {
    changes[next[CountBucketOf(c.fingerprint)]++] = c;
  }
  recorded = {};
  for (uint32_t b = 0; b < kBuckets; ++b) {
    std::sort(changes.begin() + start[b], changes.begin() + start[b + 1],
              [](const Change& x, const Change& y) {
                return x.fingerprint < y.fingerprint;
              });
  }
  // One change per fingerprint, the deltas summed; zero sums dropped.
  size_t kept = 0;
  for (size_t i = 0; i < changes.size();) {
    size_t j = i;
    int64_t delta = 0;
    for (; j < changes.size() &&
           changes[j].fingerprint == changes[i].fingerprint;
         ++j) {
      delta += changes[j].delta;
    }
    if (delta != 0) {
      changes[kept++] = {changes[i].fingerprint, static_cast<int32_t>(delta)};
    }
    i = j;
  }
  changes.resize(kept);
  return changes;
}

absl::Status DocumentFrequency::ReadBuckets(std::span<const Change> changes) {
  // Sorted by fingerprint, the changes are grouped by bucket.
  std::vector<uint32_t> missing;
  for (const Change& c : changes) {
    const uint32_t b = CountBucketOf(c.fingerprint);
    if ((missing.empty() || missing.back() != b) && !buckets_.contains(b)) {
      missing.push_back(b);
    }
  }
  if (!missing.empty()) {
    auto read = store_->ReadCountBuckets(missing);
    if (!read.ok()) return read.status();
    for (size_t i = 0; i < missing.size(); ++i) {
      absl::Status s = CheckBucket(CountTable::kAll, missing[i], (*read)[i]);
      if (!s.ok()) return s;
    }
    for (size_t i = 0; i < missing.size(); ++i) {
      buckets_.emplace(missing[i], std::move((*read)[i]));
    }
  }
  for (const Change& c : changes) {
    if (c.delta > 0) continue;
    const auto& entries = buckets_.at(CountBucketOf(c.fingerprint)).entries;
    auto it = std::lower_bound(entries.begin(), entries.end(), c.fingerprint,
                               [](const FingerprintCount& e, uint64_t fp) {
                                 return e.fingerprint < fp;
                               });
    if (it == entries.end() || it->fingerprint != c.fingerprint ||
        int64_t{it->documents} + c.delta < 0) {
      return absl::DataLossError(
          "document frequencies disagree with the documents; run leakhound "
          "verify");
    }
  }
  return absl::OkStatus();
}

void DocumentFrequency::MergeBucket(uint32_t bucket,
                                    std::span<const Change> changes,
                                    std::vector<bool>& shared_dirty,
                                    IndexBatch& batch) {
  CountBucketRecord& record = buckets_.at(bucket);
  std::vector<FingerprintCount>& entries = record.entries;
  std::vector<FingerprintCount> merged;
  merged.reserve(entries.size() + changes.size());
  size_t e = 0;
  for (const Change& c : changes) {
    while (e < entries.size() && entries[e].fingerprint < c.fingerprint) {
      merged.push_back(entries[e++]);
    }
    uint32_t before = 0;
    if (e < entries.size() && entries[e].fingerprint == c.fingerprint) {
      before = entries[e++].documents;
    }
    const auto after = static_cast<uint32_t>(int64_t{before} + c.delta);
    if (after > 0) merged.push_back({c.fingerprint, after});
    if (before >= 2 || after >= 2) {
      shared_dirty[CountBucketOf(c.fingerprint, CountTable::kShared)] = true;
      if (after >= 2) {
        shared_[c.fingerprint] = after;
      } else {
        shared_.erase(c.fingerprint);
      }
    }
  }
  merged.insert(merged.end(), entries.begin() + static_cast<ptrdiff_t>(e),
                entries.end());
  entries.swap(merged);
  batch.PutCountBucket(CountTable::kAll, bucket, record);
}

void DocumentFrequency::PutSharedBuckets(const std::vector<bool>& dirty,
                                         IndexBatch& batch) const {
  if (std::find(dirty.begin(), dirty.end(), true) == dirty.end()) return;
  std::vector<CountBucketRecord> shared(dirty.size());
  for (const auto& [fp, documents] : shared_) {
    const uint32_t b = CountBucketOf(fp, CountTable::kShared);
    if (dirty[b]) shared[b].entries.push_back({fp, documents});
  }
  for (uint32_t b = 0; b < shared.size(); ++b) {
    if (!dirty[b]) continue;
    std::sort(shared[b].entries.begin(), shared[b].entries.end(),
              [](const FingerprintCount& x, const FingerprintCount& y) {
                return x.fingerprint < y.fingerprint;
              });
    batch.PutCountBucket(CountTable::kShared, b, shared[b]);
  }
}

absl::Status DocumentFrequency::Flush(IndexBatch& batch) {
  const std::vector<Change> changes = NetChanges(std::move(changes_));
  changes_ = {};
  absl::Status s = ReadBuckets(changes);
  if (!s.ok()) return s;
  // Merge each bucket's changes into it and write it; sorted by
  // fingerprint, the changes come bucket after bucket.
  std::vector<bool> shared_dirty(CountBuckets(CountTable::kShared), false);
  for (size_t i = 0; i < changes.size();) {
    const uint32_t bucket = CountBucketOf(changes[i].fingerprint);
    size_t j = i;
    while (j < changes.size() &&
           CountBucketOf(changes[j].fingerprint) == bucket) {
      ++j;
    }
    MergeBucket(bucket, std::span<const Change>(changes).subspan(i, j - i),
                shared_dirty, batch);
    i = j;
  }
  // The shared buckets that changed, rebuilt from memory (one pass over
  // the shared fingerprints).
  PutSharedBuckets(shared_dirty, batch);
  return absl::OkStatus();
}

}  // namespace leakhound
