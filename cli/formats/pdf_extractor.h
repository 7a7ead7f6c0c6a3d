// PdfExtractor: the text of every page of a PDF in reading order
// (poppler-cpp, the layout pdftotext uses by default), then the files
// embedded in it as members. The one place that calls poppler.
//
// A PDF that needs a password, or whose pages hold no text (scanned
// images), is an error with its own reason ("no extractable text"), never
// clean: leakhound does not OCR. A PDF encrypted with an empty user
// password (permissions only) is read.
//
// Thread-safety: stateless; each call opens its own document.
#ifndef LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class PdfExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_
