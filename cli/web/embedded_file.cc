#include "cli/web/embedded_file.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "cli/formats/file_type.h"
#include "cli/web/url_decode.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

// Whether the extractors read a file of this kind for text (an image is
// OCRed); unknown binary data and kinds without text are not files here.
bool Readable(FileKind kind) {
  return kind != FileKind::kUnknownBinary && kind != FileKind::kNoText;
}

// A name whose extension hints a data: URI's media type to DetectFileType.
std::string NameFor(std::string_view media_type) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"application/pdf", "data.pdf"},
      {"text/html", "data.html"},
      {"text/plain", "data.txt"},
      {"application/rtf", "data.rtf"},
      {"wordprocessingml", "data.docx"},
      {"spreadsheetml", "data.xlsx"},
      {"presentationml", "data.pptx"},
      {"application/msword", "data.doc"},
      {"opendocument.text", "data.odt"},
      {"application/zip", "data.zip"},
  };
  const std::string lower = absl::AsciiStrToLower(std::string(media_type));
  for (const auto& [type, name] : kNames) {
    if (lower.find(type) != std::string::npos) return std::string(name);
  }
  return "data";
}

// "data:[<media type>][;base64],<data>" decoded; nullopt otherwise.
std::optional<EmbeddedFile> DataUri(std::string_view value) {
  if (value.size() < 5 ||
      absl::AsciiStrToLower(std::string(value.substr(0, 5))) != "data:") {
    return std::nullopt;
  }
  const size_t comma = value.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const std::string_view head = value.substr(5, comma - 5);
  const std::string_view data = value.substr(comma + 1);
  EmbeddedFile file{NameFor(head.substr(0, head.find(';'))), "", false};
  if (absl::AsciiStrToLower(std::string(head)).ends_with(";base64")) {
    std::string compact(data);
    compact.erase(std::remove_if(compact.begin(), compact.end(),
                                 [](char c) {
                                   return absl::ascii_isspace(
                                       static_cast<unsigned char>(c));
                                 }),
                  compact.end());
    if (!absl::Base64Unescape(compact, &file.bytes) &&
        !absl::WebSafeBase64Unescape(compact, &file.bytes)) {
      return std::nullopt;
    }
  } else {
    file.bytes = UrlDecode(data);
  }
  return file;
}

// A bare base64 value decoded, when it is one.
std::optional<std::string> Base64Value(std::string_view value) {
  std::string compact;
  compact.reserve(value.size());
  for (const char c : value) {
    if (c == '\r' || c == '\n') continue;
    const auto byte = static_cast<unsigned char>(c);
    if (!absl::ascii_isalnum(byte) && c != '+' && c != '/' && c != '=' &&
        c != '-' && c != '_') {
      return std::nullopt;
    }
    compact.push_back(c);
  }
  if (compact.size() < kMinBase64Chars) return std::nullopt;
  std::string bytes;
  if (!absl::Base64Unescape(compact, &bytes) &&
      !absl::WebSafeBase64Unescape(compact, &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

// Whether decoded base64 is worth reading: text (valid UTF-8, at least
// 95 % printable), or bytes that start like a file the extractors read.
// An identifier or a hash that happens to be base64 decodes to neither,
// and is not handed to libmagic (a JSON of a thousand hashes would cost
// a thousand lookups).
bool WorthReading(std::string_view bytes) {
  static constexpr std::string_view kSignatures[] = {
      "PK\x03\x04", "%PDF", "\xD0\xCF\x11\xE0", "{\\rtf", "\x89PNG",
      "\xFF\xD8\xFF", "GIF8", "\x1F\x8B", "II*\0", "MM\0*", "BM",
      "7z\xBC\xAF", "Rar!", "<?xml", "<!DOCTYPE", "<html", "RIFF"};
  for (std::string_view signature : kSignatures) {
    if (bytes.starts_with(signature)) return true;
  }
  if (RepairUtf8(bytes) != bytes) return false;
  size_t printable = 0;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 || c == '\n' || c == '\r' || c == '\t') ++printable;
  }
  return printable * 100 >= bytes.size() * 95;
}

}  // namespace

std::optional<EmbeddedFile> EmbeddedFileIn(std::string_view value) {
  if (auto uri = DataUri(value)) return uri;
  if (auto bytes = Base64Value(value)) {
    if (!WorthReading(*bytes)) return std::nullopt;
    // The value is read as text too: a long word may look like base64.
    return EmbeddedFile{"base64", *std::move(bytes), true};
  }
  const FileType type = DetectFileType("value", value);
  if (type.kind == FileKind::kText || !Readable(type.kind)) return std::nullopt;
  return EmbeddedFile{"value", std::string(value), false};
}

}  // namespace leakhound
