// FilterExperiments: the paper's filter-stage experiments, on in-memory
// pseudo-matrices built from the protected documents' real fingerprints
// (those of the evaluation's index: same key, same lists), queried with the
// generated outbound documents:
//   - Table 1: rows and memory of MBF (one document per row) vs PMBF at the
//     paper's geometry (p = 0.05, n = the 95th percentile of document
//     sizes) and at leakhound's default; the removal cost.
//   - Table 2: false positive and false negative candidates of MBF vs PMBF
//     at 100 % and 50 % fill, with the paper's AND-popcount scoring and
//     with leakhound's membership counting.
//   - Figure 2: the similarity of every outbound document to one source's
//     row (MBF, the paper's setting).
//   - The ceiling: an exact fingerprint index (hash map from fingerprint to
//     documents) next to the filter stage of the real index.
//
// Thread-safety: not thread-safe.
#ifndef LEAKHOUND_CORPUS_FILTER_EXPERIMENTS_H_
#define LEAKHOUND_CORPUS_FILTER_EXPERIMENTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "corpus/index_run.h"
#include "corpus/report_section.h"
#include "corpus/test_set.h"

namespace leakhound {

struct CeilingResult {
  // (case, source) pairs whose source the filter stage / the exact index
  // names as a candidate, over all positive pairs.
  double filter_recall = 0;
  double exact_recall = 0;
  double filter_candidates_per_query = 0;
  double exact_candidates_per_query = 0;
};

struct FilterExperimentResults {
  ReportSection section;
  CeilingResult ceiling;
};

// `results[i]` is the scan of `set.cases[i]` by the real index `built`.
absl::StatusOr<FilterExperimentResults> RunFilterExperiments(
    const BuiltIndex& built, const TestSet& set,
    const std::vector<CaseResult>& results);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_FILTER_EXPERIMENTS_H_
