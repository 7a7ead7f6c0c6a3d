// FoldedSpaces: a view of a text in which every run of white space that
// holds at most one line break reads as one ASCII space, so that a number
// wrapped at a line end, split by a tab, a double space, a no-break space
// (HTML's &nbsp;) or CRLF is found as if written with one space
// ("4111 1111\r\n1111 1111" as "4111 1111 1111 1111"). A run with two
// line breaks or more (a paragraph's end) reads as one "\n", which no
// pattern joins across. The records scanner scans this view and maps the
// byte ranges it finds back to the text's own (docs/records.md).
//
// White space: ASCII space, tab, CR, LF, vertical tab, form feed (a
// page's end counts as a line break), and U+00A0, U+2007, U+2009, U+202F,
// U+3000.
//
// Thread-safety: an object is not shared; Fold and Original are const
// once built.
#ifndef LEAKHOUND_CLI_RECORDS_FOLDED_SPACES_H_
#define LEAKHOUND_CLI_RECORDS_FOLDED_SPACES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace leakhound {

class FoldedSpaces {
 public:
  // Builds the view of `text`. Lifetime: `text` must outlive the object
  // when no run changed (the view is then `text` itself, not a copy).
  // REQUIRES: text.size() < 2^32 (offsets are 32-bit).
  explicit FoldedSpaces(std::string_view text);
  FoldedSpaces(const FoldedSpaces&) = delete;
  FoldedSpaces& operator=(const FoldedSpaces&) = delete;

  // The folded text.
  std::string_view text() const { return view_; }

  // The offset in the original text of byte offset `folded` of the
  // folded text; an offset inside a folded run (its one space) maps to
  // the run's start. REQUIRES: folded <= text().size().
  uint32_t Original(uint32_t folded) const;

  // Whether the view differs from the text in length (Original is not
  // the identity).
  bool moved() const { return !marks_.empty(); }

 private:
  std::string copy_;
  std::string_view view_;
  // (folded offset, original offset) where a run's replacement begins and
  // where the text after it resumes; ascending.
  std::vector<std::pair<uint32_t, uint32_t>> marks_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_FOLDED_SPACES_H_
