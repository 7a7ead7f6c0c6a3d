// EmbeddedFile: a file a browser app put inside a form or JSON value, which
// the value's text alone would hide from the scanner:
//  - a data: URI ("data:application/pdf;base64,JVBER..."), base64 or
//    percent-encoded;
//  - a bare base64 string (at least kMinBase64Chars, standard or URL-safe
//    alphabet, line breaks allowed) whose bytes are text or a file type the
//    extractors read;
//  - the raw bytes of such a file type, as `curl --data-urlencode
//    text@x.docx` sends them.
// Plain text values are not embedded files: the caller reads them as text.
//
// Thread-safety: a pure function (DetectFileType is thread-safe).
#ifndef LEAKHOUND_CLI_WEB_EMBEDDED_FILE_H_
#define LEAKHOUND_CLI_WEB_EMBEDDED_FILE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace leakhound {

inline constexpr size_t kMinBase64Chars = 24;

struct EmbeddedFile {
  std::string name;   // for the extractor: "data.pdf", "base64", "value"
  std::string bytes;  // decoded
  // Whether the value may be text too (a bare base64 string may be a long
  // word): the caller then reads the value as text as well.
  bool value_may_be_text = false;
};

// The file inside `value`, or nullopt when `value` is to be read as text
// (plain text, or base64 of bytes no extractor reads).
std::optional<EmbeddedFile> EmbeddedFileIn(std::string_view value);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_EMBEDDED_FILE_H_
