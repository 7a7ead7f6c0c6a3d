// PatternScanner: many regular expressions over a text in one pass, with
// Hyperscan (the only file that calls it). Each match is reported with its
// leftmost start and every end the expression can reach from there, so a
// caller can try a validator on the longest end first and fall back to a
// shorter one. The start comes from Hyperscan's start-of-match tracking,
// or, for a pattern that brings its own MatchStart, from that function
// (cheaper: cli/records/match_starts.h).
//
// Patterns use Hyperscan's syntax (PCRE without back-references and
// look-around); they see bytes: \d, \w and \b are ASCII.
//
// Thread-safety: a PatternScanner is immutable after Create and may be
// shared; each thread scans with its own Scratch.
#ifndef LEAKHOUND_CLI_RECORDS_PATTERN_SCANNER_H_
#define LEAKHOUND_CLI_RECORDS_PATTERN_SCANNER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

// Matches one scan keeps at most (12 bytes each): past it the scan stops
// with an error rather than take memory without bound.
inline constexpr size_t kMaxPatternMatches = size_t{1} << 22;

// The leftmost start of a match of one pattern that ends at byte `end` of
// `text` (exclusive).
using MatchStart = uint32_t (*)(std::string_view text, uint32_t end);

struct ScanPattern {
  std::string regex;
  bool caseless = false;
  // If set, the pattern is compiled without start-of-match tracking and
  // this gives each match's start. REQUIRES: it returns what Hyperscan's
  // leftmost start would.
  MatchStart start = nullptr;
};

// A match of pattern `pattern`: [begin, end) of the text.
struct PatternMatch {
  uint32_t pattern = 0;
  uint32_t begin = 0;
  uint32_t end = 0;
  bool operator==(const PatternMatch&) const = default;
};

class PatternScanner {
 public:
  // Per-thread scan space. Lifetime: the scanner's at most.
  class Scratch {
   public:
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

   private:
    friend class PatternScanner;
    Scratch() = default;
    void* scratch_ = nullptr;  // hs_scratch_t
  };

  // Compiles `patterns` (ids: their positions). InvalidArgument naming
  // the first pattern Hyperscan refuses and why. An empty list scans
  // nothing.
  static absl::StatusOr<std::unique_ptr<PatternScanner>> Create(
      const std::vector<ScanPattern>& patterns);
  ~PatternScanner();
  PatternScanner(const PatternScanner&) = delete;
  PatternScanner& operator=(const PatternScanner&) = delete;

  absl::StatusOr<std::unique_ptr<Scratch>> NewScratch() const;

  // Replaces *matches with the matches of `text`, sorted by (pattern,
  // begin, end descending). A match [b, e) is reported once per end.
  // InvalidArgument for a text of 4 GiB or more; ResourceExhausted past
  // kMaxPatternMatches; Internal if Hyperscan fails. REQUIRES: `scratch` came
  // from this scanner's NewScratch.
  absl::Status Scan(std::string_view text, Scratch& scratch,
                    std::vector<PatternMatch>* matches) const;

  size_t size() const { return count_; }

 private:
  PatternScanner() = default;
  void* database_ = nullptr;  // hs_database_t
  size_t count_ = 0;
  std::vector<MatchStart> starts_;  // per pattern; null: Hyperscan's
};

// Hyperscan's version, for `leakhound --version`.
std::string HyperscanVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_PATTERN_SCANNER_H_
