// OpenDocumentExtractor: OpenDocument text, spreadsheets and presentations
// (.odt, .ods, .odp and their templates). The zip is read with
// archive_reader.h and the XML parsed with markup_parser.h: content.xml
// (body, tables cell by cell, annotations, speaker notes), then
// styles.xml (headers and footers), the text of embedded objects
// ("Object 1/content.xml") and meta.xml's title, subject, keywords and
// description. Paragraphs and headings end lines; <text:s text:c="N"/>
// is N spaces, <text:tab/> a tab, <text:line-break/> a line end.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_OPENDOCUMENT_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_OPENDOCUMENT_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class OpenDocumentExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_OPENDOCUMENT_EXTRACTOR_H_
