// PdfExtractor: the text of every page of a PDF in reading order
// (poppler-cpp, the layout pdftotext uses by default), then the files
// embedded in it as members. The one place that calls poppler.
//
// A page without a text layer (a scan, text drawn as an image) is
// rendered in gray and read by OCR (ocr_engine.h): a page that is one scan
// (an image covering at least half of it) at the scan's own resolution
// (at least 100 dpi, at most OcrSettings::pdf_dpi), any other at
// OcrSettings::pdf_dpi (300); lower if the page would pass
// --ocr-max-pixels. Such pages are read in parallel, on the calling thread
// and on the cores no other recognition uses (OcrCoreLease); no page gets
// more than twice its share of the time left. A blank page is passed
// over, and a page OCR cannot read (or every such page, with --ocr off, or
// those left when the file's time runs out) is listed as skipped
// ("page3"). A PDF with no text at all is the
// Unreadable error kNoText. A PDF that needs a password is an error
// (kEncrypted); one encrypted with an empty user password (permissions
// only) is read.
//
// Thread-safety: stateless; each call opens its own document.
#ifndef LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

class PdfExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

// Per page of `pdf`, the pixels per inch of the scan it holds (its
// largest image, when that covers at least half of the page), nullopt for
// a page that holds none: what OCR renders a page without text at.
// InvalidArgument for a PDF poppler cannot open.
absl::StatusOr<std::vector<std::optional<double>>> PdfScanResolutions(
    std::string_view pdf);

// The poppler version (for `leakhound --version`).
std::string PopplerVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_PDF_EXTRACTOR_H_
