// IndexRun: what the evaluation does with the real product: builds a
// protected index on disk (RocksDB, as `leakhound add` does) and scans
// outbound documents through the extractors and a LeakScanner (as
// `leakhound scan` does), one thread, timing every document.
//
// The scans use the most permissive match rule (min_words 1): every
// candidate with a passage is reported with its longest passage and
// coverage, so any min_words / min_coverage rule can be applied afterwards
// (MatchRule) without scanning again. The rule is applied after all the
// second stage's work, so latencies are those of the default rule.
//
// Thread-safety: not thread-safe.
#ifndef LEAKHOUND_CORPUS_INDEX_RUN_H_
#define LEAKHOUND_CORPUS_INDEX_RUN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "corpus/document_pool.h"
#include "corpus/test_set.h"
#include "engine/scan/leak_scanner.h"
#include "engine/scan/passage_matcher.h"
#include "engine/protected_index.h"

namespace leakhound {

struct BuiltIndex {
  std::unique_ptr<ProtectedIndex> index;  // open for writing
  std::string dir;
  size_t documents = 0;
  double build_seconds = 0;
  uint64_t protected_bytes = 0;  // of the documents' text
  uint64_t fingerprints = 0;     // distinct per document, summed
  uint64_t disk_bytes = 0;       // of the index directory after the build
  absl::flat_hash_map<DocId, std::string> ids;  // DocId -> document id
  // ScanCases' options; it reports every candidate with a passage
  // (min_words and min_coverage are its own).
  ScanOptions scan;
};

// Builds an index of docs[0, count) in `dir` (must not exist) with these
// options (their key set: runs repeat bit for bit), then closes and opens
// it again (the build time includes both).
// REQUIRES: options.key is set.
absl::StatusOr<BuiltIndex> BuildIndex(const std::vector<PoolDocument>& docs,
                                      size_t count, const IndexOptions& options,
                                      const std::string& dir);

struct CaseResult {
  std::string error;  // empty when the scan worked
  std::string text;   // the extracted text
  double latency_ms = 0;  // extraction + scan
  uint64_t input_bytes = 0;
  double shingle_ms = 0, filter_ms = 0, verify_ms = 0;
  std::vector<std::string> candidates;  // the filter stage's documents
  std::vector<DocumentMatch> matches;   // candidates with a passage
};

// Scans every case. Errors: only index read errors (a case's own failure
// is recorded in its CaseResult).
absl::StatusOr<std::vector<CaseResult>> ScanCases(
    const BuiltIndex& built, const std::vector<const OutboundCase*>& cases);

// What a match rule's min_words counts.
enum class WordCount : uint8_t {
  kSpan,     // the longest passage's span
  kCovered,  // the longest passage's covered words (bridged gaps excluded)
  kGroup,    // the largest group's covered words, as LeakScanner counts
};

// A match rule as LeakScanner applies it.
struct MatchRule {
  uint32_t min_words = ScanOptions{}.min_words;
  double min_coverage = ScanOptions{}.min_coverage;
  uint32_t min_distinctive_words = ScanOptions{}.min_distinctive_words;
  WordCount count = WordCount::kGroup;
  bool Matches(const DocumentMatch& m) const {
    const uint32_t words = count == WordCount::kSpan ? m.longest_passage_words
                           : count == WordCount::kCovered
                               ? m.longest_covered_words
                               : m.group_words;
    return (words >= min_words || m.coverage_of_source >= min_coverage) &&
           m.distinctive_words >= min_distinctive_words;
  }
};

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_INDEX_RUN_H_
