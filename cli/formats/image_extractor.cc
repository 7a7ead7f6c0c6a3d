#include "cli/formats/image_extractor.h"

#include <string>

#include "cli/formats/ocr_engine.h"

namespace leakhound {
namespace {

// The image's kind from its signature, for messages.
std::string_view Kind(std::string_view bytes) {
  if (bytes.starts_with("\x89PNG")) return "PNG image";
  if (bytes.starts_with("\xFF\xD8")) return "JPEG image";
  if (bytes.starts_with("GIF8")) return "GIF image";
  if (bytes.starts_with("II*") || bytes.starts_with("MM\0*"))
    return "TIFF image";
  if (bytes.starts_with("BM")) return "BMP image";
  if (bytes.size() >= 12 && bytes.starts_with("RIFF") &&
      bytes.substr(8, 4) == "WEBP") {
    return "WebP image";
  }
  return "image";
}

}  // namespace

absl::Status ImageExtractor::Extract(std::string_view bytes,
                                     ExtractionSink& sink) const {
  const OcrSettings& ocr = sink.limits().ocr;
  const std::string kind(Kind(bytes));
  if (!ocr.enabled) {
    return UnreadableError(Unreadable::kNoText,
                           kind + ": no text to extract (OCR is off, --ocr)");
  }
  const double left = sink.SecondsLeft();
  if (left < kOcrMinSeconds) {
    return UnreadableError(
        Unreadable::kLimit,
        kind + ": not read, the file's time limit (--max-seconds) is reached");
  }
  auto text = RecognizeImageFile(bytes, kind, ocr.Within(left));
  if (!text.ok()) return text.status();
  return sink.AppendText(*text);
}

}  // namespace leakhound
