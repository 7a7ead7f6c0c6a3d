// EventFormats: an outbox event (cli/incidents/outbox_event.h) as a SIEM
// or a webhook reads it (docs/siem.md has the field mapping and samples):
//   - CEF (ArcSight Common Event Format, version 0): header fields escape
//     '\' and '|', extension values escape '\', '=', CR and LF;
//   - LEEF 2.0 (IBM QRadar) with the tab as its declared delimiter (x09):
//     LEEF has no escapes of its own, so a value never carries the
//     delimiter or a line break: '\', tab, CR and LF are written \\, \t, \r
//     and \n;
//   - the webhook's JSON body, schema "leakhound.webhook/1".
// Values are made UTF-8 (ill-formed bytes become U+FFFD) and other control
// characters become spaces. The outbound snippets are included only when
// `include_snippets`; protected text is never in an event.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_SIEM_EVENT_FORMATS_H_
#define LEAKHOUND_CLI_SIEM_EVENT_FORMATS_H_

#include <string>
#include <string_view>

#include "cli/incidents/outbox_event.h"

namespace leakhound {

// PERSISTED (receivers parse them): the webhook body's schema name.
inline constexpr char kWebhookSchema[] = "leakhound.webhook/1";

struct EventFormatOptions {
  bool include_snippets = false;
  // The console's address; events then carry a link to the incident
  // (CONSOLE/incidents?reference=LH-...). "": no link.
  std::string console_url;
};

// The event's name for a SIEM's event class: "incident:leak",
// "incident:error", "incident:unread", "review:resolved",
// "review:released", "review:deleted", "review:purged". PERSISTED.
std::string EventClass(const OutboxEvent& event);

// The event's gravity on CEF's and LEEF's 0..10 scale: info 1, low 3,
// medium 6, high 9; an incident no rule matched (an error, unread parts)
// 3; a review 1. And as a syslog severity (RFC 5424): high 2 (critical),
// medium 4 (warning), low 5 (notice), info and reviews 6 (informational),
// none 4.
int ScaledSeverity(const OutboxEvent& event);
int SyslogSeverity(const OutboxEvent& event);

std::string CefMessage(const OutboxEvent& event,
                       const EventFormatOptions& options);
std::string LeefMessage(const OutboxEvent& event,
                        const EventFormatOptions& options);
std::string WebhookBody(const OutboxEvent& event,
                        const EventFormatOptions& options);

// Escapes as the formats do (exposed for tests).
std::string CefHeaderEscape(std::string_view value);
std::string CefValueEscape(std::string_view value);
std::string LeefValueEscape(std::string_view value);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_SIEM_EVENT_FORMATS_H_
