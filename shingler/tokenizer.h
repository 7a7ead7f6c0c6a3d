// Tokenizer: UTF-8 bytes to normalized word tokens with their byte ranges.
//
// Pipeline (the "reference" definition; the fast path must agree with it):
//  1. Decode UTF-8; every ill-formed subsequence becomes U+FFFD (W3C/Unicode
//     "maximal subpart" practice). Default-ignorable code points (U+200B,
//     U+00AD, U+200D, variation selectors, ...) are dropped *before*
//     segmentation, so an inserted zero-width character cannot split a word.
//  2. ICU word segmentation (root locale). Segments whose rule status is a
//     word status (number, letter, kana, ideograph) become tokens; spaces and
//     punctuation never do.
//  3. Code points of the Han, Hiragana, Katakana and Hangul scripts (by
//     Script_Extensions) become one token each, together with any combining
//     marks that follow them; other code points of a segment stay together.
//  4. Each token is normalized as NFKC_Casefold(skeleton(NFKC_Casefold(t)))
//     where skeleton is Unicode TS #39 (ICU uspoof): fullwidth forms, case,
//     and cross-script look-alikes (Cyrillic 'а', Greek 'ο', ...) fold to one
//     form. A word token (not per character) first loses the marks ICU keeps
//     inside words (Word_Break MidLetter, MidNum, MidNumLet, Single_Quote,
//     Double_Quote: "don't" is "dont", "3.14" is "314").
//  5. Word tokens with only marks between them (some characters, none of
//     them White_Space) join into one token, their normalized texts
//     concatenated: "single.thread", "single-thread", "single,thread" and
//     "singlethread" are one token "singlethread", and "chmod(2)" is
//     "chmod2", so deleting or replacing a mark inside a whitespace-
//     delimited run changes nothing. Its byte range runs from the first
//     word's first byte to the last's last. Per-character tokens never join.
//     The token's hash is XXH3-64 (unkeyed) of the normalized UTF-8.
//
// The fast path (Tokenize) handles pure-ASCII runs with a table-driven
// implementation of the same rules and hands every whitespace-delimited run
// containing a non-ASCII byte to the ICU path. Its output equals
// TokenizeReference except inside a run of more than kMaxIcuChunkBytes with
// no ASCII whitespace, which is split at a code point boundary.
//
// Thread-safety: a Tokenizer is not thread-safe (it owns an ICU break
// iterator and scratch buffers); use one per thread. Distinct instances may
// be used concurrently.
#ifndef LEAKHOUND_SHINGLER_TOKENIZER_H_
#define LEAKHOUND_SHINGLER_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

struct Token {
  uint64_t hash;        // XXH3-64 of the normalized token text.
  uint32_t byte_begin;  // [byte_begin, byte_end) in the input bytes.
  uint32_t byte_end;
  bool per_character;   // a Han/Hiragana/Katakana/Hangul character token

  bool operator==(const Token&) const = default;
};

class Tokenizer {
 public:
  // Largest input the byte offsets can describe.
  static constexpr size_t kMaxInputBytes = 0xFFFFFFFFu;
  // Longest run without ASCII whitespace handed to ICU in one piece.
  static constexpr size_t kMaxIcuChunkBytes = size_t{1} << 20;

  // Loads the ICU normalizer, spoof checker and word break rules.
  // Fails only if ICU's data is unusable.
  static absl::StatusOr<std::unique_ptr<Tokenizer>> Create();

  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // Replaces *out with the tokens of `utf8`, in text order.
  // REQUIRES: utf8.size() <= kMaxInputBytes.
  void Tokenize(std::string_view utf8, std::vector<Token>* out);

  // Same contract and output, computed by ICU over the whole text at once
  // (slow; the definition the fast path is tested against).
  // REQUIRES: utf8.size() < 2^31.
  void TokenizeReference(std::string_view utf8, std::vector<Token>* out);

  // The normalized UTF-8 text of each token, as TokenizeReference sees them.
  // For diagnostics (`leakhound shingle --tokens`) and golden tests.
  // REQUIRES: utf8.size() < 2^31.
  std::vector<std::string> NormalizedTokens(std::string_view utf8);

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_TOKENIZER_H_
