#include "cli/formats/image_extractor.h"

#include "cli/formats/ocr_engine.h"

namespace leakhound {

absl::Status ImageExtractor::Extract(std::string_view bytes,
                                     ExtractionSink& sink) const {
  const OcrSettings& ocr = sink.limits().ocr;
  if (!ocr.enabled) {
    return UnreadableError(Unreadable::kNoText,
                           "image: no text to extract (OCR is off, --ocr)");
  }
  if (auto s = sink.CheckTime(); !s.ok()) return s;
  auto text = RecognizeImageFile(bytes, "image", ocr);
  if (!text.ok()) return text.status();
  return sink.AppendText(*text);
}

}  // namespace leakhound
