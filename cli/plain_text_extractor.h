// PlainTextExtractor: text files in any encoding (shingler/text_decoder.h
// decides UTF-8, UTF-16 or a legacy encoding), Markdown read as text.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_PLAIN_TEXT_EXTRACTOR_H_
#define LEAKHOUND_CLI_PLAIN_TEXT_EXTRACTOR_H_

#include "cli/text_extractor.h"

namespace leakhound {

class PlainTextExtractor : public TextExtractor {
 public:
  // Accepts everything: the fallback after the other formats and the
  // binary check (extraction.h).
  bool Accepts(std::string_view path, std::string_view head) const override;
  absl::StatusOr<ExtractedText> Extract(
      std::string_view path, std::string bytes,
      const ExtractionLimits& limits) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_PLAIN_TEXT_EXTRACTOR_H_
