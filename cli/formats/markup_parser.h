// MarkupParser: HTML and XML documents as a stream of events (element
// start and end, text, comments) in document order, for the extractors
// that turn markup into text (HTML, Office Open XML, OpenDocument). The
// one place that calls libxml2.
//
// HTML goes through libxml2's error-tolerant HTML parser; XML through its
// streaming reader, so a large spreadsheet part is never held as a tree.
// Both run with network access off, without substituting entities and
// within libxml2's default limits (nesting depth 256, text nodes 10 MB);
// input nested past the limit is refused (InvalidArgument), not truncated:
// text the parser dropped could hide a leak.
//
// Thread-safety: the functions are reentrant; each call uses its own
// parser. A handler is called from the calling thread only.
#ifndef LEAKHOUND_CLI_FORMATS_MARKUP_PARSER_H_
#define LEAKHOUND_CLI_FORMATS_MARKUP_PARSER_H_

#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace leakhound {

// An element's attributes: (local name, value), valid during the call.
using MarkupAttributes =
    std::vector<std::pair<std::string_view, std::string_view>>;

class MarkupHandler {
 public:
  virtual ~MarkupHandler() = default;
  // `name`: the element's local name (no namespace prefix); lower case for
  // HTML. A handler's error stops the parse and is returned.
  virtual absl::Status StartElement(std::string_view name,
                                    const MarkupAttributes& attributes) = 0;
  virtual absl::Status EndElement(std::string_view name) = 0;
  // Character data (text, CDATA, white space), UTF-8.
  virtual absl::Status Text(std::string_view utf8) = 0;
  virtual absl::Status Comment(std::string_view utf8) = 0;
};

// Parses UTF-8 HTML. Elements libxml2 recovers from broken markup are
// reported as it repaired them, with their attributes (names lower case,
// values decoded); script, style and template content comes as Text like
// any other (the handler decides).
absl::Status ParseHtml(std::string_view utf8, MarkupHandler& handler);

// Parses an XML document (any encoding its declaration names).
// InvalidArgument for malformed XML, with libxml2's message.
absl::Status ParseXml(std::string_view bytes, MarkupHandler& handler);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_MARKUP_PARSER_H_
