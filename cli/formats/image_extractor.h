// ImageExtractor: raster images (PNG, JPEG, TIFF, GIF, BMP, WebP), read by
// OCR (ocr_engine.h) when ExtractionLimits::ocr is enabled: a photo or
// screenshot of a protected page is text like any other. With OCR off, or
// when OCR finds nothing legible, the image is the Unreadable error
// kNoText (listed as skipped inside a container); past the OCR time limit
// kLimit; past the pixel limit a ResourceExhausted error (a decompression
// bomb).
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_IMAGE_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_IMAGE_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class ImageExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_IMAGE_EXTRACTOR_H_
