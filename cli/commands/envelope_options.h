// The envelope `scan --policy` and `policy explain` judge a file with: an
// e-mail (.eml, or any file GMime reads as a message) is judged as mail,
// from its From and its To and Cc; anything else as channel scan, without
// sender or recipients. --channel, --sender and --recipient (repeatable)
// override what the file says, so a file can be judged as the milter or
// the ICAP service would judge it; --channel scan drops the headers'
// addresses (a scan has none) unless --sender / --recipient give some.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_COMMANDS_ENVELOPE_OPTIONS_H_
#define LEAKHOUND_CLI_COMMANDS_ENVELOPE_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/commands/command_line.h"
#include "cli/formats/mime_extractor.h"
#include "cli/gateway/decision.h"

namespace leakhound {

// The options of a command that takes them.
inline constexpr OptionSpec kEnvelopeOptions[] = {
    {"channel", true}, {"sender", true}, {"recipient", true}};

struct EnvelopeOverrides {
  std::optional<std::string> channel;  // "mail", "scan" or "web"
  std::optional<std::string> sender;
  std::vector<std::string> recipients;  // empty: the file's
};

// The overrides given on `line`; InvalidArgument for a channel that is
// not mail, scan or web.
absl::StatusOr<EnvelopeOverrides> EnvelopeOverridesOf(const CommandLine& line);

// The envelope of a file whose headers are `mail` (nullopt: not an
// e-mail), with `overrides` applied.
Envelope EnvelopeOfFile(const std::optional<MailHeaders>& mail,
                        const EnvelopeOverrides& overrides);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_ENVELOPE_OPTIONS_H_
