#include "shingler/text_decoder.h"

#include <unicode/ucnv.h>
#include <unicode/ucsdet.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

struct Utf8Census {
  size_t multibyte = 0;      // valid sequences of 2-4 bytes
  size_t invalid = 0;        // ill-formed subsequences
  size_t first_invalid = 0;  // offset of the first one
};

Utf8Census CountUtf8(std::string_view s) {
  Utf8Census c;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    const int32_t start = i;
    UChar32 cp;
    U8_NEXT(p, i, n, cp);
    if (cp < 0) {
      if (c.invalid++ == 0) c.first_invalid = static_cast<size_t>(start);
    } else {
      ++c.multibyte;
    }
  }
  return c;
}

// Converts `bytes` from `charset` with ICU; substitutes U+FFFD for what
// does not convert.
absl::StatusOr<std::string> Convert(std::string_view bytes,
                                    const char* charset) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UConverter, decltype(&ucnv_close)> from(
      ucnv_open(charset, &status), &ucnv_close);
  if (U_FAILURE(status)) {
    return absl::InternalError(
        absl::StrCat("no converter for ", charset, ": ", u_errorName(status)));
  }
  std::unique_ptr<UConverter, decltype(&ucnv_close)> to(
      ucnv_open("UTF-8", &status), &ucnv_close);
  if (U_FAILURE(status)) {
    return absl::InternalError(absl::StrCat("no UTF-8 converter: ",
                                            u_errorName(status)));
  }
  // Worst case: 3 UTF-8 bytes per source byte (a BMP character per byte).
  std::string out(bytes.size() * 3 + 16, '\0');
  char* target = out.data();
  const char* source = bytes.data();
  ucnv_convertEx(to.get(), from.get(), &target, out.data() + out.size(),
                 &source, bytes.data() + bytes.size(), nullptr, nullptr,
                 nullptr, nullptr, true, true, &status);
  if (U_FAILURE(status)) {
    return absl::InternalError(absl::StrCat("cannot convert from ", charset,
                                            ": ", u_errorName(status)));
  }
  out.resize(static_cast<size_t>(target - out.data()));
  return out;
}

// ICU's guesses for the encoding of `bytes`, best first (empty if none).
std::vector<std::string> Detect(std::string_view bytes) {
  std::vector<std::string> names;
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UCharsetDetector, decltype(&ucsdet_close)> detector(
      ucsdet_open(&status), &ucsdet_close);
  if (U_FAILURE(status)) return names;
  const size_t n = std::min(bytes.size(), kDetectionBytes);
  ucsdet_setText(detector.get(), bytes.data(), static_cast<int32_t>(n),
                 &status);
  int32_t found = 0;
  const UCharsetMatch** matches =
      ucsdet_detectAll(detector.get(), &found, &status);
  if (U_FAILURE(status) || matches == nullptr) return names;
  for (int32_t i = 0; i < found; ++i) {
    UErrorCode name_status = U_ZERO_ERROR;
    const char* name = ucsdet_getName(matches[i], &name_status);
    if (U_SUCCESS(name_status) && name != nullptr) names.emplace_back(name);
  }
  return names;
}

DecodedText AsRepairedUtf8(std::string bytes, const Utf8Census& census) {
  DecodedText out;
  out.encoding = "UTF-8";
  out.invalid_sequences = census.invalid;
  out.utf8 = census.invalid == 0 ? std::move(bytes) : RepairUtf8(bytes);
  return out;
}

}  // namespace

absl::StatusOr<std::string> ConvertToUtf8(std::string_view bytes,
                                          std::string_view charset) {
  const std::string name(charset);
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UConverter, decltype(&ucnv_close)> probe(
      ucnv_open(name.c_str(), &status), &ucnv_close);
  if (U_FAILURE(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown character set ", name));
  }
  return Convert(bytes, name.c_str());
}

std::string RepairUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    const int32_t start = i;
    UChar32 cp;
    U8_NEXT(p, i, n, cp);
    if (cp < 0) {
      out.append("\xEF\xBF\xBD");
    } else {
      out.append(s.substr(static_cast<size_t>(start),
                          static_cast<size_t>(i - start)));
    }
  }
  return out;
}

absl::StatusOr<DecodedText> DecodeText(std::string bytes) {
  std::string_view view(bytes);
  if (view.starts_with("\xEF\xBB\xBF")) {
    bytes.erase(0, 3);
    view = bytes;
  }
  const bool utf16le = view.starts_with("\xFF\xFE");
  if (utf16le || view.starts_with("\xFE\xFF")) {
    const char* charset = utf16le ? "UTF-16LE" : "UTF-16BE";
    auto converted = Convert(view.substr(2), charset);
    if (!converted.ok()) return converted.status();
    return DecodedText{std::move(*converted), charset, 0};
  }
  const Utf8Census census = CountUtf8(view);
  if (census.invalid == 0 || census.multibyte >= kMostlyUtf8 * census.invalid) {
    return AsRepairedUtf8(std::move(bytes), census);
  }
  // The best guess ICU can convert from: the detector also names charsets
  // its converters lack (IBM420_rtl: fuzz_shingler found a mail header the
  // detector took for Arabic EBCDIC, and the file failed to decode). A
  // UTF-16 or UTF-32 guess for bytes without a NUL is passed over: such
  // text has a zero byte in every ASCII character (line ends, spaces), and
  // the next guess for that mail was UTF-16BE, which turned its ASCII
  // into CJK.
  const bool has_nul =
      view.substr(0, kDetectionBytes).find('\0') != std::string_view::npos;
  for (const std::string& detected : Detect(view)) {
    if (detected == "UTF-8") break;
    if (!has_nul &&
        (detected.starts_with("UTF-16") || detected.starts_with("UTF-32"))) {
      continue;
    }
    auto converted = Convert(view, detected.c_str());
    if (converted.ok()) return DecodedText{std::move(*converted), detected, 0};
  }
  return AsRepairedUtf8(std::move(bytes), census);
}

}  // namespace leakhound
