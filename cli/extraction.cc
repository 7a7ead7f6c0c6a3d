#include "cli/extraction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "cli/html_extractor.h"
#include "cli/input_files.h"
#include "cli/plain_text_extractor.h"

namespace leakhound {
namespace {

constexpr size_t kHeadBytes = 4096;

// Formats recognized by their first bytes that no extractor reads yet.
struct Magic {
  std::string_view prefix;
  const char* name;
};
constexpr Magic kUnsupported[] = {
    {"%PDF-", "PDF document"},
    {"PK\x03\x04", "ZIP archive (or Office document)"},
    {"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "legacy Office document"},
    {"\x1F\x8B", "gzip data"},
    {"BZh", "bzip2 data"},
    {"\xFD" "7zXZ", "xz data"},
    {"7z\xBC\xAF\x27\x1C", "7-Zip archive"},
    {"Rar!", "RAR archive"},
    {"\x89PNG", "PNG image"},
    {"\xFF\xD8\xFF", "JPEG image"},
    {"GIF8", "GIF image"},
    {"\x7F" "ELF", "ELF executable"},
};

}  // namespace

absl::StatusOr<ExtractedText> ExtractText(std::string_view path,
                                          std::string bytes,
                                          const ExtractionLimits& limits) {
  const std::string_view head =
      std::string_view(bytes).substr(0, std::min(bytes.size(), kHeadBytes));
  for (const Magic& m : kUnsupported) {
    if (head.starts_with(m.prefix)) {
      return absl::UnimplementedError(
          absl::StrCat(m.name, ": no text extractor for this format yet"));
    }
  }
  const bool utf16 = head.starts_with("\xFF\xFE") || head.starts_with("\xFE\xFF");
  if (!utf16 && head.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "binary file (NUL bytes): no text extractor for it");
  }
  static const HtmlExtractor kHtml;
  static const PlainTextExtractor kPlain;
  static const TextExtractor* const kExtractors[] = {&kHtml, &kPlain};
  const size_t input_bytes = bytes.size();
  for (const TextExtractor* e : kExtractors) {
    if (!e->Accepts(path, head)) continue;
    auto text = e->Extract(path, std::move(bytes), limits);
    if (text.ok()) text->input_bytes = input_bytes;
    return text;
  }
  return absl::InternalError("no extractor accepted the file");  // unreachable
}

absl::StatusOr<ExtractedText> ExtractFile(const std::string& path,
                                          const ExtractionLimits& limits) {
  auto bytes = ReadFileBounded(path, limits.max_input_bytes);
  if (!bytes.ok()) return bytes.status();
  return ExtractText(path, std::move(*bytes), limits);
}

}  // namespace leakhound
