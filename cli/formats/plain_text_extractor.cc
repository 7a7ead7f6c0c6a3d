#include "cli/formats/plain_text_extractor.h"

#include "shingler/text_decoder.h"

namespace leakhound {

absl::Status PlainTextExtractor::Extract(std::string_view bytes,
                                         ExtractionSink& sink) const {
  auto decoded = DecodeText(std::string(bytes));
  if (!decoded.ok()) return decoded.status();
  sink.NoteDecoding(decoded->encoding, decoded->invalid_sequences);
  absl::Status s = sink.AppendText(decoded->utf8);
  if (!s.ok() || decoded->encoding.starts_with("UTF-")) return s;
  // Read in a legacy encoding, an invalid byte glued to a word becomes a
  // letter ("word\xff" is "wordÿ" in windows-1252) and hides the word.
  // The text is read a second time as UTF-8 with every invalid byte a
  // U+FFFD, a word break, so that such bytes cannot make a leak clean.
  s = sink.AppendText("\n\n");
  if (!s.ok()) return s;
  return sink.AppendText(RepairUtf8(bytes));
}

}  // namespace leakhound
