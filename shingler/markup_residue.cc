#include "shingler/markup_residue.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace leakhound {
namespace {

bool IsAsciiLetter(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiDigit(uint8_t c) { return c >= '0' && c <= '9'; }
bool IsAsciiSpace(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}
// A character that can carry a word on either side of an underscore.
bool IsWordByte(uint8_t c) {
  return IsAsciiLetter(c) || IsAsciiDigit(c) || c >= 0x80;
}

// The length of the tag starting at text[i] (a '<'), or 0 if none does.
size_t TagLength(std::string_view text, size_t i) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t j = i + 1;
  if (j < n && s[j] == '/') ++j;
  if (j >= n || !IsAsciiLetter(s[j])) return 0;
  while (j < n && (IsAsciiLetter(s[j]) || IsAsciiDigit(s[j]) || s[j] == '-' ||
                   s[j] == ':' || s[j] == '_')) {
    ++j;
  }
  if (j < n && s[j] == '>') return j + 1 - i;
  if (j + 1 < n && s[j] == '/' && s[j + 1] == '>') return j + 2 - i;
  if (j >= n || !IsAsciiSpace(s[j])) return 0;
  const size_t limit = std::min(n, j + kMaxTagBytes);
  for (; j < limit; ++j) {
    if (s[j] == '>') return j + 1 - i;
    if (s[j] == '<') return 0;
  }
  return 0;
}

}  // namespace

std::string_view BlankMarkupResidue(std::string_view text,
                                    std::string* scratch) {
  if (std::memchr(text.data(), '<', text.size()) == nullptr &&
      std::memchr(text.data(), '_', text.size()) == nullptr) {
    return text;
  }
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  bool copied = false;
  auto blank = [&](size_t begin, size_t end) {
    if (!copied) {
      scratch->assign(text);
      copied = true;
    }
    std::memset(scratch->data() + begin, ' ', end - begin);
  };
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == '<') {
      const size_t length = TagLength(text, i);
      if (length > 0) {
        blank(i, i + length);
        i += length - 1;
      }
    } else if (s[i] == '_') {
      size_t j = i;
      while (j < n && s[j] == '_') ++j;
      const bool inside = i > 0 && IsWordByte(s[i - 1]) && j < n &&
                          IsWordByte(s[j]);
      if (!inside) blank(i, j);
      i = j - 1;
    }
  }
  return copied ? std::string_view(*scratch) : text;
}

}  // namespace leakhound
