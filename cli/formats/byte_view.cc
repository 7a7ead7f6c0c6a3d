#include "cli/formats/byte_view.h"

namespace leakhound {

void AppendCodePoint(uint32_t c, std::string* out) {
  if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

void AppendUtf16Le(std::string_view bytes, std::string* out) {
  // A lone surrogate becomes U+FFFD (AppendCodePoint).
  ForEachUtf16LeCodePoint(bytes, [out](uint32_t c) {
    AppendCodePoint(c, out);
    return true;
  });
}

void AppendLatin1(std::string_view bytes, std::string* out) {
  for (char c : bytes) AppendCodePoint(static_cast<unsigned char>(c), out);
}

}  // namespace leakhound
