// PdfExtractor: the text of every page of a PDF in reading order
// (poppler-cpp, the layout pdftotext uses by default), then the files
// embedded in it as members. The one place that calls poppler.
//
// A page without a text layer (a scan, text drawn as an image) is
// rendered in gray at OcrSettings::pdf_dpi (300; lower if the page would
// pass --ocr-max-pixels) and read by OCR (ocr_engine.h); a blank page is
// passed over, and a page OCR cannot read (or every such page, with --ocr
// off) is listed as skipped ("page3"). A PDF with no text at all is the
// Unreadable error kNoText. A PDF that needs a password is an error
// (kEncrypted); one encrypted with an empty user password (permissions
// only) is read.
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

// The poppler version (for `leakhound --version`).
std::string PopplerVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_
