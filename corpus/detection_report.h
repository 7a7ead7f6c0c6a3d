// DetectionReport: detection quality and scan cost from the scans of a
// generated test set against the real index: recall per excerpt size,
// obfuscation, share, format, split and two-source excerpts; false alarms
// per negative class; a sweep of the match rule's min_words; candidates
// before and after the second stage; latency and throughput.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CORPUS_DETECTION_REPORT_H_
#define LEAKHOUND_CORPUS_DETECTION_REPORT_H_

#include <map>
#include <string>
#include <vector>

#include "corpus/index_run.h"
#include "corpus/report_section.h"
#include "corpus/test_set.h"

namespace leakhound {

// The figures the targets and the CI floors are about, under one rule.
struct DetectionSummary {
  // Positive (case, source) pairs of the size group, English, 30+ words.
  double verbatim_recall_30 = 0;
  // Per obfuscation name, 30+ words (includes "verbatim").
  std::map<std::string, double> obfuscation_recall_30;
  double chinese_recall_30 = 0;  // every Chinese obfuscation, 30+ words
  double han_variant_recall_30 = 0;  // Chinese in the other script
  // Per negative class name: share of its documents with a match.
  std::map<std::string, double> false_alarm_rate;
  uint32_t scan_errors = 0;
};

// REQUIRES: results.size() == set.cases.size().
DetectionSummary Summarize(const TestSet& set,
                           const std::vector<CaseResult>& results,
                           const MatchRule& rule);

// The report's detection and cost sections. `allowed_boilerplate` holds
// the rescans of the boilerplate-only documents after the boilerplate lines
// were allow-listed (indexes into set.cases -> result).
ReportSection DetectionSection(
    const TestSet& set, const std::vector<CaseResult>& results,
    const MatchRule& rule,
    const std::map<size_t, CaseResult>& allowed_boilerplate);

// Whether the scan found `source` under `rule`; whether it found anything.
bool Found(const CaseResult& r, const std::string& source,
           const MatchRule& rule);
bool AnyMatch(const CaseResult& r, const MatchRule& rule);

// Median, 99th percentile and mean of `values` (REQUIRES: non-empty).
struct Quantiles {
  double median = 0, p99 = 0, mean = 0;
};
Quantiles QuantilesOf(std::vector<double> values);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_DETECTION_REPORT_H_
