#include "cli/commands/envelope_options.h"

#include "absl/strings/ascii.h"

namespace leakhound {

absl::StatusOr<EnvelopeOverrides> EnvelopeOverridesOf(const CommandLine& line) {
  EnvelopeOverrides o;
  o.channel = line.Value("channel");
  if (o.channel && *o.channel != "mail" && *o.channel != "scan" &&
      *o.channel != "web") {
    return absl::InvalidArgumentError("--channel is mail, scan or web");
  }
  if (auto s = line.Value("sender")) o.sender = absl::AsciiStrToLower(*s);
  for (const std::string& r : line.Values("recipient")) {
    o.recipients.push_back(absl::AsciiStrToLower(r));
  }
  return o;
}

Envelope EnvelopeOfFile(const std::optional<MailHeaders>& mail,
                        const EnvelopeOverrides& overrides) {
  Envelope e{"scan", "", {}};
  if (mail) {
    e.channel = "mail";
    e.sender = absl::AsciiStrToLower(mail->from);
    for (const std::string& r : mail->recipients) {
      e.recipients.push_back(absl::AsciiStrToLower(r));
    }
  }
  if (overrides.channel) e.channel = *overrides.channel;
  // A scan has no envelope: the headers' addresses go with the mail.
  if (e.channel == "scan") {
    e.sender.clear();
    e.recipients.clear();
  }
  if (overrides.sender) e.sender = *overrides.sender;
  if (!overrides.recipients.empty()) e.recipients = overrides.recipients;
  return e;
}

}  // namespace leakhound
