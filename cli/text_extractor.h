// TextExtractor: the interface every document format implements to turn a
// file's bytes into the plain UTF-8 text leakhound fingerprints and scans.
// Offsets leakhound reports for a file (passages, line numbers) are into
// this extracted text, not into the file's bytes.
//
// Formats today: plain text in any encoding (plain_text_extractor.h),
// Markdown read as text, HTML (html_extractor.h). PDF, Office, mail and
// archives plug in here as further implementations; extraction.h picks one
// per file.
//
// Every implementation bounds its resources: it refuses input larger than
// ExtractionLimits::max_input_bytes and stops (ResourceExhausted) before
// its output passes max_output_bytes, so a decompression bomb costs at most
// the limits.
//
// Thread-safety: implementations are stateless; Extract may run
// concurrently on one instance.
#ifndef LEAKHOUND_CLI_TEXT_EXTRACTOR_H_
#define LEAKHOUND_CLI_TEXT_EXTRACTOR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

struct ExtractionLimits {
  size_t max_input_bytes = size_t{64} << 20;  // --max-file-size's default
  size_t max_output_bytes = size_t{64} << 20;
};

struct ExtractedText {
  std::string text;          // UTF-8
  std::string format;        // "text", "markdown", "html", ...
  std::string encoding;      // the source's character encoding
  size_t invalid_sequences = 0;  // ill-formed input replaced by U+FFFD
  size_t input_bytes = 0;    // of the file (set by extraction.h)
};

class TextExtractor {
 public:
  virtual ~TextExtractor() = default;

  // Whether this extractor reads a file named `path` whose first bytes are
  // `head` (up to 4096 bytes; fewer for a short file).
  virtual bool Accepts(std::string_view path, std::string_view head) const = 0;

  // Extracts the text. Errors (one line each): ResourceExhausted over a
  // limit, InvalidArgument for input this format cannot read, Internal for
  // a library failure.
  virtual absl::StatusOr<ExtractedText> Extract(
      std::string_view path, std::string bytes,
      const ExtractionLimits& limits) const = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_TEXT_EXTRACTOR_H_
