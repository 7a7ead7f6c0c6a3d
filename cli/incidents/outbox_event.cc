// nlohmann-json is called here only (its exceptions end in this file).
#include "cli/incidents/outbox_event.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/incidents/incident_evidence.h"
#include "nlohmann/json.hpp"

namespace leakhound {

using Json = nlohmann::json;

// The payload's fields, one list for writing and reading (a field missing
// from a payload reads as its default).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(IncidentRule, rule, severity,
                                                action, monitor, documents)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EventSnippet, document, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(
    OutboxEvent, type, review, incident_id, incident_ms, reference, kind,
    channel, action, would_action, severity, policy, rules, sender, recipients,
    recipient_count, subject, client, method, url, file_path, detail, documents,
    records, rows, words, snippets, user, status, note, purged)

namespace {

// Fills what incidents and reviews have in common.
OutboxEvent Common(const Incident& i) {
  OutboxEvent e;
  e.incident_id = i.id;
  e.incident_ms = i.time_ms;
  e.reference = i.reference;
  e.kind = i.kind;
  e.channel = ChannelOf(i.source);
  e.action = i.action;
  e.would_action = i.would_action;
  e.severity = i.severity;
  e.policy = i.policy;
  e.rules = i.rules;
  e.sender = i.sender;
  e.recipient_count = i.recipients.size();
  e.recipients.assign(
      i.recipients.begin(),
      i.recipients.begin() + static_cast<ptrdiff_t>(std::min(
                                 i.recipients.size(), kEventRecipients)));
  e.subject = i.subject;
  e.client = i.client;
  e.method = i.method;
  e.url = i.url;
  e.file_path = i.file_path;
  e.detail = i.detail;
  for (const std::string& d :
       i.documents.empty() ? DistinctDocuments(i.matches) : i.documents) {
    if (!d.starts_with(kTableFactPrefix)) e.documents.push_back(d);
  }
  e.records = RecordTerms(i.matches);
  for (const IncidentMatch& m : i.matches) {
    if (m.document.starts_with(kTableFactPrefix)) ++e.rows;
  }
  if (!i.facts.empty()) {
    for (const IncidentDocument& d : i.facts) {
      if (!d.document.starts_with(kTableFactPrefix) &&
          !d.document.starts_with(kIdentifierFactPrefix) &&
          !d.document.starts_with(kPartFactPrefix) &&
          !d.document.starts_with(kCumulativeFactPrefix)) {
        e.words += d.words;
      }
    }
  } else {
    for (const IncidentMatch& m : i.matches) e.words += m.words;
  }
  return e;
}

}  // namespace

OutboxEvent IncidentEvent(const Incident& incident) {
  OutboxEvent e = Common(incident);
  e.type = "incident";
  return e;
}

void AddSnippets(const Incident& incident, OutboxEvent* event) {
  event->snippets.clear();
  for (const IncidentMatch& m : incident.matches) {
    if (event->snippets.size() == kEventSnippets) break;
    if (!m.snippet.empty()) event->snippets.push_back({m.document, m.snippet});
  }
}

OutboxEvent ReviewEvent(const Incident& incident, std::string_view review,
                        std::string_view user, std::string_view note) {
  OutboxEvent e = Common(incident);
  e.type = "review";
  e.review = std::string(review);
  e.user = std::string(user);
  e.status = incident.status;
  e.note = std::string(note);
  return e;
}

std::string EncodeOutboxPayload(const OutboxEvent& e) {
  Json j = e;
  j["schema"] = kOutboxSchema;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

absl::StatusOr<OutboxEvent> DecodeOutboxPayload(std::string_view payload) {
  try {
    const Json j = Json::parse(payload);
    if (!j.is_object() || j.value("schema", "") != kOutboxSchema) {
      return absl::DataLossError("outbox event: not a leakhound.event/1");
    }
    return j.get<OutboxEvent>();
  } catch (const Json::exception& error) {
    return absl::DataLossError(
        absl::StrCat("outbox event: cannot be read: ", error.what()));
  }
}

std::string NewEventId() {
  thread_local std::mt19937_64 random = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  return absl::StrFormat("%016x%016x", random(), random());
}

}  // namespace leakhound
