#include "engine/filter/candidate_picker.h"

#include <algorithm>

#include "engine/filter/chance_threshold.h"

namespace leakhound {

RowEvidence::RowEvidence(const QueryWindows& windows, const RowCounts& counts,
                         std::span<const RowInfo> rows,
                         const BloomGeometry& geometry, ScoringMode scoring,
                         double log_alpha)
    : windows_(windows),
      counts_(counts),
      rows_(rows),
      m_(geometry.bits),
      k_(geometry.hashes),
      scoring_(scoring),
      log_alpha_(log_alpha) {}

std::optional<Significance> RowEvidence::Of(std::span<const uint32_t> rows) const {
  const size_t stride = counts_.slots();
  const uint32_t* chunks = counts_.chunks.data();
  if (rows.size() == 1) {  // most tests: a row on its own
    const uint32_t r = rows[0];
    const size_t slot = counts_.Slot(r);
    // Chunks are read only when the query has windows (else `chunks` is
    // null).
    return windows_.Test(
        log_alpha_, counts_.whole[slot],
        ChancePerTrial(rows_[r].bits_set, m_, k_, scoring_), counts_.trials,
        [&](size_t w) {
          return chunks[w * stride + slot] + chunks[(w + 1) * stride + slot];
        });
  }
  uint32_t sum = 0;
  double p = 0;
  for (uint32_t r : rows) {
    sum += counts_.Whole(r);
    p += ChancePerTrial(rows_[r].bits_set, m_, k_, scoring_);
  }
  return windows_.Test(log_alpha_, sum, p, counts_.trials, [&](size_t w) {
    uint32_t hits = 0;
    for (uint32_t r : rows) hits += counts_.InWindow(w, r);
    return hits;
  });
}

CandidatePicker::CandidatePicker(QueryResult& result, double alpha,
                                 uint32_t min_count,
                                 const absl::flat_hash_set<DocId>& spanning)
    : result_(result),
      alpha_(alpha),
      min_count_(min_count),
      spanning_(spanning) {}

void CandidatePicker::Add(DocId doc, const Significance& evidence) {
  result_.candidates.push_back(Candidate{
      doc, evidence.count, evidence.expected,
      std::max(min_count_, MinSignificantCount(evidence.expected, alpha_))});
}

void CandidatePicker::PickRow(uint32_t row, const RowInfo& info,
                              const RowEvidence& evidence) {
  const uint32_t rows[] = {row};
  const std::optional<Significance> e = evidence.Of(rows);
  if (!e) return;
  ++result_.candidate_rows;
  for (const Segment& s : info.segments) {
    if (!spanning_.contains(s.doc)) Add(s.doc, *e);
  }
}

void CandidatePicker::PickSpanning(DocId doc, std::span<const uint32_t> rows,
                                   const RowEvidence& evidence) {
  if (const std::optional<Significance> e = evidence.Of(rows)) Add(doc, *e);
}

void CandidatePicker::Finish() {
  std::vector<Candidate>& c = result_.candidates;
  std::sort(c.begin(), c.end(),
            [](const Candidate& a, const Candidate& b) { return a.doc < b.doc; });
  c.erase(std::unique(c.begin(), c.end(),
                      [](const Candidate& a, const Candidate& b) {
                        return a.doc == b.doc;
                      }),
          c.end());
  std::sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
    return a.count - a.expected > b.count - b.expected;
  });
}

}  // namespace leakhound
