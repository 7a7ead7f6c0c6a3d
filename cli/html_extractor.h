// HtmlExtractor: HTML to text with libxml2's HTML parser (error-tolerant,
// network access off). Text nodes and comments are kept (a comment is
// invisible but travels with the file, so it can carry a leak); script,
// style and template elements are dropped; entities are decoded by the
// parser; block elements and <br> end a line. The bytes are first decoded
// to UTF-8 (shingler/text_decoder.h) and handed to libxml2 as UTF-8.
// Markup nested deeper than libxml2's limit (256) is refused, not
// truncated: text the parser dropped could hide a leak.
//
// Thread-safety: stateless; libxml2's parser is reentrant per document.
#ifndef LEAKHOUND_CLI_HTML_EXTRACTOR_H_
#define LEAKHOUND_CLI_HTML_EXTRACTOR_H_

#include "cli/text_extractor.h"

namespace leakhound {

class HtmlExtractor : public TextExtractor {
 public:
  // Files named *.html, *.htm, *.xhtml, or starting (after white space)
  // with "<!doctype html" or "<html", any case.
  bool Accepts(std::string_view path, std::string_view head) const override;
  absl::StatusOr<ExtractedText> Extract(
      std::string_view path, std::string bytes,
      const ExtractionLimits& limits) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_HTML_EXTRACTOR_H_
