// MimeExtractor: e-mail (RFC 5322 / MIME) and mailboxes (mbox), parsed by
// GMime 3. The one place that calls GMime.
//
// A message's own part is its subject and its body text: text/plain parts
// decoded from any transfer encoding and charset, text/html parts through
// the HTML extractor. Of a multipart/alternative, the preferred (last)
// alternative with text is scanned; another alternative is scanned too
// only if its words are not already there (a plain half that differs
// from the HTML half could hide a leak), so the usual two halves of one
// text are never counted twice. Attachments and non-text parts become
// members, extracted by their content (a .docx attachment is read as a
// document); message/rfc822 parts (forwarded messages) become members
// walked the same way. Each message of an mbox is a member "message-N".
//
// A message GMime reports as truncated, nested past its limit, or with
// parts it had to skip is an error: text it lost could hide a leak.
//
// Thread-safety: stateless; GMime is initialized once, each call parses
// its own copy of the input.
#ifndef LEAKHOUND_CLI_FORMATS_MIME_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_MIME_EXTRACTOR_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// A message's own envelope, as its headers give it (what `scan --record`
// stores for an .eml, as the milter stores the SMTP envelope).
struct MailHeaders {
  std::string from;                     // the first From address
  std::vector<std::string> recipients;  // To, then Cc, addresses
  std::string subject;                  // decoded (RFC 2047), UTF-8
  std::string message_id;               // with its angle brackets
  int64_t date_ms = 0;                  // its Date (Unix ms); 0: none
};

// The headers of the RFC 5322 message `bytes`, or nullopt when GMime finds
// no message with a From or a Subject there.
std::optional<MailHeaders> ReadMailHeaders(std::string_view bytes);

class MimeExtractor : public TextExtractor {
 public:
  enum Input { kMessage, kMailbox };
  explicit MimeExtractor(Input input) : input_(input) {}
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;

 private:
  const Input input_;
};

// One field of a multipart/form-data body (RFC 7578): a form's text field,
// or a file (`filename` set) with its bytes as sent.
struct FormField {
  std::string name;          // the field's name ("" if none)
  std::string filename;      // "" for a field that is not a file
  std::string content_type;  // "text/plain" unless the part says
  std::string bytes;         // decoded from any transfer encoding
};

// The fields of a multipart/form-data body, in order, then any text before
// the first boundary and after the last (as text fields without a name).
// `content_type` is the request's Content-Type header value (it holds the
// boundary). InvalidArgument for a body without a part of that boundary or
// with a field that is itself multipart; ResourceExhausted past
// `max_fields`.
absl::StatusOr<std::vector<FormField>> ReadFormData(
    std::string_view content_type, std::string_view body, size_t max_fields);

// The GMime version (for `leakhound --version`).
std::string GmimeVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_MIME_EXTRACTOR_H_
