// TextDecoder: bytes of unknown encoding to UTF-8, the shingler's input.
//
//  - A UTF-8 byte order mark is dropped; UTF-16 with a byte order mark is
//    converted.
//  - Valid UTF-8 is kept as is (moved, not copied).
//  - Text that is mostly UTF-8 (at least kMostlyUtf8 valid multi-byte
//    sequences per invalid byte) stays UTF-8 with each invalid byte read as
//    U+FFFD: a corrupt byte must not turn a leak into mojibake.
//  - Anything else goes to ICU's charset detector (the first
//    kDetectionBytes bytes) and is converted from the legacy encoding it
//    names (windows-1252, Shift_JIS, GB18030, ...). If the detector names
//    nothing usable, the bytes are read as UTF-8 with replacement.
//
// Thread-safety: a stateless function; safe from any thread.
#ifndef LEAKHOUND_SHINGLER_TEXT_DECODER_H_
#define LEAKHOUND_SHINGLER_TEXT_DECODER_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

struct DecodedText {
  std::string utf8;       // valid UTF-8
  std::string encoding;   // the source encoding, e.g. "UTF-8", "Shift_JIS"
  size_t invalid_sequences = 0;  // ill-formed UTF-8, each now U+FFFD
};

inline constexpr size_t kDetectionBytes = 64 * 1024;
inline constexpr size_t kMostlyUtf8 = 4;

// Returns Internal only if ICU fails in a conversion it accepted.
absl::StatusOr<DecodedText> DecodeText(std::string bytes);

// `bytes` in `charset` (an ICU converter name or alias: "windows-1252",
// "cp936", "UTF-16LE", "ibm-1252") as UTF-8; what does not convert becomes
// U+FFFD. For formats that name their encoding (RTF's \ansicpg, Office's
// code pages and UTF-16 strings). InvalidArgument for a charset ICU does
// not know.
absl::StatusOr<std::string> ConvertToUtf8(std::string_view bytes,
                                          std::string_view charset);

// `bytes` as well-formed UTF-8: each ill-formed subsequence (Unicode's
// "maximal subpart") becomes U+FFFD; everything else is kept.
std::string RepairUtf8(std::string_view bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_TEXT_DECODER_H_
