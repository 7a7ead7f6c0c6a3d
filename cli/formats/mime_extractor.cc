// The one file that calls GMime.
#include "cli/formats/mime_extractor.h"

#include <gmime/gmime.h>
#include <strings.h>

#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "cli/formats/html_extractor.h"
#include "cli/formats/sensitivity_label.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

// Multipart nesting beyond this is an attack, not a mail (GMime's own
// limit stops its parser earlier; this bounds our walk).
constexpr int kMaxNesting = 64;

void InitGmime() {
  static std::once_flag once;
  std::call_once(once, [] { g_mime_init(); });
}

struct GObjectUnref {
  void operator()(void* p) const {
    if (p != nullptr) g_object_unref(p);
  }
};
template <typename T>
using GPtr = std::unique_ptr<T, GObjectUnref>;

// The parser's first critical finding, if any.
struct ParseIssues {
  std::string critical;
};

void OnParserWarning(gint64, GMimeParserWarning code, const gchar*,
                     gpointer data) {
  auto* issues = static_cast<ParseIssues*>(data);
  if (!issues->critical.empty()) return;
  switch (code) {
    case GMIME_WARN_TRUNCATED_MESSAGE:
      issues->critical = "truncated message";
      break;
    case GMIME_CRIT_NESTING_OVERFLOW:
      issues->critical = "MIME parts nested past GMime's limit";
      break;
    case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY:
      issues->critical = "multipart without a boundary";
      break;
    case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT:
      issues->critical = "a part without headers or content";
      break;
    default:
      break;
  }
}

// Lower-case words (runs of letters, digits and non-ASCII bytes).
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u)) {
      word += static_cast<char>(u >= 0x80 ? u : std::tolower(u));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// Whether at least 90 % of `other`'s words occur in `chosen`.
bool CoveredBy(std::string_view other, std::string_view chosen) {
  const std::vector<std::string> words = Words(other);
  if (words.empty()) return true;
  const std::vector<std::string> base = Words(chosen);
  const std::unordered_set<std::string> known(base.begin(), base.end());
  size_t found = 0;
  for (const std::string& w : words) {
    if (known.contains(w)) ++found;
  }
  return found * 10 >= words.size() * 9;
}

// A part's content decoded from its transfer encoding (and, `to_utf8`,
// from its charset).
absl::StatusOr<std::string> Content(GMimePart* part, bool to_utf8) {
  GMimeDataWrapper* content = g_mime_part_get_content(part);
  if (content == nullptr) return std::string();
  GPtr<GMimeStream> memory(g_mime_stream_mem_new());
  GPtr<GMimeStream> filtered(g_mime_stream_filter_new(memory.get()));
  const char* charset =
      g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "charset");
  // UTF-8 needs no conversion: DecodeText checks it (and reads malformed
  // text as it reads a text file). iconv's UTF-8 to UTF-8 was 2.6 % of the
  // milter's CPU (docs/mail-gateway.md, "Where the time goes").
  if (to_utf8 && charset != nullptr && strcasecmp(charset, "utf-8") != 0 &&
      strcasecmp(charset, "utf8") != 0) {
    GPtr<GMimeFilter> convert(g_mime_filter_charset_new(charset, "UTF-8"));
    if (convert != nullptr) {
      g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered.get()),
                               convert.get());
    }
  }
  if (g_mime_data_wrapper_write_to_stream(content, filtered.get()) < 0 ||
      g_mime_stream_flush(filtered.get()) < 0) {
    return absl::InvalidArgumentError("a MIME part could not be decoded");
  }
  GByteArray* bytes =
      g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(memory.get()));
  if (bytes == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(bytes->data), bytes->len);
}

class Walker {
 public:
  explicit Walker(ExtractionSink& sink) : sink_(sink) {}

  absl::Status Message(GMimeMessage* message) {
    std::string text;
    if (const char* subject = g_mime_message_get_subject(message)) {
      absl::StrAppend(&text, RepairUtf8(subject), "\n\n");
    }
    // The label Outlook sets on the message as a whole (docs/labels.md).
    if (const char* labels =
            g_mime_object_get_header(GMIME_OBJECT(message), "msip_labels")) {
      if (auto found = ReadMsipLabelsHeader(labels); !found.empty()) {
        sink_.NoteLabels(found);
      }
    }
    if (GMimeObject* body = g_mime_message_get_mime_part(message)) {
      if (auto s = Object(body, &text, 0); !s.ok()) return s;
    }
    return sink_.AppendText(text);
  }

 private:
  absl::Status Object(GMimeObject* object, std::string* text, int nesting) {
    if (nesting > kMaxNesting) {
      return absl::InvalidArgumentError(
          absl::StrCat("MIME parts nested deeper than ", kMaxNesting));
    }
    if (auto s = sink_.CheckTime(); !s.ok()) return s;
    if (GMIME_IS_MULTIPART(object)) {
      return Multipart(GMIME_MULTIPART(object), text, nesting);
    }
    if (GMIME_IS_MESSAGE_PART(object)) {
      GMimeMessage* inner =
          g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
      if (inner == nullptr) return absl::OkStatus();
      const char* filename =
          g_mime_object_get_content_disposition_parameter(object, "filename");
      const std::string name =
          filename != nullptr ? std::string(filename)
                              : absl::StrCat("forwarded-", ++unnamed_, ".eml");
      auto child = sink_.OpenMember(name, "mail");
      if (!child.ok()) return child.status();
      return Walker(**child).Message(inner);
    }
    if (GMIME_IS_PART(object)) return Part(GMIME_PART(object), text);
    return absl::OkStatus();
  }

  absl::Status Multipart(GMimeMultipart* multipart, std::string* text,
                         int nesting) {
    const int count = g_mime_multipart_get_count(multipart);
    GMimeContentType* type =
        g_mime_object_get_content_type(GMIME_OBJECT(multipart));
    if (type == nullptr ||
        !g_mime_content_type_is_type(type, "multipart", "alternative")) {
      for (int i = 0; i < count; ++i) {
        if (auto s = Object(g_mime_multipart_get_part(multipart, i), text,
                            nesting + 1);
            !s.ok()) {
          return s;
        }
      }
      return absl::OkStatus();
    }
    std::vector<std::string> alternatives(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      if (auto s = Object(g_mime_multipart_get_part(multipart, i),
                          &alternatives[static_cast<size_t>(i)], nesting + 1);
          !s.ok()) {
        return s;
      }
    }
    int chosen = count - 1;
    while (chosen >= 0 && alternatives[static_cast<size_t>(chosen)].empty()) {
      --chosen;
    }
    if (chosen < 0) return absl::OkStatus();
    const std::string& best = alternatives[static_cast<size_t>(chosen)];
    absl::StrAppend(text, best, "\n");
    for (int i = 0; i < count; ++i) {
      const std::string& other = alternatives[static_cast<size_t>(i)];
      if (i != chosen && !CoveredBy(other, best)) {
        absl::StrAppend(text, other, "\n");
      }
    }
    return absl::OkStatus();
  }

  // The decoded content of `part` (transfer encoding undone), as bytes:
  // never through a C string, so a NUL byte cannot cut the text short.
  // With `to_utf8`, converted from the part's declared charset.
  absl::Status Part(GMimePart* part, std::string* text) {
    GMimeContentType* type = g_mime_object_get_content_type(GMIME_OBJECT(part));
    const bool plain =
        type != nullptr && g_mime_content_type_is_type(type, "text", "plain");
    const bool html =
        type != nullptr && g_mime_content_type_is_type(type, "text", "html");
    if ((plain || html) && !g_mime_part_is_attachment(part)) {
      auto raw = Content(part, /*to_utf8=*/true);
      if (!raw.ok()) return raw.status();
      // Declared charsets are converted above; text without one (or with
      // one iconv does not know) is detected as a text file is.
      auto decoded = DecodeText(std::move(*raw));
      if (!decoded.ok()) return decoded.status();
      sink_.NoteDecoding(decoded->encoding, decoded->invalid_sequences);
      std::string utf8 = std::move(decoded->utf8);
      if (html) {
        auto converted = HtmlToText(utf8, sink_.limits().max_output_bytes);
        if (!converted.ok()) return converted.status();
        utf8 = std::move(*converted);
      }
      absl::StrAppend(text, utf8, "\n");
      return absl::OkStatus();
    }
    // An attachment or a non-text part: its decoded bytes, as a member.
    auto data = Content(part, /*to_utf8=*/false);
    if (!data.ok()) return data.status();
    const char* filename = g_mime_part_get_filename(part);
    const std::string name = filename != nullptr && *filename != '\0'
                                 ? RepairUtf8(filename)
                                 : absl::StrCat("part-", ++unnamed_);
    return sink_.AddMember(name, std::move(*data));
  }

  ExtractionSink& sink_;
  int unnamed_ = 0;
};

}  // namespace

absl::Status MimeExtractor::Extract(std::string_view bytes,
                                    ExtractionSink& sink) const {
  InitGmime();
  GPtr<GMimeStream> stream(
      g_mime_stream_mem_new_with_buffer(bytes.data(), bytes.size()));
  GPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
  g_mime_parser_set_format(parser.get(), input_ == kMailbox
                                              ? GMIME_FORMAT_MBOX
                                              : GMIME_FORMAT_MESSAGE);
  std::unique_ptr<GMimeParserOptions, decltype(&g_mime_parser_options_free)>
      options(g_mime_parser_options_new(), &g_mime_parser_options_free);
  ParseIssues issues;
  g_mime_parser_options_set_warning_callback(options.get(), &OnParserWarning,
                                             &issues);
  for (int n = 1;; ++n) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    GPtr<GMimeMessage> message(
        g_mime_parser_construct_message(parser.get(), options.get()));
    if (!issues.critical.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed e-mail (GMime: ", issues.critical, ")"));
    }
    if (message == nullptr) {
      if (n == 1) {
        return absl::InvalidArgumentError(
            "malformed e-mail (GMime found no message)");
      }
      return absl::OkStatus();
    }
    if (input_ == kMessage) return Walker(sink).Message(message.get());
    auto child = sink.OpenMember(absl::StrCat("message-", n), "mail");
    if (!child.ok()) return child.status();
    if (auto s = Walker(**child).Message(message.get()); !s.ok()) return s;
    if (g_mime_parser_eos(parser.get())) return absl::OkStatus();
  }
}

namespace {

// The addresses of `list` (groups flattened), as "local@domain".
void AppendAddresses(InternetAddressList* list, std::vector<std::string>* out) {
  if (list == nullptr) return;
  const int count = internet_address_list_length(list);
  for (int i = 0; i < count; ++i) {
    InternetAddress* address = internet_address_list_get_address(list, i);
    if (INTERNET_ADDRESS_IS_MAILBOX(address)) {
      const char* addr =
          internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address));
      if (addr != nullptr && *addr != '\0') out->push_back(addr);
    } else if (INTERNET_ADDRESS_IS_GROUP(address)) {
      AppendAddresses(internet_address_group_get_members(
                          INTERNET_ADDRESS_GROUP(address)),
                      out);
    }
  }
}

}  // namespace

std::optional<MailHeaders> ReadMailHeaders(std::string_view bytes) {
  InitGmime();
  GPtr<GMimeStream> stream(
      g_mime_stream_mem_new_with_buffer(bytes.data(), bytes.size()));
  GPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
  g_mime_parser_set_format(parser.get(), GMIME_FORMAT_MESSAGE);
  GPtr<GMimeMessage> message(
      g_mime_parser_construct_message(parser.get(), nullptr));
  if (message == nullptr) return std::nullopt;
  MailHeaders headers;
  std::vector<std::string> from;
  AppendAddresses(g_mime_message_get_from(message.get()), &from);
  if (!from.empty()) headers.from = from.front();
  AppendAddresses(g_mime_message_get_to(message.get()), &headers.recipients);
  AppendAddresses(g_mime_message_get_cc(message.get()), &headers.recipients);
  if (const char* subject = g_mime_message_get_subject(message.get())) {
    headers.subject = subject;
  }
  if (const char* id = g_mime_message_get_message_id(message.get())) {
    headers.message_id = absl::StrCat("<", id, ">");
  }
  if (GDateTime* date = g_mime_message_get_date(message.get())) {
    headers.date_ms = int64_t{g_date_time_to_unix(date)} * 1000;
  }
  if (headers.from.empty() && headers.subject.empty()) return std::nullopt;
  return headers;
}

absl::StatusOr<std::vector<FormField>> ReadFormData(
    std::string_view content_type, std::string_view body, size_t max_fields) {
  InitGmime();
  // The body behind its one header, as a MIME entity GMime parses.
  std::string entity = "Content-Type: ";
  entity.append(content_type).append("\r\n\r\n").append(body);
  GPtr<GMimeStream> stream(
      g_mime_stream_mem_new_with_buffer(entity.data(), entity.size()));
  GPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
  GPtr<GMimeObject> object(g_mime_parser_construct_part(parser.get(), nullptr));
  if (object == nullptr || !GMIME_IS_MULTIPART(object.get())) {
    return absl::InvalidArgumentError(
        "a multipart/form-data body without its boundary");
  }
  GMimeMultipart* multipart = GMIME_MULTIPART(object.get());
  const int count = g_mime_multipart_get_count(multipart);
  if (count <= 0) {
    return absl::InvalidArgumentError(
        "a multipart/form-data body without a part of its boundary");
  }
  if (static_cast<size_t>(count) > max_fields) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a form of more than ", max_fields, " fields"));
  }
  std::vector<FormField> fields;
  for (int i = 0; i < count; ++i) {
    GMimeObject* child = g_mime_multipart_get_part(multipart, i);
    if (!GMIME_IS_PART(child)) {  // a nested multipart (RFC 2388 mixed)
      return absl::InvalidArgumentError(
          "a form field that is itself multipart");
    }
    FormField field;
    if (const char* name =
            g_mime_object_get_content_disposition_parameter(child, "name")) {
      field.name = RepairUtf8(name);
    }
    if (const char* filename = g_mime_part_get_filename(GMIME_PART(child))) {
      field.filename = RepairUtf8(filename);
    }
    if (GMimeContentType* type = g_mime_object_get_content_type(child)) {
      field.content_type =
          absl::StrCat(g_mime_content_type_get_media_type(type), "/",
                       g_mime_content_type_get_media_subtype(type));
    }
    auto bytes = Content(GMIME_PART(child), /*to_utf8=*/false);
    if (!bytes.ok()) return bytes.status();
    field.bytes = std::move(*bytes);
    fields.push_back(std::move(field));
  }
  // Text before the first boundary or after the last reaches the server
  // too: it is kept as fields without a name.
  for (const char* extra : {g_mime_multipart_get_prologue(multipart),
                            g_mime_multipart_get_epilogue(multipart)}) {
    if (extra != nullptr && *extra != '\0') {
      fields.push_back(FormField{"", "", "text/plain", extra});
    }
  }
  return fields;
}

std::string GmimeVersion() {
  return absl::StrCat(gmime_major_version, ".", gmime_minor_version, ".",
                      gmime_micro_version);
}

}  // namespace leakhound
