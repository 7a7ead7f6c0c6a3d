// The last steps of a pseudo-matrix query: the evidence of a row, or of
// the rows of a document that spans rows, from the query's counts
// (RowEvidence); and the documents that become candidates (CandidatePicker):
// a document in one row takes its row's evidence, a document spanning rows
// that of all its rows together, each tested at the query's Bonferroni
// level.
//
// Thread-safety: neither class is thread-safe; both live for one query.
#ifndef LEAKHOUND_ENGINE_FILTER_CANDIDATE_PICKER_H_
#define LEAKHOUND_ENGINE_FILTER_CANDIDATE_PICKER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "engine/filter/bloom_geometry.h"
#include "engine/filter/membership_counter.h"
#include "engine/filter/query_windows.h"
#include "engine/filter/row_table.h"

namespace leakhound {

struct Candidate {
  DocId doc;
  uint32_t count;      // hits summed over the document's rows
  double expected;     // chance hits expected over those rows
  uint32_t threshold;  // the count that was needed
};

struct QueryResult {
  std::vector<Candidate> candidates;  // by decreasing count - expected
  uint32_t candidate_rows = 0;        // rows whose own test passed
  uint32_t tests = 0;                 // the Bonferroni family size
  uint32_t groups_descended = 0;      // row groups found significant
  bool two_level = false;             // answered by the two-level path
};

class RowEvidence {
 public:
  // Every argument must outlive this object. `rows` is the matrix's row
  // table, `counts` the query's counts of (at least) the rows asked
  // about, `geometry` the matrix's.
  RowEvidence(const QueryWindows& windows, const RowCounts& counts,
              std::span<const RowInfo> rows, const BloomGeometry& geometry,
              ScoringMode scoring, double log_alpha);

  // The evidence of `rows` together (QueryWindows::Test): their summed
  // hits against the summed chance of their fill. REQUIRES: every row was
  // counted.
  std::optional<Significance> Of(std::span<const uint32_t> rows) const;

 private:
  const QueryWindows& windows_;
  const RowCounts& counts_;
  const std::span<const RowInfo> rows_;
  const double m_;
  const uint32_t k_;
  const ScoringMode scoring_;
  const double log_alpha_;
};

class CandidatePicker {
 public:
  // Candidates go into `result` (which must outlive this object), each
  // with the count its test needed at `alpha`, and at least `min_count`.
  // `spanning`: the documents in more than one row, which a row's own
  // test does not make candidates (they are tested on all their rows).
  CandidatePicker(QueryResult& result, double alpha, uint32_t min_count,
                  const absl::flat_hash_set<DocId>& spanning);

  // Row `row` (its record `info`) on its own: if its evidence is
  // significant, counts it as a candidate row and adds its documents that
  // lie in no other row.
  void PickRow(uint32_t row, const RowInfo& info, const RowEvidence& evidence);
  // A document spanning `rows`: a candidate if their evidence together is.
  void PickSpanning(DocId doc, std::span<const uint32_t> rows,
                    const RowEvidence& evidence);
  // Lists each document once, by decreasing count - expected. Call once,
  // after the last Pick.
  void Finish();

 private:
  void Add(DocId doc, const Significance& evidence);

  QueryResult& result_;
  const double alpha_;
  const uint32_t min_count_;
  const absl::flat_hash_set<DocId>& spanning_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_CANDIDATE_PICKER_H_
