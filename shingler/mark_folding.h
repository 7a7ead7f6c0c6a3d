// FoldMarks: a word without the accents written on its letters, so that a
// name typed without them ("Jose Muller", "Francois Lefevre") meets the
// table's "José Müller", "François Lefèvre" (exact data match's name and
// text cells, docs/records.md). Letters are decomposed (NFD), the
// combining diacritical marks U+0300..U+036F dropped and the rest
// composed again (NFC); ø, ł, đ, æ and œ, which no decomposition reaches,
// become o, l, d, ae and oe (either case). Marks of other scripts stay:
// a Japanese voicing mark or a Hangul syllable's parts are letters of
// their own. Lives in shingler/ because ICU does.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_SHINGLER_MARK_FOLDING_H_
#define LEAKHOUND_SHINGLER_MARK_FOLDING_H_

#include <string>
#include <string_view>

namespace leakhound {

// `word` with its Latin, Greek and Cyrillic accents removed; `word` itself
// when it is ASCII or holds none (malformed UTF-8 in a word that has one
// reads as U+FFFD).
std::string FoldMarks(std::string_view word);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_MARK_FOLDING_H_
