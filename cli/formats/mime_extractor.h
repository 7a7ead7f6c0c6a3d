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

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/formats/text_extractor.h"

namespace leakhound {

// A message's own envelope, as its headers give it (what `scan --record`
// stores for an .eml, as the milter stores the SMTP envelope).
struct MailHeaders {
  std::string from;                     // the first From address
  std::vector<std::string> recipients;  // To, then Cc, addresses
  std::string subject;                  // decoded (RFC 2047), UTF-8
  std::string message_id;               // with its angle brackets
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

// The GMime version (for `leakhound --version`).
std::string GmimeVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_MIME_EXTRACTOR_H_
