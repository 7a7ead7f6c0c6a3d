// nlohmann-json is called here only (its exceptions end in this file).
#include "cli/incidents/outbox_event.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace leakhound {

namespace {

using Json = nlohmann::json;

template <typename T>
void Read(const Json& object, const char* key, T& out) {
  if (auto it = object.find(key); it != object.end() && !it->is_null()) {
    out = it->get<T>();
  }
}

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
      i.recipients.begin() +
          static_cast<ptrdiff_t>(std::min(i.recipients.size(), kEventRecipients)));
  e.subject = i.subject;
  e.client = i.client;
  e.method = i.method;
  e.url = i.url;
  e.file_path = i.file_path;
  e.detail = i.detail;
  e.documents = i.documents.empty() ? DistinctDocuments(i.matches) : i.documents;
  if (!i.facts.empty()) {
    for (const IncidentDocument& d : i.facts) e.words += d.words;
  } else {
    for (const IncidentMatch& m : i.matches) e.words += m.words;
  }
  return e;
}

}  // namespace

std::string ChannelOf(std::string_view source) {
  return source == "milter" ? "mail" : std::string(source);
}

OutboxEvent IncidentEvent(const Incident& incident) {
  OutboxEvent e = Common(incident);
  e.type = "incident";
  for (const IncidentMatch& m : incident.matches) {
    if (e.snippets.size() == kEventSnippets) break;
    if (!m.snippet.empty()) e.snippets.push_back({m.document, m.snippet});
  }
  return e;
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
  Json rules = Json::array();
  for (const IncidentRule& r : e.rules) {
    rules.push_back({{"rule", r.rule},
                     {"severity", r.severity},
                     {"action", r.action},
                     {"monitor", r.monitor}});
  }
  Json snippets = Json::array();
  for (const EventSnippet& s : e.snippets) {
    snippets.push_back({{"document", s.document}, {"text", s.text}});
  }
  const Json j = {{"schema", kOutboxSchema},
                  {"type", e.type},
                  {"review", e.review},
                  {"incident_id", e.incident_id},
                  {"incident_ms", e.incident_ms},
                  {"reference", e.reference},
                  {"kind", e.kind},
                  {"channel", e.channel},
                  {"action", e.action},
                  {"would_action", e.would_action},
                  {"severity", e.severity},
                  {"policy", e.policy},
                  {"rules", std::move(rules)},
                  {"sender", e.sender},
                  {"recipients", e.recipients},
                  {"recipient_count", e.recipient_count},
                  {"subject", e.subject},
                  {"client", e.client},
                  {"method", e.method},
                  {"url", e.url},
                  {"file_path", e.file_path},
                  {"detail", e.detail},
                  {"documents", e.documents},
                  {"words", e.words},
                  {"snippets", std::move(snippets)},
                  {"user", e.user},
                  {"status", e.status},
                  {"note", e.note},
                  {"purged", e.purged}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

absl::StatusOr<OutboxEvent> DecodeOutboxPayload(std::string_view payload) {
  try {
    const Json j = Json::parse(payload);
    if (!j.is_object() || j.value("schema", "") != kOutboxSchema) {
      return absl::DataLossError("outbox event: not a leakhound.event/1");
    }
    OutboxEvent e;
    Read(j, "type", e.type);
    Read(j, "review", e.review);
    Read(j, "incident_id", e.incident_id);
    Read(j, "incident_ms", e.incident_ms);
    Read(j, "reference", e.reference);
    Read(j, "kind", e.kind);
    Read(j, "channel", e.channel);
    Read(j, "action", e.action);
    Read(j, "would_action", e.would_action);
    Read(j, "severity", e.severity);
    Read(j, "policy", e.policy);
    for (const Json& r : j.value("rules", Json::array())) {
      IncidentRule rule;
      Read(r, "rule", rule.rule);
      Read(r, "severity", rule.severity);
      Read(r, "action", rule.action);
      Read(r, "monitor", rule.monitor);
      e.rules.push_back(std::move(rule));
    }
    Read(j, "sender", e.sender);
    Read(j, "recipients", e.recipients);
    Read(j, "recipient_count", e.recipient_count);
    Read(j, "subject", e.subject);
    Read(j, "client", e.client);
    Read(j, "method", e.method);
    Read(j, "url", e.url);
    Read(j, "file_path", e.file_path);
    Read(j, "detail", e.detail);
    Read(j, "documents", e.documents);
    Read(j, "words", e.words);
    for (const Json& s : j.value("snippets", Json::array())) {
      EventSnippet snippet;
      Read(s, "document", snippet.document);
      Read(s, "text", snippet.text);
      e.snippets.push_back(std::move(snippet));
    }
    Read(j, "user", e.user);
    Read(j, "status", e.status);
    Read(j, "note", e.note);
    Read(j, "purged", e.purged);
    return e;
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
