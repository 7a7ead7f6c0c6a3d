// TestSet: generated outbound documents with their ground truth, the
// paper's experiment (an excerpt of one protected document inserted into a
// benign host document) extended with more sizes, obfuscations, formats,
// split and two-source excerpts, Chinese excerpts, and three classes of
// negatives. Deterministic for a seed (on one standard library: it uses
// std::mt19937_64 and std::shuffle).
//
// Groups of positive cases (cases_per_cell each):
//   size         excerpt of 15/30/50/100/250 words x every obfuscation
//   percent      5/25/50/100 % of the source, verbatim
//   format       30 and 50 words, verbatim, as text, Markdown and HTML
//   split        100 words in 2 and 4 pieces, 250 words in 5 pieces
//   two_sources  50 words from each of two sources
//   chinese      Chinese excerpts of every size (simplified and
//                traditional sources): verbatim, re-wrapped, zero-width
//                characters, in the other script (kHanVariant)
//   figure2      5, 10, ..., 50 % of one source (the paper's Figure 2)
// Negatives: clean hosts, held-out documents, boilerplate-only documents
// (lines found verbatim in at least kBoilerplateMinDocs protected documents).
// Hosts and held-out documents that hold a near-copy of a protected
// document by the evaluation's own referee (corpus/near_copy_referee.h,
// apart from the engine's second stage: at least the default rule's
// min_words words aligned with a protected document sharing a fingerprint,
// at most one word in five substituted or inserted; tokens only in shingles
// held by more than kCommonDocuments protected documents, boilerplate as
// leakhound's default rule sees it, do not count) are their own class,
// near_copy: scanned and reported apart, never counted as false alarms,
// never hosts of positives. The referee runs before any scan. An excerpt more
// than a quarter of which is such boilerplate is drawn again from another
// start: positives are passages of one document.
//
// Thread-safety: plain data and pure functions.
#ifndef LEAKHOUND_CORPUS_TEST_SET_H_
#define LEAKHOUND_CORPUS_TEST_SET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "corpus/document_pool.h"
#include "corpus/obfuscation.h"
#include "shingler/fingerprint_key.h"

namespace leakhound {

// The cells of the positive groups (the report lists the same cells).
inline constexpr uint32_t kExcerptWords[] = {15, 30, 50, 100, 250};
inline constexpr uint32_t kSourcePercents[] = {5, 25, 50, 100};
inline constexpr uint32_t kFormatWords[] = {30, 50};
struct SplitCell {
  uint32_t words;
  uint32_t pieces;
};
inline constexpr SplitCell kSplits[] = {{100, 2}, {100, 4}, {250, 5}};
inline constexpr Obfuscation kChineseObfuscations[] = {
    Obfuscation::kNone, Obfuscation::kRewrapCrlf, Obfuscation::kZeroWidth,
    Obfuscation::kHanVariant};

inline constexpr uint32_t kBoilerplateMinDocs = 3;
inline constexpr uint32_t kCommonDocuments = 10;
inline constexpr uint32_t kExcerptAttempts = 100;

// Written to the ground truth by name.
enum class CaseClass : uint8_t {
  kPositive,
  kCleanHost,
  kHeldOut,
  kBoilerplate,
  kNearCopy,  // a host or held-out document holding protected text
};
enum class Format : uint8_t { kText, kMarkdown, kHtml };

const char* CaseClassName(CaseClass klass);
const char* FormatName(Format format);

struct Insert {
  std::string source_id;  // the protected document's id
  uint32_t words = 0;     // words of the excerpt (before obfuscation)
};

struct OutboundCase {
  std::string file;  // file name under outbound/, extension by format
  CaseClass klass = CaseClass::kPositive;
  std::string group;  // a positive group (above) or the negative class
  uint32_t size_words = 0;    // requested excerpt words; 0 for percent
  uint32_t size_percent = 0;  // requested share of the source; 0 for words
  Obfuscation obfuscation = Obfuscation::kNone;
  Format format = Format::kText;
  uint32_t pieces = 1;
  std::vector<Insert> inserts;  // empty for negatives
  std::string host_id;          // the host or negative document
  std::string bytes;            // the file's content
};

struct TestSetConfig {
  uint32_t cases_per_cell = 20;
  // Clean hosts and boilerplate documents; held-out documents are all used.
  uint32_t negatives_per_class = 200;
};

struct TestSet {
  std::vector<OutboundCase> cases;
  std::string figure2_source;
  std::vector<std::string> boilerplate_lines;
  uint32_t near_copy_hosts = 0;     // hosts in the near_copy class
  uint32_t near_copy_held_out = 0;  // held-out documents in it
  uint32_t excerpts_redrawn = 0;   // for being mostly boilerplate
  uint32_t excerpts_left_boilerplate = 0;  // so after every attempt
};

// The fingerprint key of a run with this seed, for the generator's exact
// index and for the indexes under test: with it, a run repeats bit for bit
// (a fresh random key per index would change the filter's chance
// candidates from run to run).
absl::StatusOr<FingerprintKey> EvaluationKey(uint64_t seed);

// Errors: FailedPrecondition when the pool lacks documents a group needs,
// Internal if ICU cannot load.
absl::StatusOr<TestSet> GenerateTestSet(const DocumentPool& pool,
                                        const TestSetConfig& config,
                                        uint64_t seed);

// Writes dir/outbound/<file> for every case, dir/truth.tsv (one line per
// case and insert) and dir/boilerplate.txt. Creates dir.
absl::Status WriteTestSet(const TestSet& set, const std::string& dir);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_TEST_SET_H_
