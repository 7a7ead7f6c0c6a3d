// Word97Text: the text of a Word 97-2003 binary document (MS-DOC) held in
// an OLE2 compound file: the File Information Block of the WordDocument
// stream names the table stream and the piece table (CLX); each piece is
// a run of characters, 8-bit ("compressed", Windows-1252) or UTF-16LE, at
// its file offset. All character positions are read in order: the body,
// then footnotes, headers and footers, comments, endnotes and text boxes
// (MS-DOC keeps them after the body in one character stream). Field codes
// (between the field-begin and separator marks) are dropped and field
// results kept; paragraph, cell and page marks end lines.
//
// Thread-safety: a reentrant function.
#ifndef LEAKHOUND_CLI_FORMATS_WORD97_TEXT_H_
#define LEAKHOUND_CLI_FORMATS_WORD97_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cli/formats/ole_storage.h"

namespace leakhound {

// Appends the text of the Word document in storage `dir` ("" for the root;
// it holds the WordDocument stream) of `storage` to *out, reading at most
// `max_stream_bytes` per stream and appending at most `max_text_bytes`.
// Errors: InvalidArgument for a malformed document; the Unreadable error
// kEncrypted (text_extractor.h) for a password-protected or obfuscated
// one, kUnsupported for Word 6/95 files; ResourceExhausted past a bound.
absl::Status AppendWord97Text(const Ole2Storage& storage, std::string_view dir,
                              size_t max_stream_bytes, size_t max_text_bytes,
                              std::string* out);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_WORD97_TEXT_H_
