// HtmlExtractor: HTML to text. The bytes are decoded to UTF-8
// (shingler/text_decoder.h) and parsed by markup_parser.h (libxml2's
// error-tolerant HTML parser, network off). Text nodes and comments are
// kept (a comment is invisible but travels with the file, so it can carry
// a leak); script, style and template elements are dropped; entities are
// decoded by the parser; block elements and <br> end a line. Markup nested
// deeper than libxml2's limit (256) is refused, not truncated.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_HTML_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_HTML_EXTRACTOR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

class HtmlExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

// The text of UTF-8 HTML as HtmlExtractor makes it (for HTML bodies of
// mail, which arrive already decoded): the text and comments, then the
// distinct href and src values (not data: URIs or #fragments), one per
// line after a blank line, so that protected locations behind link texts
// are seen. ResourceExhausted once the text passes `max_bytes`.
absl::StatusOr<std::string> HtmlToText(std::string_view utf8, size_t max_bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_HTML_EXTRACTOR_H_
