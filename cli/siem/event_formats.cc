// nlohmann-json is called here only, for the webhook's body.
#include "cli/siem/event_formats.h"

#include <arpa/inet.h>

#include <algorithm>
#include <ctime>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "shingler/text_decoder.h"

namespace leakhound {

namespace {

using Json = nlohmann::json;

constexpr char kVendor[] = "leakhound";
constexpr char kProduct[] = "leakhound";

// Valid UTF-8, C0 controls (but tab, CR, LF) and DEL as spaces.
std::string Clean(std::string_view value) {
  std::string out = RepairUtf8(value);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\r' && c != '\n') || u == 0x7F) {
      c = ' ';
    }
  }
  return out;
}

// `value` made Clean, each character of `table` written as its text.
std::string Replaced(
    std::string_view value,
    std::initializer_list<std::pair<char, const char*>> table) {
  std::string out;
  for (char c : Clean(value)) {
    const auto* hit = std::find_if(table.begin(), table.end(),
                                   [c](const auto& p) { return p.first == c; });
    if (hit != table.end()) {
      out += hit->second;
    } else {
      out += c;
    }
  }
  return out;
}

bool IsIpAddress(const std::string& text) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

std::string Link(const OutboxEvent& e, const EventFormatOptions& options) {
  if (options.console_url.empty() || e.reference.empty()) return "";
  std::string base = options.console_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return absl::StrCat(base, "/incidents?reference=", e.reference);
}

std::string EventName(const OutboxEvent& e) {
  if (e.type == "review") {
    if (e.review == "resolved") return "Incident reviewed";
    if (e.review == "released") return "Held mail released";
    if (e.review == "deleted") return "Held mail deleted";
    if (e.review == "purged") return "Incidents purged";
    if (e.review == "labelled") return "Document labels changed";
    if (e.review == "overridden") return "Sender override used";
    if (e.review == "override-revoked") return "Sender override revoked";
    if (e.review == "assigned") return "Incident assigned";
    if (e.review == "commented") return "Incident comment";
    if (e.review == "escalated") return "Incident escalated";
    // Discovery's remediations (docs/discover.md).
    if (e.review == "quarantined") return "File at rest quarantined";
    if (e.review == "restricted") return "File at rest restricted";
    if (e.review == "owner-notified") return "File owner notified";
    if (e.review == "logged") return "File at rest logged";
    if (e.review == "closed") return "Finding at rest closed";
    if (e.review == "restored") return "Remediation undone";
    return "Incident review";
  }
  if (e.kind == "leak" && e.channel == "discover") {
    return "Protected content at rest";
  }
  if (e.kind == "leak") return "Protected text leaving";
  if (e.kind == "error") return "Message could not be judged";
  if (e.kind == "unread") return "Message with unread parts";
  return "Incident";
}

// The time of what the event reports (the incident's; a purge's queueing).
int64_t EventMs(const OutboxEvent& e) {
  return e.type == "incident" && e.incident_ms != 0 ? e.incident_ms : e.time_ms;
}

std::string RuleNames(const OutboxEvent& e) {
  std::vector<std::string> names;
  for (const IncidentRule& r : e.rules) names.push_back(r.rule);
  return absl::StrJoin(names, ",");
}

std::string Snippets(const OutboxEvent& e) {
  std::vector<std::string> texts;
  for (const EventSnippet& s : e.snippets) {
    texts.push_back(absl::StrCat(s.document, ": ", s.text));
  }
  return absl::StrJoin(texts, "\n");
}

// The fields both CEF and LEEF carry, as (CEF key, LEEF key, value); an
// empty key: the format has no such field.
struct Field {
  const char* cef;
  const char* leef;
  std::string value;
};

std::vector<Field> Fields(const OutboxEvent& e,
                          const EventFormatOptions& options) {
  std::vector<Field> f;
  auto add = [&](const char* cef, const char* leef, std::string value) {
    if (!value.empty()) f.push_back({cef, leef, std::move(value)});
  };
  add("cat", "cat", e.channel);
  add("act", "action", e.action);
  add("", "wouldAction", e.would_action);
  add("suser", "usrName", e.sender);
  const std::string recipients = absl::StrJoin(e.recipients, ",");
  if (e.channel == "web") {
    add("dhost", "dhost", recipients);
  } else {
    add("duser", "recipients", recipients);
  }
  if (e.recipient_count > e.recipients.size()) {
    add("cnt", "recipientCount", absl::StrCat(e.recipient_count));
  }
  if (IsIpAddress(e.client)) {
    add("src", "src", e.client);
  } else {
    add("shost", "srcHost", e.client);
  }
  add("requestMethod", "method", e.method);
  add("request", "url", e.url);
  add("filePath", "resource", e.file_path);
  add("msg", "subject", e.subject);
  add("externalId", "reference", e.reference);
  add("cs1", "policy", e.policy);
  add("cs2", "rules", RuleNames(e));
  add("cs3", "documents", absl::StrJoin(e.documents, ","));
  // Rows of protected tables in record terms (LEEF, JSON); CEF, out of
  // custom strings, carries their count.
  add("", "records", absl::StrJoin(e.records, "; "));
  if (e.rows > 0) add("flexNumber1", "rows", absl::StrCat(e.rows));
  add("cs4", "link", Link(e, options));
  add("cs5", "eventId", e.id);
  add("cs6", "reviewer", e.user);
  add("flexString2", "severity", e.severity);
  add("outcome", "status", e.type == "review" ? e.status : "");
  add("reason", "reason", e.type == "review" ? e.note : e.detail);
  if (e.type == "incident") add("cn1", "words", absl::StrCat(e.words));
  if (e.incident_id != 0) add("cn2", "incidentId", absl::StrCat(e.incident_id));
  add("cn3", "sequence", absl::StrCat(e.seq));
  if (e.review == "purged") add("cnt", "count", absl::StrCat(e.purged));
  if (options.include_snippets) add("flexString1", "snippets", Snippets(e));
  return f;
}

const char* CefLabel(std::string_view key) {
  static constexpr std::pair<const char*, const char*> kLabels[] = {
      {"cs1", "policy"},          {"cs2", "rules"},
      {"cs3", "documents"},       {"cs4", "consoleLink"},
      {"cs5", "eventId"},         {"cs6", "reviewer"},
      {"cn1", "words"},           {"cn2", "incidentId"},
      {"cn3", "sequence"},        {"flexString1", "snippets"},
      {"flexNumber1", "rows"},
      {"flexString2", "severity"}};
  for (const auto& [k, label] : kLabels) {
    if (key == k) return label;
  }
  return nullptr;
}

}  // namespace

std::string CefHeaderEscape(std::string_view value) {
  return Replaced(
      value,
      {{'\\', "\\\\"}, {'|', "\\|"}, {'\r', " "}, {'\n', " "}, {'\t', " "}});
}

std::string CefValueEscape(std::string_view value) {
  return Replaced(value, {{'\\', "\\\\"},
                          {'=', "\\="},
                          {'\n', "\\n"},
                          {'\r', "\\r"},
                          {'\t', " "}});
}

std::string LeefValueEscape(std::string_view value) {
  return Replaced(
      value, {{'\\', "\\\\"}, {'\t', "\\t"}, {'\n', "\\n"}, {'\r', "\\r"}});
}

std::string EventClass(const OutboxEvent& e) {
  return e.type == "review" ? absl::StrCat("review:", e.review)
                            : absl::StrCat("incident:", e.kind);
}

int ScaledSeverity(const OutboxEvent& e) {
  if (e.type == "review") return 1;
  if (e.severity == "info") return 1;
  if (e.severity == "medium") return 6;
  if (e.severity == "high") return 9;
  return 3;  // low, or no rule matched
}

int SyslogSeverity(const OutboxEvent& e) {
  if (e.type == "review" || e.severity == "info") return 6;
  if (e.severity == "high") return 2;
  if (e.severity == "low") return 5;
  return 4;  // medium, or no rule matched
}

std::string CefMessage(const OutboxEvent& e,
                       const EventFormatOptions& options) {
  std::string out = absl::StrCat(
      "CEF:0|", kVendor, "|", kProduct, "|", CefHeaderEscape(LEAKHOUND_VERSION),
      "|", CefHeaderEscape(EventClass(e)), "|", CefHeaderEscape(EventName(e)),
      "|", ScaledSeverity(e), "|");
  absl::StrAppend(&out, "rt=", EventMs(e));
  for (const Field& f : Fields(e, options)) {
    if (*f.cef == '\0') continue;
    if (const char* label = CefLabel(f.cef)) {
      absl::StrAppend(&out, " ", f.cef, "Label=", label);
    }
    absl::StrAppend(&out, " ", f.cef, "=", CefValueEscape(f.value));
  }
  return out;
}

std::string LeefMessage(const OutboxEvent& e,
                        const EventFormatOptions& options) {
  const int64_t ms = EventMs(e);
  const time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  std::string out = absl::StrCat("LEEF:2.0|", kVendor, "|", kProduct, "|",
                                 CefHeaderEscape(LEAKHOUND_VERSION), "|",
                                 CefHeaderEscape(EventClass(e)), "|x09|");
  absl::StrAppend(
      &out, "devTime=",
      absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%03d+0000",
                      utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                      utc.tm_hour, utc.tm_min, utc.tm_sec,
                      static_cast<int>(ms % 1000)),
      "\tdevTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSZ\tsev=", ScaledSeverity(e));
  for (const Field& f : Fields(e, options)) {
    if (*f.leef == '\0') continue;
    absl::StrAppend(&out, "\t", f.leef, "=", LeefValueEscape(f.value));
  }
  return out;
}

std::string WebhookBody(const OutboxEvent& e,
                        const EventFormatOptions& options) {
  // The stored payload's fields, one list (outbox_event.cc), and the
  // envelope.
  Json body = Json::parse(EncodeOutboxPayload(e));
  body["schema"] = kWebhookSchema;
  body["id"] = e.id;
  body["sequence"] = e.seq;
  body["time_ms"] = e.time_ms;
  body["class"] = EventClass(e);
  body["severity_scaled"] = ScaledSeverity(e);
  body["link"] = Link(e, options);
  if (!options.include_snippets) body.erase("snippets");
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace leakhound
