// Obfuscation: the ways a leaker (or a mail client) alters an excerpt before
// it leaves, applied to excerpts by the test-set generator. Each is
// deterministic for the random generator's state.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CORPUS_OBFUSCATION_H_
#define LEAKHOUND_CORPUS_OBFUSCATION_H_

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace leakhound {

// Han characters to their form in the other script: simplified to
// traditional for a simplified text, or the reverse. The evaluation's maps
// come from ICU's transforms run by uconv over its Chinese corpora
// (corpus/prepare_corpora.sh).
using HanVariants = absl::flat_hash_map<char32_t, char32_t>;

// Written to the ground truth by name (ObfuscationName).
enum class Obfuscation : uint8_t {
  kNone,
  kCase,              // each word upper, lower or capitalized at random
  kRewrapCrlf,        // whitespace collapsed, re-wrapped at 40-72, CRLF
  kPunctuation,       // punctuation marks replaced or deleted
  kHomoglyph,         // a third of the letters with Cyrillic/Greek twins
  kFullwidth,         // ASCII letters, digits, marks to U+FF01..U+FF5E
  kZeroWidth,         // a zero-width or soft-hyphen inside most words
  kSubstitute5,       // 5 % of the words replaced by host words
  kSubstitute15,      // 15 % of the words replaced by host words
  kReorderSentences,  // sentences shuffled
  // Disguises that real outbound text carries (issue 23):
  kHyphenate,   // typeset and pasted back: lines of 40-72, words of 6+
                // letters broken across line ends ("confi-\ndential")
  kRichText,    // a third of the words (whitespace-delimited, without
                // edge punctuation) in **, _, `, <b>, <em> or <i>
  kMailQuote,   // re-wrapped at 60-72 and every line quoted "> " or "> > "
  kTableCells,  // 3-8 words per Markdown table cell, HTML cell or bullet
  kHanVariant,  // Chinese only: simplified Han characters written
                // traditional, or traditional simplified (HanVariants)
};

inline constexpr Obfuscation kAllObfuscations[] = {
    Obfuscation::kNone,        Obfuscation::kCase,
    Obfuscation::kRewrapCrlf,  Obfuscation::kPunctuation,
    Obfuscation::kHomoglyph,   Obfuscation::kFullwidth,
    Obfuscation::kZeroWidth,   Obfuscation::kSubstitute5,
    Obfuscation::kSubstitute15, Obfuscation::kReorderSentences,
    Obfuscation::kHyphenate,   Obfuscation::kRichText,
    Obfuscation::kMailQuote,   Obfuscation::kTableCells};

const char* ObfuscationName(Obfuscation obfuscation);

// The code point of the three-byte UTF-8 sequence `s` starts with (U+0800
// to U+FFFF: the Han of HanVariants), or 0 when it starts with none.
char32_t ThreeByteCodePoint(std::string_view s);

// Returns `text` (UTF-8) obfuscated. Word substitution draws replacement
// words from `vocabulary` (REQUIRES: non-empty for kSubstitute*); kHanVariant
// replaces each character found in `han` (REQUIRES: not null for it). Only
// ASCII letters are case-changed, homoglyphed or widened; other characters
// pass through, so Chinese text is unchanged by those three.
std::string Obfuscate(std::string_view text, Obfuscation obfuscation,
                      std::span<const std::string> vocabulary,
                      std::mt19937_64& rng, const HanVariants* han = nullptr);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_OBFUSCATION_H_
