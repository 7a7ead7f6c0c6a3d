// PseudoMatrix: the pseudo-matrix Bloom filter (PMBF) of Butakov, "Using
// Bloom filters in data leak protection applications", section 3, in memory.
//
// d rows, each a Bloom filter of the same m bits (BloomGeometry). Documents
// are packed into rows: in the default mode a document is appended to the
// open row until the row reaches its fill limit and continues in the next
// row(s) (the paper's Fig. 1). A row index records, per row, which
// documents it holds and which range of each document's fingerprint list.
// Baseline modes for experiments: one document per row, truncated at the
// fill limit (the matrix Bloom filter, MBF), and one single classic filter
// (no localization: every document is a candidate of every hit).
//
// Queries count, per row, the query fingerprints whose k bits are all set
// (default), or the paper's popcount(query filter AND row). A document is a
// candidate when the summed count of its rows is significant against the
// chance hits expected from the rows' actual fill (chance_threshold.h), at
// a family-wise false-alarm probability, and at least a minimum count,
// either over the whole query or within one window of consecutive query
// fingerprints (membership scoring).
//
// The matrix does not keep fingerprints: removal and compaction rebuild
// rows from fingerprints the caller supplies (the index stores them).
//
// Thread-safety: const methods may run concurrently with each other; a
// mutating method needs exclusive access (the index serializes writers).
#ifndef LEAKHOUND_ENGINE_FILTER_PSEUDO_MATRIX_H_
#define LEAKHOUND_ENGINE_FILTER_PSEUDO_MATRIX_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "engine/filter/bloom_geometry.h"
#include "engine/filter/candidate_picker.h"
#include "engine/filter/query_windows.h"
#include "engine/filter/row_groups.h"
#include "engine/filter/row_matrix.h"
#include "engine/filter/row_table.h"

namespace leakhound {

// Persisted in the index metadata: do not renumber.
enum class PackingMode : uint8_t {
  kPseudoMatrix = 0,      // several documents per row, long ones span rows
  kOneDocumentPerRow = 1, // MBF: one document per row, truncated
  kSingleFilter = 2,      // one classic Bloom filter, no localization
};

enum class MatrixLayout : uint8_t { kBitSliced = 0, kRowMajor = 1 };

struct PseudoMatrixOptions {
  FilterParams filter;
  PackingMode packing = PackingMode::kPseudoMatrix;
  MatrixLayout layout = MatrixLayout::kBitSliced;
  // G > 0 adds a second level (row_groups.h): rows G at a time merged into
  // one filter, counted first, so that a membership query reads rows only
  // in groups whose counts are significant. Every document whose shared
  // fingerprints alone are significant is still found, and every
  // candidate is one of the one-level query with the same count; at twice
  // the memory; the query's cost grows with d / G plus the groups it descends
  // into. REQUIRES: 0 or a multiple of 64 with G * m < 2^32
  // (docs/engine.md, "Row groups").
  uint32_t group_rows = 0;
};

// The fingerprint list the caller added for a document, unchanged.
using FingerprintSource = std::function<std::span<const uint64_t>(DocId)>;

struct RebuildStats {
  std::vector<uint32_t> rows;  // rows cleared and refilled (freed included)
  uint32_t rows_freed = 0;     // of those, rows left empty and reusable
  uint32_t rows_rebuilt() const { return static_cast<uint32_t>(rows.size()); }
};

class PseudoMatrix {
 public:
  // Returns InvalidArgument for out-of-range filter parameters.
  static absl::StatusOr<std::unique_ptr<PseudoMatrix>> Create(
      const PseudoMatrixOptions& options);
  // Held by unique_ptr: a copy would be a second filter of gigabytes.
  PseudoMatrix(const PseudoMatrix&) = delete;
  PseudoMatrix& operator=(const PseudoMatrix&) = delete;

  // Rebuilds a matrix from its persisted row index: `rows[r]` for every
  // row r (a row without segments is free) and the open row (-1: none).
  // The bits start clear; load them with LoadRowBits (and LoadGroupBits).
  // Returns InvalidArgument for bad parameters or an inconsistent row index
  // (segments out of order, open row out of range).
  static absl::StatusOr<std::unique_ptr<PseudoMatrix>> Restore(
      const PseudoMatrixOptions& options, std::vector<RowInfo> rows,
      int64_t open_row);
  // ORs the bits of rows [first, first + count), in RowMatrix::SetRows
  // format. No per-bit work: 64x64 transposes for the sliced layout.
  // Calls for disjoint ranges whose bounds are multiples of 64 write
  // disjoint bytes and may run concurrently (nothing else may).
  // REQUIRES: first + count <= rows().size().
  void LoadRowBits(uint32_t first, uint32_t count,
                   std::span<const uint64_t> words);
  // A reader's catch-up with a commit, in place: replaces the row records
  // of `changed` (row id, its record now), extends the table to
  // `row_count` rows (rows not in `changed` added empty) and sets the open
  // row; the document and free-row indexes follow. The bits of the changed
  // rows and the filters of their row groups are cleared: load them again
  // with LoadRowBits and LoadGroupBits. Returns the documents no row holds
  // any more. InvalidArgument, with nothing changed, for records Restore
  // would refuse or an open row out of range. REQUIRES: row_count >=
  // rows().size(); every changed row < row_count, each once.
  absl::StatusOr<std::vector<DocId>> ReplaceRows(
      std::span<const std::pair<uint32_t, RowInfo>> changed, uint32_t row_count,
      int64_t open_row);
  // The group ids of `rows` (none without row groups), sorted, distinct.
  std::vector<uint32_t> GroupsOf(std::span<const uint32_t> rows) const;
  // Copies `row`'s bits, RowMatrix::GetRow format.
  void RowBits(uint32_t row, std::span<uint64_t> words) const {
    matrix_->GetRow(row, words);
  }
  // The same for the group filters of a matrix with row groups: Restore
  // leaves them clear and computes everything else about the groups from
  // the row index. REQUIRES: row groups; first + count <= groups; words in
  // SetRows format for G * m bits a group.
  void LoadGroupBits(uint32_t first, uint32_t count,
                     std::span<const uint64_t> words);
  // Copies group g's filter. REQUIRES: row groups; g < groups.
  void GroupBits(uint32_t g, std::span<uint64_t> words) const;

  // Inserts a document's fingerprints (duplicates count toward capacity;
  // callers pass distinct fingerprints). Returns how many were stored: all,
  // except in kOneDocumentPerRow mode where the list is cut at the fill
  // limit. REQUIRES: `doc` not present; fingerprints.size() < 2^32.
  uint32_t Add(DocId doc, std::span<const uint64_t> fingerprints);

  // Removes a document by rebuilding only the rows that hold it from the
  // fingerprints of the other documents in those rows. Row groups' filters
  // keep its fingerprints (a superset is still correct; Compact rebuilds
  // them). Returns NotFound for an unknown document. REQUIRES: `source`
  // returns the list of every document in the document's rows.
  absl::StatusOr<RebuildStats> Remove(DocId doc,
                                      const FingerprintSource& source);

  // Repacks the rows filled below `underfill` x fill limit into as few rows
  // as possible (the others are untouched), and rebuilds the filters of
  // their row groups. Freed rows are reused by later additions. Only
  // meaningful in kPseudoMatrix mode (no-op otherwise). REQUIRES: `source`
  // returns the list of every document in GroupRows(UnderfilledRows()).
  RebuildStats Compact(const FingerprintSource& source,
                       double underfill = 0.5);

  // The rows Compact would rebuild: the rows in use filled below
  // `underfill` x fill limit, if there are at least two (else none: one
  // row cannot be packed tighter).
  std::vector<uint32_t> UnderfilledRows(double underfill) const;

  // Candidates of a query: the documents whose rows' count, over the whole
  // query or in one window, is significant (see the file comment). With
  // row groups, membership queries take the two-level path (see
  // PseudoMatrixOptions::group_rows for what it guarantees).
  QueryResult Query(std::span<const uint64_t> fingerprints,
                    const QueryOptions& options) const;

  const BloomGeometry& geometry() const { return geometry_; }
  const PseudoMatrixOptions& options() const { return options_; }
  const std::vector<RowInfo>& rows() const { return rows_; }
  // The row the next document is appended to; -1 if none.
  int64_t open_row() const { return open_row_; }
  const RowMatrix& matrix() const { return *matrix_; }
  // The rows whose documents rebuilding the groups of `rows` reads: every
  // row of their groups (just `rows` without groups). Sorted, distinct.
  std::vector<uint32_t> GroupRows(std::span<const uint32_t> rows) const;
  // Rows holding `doc`, in list order; empty if unknown.
  std::span<const uint32_t> RowsOf(DocId doc) const;
  size_t documents() const { return doc_rows_.size(); }
  // Rows holding at least one document.
  uint32_t rows_in_use() const { return rows_in_use_; }
  // Heap bytes: the bits plus the row and document indexes.
  size_t MemoryBytes() const;

 private:
  PseudoMatrix(const PseudoMatrixOptions& options,
               const BloomGeometry& geometry,
               std::unique_ptr<RowMatrix> matrix);

  // Inserts fingerprints[begin, end) of `doc` into `row`.
  void Insert(uint32_t row, DocId doc, std::span<const uint64_t> fingerprints,
              uint32_t begin, uint32_t end);
  // Packs fingerprints[begin, end) of `doc` from the open row on.
  void Pack(DocId doc, std::span<const uint64_t> fingerprints, uint32_t begin,
            uint32_t end);
  uint32_t TakeRow();  // a free row, or a new one
  void ClearRow(uint32_t row);
  // Sets free_rows_ to every row without segments (none in
  // kSingleFilter mode), the lowest on top.
  void FindFreeRows();
  // Brings the row groups up to date after a mutation: rebuilds the
  // filters of cleared_groups_ from `source` (REQUIRES: non-null if there
  // are any) and recomputes the values of touched groups.
  void RefreshGroups(const FingerprintSource* source);
  // Whether `doc`'s rows lie in more than one group (for cross_group_).
  void UpdateCrossGroup(DocId doc);

  // The query's steps (pseudo_matrix_query.cc). Both paths count the
  // memberships (membership_counter.h), compute the evidence per row and
  // window and pick the candidates (candidate_picker.h) into `result`.
  // Every row in the matrix, one level:
  void QueryOneLevel(std::span<const uint64_t> fingerprints,
                     const QueryWindows& windows, const QueryOptions& options,
                     double alpha, QueryResult& result) const;
  // Rows only in the row groups whose counts are significant; returns
  // false, having picked nothing, when that would read more than
  // options.max_block_share of the row blocks. REQUIRES: row groups,
  // membership scoring.
  bool QueryTwoLevel(std::span<const uint64_t> fingerprints,
                     const QueryWindows& windows, const QueryOptions& options,
                     double alpha, QueryResult& result) const;
  // The two-level query's first level: for each row group, whether to
  // read its rows (see pseudo_matrix_query.cc for what it guarantees).
  std::vector<char> GroupsToDescend(std::span<const uint64_t> fingerprints,
                                    const QueryWindows& windows,
                                    const QueryOptions& options,
                                    double log_alpha) const;

  const PseudoMatrixOptions options_;
  const BloomGeometry geometry_;
  std::unique_ptr<RowMatrix> matrix_;
  std::vector<RowInfo> rows_;
  absl::flat_hash_map<DocId, std::vector<uint32_t>> doc_rows_;
  std::vector<uint32_t> free_rows_;  // empty rows to reuse, as a stack
  int64_t open_row_ = -1;            // the row appended to; -1 if none
  uint32_t rows_in_use_ = 0;  // rows holding a segment
  // Documents in more than one row (doc_rows_ size > 1), kept in step with
  // doc_rows_ so that neither Add nor Query walks every document.
  absl::flat_hash_set<DocId> spanning_;
  // The second level, if options_.group_rows > 0.
  std::unique_ptr<RowGroups> groups_;
  std::vector<uint32_t> touched_groups_;  // values to recompute
  std::vector<uint32_t> cleared_groups_;  // filters to rebuild (Compact)
  // Documents whose rows lie in more than one group: tested on the sum of
  // their groups' counts.
  absl::flat_hash_set<DocId> cross_group_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_PSEUDO_MATRIX_H_
