#include "cli/web/request_body.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/formats/mime_extractor.h"
#include "cli/web/content_coding.h"
#include "cli/web/json_strings.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

// The media type of a Content-Type value, lower case, without parameters.
std::string MediaType(std::string_view content_type) {
  const std::string_view type = content_type.substr(0, content_type.find(';'));
  return absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(absl::string_view(type.data(), type.size())));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The URL path's last segment, decoded, or "upload" if it has none.
std::string UploadName(std::string_view path) {
  path = path.substr(0, path.find_first_of("?#"));
  const size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  std::string name = RepairUtf8(UrlDecode(path));
  return name.empty() ? std::string("upload") : name;
}

// Collects the request's text and its files' extractions, within one
// budget for the whole request, as a mail's attachments share one: each
// file gets the time and the text the files before it left.
class BodyParts {
 public:
  explicit BodyParts(const ExtractionLimits& limits)
      : limits_(limits), start_(std::chrono::steady_clock::now()) {}

  void AddText(std::string_view text) { text_.append(text).push_back('\n'); }

  // Extracts `bytes`, a file named `name`, as member `member` ("" for the
  // body itself).
  absl::Status AddFile(const std::string& member, std::string_view name,
                       std::string bytes) {
    if (++members_ > limits_.max_members) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the request holds more than ", limits_.max_members, " files"));
    }
    auto left = Left();
    if (!left.ok()) return left.status();
    auto extracted = ExtractBytes(name, std::move(bytes), *left);
    // The body itself unreadable is the caller's error (its policy's
    // unread action); a file in a form is a member, as in a mail.
    if (!extracted.ok() && member.empty()) return extracted.status();
    if (!extracted.ok()) {
      return SkipOrFail(extracted.status(), member, out_.skipped);
    }
    if (member.empty()) out_.format = extracted->format;
    for (ExtractedPart& part : extracted->parts) {
      part.name = Join(member, part.name);
      text_bytes_ += part.text.size();
      out_.parts.push_back(std::move(part));
    }
    for (SkippedPart& skipped : extracted->skipped) {
      skipped.name = Join(member, skipped.name);
      out_.skipped.push_back(std::move(skipped));
    }
    out_.invalid_sequences += extracted->invalid_sequences;
    out_.members += extracted->members + (member.empty() ? 0 : 1);
    return absl::OkStatus();
  }

  // The parts, the request's own text first (`format` names it).
  absl::StatusOr<Extraction> Finish(std::string format, size_t input_bytes) {
    if (!text_.empty()) {
      if (text_bytes_ + text_.size() > limits_.max_output_bytes) {
        return absl::ResourceExhaustedError(
            absl::StrCat("the request holds more than ",
                         limits_.max_output_bytes, " bytes of text"));
      }
      out_.parts.insert(out_.parts.begin(),
                        ExtractedPart{"", format, RepairUtf8(text_), ""});
    }
    if (out_.format.empty()) out_.format = std::move(format);
    out_.input_bytes = input_bytes;
    return std::move(out_);
  }

 private:
  static std::string Join(const std::string& member, const std::string& sub) {
    return sub.empty() ? member : JoinPart(member, sub);
  }

  // The limits of the next file: the request's time and text left. Past
  // the time, DeadlineExceeded (the whole request is then an error, as a
  // mail past --max-seconds is).
  absl::StatusOr<ExtractionLimits> Left() const {
    ExtractionLimits left = limits_;
    left.max_seconds -=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    if (left.max_seconds <= 0) {
      return absl::DeadlineExceededError(
          absl::StrCat("the request took longer than ", limits_.max_seconds,
                       " s to read (--max-seconds)"));
    }
    left.max_output_bytes -= std::min(text_bytes_, left.max_output_bytes);
    if (left.max_output_bytes == 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the request holds more than ", limits_.max_output_bytes,
                       " bytes of text"));
    }
    return left;
  }

  const ExtractionLimits& limits_;
  const std::chrono::steady_clock::time_point start_;
  size_t text_bytes_ = 0;  // of the files' parts so far
  std::string text_;
  uint32_t members_ = 0;
  Extraction out_;
};

absl::StatusOr<Extraction> ReadForm(const HttpRequestBody& request,
                                    const std::string& body,
                                    const ExtractionLimits& limits) {
  auto fields = ReadFormData(request.content_type, body, limits.max_members);
  if (!fields.ok()) return fields.status();
  BodyParts parts(limits);
  for (FormField& field : *fields) {
    if (field.filename.empty() &&
        absl::StartsWith(field.content_type, "text/")) {
      parts.AddText(RepairUtf8(field.bytes));
      continue;
    }
    // A file, or a field of another type (a blob a script appended).
    const std::string name = field.filename.empty()
                                 ? (field.name.empty() ? "blob" : field.name)
                                 : field.filename;
    const std::string member =
        absl::StrCat(field.name.empty() ? "file" : field.name, "/", name);
    absl::Status s = parts.AddFile(member, name, std::move(field.bytes));
    if (!s.ok()) return s;
  }
  return parts.Finish("form", body.size());
}

}  // namespace

std::string UrlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() &&
               HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 +
                                      HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

absl::StatusOr<Extraction> ExtractRequestBody(HttpRequestBody request,
                                              const ExtractionLimits& limits) {
  auto body = DecodeContent(request.content_encoding, std::move(request.body),
                            limits.max_input_bytes);
  if (!body.ok()) return body.status();
  const std::string type = MediaType(request.content_type);
  if (absl::StartsWith(type, "multipart/")) {
    return ReadForm(request, *body, limits);
  }
  BodyParts parts(limits);
  if (type == "application/x-www-form-urlencoded") {
    for (absl::string_view pair : absl::StrSplit(*body, '&')) {
      const size_t equals = pair.find('=');
      if (equals == absl::string_view::npos) continue;  // a name alone
      const absl::string_view value = pair.substr(equals + 1);
      parts.AddText(RepairUtf8(UrlDecode({value.data(), value.size()})));
    }
    return parts.Finish("form", body->size());
  }
  const bool json_type = type == "application/json" ||
                         absl::EndsWith(type, "+json") || type == "text/json";
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(*body);
  if (json_type ||
      (!trimmed.empty() && (trimmed[0] == '{' || trimmed[0] == '['))) {
    auto strings = JsonStrings(*body, limits.max_output_bytes);
    if (strings.ok()) {
      parts.AddText(*strings);
      return parts.Finish("json", body->size());
    }
    if (absl::IsResourceExhausted(strings.status())) return strings.status();
    // Not JSON after all: read below as whatever its content is.
  }
  const size_t size = body->size();
  absl::Status s =
      parts.AddFile("", UploadName(request.url_path), std::move(*body));
  if (!s.ok()) return s;
  return parts.Finish("text", size);
}

}  // namespace leakhound
