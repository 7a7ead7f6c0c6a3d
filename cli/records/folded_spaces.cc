#include "cli/records/folded_spaces.h"

#include <algorithm>

namespace leakhound {
namespace {

// The length of the white-space character at text[i], 0 if none; sets
// *line_break for LF, a lone CR, VT and FF (CRLF: the CR is a space, the
// LF the break).
size_t SpaceAt(std::string_view text, size_t i, bool* line_break) {
  *line_break = false;
  const auto c = static_cast<unsigned char>(text[i]);
  switch (c) {
    case ' ':
    case '\t':
      return 1;
    case '\r':
      *line_break = i + 1 >= text.size() || text[i + 1] != '\n';
      return 1;
    case '\n':
    case '\v':
    case '\f':
      *line_break = true;
      return 1;
    default:
      break;
  }
  const auto at = [&](size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0;
  };
  if (c == 0xC2 && at(i + 1) == 0xA0) return 2;  // U+00A0
  if (c == 0xE2 && at(i + 1) == 0x80 &&
      (at(i + 2) == 0x87 || at(i + 2) == 0x89 || at(i + 2) == 0xAF)) {
    return 3;  // U+2007, U+2009, U+202F
  }
  if (c == 0xE3 && at(i + 1) == 0x80 && at(i + 2) == 0x80) return 3;  // U+3000
  return 0;
}

// Whether byte `c` may begin a white-space character.
bool MayBeginSpace(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0xC2 || u == 0xE2 || u == 0xE3;
}

// Whether any run of `text` reads differently folded (a quick pass that
// spares the copy for text already written with single spaces).
bool NeedsFolding(std::string_view text) {
  bool previous_space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ' ') {
      if (previous_space) return true;
      previous_space = true;
      continue;
    }
    previous_space = false;
    if (MayBeginSpace(text[i])) {
      bool line_break = false;
      if (SpaceAt(text, i, &line_break) > 0) return true;
    }
  }
  return false;
}

}  // namespace

FoldedSpaces::FoldedSpaces(std::string_view text) : view_(text) {
  if (!NeedsFolding(text)) return;
  copy_.reserve(text.size());
  const size_t size = text.size();
  for (size_t i = 0; i < size;) {
    // Bytes that begin no white space are copied in stretches.
    size_t plain = i;
    while (plain < size && !MayBeginSpace(text[plain])) ++plain;
    copy_.append(text.data() + i, plain - i);
    i = plain;
    if (i == size) break;
    bool line_break = false;
    size_t n = SpaceAt(text, i, &line_break);
    if (n == 0 || (text[i] == ' ' &&
                   (i + 1 == size || !MayBeginSpace(text[i + 1])))) {
      copy_.push_back(text[i++]);  // not a space, or a lone ' '
      continue;
    }
    const size_t start = i;
    int breaks = 0;
    while (n > 0) {
      breaks += line_break ? 1 : 0;
      i += n;
      n = i < size ? SpaceAt(text, i, &line_break) : 0;
    }
    const char with = breaks >= 2 ? '\n' : ' ';
    if (i - start == 1) {
      copy_.push_back(with);  // same length: no mark
      continue;
    }
    marks_.emplace_back(static_cast<uint32_t>(copy_.size()),
                        static_cast<uint32_t>(start));
    copy_.push_back(with);
    marks_.emplace_back(static_cast<uint32_t>(copy_.size()),
                        static_cast<uint32_t>(i));
  }
  view_ = copy_;
}

uint32_t FoldedSpaces::Original(uint32_t folded) const {
  auto after =
      std::upper_bound(marks_.begin(), marks_.end(), folded,
                       [](uint32_t f, const std::pair<uint32_t, uint32_t>& m) {
                         return f < m.first;
                       });
  if (after == marks_.begin()) return folded;
  --after;
  // Inside a run's one space (an odd mark): its start.
  if (((after - marks_.begin()) & 1) == 0) return after->second;
  return after->second + (folded - after->first);
}

}  // namespace leakhound
