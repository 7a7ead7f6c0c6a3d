// XmlText: the text of an XML document part (a Word body, a slide, an
// OpenDocument content.xml) by a few rules on element local names: which
// elements hold text, which end a line, which stand for a tab or a line
// break, which are skipped with everything inside them. Used by the
// Office Open XML and OpenDocument extractors.
//
// Thread-safety: XmlTextRules is immutable once built; AppendXmlText is
// reentrant.
#ifndef LEAKHOUND_CLI_FORMATS_XML_TEXT_H_
#define LEAKHOUND_CLI_FORMATS_XML_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace leakhound {

struct XmlTextRules {
  // Character data counts only inside one of these (empty: everywhere).
  std::vector<std::string_view> text_in;
  // Elements whose end ends a line (paragraphs, headings).
  std::vector<std::string_view> line_end;
  // Empty elements standing for a tab, a line break.
  std::vector<std::string_view> tab;
  std::vector<std::string_view> line_break;
  // Elements dropped with their content (field codes).
  std::vector<std::string_view> skip;
  // OpenDocument's <text:s text:c="N"/>: N spaces (at most 100).
  std::string_view spaces;
};

// Appends the text of `xml` under `rules` to *out. InvalidArgument for
// malformed XML; ResourceExhausted once *out would pass `max_bytes`.
absl::Status AppendXmlText(std::string_view xml, const XmlTextRules& rules,
                           size_t max_bytes, std::string* out);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_XML_TEXT_H_
