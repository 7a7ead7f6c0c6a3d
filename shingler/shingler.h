// Shingler: text to keyed shingle fingerprints with their byte ranges.
//
// A shingle is a run of consecutive tokens (see tokenizer.h) worth
// `shingle_words` words, where a word token weighs one word and a
// per-character token (Han, kana, Hangul), or a token of one character
// ("a", "7") next to another such, weighs 1/cjk_chars_per_word of a word:
// with the defaults a shingle is 5 words or 10 CJK characters (five CJK
// characters are everyday phrases and over-match), and the alphabet
// "A B C ... Z" is 13 words, not 26 (shingler version 3), while "a" or
// "bit 3" among words still count whole. Each shingle starts at
// a token and is the shortest run from there reaching that weight. A text
// whose tokens never reach it (shorter than one shingle) yields one shingle
// of all its tokens; an empty text yields none.
//
// Fingerprint of a shingle = XXH3-64 with the FingerprintKey's secret over
// the little-endian bytes of its tokens' hashes. Persisted fingerprints
// depend on every step: any change is a shingler version change.
//
// Word check of a token = the top byte of XXH3-64 with the same secret over
// the little-endian bytes of its hash and of kWordCheckDomain: one keyed
// byte per token, with which the second stage extends a passage word by
// word past its outermost shingles (PERSISTED in FingerprintsRecord
// version 2; a change to it is a shingler version change).
//
// Optional winnowing (winnow_window W > 1) keeps only the shingles chosen by
// WinnowPositions; see winnower.h for the guarantee.
//
// Thread-safety: not thread-safe (owns a Tokenizer and scratch buffers);
// use one Shingler per thread.
#ifndef LEAKHOUND_SHINGLER_SHINGLER_H_
#define LEAKHOUND_SHINGLER_SHINGLER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "shingler/fingerprint_key.h"
#include "shingler/tokenizer.h"

namespace leakhound {

// PERSISTED: the version of the text-to-fingerprint mapping (tokenizer,
// normalization, shingling, keyed hashing). An index records the version
// that built it; bump this whenever any of them changes a fingerprint.
// 2: markup residue read as spaces, traditional Han folded to simplified.
// 3: Greek and Cyrillic twins of Latin capitals folded as those capitals;
//    a run of one-character tokens weighs as CJK characters.
// 4: marks inside a whitespace-delimited run no longer split or change a
//    word token (tokenizer.h, steps 4 and 5).
inline constexpr uint32_t kShinglerVersion = 4;

// PERSISTED: hashed after a token's hash for its word check, so that a
// word check is not the top byte of a one-word shingle's fingerprint.
inline constexpr uint64_t kWordCheckDomain = 0x6b63656863647277;  // "wrdcheck"

// The Unicode version of the ICU data the normalization uses, e.g. "15.0".
std::string UnicodeVersion();

// The filter's winnowing window of new indexes (measured: docs/scale.md,
// "The filter's sample").
inline constexpr int kDefaultFilterWinnowWindow = 0;

struct ShinglerOptions {
  // w: words per shingle. Valid range [1, 64].
  int shingle_words = 5;
  // Per-character tokens that weigh as much as one word. Range [1, 8].
  int cjk_chars_per_word = 2;
  // W: winnowing window in shingles; 0 or 1 keeps every shingle. [0, 1024].
  int winnow_window = 0;
  // The filter's sample: the filter holds only the fingerprints of the
  // shingles winnowing selects with this window (WinnowedDistinct), while
  // the list kept for the second stage holds every shingle. 0 or 1: the
  // filter holds every fingerprint. [0, 1024]. The shingler itself does not
  // use it; indexes record it (MetadataRecord::filter_winnow_window).
  int filter_winnow_window = kDefaultFilterWinnowWindow;
};

struct Shingle {
  uint64_t fingerprint;
  uint32_t byte_begin;   // first byte of the first token
  uint32_t byte_end;     // one past the last byte of the last token
  uint32_t token_begin;  // [token_begin, token_end): token ordinals
  uint32_t token_end;

  bool operator==(const Shingle&) const = default;
};

struct ShingledText {
  uint32_t token_count = 0;      // the text's words (tokens)
  std::vector<Shingle> shingles;  // in text order; winnowed if configured
  // Word weight of tokens: word_units[t] is the weight of tokens [0, t) in
  // units of 1/units_per_word word (a word token weighs units_per_word, a
  // per-character token or a one-character token next to another 1).
  // Size token_count + 1.
  std::vector<uint32_t> word_units;
  uint32_t units_per_word = 1;
  // word_checks[t]: token t's word check (see the file comment). Size
  // token_count.
  std::vector<uint8_t> word_checks;

  // Words in tokens [begin, end), CJK characters and runs of one-character
  // tokens counted as words of cjk_chars_per_word characters, rounded down.
  // REQUIRES: begin <= end <= token_count.
  uint32_t Words(uint32_t begin, uint32_t end) const {
    return (word_units[end] - word_units[begin]) / units_per_word;
  }
};

class Shingler {
 public:
  // Returns InvalidArgument for options out of range, Internal if ICU fails.
  static absl::StatusOr<std::unique_ptr<Shingler>> Create(
      const ShinglerOptions& options, const FingerprintKey& key);

  // Shingles `utf8` (invalid UTF-8 is read as U+FFFD).
  // Returns InvalidArgument if utf8.size() > Tokenizer::kMaxInputBytes.
  absl::StatusOr<ShingledText> Shingle(std::string_view utf8);

  // The same through Tokenizer::TokenizeReference (plain ICU; slow).
  // REQUIRES: utf8.size() < 2^31.
  ShingledText ShingleReference(std::string_view utf8);

  const ShinglerOptions& options() const { return options_; }

 private:
  Shingler(const ShinglerOptions& options, const FingerprintKey& key,
           std::unique_ptr<Tokenizer> tokenizer);
  // Shingles tokens_, the tokens of `utf8`.
  ShingledText FromTokens(std::string_view utf8);

  const ShinglerOptions options_;
  const FingerprintKey key_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::vector<Token> tokens_;        // scratch
  std::vector<uint64_t> le_hashes_;  // scratch: token hashes, little-endian
};

// The ICU library version, e.g. "72.1" (for `leakhound --version`).
std::string IcuVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_SHINGLER_H_
