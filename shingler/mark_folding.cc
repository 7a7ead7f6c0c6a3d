#include "shingler/mark_folding.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <algorithm>

namespace leakhound {
namespace {

// Letters no decomposition takes apart, and what they read as.
struct Spelled {
  UChar32 letter;
  const char16_t* as;
};
constexpr Spelled kSpelled[] = {
    {0x00F8, u"o"},  {0x00D8, u"O"},  {0x0142, u"l"}, {0x0141, u"L"},
    {0x0111, u"d"},  {0x0110, u"D"},  {0x00E6, u"ae"}, {0x00C6, u"AE"},
    {0x0153, u"oe"}, {0x0152, u"OE"},
};

}  // namespace

std::string FoldMarks(std::string_view word) {
  if (std::all_of(word.begin(), word.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x80;
      })) {
    return std::string(word);
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) return std::string(word);
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(
      icu::StringPiece(word.data(), static_cast<int32_t>(word.size())));
  const icu::UnicodeString decomposed = nfd->normalize(in, status);
  if (U_FAILURE(status)) return std::string(word);
  icu::UnicodeString kept;
  bool changed = false;
  for (int32_t i = 0; i < decomposed.length();) {
    const UChar32 c = decomposed.char32At(i);
    i += U16_LENGTH(c);
    if (c >= 0x0300 && c <= 0x036F) {
      changed = true;
      continue;
    }
    const auto spelled =
        std::find_if(std::begin(kSpelled), std::end(kSpelled),
                     [c](const Spelled& s) { return s.letter == c; });
    if (spelled != std::end(kSpelled)) {
      kept.append(icu::UnicodeString(spelled->as));
      changed = true;
    } else {
      kept.append(c);
    }
  }
  if (!changed) return std::string(word);
  const icu::UnicodeString composed = nfc->normalize(kept, status);
  if (U_FAILURE(status)) return std::string(word);
  std::string out;
  composed.toUTF8String(out);
  return out;
}

}  // namespace leakhound
