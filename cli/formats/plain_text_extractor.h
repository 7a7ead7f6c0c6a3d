// PlainTextExtractor: text files in any encoding (shingler/text_decoder.h
// decides UTF-8, UTF-16 or a legacy encoding); Markdown is read as text.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_PLAIN_TEXT_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_PLAIN_TEXT_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class PlainTextExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_PLAIN_TEXT_EXTRACTOR_H_
