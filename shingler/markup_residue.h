// Markup residue: the inline markup that rich text leaves when it is
// pasted as plain text, which the tokenizer reads as spaces (tokenizer.h,
// step 0), so that "the <b>executive</b> team" and "_open_ formal" shingle
// as the words they mark up:
//  - HTML and XML tags: '<', an optional '/', an ASCII letter, then ASCII
//    letters, digits, '-', ':' or '_', then '>' or "/>", or ASCII whitespace
//    and up to kMaxTagBytes more bytes holding neither '<' nor '>' before
//    the closing '>';
//  - underscores at the edge of a word (Markdown emphasis, "_open_",
//    "__init__"): a run of '_' not both preceded and followed by a letter,
//    digit or non-ASCII byte. Underscores inside a word ("snake_case") stay.
// "**bold**" and "`code`" need nothing: '*' and '`' are not word
// characters.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_SHINGLER_MARKUP_RESIDUE_H_
#define LEAKHOUND_SHINGLER_MARKUP_RESIDUE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace leakhound {

inline constexpr size_t kMaxTagBytes = 256;

// Returns `text` with every byte of markup residue replaced by a space
// (same length, so byte offsets stay valid), in *scratch; or `text` itself
// when it holds no residue (no copy). The result is valid while `text` and
// *scratch are.
std::string_view BlankMarkupResidue(std::string_view text,
                                    std::string* scratch);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_MARKUP_RESIDUE_H_
