#include "cli/web/request_body.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/formats/mime_extractor.h"
#include "cli/web/content_coding.h"
#include "cli/web/embedded_file.h"
#include "cli/web/json_strings.h"
#include "cli/web/url_decode.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

// The media type of a Content-Type value, lower case, without parameters.
std::string MediaType(std::string_view content_type) {
  const std::string_view type = content_type.substr(0, content_type.find(';'));
  return absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(absl::string_view(type.data(), type.size())));
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

  // A form or JSON value of field `field`: its text, and the file a
  // browser app may have put in it (a data: URI, base64, a file's raw
  // bytes; embedded_file.h), read for what it is within the budget.
  absl::Status AddValue(std::string_view field, std::string value) {
    std::optional<EmbeddedFile> file = EmbeddedFileIn(value);
    if (!file.has_value() || file->value_may_be_text) {
      AddText(RepairUtf8(value));
    }
    if (!file.has_value()) return absl::OkStatus();
    const std::string member = absl::StrCat(
        field.empty() ? "value" : std::string(field), "/", file->name);
    return AddFile(member, file->name, std::move(file->bytes));
  }

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
    // Bytes no extractor reads (binary data, a format without text) are
    // unread whether they are the body or a file in a form: one kind of
    // input, one answer (the channel's on_unreadable, or a rule's). Any
    // other failure of the body is the request's error.
    if (!extracted.ok() && member.empty() &&
        !absl::IsUnimplemented(extracted.status())) {
      return extracted.status();
    }
    if (!extracted.ok()) {
      return SkipOrFail(extracted.status(), member.empty() ? name : member,
                        out_.skipped);
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
      absl::Status s = parts.AddValue(field.name, std::move(field.bytes));
      if (!s.ok()) return s;
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
      absl::Status s = parts.AddValue(
          UrlDecode({pair.data(), equals}),
          UrlDecode({value.data(), value.size()}));
      if (!s.ok()) return s;
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
      for (std::string& value : *strings) {
        absl::Status s = parts.AddValue("json", std::move(value));
        if (!s.ok()) return s;
      }
      return parts.Finish("json", body->size());
    }
    if (absl::IsResourceExhausted(strings.status())) return strings.status();
    // Not JSON after all: read below as whatever its content is.
  }
  const size_t size = body->size();
  // An HTML body is read as HTML, whatever its wrapper (a fragment has no
  // <html> for the type check to see).
  std::string name = UploadName(request.url_path);
  if ((type == "text/html" || type == "application/xhtml+xml") &&
      !absl::EndsWithIgnoreCase(name, ".html") &&
      !absl::EndsWithIgnoreCase(name, ".htm")) {
    name += ".html";
  }
  absl::Status s = parts.AddFile("", name, std::move(*body));
  if (!s.ok()) return s;
  return parts.Finish("text", size);
}

}  // namespace leakhound
