// LeakScanner: answers "does this text contain passages of protected
// documents, and of which ones?" for one text at a time.
//
//  1. Shingle the text with the index's key and options.
//  2. Filter stage: query the pseudo-matrix with the text's distinct
//     fingerprints minus the allow-listed and boilerplate ones (held by
//     more than ScanOptions::boilerplate_documents documents); candidate
//     documents come back with their statistical evidence.
//  3. Second stage, per candidate: read its stored shingles, chain those
//     the text shares into passages (passage_matcher.h), the same
//     fingerprints left out, and measure coverage both ways. A candidate is
//     a match when its largest group of passages covers at least min_words
//     words or the passages cover at least min_coverage of it, and at
//     least min_distinctive_words of the text's words lie in shingles it
//     shares with few documents; the others are the filter's false
//     candidates, counted and dropped.
//
// Thread-safety: a LeakScanner is not thread-safe (it owns a Shingler); use
// one per thread. Many scanners may share one ProtectedIndex, which must
// outlive them and must not be changed or refreshed while they scan.
#ifndef LEAKHOUND_ENGINE_SCAN_LEAK_SCANNER_H_
#define LEAKHOUND_ENGINE_SCAN_LEAK_SCANNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "engine/scan/passage_matcher.h"
#include "engine/protected_index.h"
#include "engine/filter/pseudo_matrix.h"
#include "shingler/shingler.h"

namespace leakhound {

struct ScanOptions {
  // A group of passages with at least this many covered words makes a
  // match (LargestGroupWords: passages adjacent in the scanned text from
  // one stretch of the source, in any order; a passage alone is a group;
  // Passage::covered_words: words of matched shingles and words substituted
  // one for one between them; other gaps a chain bridged do not count).
  // Range [1, 10000]; the command line allows [10, 10000]. The default is
  // measured (docs/results.md, "Choosing min_words").
  uint32_t min_words = 22;
  // Or passages covering at least this share of the protected document's
  // words. Range (0, 1].
  double min_coverage = 0.5;
  // Fingerprints held by more than this many protected documents are
  // boilerplate: left out of the filter query and the comparison; 0 turns
  // the rule off.
  uint32_t boilerplate_documents = 10;
  // A shingle held by at most this many protected documents is
  // distinctive; text shared by more is boilerplate to the next rule,
  // however few its documents (a template of three, a table repeated
  // across a manual's pages). Range [1, 2^31].
  uint32_t distinctive_documents = 2;
  // A match also needs at least this many words of the scanned text inside
  // distinctive shingles it shares with the document
  // (DocumentMatch::distinctive_words), so text that only boilerplate
  // shares with it raises nothing; 0 turns the rule off. Range
  // [0, 10000]. Off by default: measured, it costs recall where protected
  // documents come in families (docs/results.md, issue 37).
  uint32_t min_distinctive_words = 0;
  // The documents' word checks (MatchPassages; lists written since
  // FingerprintsRecord version 2): passages grow past substituted words at
  // their ends, and when more than one word in five of a passage (or
  // between a group's passages) is substituted or inserted, only the part
  // within that share counts (what that gains: docs/results.md, issue
  // 37).
  bool word_checks = true;
  QueryOptions query;
};

struct DocumentMatch {
  uint32_t doc = 0;
  std::string external_id;
  // Words of the scanned text inside the passages.
  uint32_t matched_words = 0;
  // Share of the protected document's tokens inside the passages' source
  // ranges, and share of the scanned text's words inside the passages.
  double coverage_of_source = 0;
  double coverage_of_scanned = 0;
  // Tokens of the protected document (the passages' source ranges are
  // within [0, source_tokens)).
  uint32_t source_tokens = 0;
  uint32_t longest_passage_words = 0;
  uint32_t longest_covered_words = 0;  // most Passage::covered_words
  uint32_t group_words = 0;  // LargestGroupWords of the passages
  // Words of the scanned text inside the shingles it shares with the
  // document that are distinctive (ScanOptions::distinctive_documents),
  // allow-listed and boilerplate ones left out. Computed for matches only.
  uint32_t distinctive_words = 0;
  std::vector<Passage> passages;  // in scanned-text order
};

struct ScanReport {
  uint32_t words = 0;       // of the scanned text
  std::vector<DocId> candidates;  // documents the filter stage proposed
  uint32_t false_candidates = 0;  // of those, dropped by the second stage
  // Distinct scanned fingerprints ignored as allow-listed, and scanned
  // shingles ignored as boilerplate (in neither the filter query nor the
  // comparison).
  uint32_t allowed_fingerprints = 0;
  uint32_t boilerplate_shingles = 0;
  std::vector<DocumentMatch> matches;  // by decreasing matched_words
  // URLs and paths under a protected location, in text order.
  std::vector<LocationFinding> locations;
  // Wall time of the three steps, in nanoseconds.
  uint64_t shingle_ns = 0;
  uint64_t filter_ns = 0;
  uint64_t verify_ns = 0;  // the second stage
};

class LeakScanner {
 public:
  // InvalidArgument for options out of range. `index` must outlive the
  // scanner. On an index whose filter is sampled by winnowing (window W,
  // MetadataRecord::filter_winnow_window) options.query.window is scaled
  // by 2/(W+1), at least 16, so a window spans the same text.
  static absl::StatusOr<std::unique_ptr<LeakScanner>> Create(
      const ProtectedIndex& index, const ScanOptions& options);

  // Scans UTF-8 text (invalid sequences read as U+FFFD). Errors: those of
  // Shingler::Shingle, and index read errors.
  absl::StatusOr<ScanReport> Scan(std::string_view utf8);

 private:
  LeakScanner(const ProtectedIndex& index, const ScanOptions& options,
              std::unique_ptr<Shingler> shingler);

  // The filter stage's query: the text's distinct fingerprints but the
  // allow-listed and the boilerplate ones, which the second stage ignores
  // too.
  struct FilterQuery {
    std::vector<uint64_t> fingerprints;
    absl::flat_hash_set<uint64_t> boilerplate;
  };
  // Counts what it leaves out in `report`.
  FilterQuery BuildQuery(const ScannedText& scanned, ScanReport& report) const;
  // The stored record and list of each candidate, in candidate order.
  // DataLoss for a candidate the index does not hold; store read errors.
  using Loaded = std::pair<DocId, std::shared_ptr<const StoredDocument>>;
  absl::StatusOr<std::vector<Loaded>> LoadCandidates(
      const QueryResult& filtered) const;
  // The second stage for one candidate: its passages in the scanned text
  // (of `words` words) and their coverage both ways, `suppressed`
  // fingerprints left out.
  DocumentMatch Compare(DocId doc, const StoredDocument& stored,
                        const ScannedText& scanned, uint32_t words,
                        const std::function<bool(uint64_t)>& suppressed) const;
  // DocumentMatch::distinctive_words of `stored` in `scanned`.
  uint32_t DistinctiveWords(
      const StoredDocument& stored, const ScannedText& scanned,
      const std::function<bool(uint64_t)>& suppressed) const;

  const ProtectedIndex& index_;
  const ScanOptions options_;
  const PassageOptions passage_options_;
  std::unique_ptr<Shingler> shingler_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_LEAK_SCANNER_H_
