#include "cli/formats/plain_text_extractor.h"

#include "shingler/text_decoder.h"

namespace leakhound {

absl::Status PlainTextExtractor::Extract(std::string_view bytes,
                                         ExtractionSink& sink) const {
  auto decoded = DecodeText(std::string(bytes));
  if (!decoded.ok()) return decoded.status();
  sink.NoteDecoding(decoded->encoding, decoded->invalid_sequences);
  return sink.AppendText(decoded->utf8);
}

}  // namespace leakhound
