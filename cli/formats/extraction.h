// Extraction: reads a file, decides its type (file_type.h) and runs the
// extractor for it, recursively for the members it holds, within the
// limits of ExtractionLimits. The result is the file's parts: its own text
// and one part per member with text (an attachment, an archive entry),
// each named by its path inside the file.
//
// A file of a type that holds no text leakhound can read (an image without
// OCR, unknown binary data) is an Unimplemented error naming the type and
// carrying its Unreadable class (text_extractor.h); the command decides
// whether that is an error (--on-unreadable). Inside a container, such
// members are not errors: they are listed in Extraction::skipped with the
// reason and class (a mail with a logo must not fail),
// while a member that is malformed, encrypted or over a limit fails the
// whole file: text that could not be read must not pass for clean.
//
// Thread-safety: safe to call concurrently.
#ifndef LEAKHOUND_CLI_FORMATS_EXTRACTION_H_
#define LEAKHOUND_CLI_FORMATS_EXTRACTION_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/file_type.h"
#include "cli/formats/sensitivity_label.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// Joins a part's path to the name of a member inside it: "a.zip" + "b.pdf"
// is "a.zip!/b.pdf"; the file's own part is "".
inline constexpr char kPartSeparator[] = "!/";

// `parent` + kPartSeparator + `member`; `member` alone for the file's own
// part (`parent` "").
std::string JoinPart(std::string_view parent, std::string_view member);

// `s` with "`part`: " before its message (unless it starts so already),
// its payloads (the Unreadable class) kept; `s` itself when OK.
absl::Status Prefixed(const absl::Status& s, std::string_view part);

struct ExtractedPart {
  std::string name;    // "" for the file itself, else "mail.eml" style
                       // paths joined by kPartSeparator
  std::string format;  // "text", "html", "docx", "pdf", "mail", ...
  std::string text;    // UTF-8
  // The text again as laid out on the page, where the format has a layout
  // its reading order does not keep (PDF: poppler's physical layout, rows
  // of a table on one line); "" otherwise. The records scanner reads it
  // instead of `text` (docs/records.md).
  std::string layout_text;
  // The sensitivity labels the part carries (a labelled document; a mail
  // with a msip_labels header: its own part), docs/labels.md. A part with
  // labels is kept even without text.
  std::vector<SensitivityLabel> labels = {};
  // Whether its format can carry a label at all (Office, OpenDocument,
  // PDF): policy's unlabelled_attachment reads it.
  bool labellable = false;
};

struct SkippedPart {
  std::string name;    // "" for the file itself (scan --on-unreadable skip)
  std::string reason;  // "PNG image: no text to extract"
  Unreadable kind = Unreadable::kUnsupported;
};

struct Extraction {
  std::vector<ExtractedPart> parts;  // in reading order; parts without
                                     // text are left out
  std::vector<SkippedPart> skipped;
  std::string format;  // of the file itself
  size_t input_bytes = 0;         // of the file as read
  size_t invalid_sequences = 0;   // ill-formed input read as U+FFFD, all parts
  uint32_t members = 0;           // members seen (extracted or skipped)

  // Every part's text, joined by blank lines (what `add` protects).
  std::string JoinedText() const;
};

// How a container treats the extraction status `s` of its member `member`
// (the file comment): a member of a type without text leakhound reads
// (Unimplemented) is appended to `skipped` and OK returned; any other error
// (malformed, encrypted, over a limit) is returned Prefixed with `member`.
absl::Status SkipOrFail(const absl::Status& s, std::string_view member,
                        std::vector<SkippedPart>& skipped);

// Extracts `bytes`, a file named `name` (for its extension only).
// Errors: InvalidArgument (malformed or truncated input; an encrypted
// document, Unreadable class kEncrypted), Unimplemented (no text leakhound
// can read: its Unreadable class kNoText, kUnsupported or kLimit, see
// UnreadableOf), ResourceExhausted and DeadlineExceeded (a limit, named),
// FailedPrecondition (OCR language data not installed), Internal.
// Messages are one line and name the member they concern.
absl::StatusOr<Extraction> ExtractBytes(std::string_view name,
                                        std::string bytes,
                                        const ExtractionLimits& limits);

// Runs `read` with the root sink of a file of `input_bytes` under the
// budget of `limits` (size, decompression ratio, time, members, depth),
// for a reader that walks a file itself rather than extracting its text
// (sheet_rows: a table's workbook); text it appends is dropped. Errors:
// ResourceExhausted past max_input_bytes, else what `read` returns.
absl::Status ReadWithinLimits(
    size_t input_bytes, const ExtractionLimits& limits,
    const std::function<absl::Status(ExtractionSink&)>& read);

// As ExtractBytes, but the file itself is read as `kind` whatever its
// content (its members are still typed by content): for the fuzzers and
// tests of one extractor. Unimplemented for a kind without an extractor.
absl::StatusOr<Extraction> ExtractBytesAs(FileKind kind, std::string_view name,
                                          std::string bytes,
                                          const ExtractionLimits& limits);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_EXTRACTION_H_
