#include "shingler/user_name.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

absl::Status Bad(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("a user name ", std::string(why)));
}

// InvalidArgument unless `name` is well-formed UTF-8 without control
// characters (a NUL, a tab, a line break, an escape).
absl::Status CheckCharacters(std::string_view name) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(name.data());
  int32_t i = 0;
  const int32_t n = static_cast<int32_t>(name.size());
  while (i < n) {
    UChar32 c;
    U8_NEXT_OR_FFFD(bytes, i, n, c);
    if (c == 0xFFFD) return Bad("is not valid UTF-8");
    if (u_iscntrl(c)) {
      return Bad("holds a control character");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> UserName(std::string_view name) {
  if (name.empty()) return Bad("is empty");
  if (name.size() > kMaxUserNameBytes) return Bad("is too long");
  if (absl::Status s = CheckCharacters(name); !s.ok()) return s;
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
  if (u_isUWhiteSpace(text.char32At(0)) ||
      u_isUWhiteSpace(text.char32At(text.moveIndex32(text.length(), -1)))) {
    return Bad("starts or ends with a space");
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) {
    return absl::InternalError(absl::StrCat("ICU NFC: ", u_errorName(status)));
  }
  icu::UnicodeString folded = nfc->normalize(text, status);
  folded.foldCase();
  folded = nfc->normalize(folded, status);
  if (U_FAILURE(status)) {
    return absl::InternalError(absl::StrCat("ICU NFC: ", u_errorName(status)));
  }
  icu::UnicodeString collapsed;
  bool in_space = false;
  for (int32_t i = 0; i < folded.length(); i = folded.moveIndex32(i, 1)) {
    const UChar32 c = folded.char32At(i);
    if (u_isUWhiteSpace(c)) {
      in_space = true;
      continue;
    }
    if (in_space) collapsed.append(static_cast<UChar32>(' '));
    in_space = false;
    collapsed.append(c);
  }
  std::string out;
  collapsed.toUTF8String(out);
  if (out.size() > kMaxUserNameBytes) return Bad("is too long");
  return out;
}

}  // namespace leakhound
