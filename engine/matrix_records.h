// The pseudo-matrix as the index store holds it: row records to the row
// table and back, the row and group bits loaded from the store and written
// into a batch, and the distinct fingerprint lists of stored documents
// that removal, compaction and the verifier rebuild rows from.
//
// Thread-safety: the functions only read their arguments (but `batch` and
// the matrix being loaded); a ListCache is not thread-safe.
#ifndef LEAKHOUND_ENGINE_MATRIX_RECORDS_H_
#define LEAKHOUND_ENGINE_MATRIX_RECORDS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/filter/pseudo_matrix.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "index/records.h"

namespace leakhound {

// A stored row record as the matrix holds it.
RowInfo RowInfoOf(const RowRecord& record);

// A document's distinct fingerprints in order of first occurrence: what its
// document frequencies count.
std::vector<uint64_t> DistinctFingerprints(const FingerprintsRecord& record);

// The filter's fingerprint list of a document: WinnowedDistinct of its
// list with the index's `filter_winnow_window` (MetadataRecord); the
// distinct fingerprints for a window of 0 or 1.
std::vector<uint64_t> FilterFingerprints(const FingerprintsRecord& record,
                                         uint32_t filter_winnow_window);

// Both of a document's lists, for callers that need both: the filter's is
// a copy of the distinct one, not computed again, when the window keeps
// every fingerprint.
struct DocumentLists {
  std::vector<uint64_t> distinct;  // DistinctFingerprints
  std::vector<uint64_t> filter;    // FilterFingerprints
};
DocumentLists ListsOf(const FingerprintsRecord& record,
                      uint32_t filter_winnow_window);

// The matrix options an index was created with.
PseudoMatrixOptions MatrixOptionsOf(const MetadataRecord& metadata);

// Words of one row of `bits` bits, as stored.
inline uint32_t RowWords(uint32_t bits) { return (bits + 63) / 64; }

// The matrix `store` holds, whose open row `state` records: the row table,
// then every row's bits and every row group's filter, each checked against
// the row table (length, popcount). With `record_hashes`, also sets it to
// the hashes of the row records read (IndexStore::ForEachRowIfChanged),
// for LoadChangedRows. DataLoss naming the damage, or store read errors.
absl::StatusOr<std::unique_ptr<PseudoMatrix>> LoadMatrix(
    const IndexStore& store, const StateRecord& state,
    std::vector<uint64_t>* record_hashes = nullptr);

// What LoadChangedRows changed.
struct RowChanges {
  std::vector<uint32_t> rows;  // rows whose record changed, bits reloaded
  std::vector<DocId> dropped;  // documents no row holds any more
};

// Brings `matrix`, loaded from `store` when its row records hashed to
// *record_hashes, to the state the store holds now (`state` its state
// record), in place: walks the row records' hashes and reads only the
// records that changed, their bits and their row groups' filters
// (PseudoMatrix::ReplaceRows); updates *record_hashes. Errors:
// FailedPrecondition, with nothing changed, where a whole load is the
// better way (rows gone from the table, or more than a quarter of them
// changed); after any other error (DataLoss for damage or a row table of
// another state, store read errors) the matrix may be part old, part new
// and must be loaded whole.
absl::StatusOr<RowChanges> LoadChangedRows(
    const IndexStore& store, const StateRecord& state, PseudoMatrix& matrix,
    std::vector<uint64_t>* record_hashes);

// Adds `rows` to `batch` as `matrix` holds them now: record and bits (no
// bits for a row without documents).
void PutRows(const PseudoMatrix& matrix, std::span<const uint32_t> rows,
             IndexBatch& batch);
// Adds the filters of the row groups of `rows` (none without row groups;
// empty for a group without documents).
void PutGroups(const PseudoMatrix& matrix, std::span<const uint32_t> rows,
               IndexBatch& batch);

// Distinct fingerprint lists of the documents one operation needs, loaded
// from the store before the operation mutates anything (a FingerprintSource
// cannot fail). `store` must outlive the cache.
class ListCache {
 public:
  explicit ListCache(const IndexStore& store) : store_(store) {}

  absl::Status Load(DocId doc);
  // Loads every document with a segment in `rows` of `matrix`, except
  // `skip`.
  absl::Status LoadRows(const PseudoMatrix& matrix,
                        std::span<const uint32_t> rows, DocId skip);
  // The lists loaded. REQUIRES: every document asked for was loaded; the
  // cache outlives the source.
  FingerprintSource Source() const;

 private:
  const IndexStore& store_;
  absl::flat_hash_map<DocId, std::vector<uint64_t>> lists_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_MATRIX_RECORDS_H_
