// PowerPoint97Text: the text of a PowerPoint 97-2003 presentation (MS-PPT)
// held in the "PowerPoint Document" stream of an OLE2 compound file. The
// stream is a tree of records (8-byte headers; version 0xF marks a
// container); the text is in TextCharsAtom (UTF-16LE) and TextBytesAtom
// (8-bit) records wherever they stand (slides' outline text, shapes' text
// boxes, notes pages, masters), and in the CString atoms of header and
// footer containers. The same text is often stored twice (the outline and
// the shape); each distinct text is kept once, in stream order. Paragraph
// and line marks end lines.
//
// Thread-safety: a reentrant function.
#ifndef LEAKHOUND_CLI_FORMATS_POWERPOINT97_TEXT_H_
#define LEAKHOUND_CLI_FORMATS_POWERPOINT97_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace leakhound {

// Appends the text of the "PowerPoint Document" stream `document` to
// *out, at most `max_text_bytes` (ResourceExhausted past it). Errors: the
// Unreadable error kEncrypted (text_extractor.h) for an encrypted
// presentation (a CryptSession10Container); InvalidArgument for a record
// that runs past its container or containers nested past kMaxDepth.
absl::Status AppendPowerPoint97Text(std::string_view document,
                                    size_t max_text_bytes, std::string* out);

// Containers inside containers, at most (real files nest about 8 deep).
inline constexpr int kPowerPointMaxDepth = 64;

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_POWERPOINT97_TEXT_H_
