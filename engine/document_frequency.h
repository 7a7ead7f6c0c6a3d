// DocumentFrequency: how many protected documents hold each fingerprint,
// for the boilerplate rule (leak_scanner.h) and its upkeep by add, replace
// and remove.
//
// Memory holds only the fingerprints two or more documents hold (the
// shared_counts table, loaded whole): that is all a scan asks, and it is a
// hash lookup instead of a read of the store per scanned fingerprint. The
// full table (fp_counts), which a writer needs to see a fingerprint pass
// from one document to two, stays on disk. Apply only records a change;
// Flush merges every change recorded since the last Flush at once (one sort,
// each bucket touched read once per object and rewritten once per Flush),
// updates memory and puts the changed buckets into a batch, to be committed
// with the changes that caused them (if that commit fails, memory is ahead
// of the disk: the owner must stop writing, as ProtectedIndex does).
//
// Thread-safety: const methods may run concurrently; Apply and Flush need
// exclusive access.
#ifndef LEAKHOUND_ENGINE_DOCUMENT_FREQUENCY_H_
#define LEAKHOUND_ENGINE_DOCUMENT_FREQUENCY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "index/records.h"

namespace leakhound {

class DocumentFrequency {
 public:
  // Loads the shared table of `store`, which must outlive the object.
  // Errors: the store's read errors; DataLoss for a bucket holding a
  // fingerprint of another bucket or a count below 2.
  static absl::StatusOr<DocumentFrequency> Load(const IndexStore& store);

  // How many documents hold `fingerprint` if two or more do; else 0.
  uint32_t SharedCount(uint64_t fingerprint) const {
    auto it = shared_.find(fingerprint);
    return it == shared_.end() ? 0 : it->second;
  }
  // Fingerprints held by two or more documents.
  size_t shared_size() const { return shared_.size(); }

  // Records that a document holding `added` arrives and one holding
  // `removed` leaves (either may be empty); nothing changes until Flush.
  // REQUIRES: each list is distinct; the store is the writer.
  void Apply(std::span<const uint64_t> added,
             std::span<const uint64_t> removed);
  // Changes recorded by Apply and not flushed yet.
  size_t pending() const { return changes_.size(); }

  // Merges the recorded changes and puts every bucket of both tables they
  // change into `batch`. On an error (a read error; DataLoss when a count
  // would fall below zero: the tables disagree with the documents) memory
  // and `batch` are as before. The recorded changes are dropped either way.
  absl::Status Flush(IndexBatch& batch);

 private:
  explicit DocumentFrequency(const IndexStore& store) : store_(&store) {}

  const IndexStore* store_;
  absl::flat_hash_map<uint64_t, uint32_t> shared_;
  // Buckets of the full table read so far.
  absl::flat_hash_map<uint32_t, CountBucketRecord> buckets_;
  struct Change {
    uint64_t fingerprint;
    int32_t delta;
  };
  std::vector<Change> changes_;  // recorded by Apply

  // Flush's steps. The recorded changes sorted by fingerprint, one per
  // fingerprint with the deltas summed, zero sums dropped.
  static std::vector<Change> NetChanges(std::vector<Change> recorded);
  // Reads the full table's buckets `changes` touch that are not in memory
  // yet; DataLoss if a change would take a count below zero. REQUIRES:
  // `changes` as NetChanges returns them.
  absl::Status ReadBuckets(std::span<const Change> changes);
  // Merges `changes`, all of `bucket`, into it and puts it in `batch`;
  // updates the shared counts and marks the shared buckets they change.
  // REQUIRES: ReadBuckets succeeded for them.
  void MergeBucket(uint32_t bucket, std::span<const Change> changes,
                   std::vector<bool>& shared_dirty, IndexBatch& batch);
  // Puts the shared buckets marked `dirty`, rebuilt from the shared counts.
  void PutSharedBuckets(const std::vector<bool>& dirty,
                        IndexBatch& batch) const;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_DOCUMENT_FREQUENCY_H_
