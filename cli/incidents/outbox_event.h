// OutboxEvent: what the incident store queues for the security team's
// other systems (docs/siem.md): an incident when it is recorded, and a
// review action on one (resolved, mail released or deleted, purged). The
// outbox keeps it as a JSON payload (PERSISTED, "leakhound.event/1") next
// to its sequence number and stable id; cli/siem formats it as CEF, LEEF
// or a webhook's JSON. Never any protected text, and the stored payload no
// outbound text either: the text around a passage (snippets) is read from
// the incident when a destination asks for it.
//
// Thread-safety: plain values and pure functions.
#ifndef LEAKHOUND_CLI_INCIDENTS_OUTBOX_EVENT_H_
#define LEAKHOUND_CLI_INCIDENTS_OUTBOX_EVENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/incidents/incident.h"

namespace leakhound {

// PERSISTED: the payload's schema name.
inline constexpr char kOutboxSchema[] = "leakhound.event/1";

// At most this many recipients and snippets travel with an event (the
// count of recipients is always whole).
inline constexpr size_t kEventRecipients = 100;
inline constexpr size_t kEventSnippets = 10;

struct EventSnippet {
  std::string document;
  std::string text;  // the outbound text around the passage
};

struct OutboxEvent {
  // From the outbox row: its order, its stable id (32 hex characters) and
  // when it was queued (Unix ms).
  int64_t seq = 0;
  std::string id;
  int64_t time_ms = 0;
  // PERSISTED: "incident" or "review"; a review's action: "resolved",
  // "released", "deleted" (held mail), "purged", "labelled" (an admin
  // changed a document's labels on the console; `note` says which),
  // "overridden" (a sender released their held mail; `note`: the
  // justification), "override-revoked" (docs/overrides.md), or a case's
  // "assigned" (`note`: the owner, "" none), "commented" (`note`: the
  // comment) and "escalated" (`note`: to whom, and why).
  std::string type;
  std::string review;
  // The incident as recorded (a review: as it is when reviewed). channel
  // is the policy's name for the source: "mail", "web" or "scan".
  int64_t incident_id = 0;
  int64_t incident_ms = 0;
  std::string reference;
  std::string kind;
  std::string channel;
  std::string action;
  std::string would_action;
  std::string severity;  // "" when no rule matched
  std::string policy;
  std::vector<IncidentRule> rules;
  std::string sender;                   // web: the proxy user
  std::vector<std::string> recipients;  // web: the destination host
  uint64_t recipient_count = 0;
  std::string subject;
  std::string client;
  std::string method;
  std::string url;
  std::string file_path;
  std::string detail;
  std::vector<std::string> documents;  // protected documents (no tables)
  // Rows of protected tables in record terms ("3 rows of table customers
  // (columns card, name)"); `rows` their count.
  std::vector<std::string> records;
  uint64_t rows = 0;
  uint64_t words = 0;  // matched, over all documents
  std::vector<EventSnippet> snippets;
  // A review: who, the status set, the note, and for "purged" how many.
  std::string user;
  std::string status;
  std::string note;
  int64_t purged = 0;
};

// The event of `incident` just recorded (its id set). Without snippets:
// the outbox keeps no outbound text; a sender reads them from the incident
// for a destination that asks (AddSnippets).
OutboxEvent IncidentEvent(const Incident& incident);
// Sets `event`'s snippets from `incident`'s matches (the first
// kEventSnippets that kept one).
void AddSnippets(const Incident& incident, OutboxEvent* event);
// The event of a review action on `incident`.
OutboxEvent ReviewEvent(const Incident& incident, std::string_view review,
                        std::string_view user, std::string_view note);

// The payload the outbox keeps: every field but seq, id and time_ms. Bytes
// that are not UTF-8 become U+FFFD.
std::string EncodeOutboxPayload(const OutboxEvent& event);
// The fields of a payload; DataLoss when it is not one.
absl::StatusOr<OutboxEvent> DecodeOutboxPayload(std::string_view payload);

// A new event id: 128 random bits as 32 lowercase hex characters.
std::string NewEventId();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_OUTBOX_EVENT_H_
