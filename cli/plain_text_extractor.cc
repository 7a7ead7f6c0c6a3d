#include "cli/plain_text_extractor.h"

#include "absl/strings/str_cat.h"
#include "shingler/text_decoder.h"

namespace leakhound {

bool PlainTextExtractor::Accepts(std::string_view, std::string_view) const {
  return true;
}

absl::StatusOr<ExtractedText> PlainTextExtractor::Extract(
    std::string_view path, std::string bytes,
    const ExtractionLimits& limits) const {
  if (bytes.size() > limits.max_input_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("larger than the limit of ", limits.max_input_bytes,
                     " bytes"));
  }
  auto decoded = DecodeText(std::move(bytes));
  if (!decoded.ok()) return decoded.status();
  if (decoded->utf8.size() > limits.max_output_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("text larger than the limit of ",
                     limits.max_output_bytes, " bytes once decoded"));
  }
  const bool markdown =
      path.ends_with(".md") || path.ends_with(".markdown");
  return ExtractedText{std::move(decoded->utf8), markdown ? "markdown" : "text",
                       std::move(decoded->encoding),
                       decoded->invalid_sequences};
}

}  // namespace leakhound
