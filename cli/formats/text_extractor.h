// TextExtractor: the interface every document format implements to turn
// bytes into the plain UTF-8 text leakhound fingerprints and scans, and
// ExtractionSink, where an extractor puts that text and the members it
// finds (archive entries, attachments, forwarded messages, embedded files).
//
// A file is extracted into parts (extraction.h): its own text, and one part
// per member, named by the path inside the file ("report.docx",
// "bundle.zip!/dir/a.pdf"). Offsets leakhound reports are into a part's
// extracted text, never into the file's bytes.
//
// Every extractor bounds its resources through the sink: it charges the
// bytes it decompresses (ChargeExpansion) and checks the clock
// (CheckTime) in every loop whose length the input chooses, and the sink
// refuses text past ExtractionLimits::max_output_bytes. A file that hits a
// limit is an error with the limit's name, never a silent truncation.
//
// Thread-safety: extractors are stateless; Extract may run concurrently on
// one instance with different sinks. A sink belongs to one extraction.
#ifndef LEAKHOUND_CLI_FORMATS_TEXT_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_TEXT_EXTRACTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/formats/ocr_engine.h"
#include "cli/formats/sensitivity_label.h"
#include "cli/formats/unreadable.h"

namespace leakhound {

// The resource limits of extracting one file, members included. Each is a
// command-line option of `add` and `scan` (docs/cli.md lists them).
struct ExtractionLimits {
  // --max-file-size: the file as read, and any one member once unpacked.
  size_t max_input_bytes = size_t{64} << 20;
  // --max-text-size: extracted text of the file, all parts together.
  size_t max_output_bytes = size_t{64} << 20;
  // --max-depth: containers inside containers (a zip in a mail is depth 2).
  uint32_t max_depth = 8;
  // --max-members: archive entries, attachments and embedded files.
  uint32_t max_members = 10000;
  // --max-ratio: bytes decompressed (all levels together) per byte of the
  // file, enforced once more than kExpansionFloorBytes were decompressed.
  double max_expansion_ratio = 100;
  // --max-seconds: wall time to extract one file.
  double max_seconds = 30;
  // --ocr, --ocr-languages, --ocr-max-pixels, --ocr-max-seconds: text
  // recognition in images and in PDF pages without a text layer.
  OcrSettings ocr;
};

// Decompressing this much is always allowed, whatever the ratio: small
// files legitimately expand far more than large ones (a 2 KB docx holds
// 30 KB of XML).
inline constexpr size_t kExpansionFloorBytes = size_t{16} << 20;

class ExtractionSink {
 public:
  virtual ~ExtractionSink() = default;

  // Appends UTF-8 text to this part. ResourceExhausted past
  // max_output_bytes (all parts together).
  virtual absl::Status AppendText(std::string_view utf8) = 0;
  // Appends to this part's layout text (ExtractedPart::layout_text), with
  // the same limit.
  virtual absl::Status AppendLayoutText(std::string_view utf8) = 0;

  // Records the sensitivity labels this part carries (merged with any
  // noted before, sensitivity_label.h).
  virtual void NoteLabels(const std::vector<SensitivityLabel>& labels) = 0;

  // Records how text of this part was decoded (shingler/text_decoder.h).
  virtual void NoteDecoding(std::string_view encoding,
                            size_t invalid_sequences) = 0;

  // Extracts `bytes`, a member named `name` (a file name or path inside
  // this part), as its own part with the extractor its content calls for.
  // Counts against max_members, max_depth and max_input_bytes. A member
  // that holds no text (an image, a font, unknown binary data) is recorded
  // as skipped with the reason; an error in it is returned, prefixed with
  // its name.
  virtual absl::Status AddMember(std::string_view name, std::string bytes) = 0;

  // Records that a piece of this part named `name` (a PDF page, "page3")
  // holds text leakhound could not read, with the class and the reason:
  // it is listed in Extraction::skipped as a skipped member is.
  virtual void NoteSkipped(std::string_view name, Unreadable kind,
                           std::string_view reason) = 0;

  // A member this extractor walks itself (a forwarded message, one message
  // of an mbox): a sink for its part, counted as AddMember counts. The
  // returned sink must not outlive this one.
  virtual absl::StatusOr<std::unique_ptr<ExtractionSink>> OpenMember(
      std::string_view name, std::string_view format) = 0;

  // Charges `bytes` decompressed. ResourceExhausted past the expansion
  // ratio (or past max_input_bytes for the member being unpacked, which
  // the caller checks itself).
  virtual absl::Status ChargeExpansion(size_t bytes) = 0;

  // DeadlineExceeded once the file's time limit has passed.
  virtual absl::Status CheckTime() = 0;

  // Seconds left before the file's time limit (0 once it has passed): OCR
  // gives an image at most this long, and skips what it cannot start.
  virtual double SecondsLeft() const = 0;

  virtual const ExtractionLimits& limits() const = 0;
};

// The ResourceExhausted error of text past `max_bytes` (--max-text-size).
absl::Status TextLimitError(size_t max_bytes);

// Appends `text` to *out, or returns ResourceExhausted (naming
// --max-text-size) if *out would pass `max_bytes`: for extractors that
// build a part's text before handing it to the sink.
absl::Status AppendWithin(std::string_view text, size_t max_bytes,
                          std::string* out);

// Appends link targets (HTML hrefs, Office hyperlinks) after the text: a
// blank line, then one target per line, so that a protected location behind
// a link's text is scanned. Nothing for no targets. Errors as AppendWithin.
absl::Status AppendLinkTargets(const std::vector<std::string>& targets,
                               size_t max_bytes, std::string* out);

class TextExtractor {
 public:
  virtual ~TextExtractor() = default;

  // Extracts the text (and members) of `bytes` into `sink`.
  // REQUIRES: bytes.size() <= sink.limits().max_input_bytes (the
  // dispatcher checks). Errors, one line each: ResourceExhausted or
  // DeadlineExceeded over a limit, InvalidArgument for input this format
  // cannot read (malformed, truncated, encrypted), Internal for a library
  // failure.
  virtual absl::Status Extract(std::string_view bytes,
                               ExtractionSink& sink) const = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_TEXT_EXTRACTOR_H_
