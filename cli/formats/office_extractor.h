// OfficeExtractor: Office Open XML documents (.docx, .xlsx, .pptx and their
// macro-enabled variants). The zip is read with archive_reader.h and the
// XML parts parsed with markup_parser.h, in reading order:
//  - Word: the body, then headers, footers, footnotes, endnotes and
//    comments. Runs are joined without a separator, so a word Word split
//    over several runs ("confi" + "dential") comes back whole; tracked
//    deletions are kept (they travel with the file), field codes dropped.
//  - Excel: every sheet in order, cell by cell (shared strings resolved;
//    cells separated by tabs, rows by line ends), then cell comments.
//  - PowerPoint: every slide in order, then speaker notes and comments.
//  - All: the document properties (title, subject, keywords,
//    description), and embedded files (word/embeddings/...) as members.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_OFFICE_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_OFFICE_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class OfficeExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_OFFICE_EXTRACTOR_H_
