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

std::optional<Significance> RowEvidence::Of(
    std::span<const uint32_t> rows) const {
  if (rows.size() == 1) {  // most tests: a row on its own
    const uint32_t r = rows[0];
    const size_t slot = counts_.Slot(r);
    return windows_.TestPeaks(
        log_alpha_, counts_.whole[slot],
        ChancePerTrial(rows_[r].bits_set, m_, k_, scoring_), counts_.trials,
        [&] {
          return QueryWindows::WindowPeaks{
              counts_.fullest[slot],
              counts_.InWindow(windows_.windows() - 1, r)};
        });
  }
  uint32_t sum = 0;
  double p = 0;
  for (uint32_t r : rows) {
    sum += counts_.Whole(r);
    p += ChancePerTrial(rows_[r].bits_set, m_, k_, scoring_);
  }
  return windows_.TestPeaks(log_alpha_, sum, p, counts_.trials, [&] {
    const size_t last = windows_.windows() - 1;
    QueryWindows::WindowPeaks peaks;
    // The rows' own fullest windows, summed, bound the fullest window of
    // the rows together: when the bound is not significant, neither is
    // the window (the usual case, and the walk over every window of every
    // row is skipped).
    for (uint32_t r : rows) {
      peaks.fullest += counts_.fullest[counts_.Slot(r)];
      peaks.last += counts_.InWindow(last, r);
    }
    if (!windows_.WindowSignificant(peaks.fullest, p, log_alpha_)) {
      return peaks;
    }
    peaks.fullest = 0;
    for (size_t w = 0; w < last; ++w) {
      uint32_t hits = 0;
      for (uint32_t r : rows) hits += counts_.InWindow(w, r);
      peaks.fullest = std::max(peaks.fullest, hits);
    }
    return peaks;
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
  std::sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
    return a.doc < b.doc;
  });
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
