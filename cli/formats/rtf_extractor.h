// RtfExtractor: Rich Text Format documents, read by a bounded streaming
// reader (one pass, an explicit group stack, no recursion):
//  - control words and symbols; paragraph, line, cell and row marks end
//    lines or separate cells; typographic symbols (\emdash, \lquote...)
//    become their characters;
//  - \uN Unicode characters (surrogate pairs joined), with the \ucN
//    fallback characters after each skipped;
//  - \'hh bytes decoded in the code page of the current font's
//    \fcharset, else the document's \ansicpg (shingler's ConvertToUtf8,
//    ICU);
//  - destinations without visible text skipped: the font, color and style
//    tables, lists, revision and RSID tables, pictures, field
//    instructions, and every \* group leakhound does not know (\*\htmltag
//    included, so an HTML-derived RTF yields its visible text);
//    \bin data skipped by its length;
//  - \objdata embedded objects decoded from hex and their OLE1 native data
//    passed on as members (an embedded Word or Excel file is read);
//  - groups nested deeper than kRtfMaxDepth refused (InvalidArgument).
// Headers, footers, footnotes, annotations and hidden text are kept: they
// travel with the document.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_RTF_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_RTF_EXTRACTOR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

inline constexpr size_t kRtfMaxDepth = 1000;

class RtfExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_RTF_EXTRACTOR_H_
