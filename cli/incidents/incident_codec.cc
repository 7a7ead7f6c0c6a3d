// nlohmann-json's CBOR is called here only for incidents; its exceptions
// end in this file.
#include "cli/incidents/incident_codec.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace leakhound {
namespace {

using Json = nlohmann::json;

// CBOR text strings hold the bytes as they are: a subject that is not
// UTF-8 comes back unchanged (from_cbor does not check).
// An offer as the gateway makes it, or (a retried upload) the grant it
// used; what a sender or reviewer does later is the store's.
Json OverrideJson(const IncidentOverride& o) {
  if (o.kind.empty()) return Json::object();
  return Json{{"kind", o.kind},
              {"rule", o.rule},
              {"until_ms", o.until_ms},
              {"min_chars", o.min_chars},
              {"per_day", o.per_day},
              {"state", o.state},
              {"used_by", o.used_by},
              {"text", o.text},
              {"address", o.address},
              {"time_ms", o.time_ms},
              {"host", o.host},
              {"digest", o.digest},
              {"token_hash", o.token_hash}};
}

IncidentOverride OverrideOf(const Json& j) {
  IncidentOverride o;
  if (!j.contains("kind")) return o;
  o.kind = j.at("kind");
  o.rule = j.at("rule");
  o.until_ms = j.at("until_ms");
  o.min_chars = j.at("min_chars");
  o.per_day = j.at("per_day");
  o.state = j.at("state");
  o.used_by = j.at("used_by");
  o.text = j.at("text");
  o.address = j.at("address");
  o.time_ms = j.at("time_ms");
  o.host = j.at("host");
  o.digest = j.at("digest");
  o.token_hash = j.at("token_hash");
  return o;
}

Json MatchJson(const IncidentMatch& m) {
  return Json{{"document", m.document},
              {"source", m.source},
              {"labels", m.labels},
              {"part", m.part},
              {"begin", m.byte_begin},
              {"end", m.byte_end},
              {"words", m.words},
              {"coverage", m.coverage},
              {"snippet", m.snippet},
              {"snippet_begin", m.snippet_begin},
              {"snippet_end", m.snippet_end}};
}

Json IncidentJson(const Incident& i) {
  Json rules = Json::array();
  for (const IncidentRule& r : i.rules) {
    rules.push_back({{"rule", r.rule},
                     {"severity", r.severity},
                     {"action", r.action},
                     {"monitor", r.monitor},
                     {"documents", r.documents}});
  }
  Json facts = Json::array();
  for (const IncidentDocument& d : i.facts) {
    facts.push_back({{"document", d.document},
                     {"labels", d.labels},
                     {"words", d.words},
                     {"share", d.share}});
  }
  Json matches = Json::array();
  for (const IncidentMatch& m : i.matches) matches.push_back(MatchJson(m));
  return Json{{"uid", i.uid},
              {"node", i.node},
              {"time_ms", i.time_ms},
              {"source", i.source},
              {"kind", i.kind},
              {"action", i.action},
              {"reference", i.reference},
              {"severity", i.severity},
              {"policy", i.policy},
              {"would", i.would_action},
              {"rules", rules},
              {"facts", facts},
              {"queue_id", i.queue_id},
              {"message_id", i.message_id},
              {"sender", i.sender},
              {"recipients", i.recipients},
              {"subject", i.subject},
              {"client", i.client},
              {"method", i.method},
              {"url", i.url},
              {"run_id", i.run_id},
              {"file_path", i.file_path},
              {"file_size", i.file_size},
              {"sha256", i.sha256},
              {"detail", i.detail},
              {"status", i.status},
              {"note", i.note},
              {"reviewed_by", i.reviewed_by},
              {"reviewed_ms", i.reviewed_ms},
              {"mail_state", i.mail_state},
              {"documents", i.documents},
              {"matches", matches},
              {"override", OverrideJson(i.override_offer)}};
}

IncidentMatch MatchOf(const Json& j) {
  IncidentMatch m;
  m.document = j.at("document");
  m.source = j.at("source");
  m.labels = j.at("labels").get<std::vector<std::string>>();
  m.part = j.at("part");
  m.byte_begin = j.at("begin");
  m.byte_end = j.at("end");
  m.words = j.at("words");
  m.coverage = j.at("coverage");
  m.snippet = j.at("snippet");
  m.snippet_begin = j.at("snippet_begin");
  m.snippet_end = j.at("snippet_end");
  return m;
}

Incident IncidentOf(const Json& j) {
  Incident i;
  i.uid = j.at("uid");
  i.node = j.at("node");
  i.time_ms = j.at("time_ms");
  i.source = j.at("source");
  i.kind = j.at("kind");
  i.action = j.at("action");
  i.reference = j.at("reference");
  i.severity = j.at("severity");
  i.policy = j.at("policy");
  i.would_action = j.at("would");
  for (const Json& r : j.at("rules")) {
    i.rules.push_back({r.at("rule"), r.at("severity"), r.at("action"),
                       r.at("monitor"),
                       r.at("documents").get<std::vector<std::string>>()});
  }
  for (const Json& d : j.at("facts")) {
    i.facts.push_back({d.at("document"),
                       d.at("labels").get<std::vector<std::string>>(),
                       d.at("words"), d.at("share")});
  }
  i.queue_id = j.at("queue_id");
  i.message_id = j.at("message_id");
  i.sender = j.at("sender");
  i.recipients = j.at("recipients").get<std::vector<std::string>>();
  i.subject = j.at("subject");
  i.client = j.at("client");
  i.method = j.at("method");
  i.url = j.at("url");
  i.run_id = j.at("run_id");
  i.file_path = j.at("file_path");
  i.file_size = j.at("file_size");
  i.sha256 = j.at("sha256");
  i.detail = j.at("detail");
  i.status = j.at("status");
  i.note = j.at("note");
  i.reviewed_by = j.at("reviewed_by");
  i.reviewed_ms = j.at("reviewed_ms");
  i.mail_state = j.at("mail_state");
  i.documents = j.at("documents").get<std::vector<std::string>>();
  for (const Json& m : j.at("matches")) i.matches.push_back(MatchOf(m));
  if (j.contains("override")) i.override_offer = OverrideOf(j.at("override"));
  return i;
}

}  // namespace

std::string EncodeIncidents(std::span<const Incident> incidents) {
  Json list = Json::array();
  for (const Incident& i : incidents) list.push_back(IncidentJson(i));
  const std::vector<uint8_t> bytes =
      Json::to_cbor(Json{{"v", kIncidentCodecVersion}, {"incidents", list}});
  return std::string(bytes.begin(), bytes.end());
}

absl::StatusOr<std::vector<Incident>> DecodeIncidents(std::string_view bytes) {
  try {
    const Json batch = Json::from_cbor(bytes.begin(), bytes.end());
    if (batch.at("v").get<int>() > kIncidentCodecVersion) {
      return absl::DataLossError(
          absl::StrCat("incident batch of version ", batch.at("v").get<int>(),
                       " (this leakhound reads ", kIncidentCodecVersion, ")"));
    }
    std::vector<Incident> out;
    for (const Json& j : batch.at("incidents")) out.push_back(IncidentOf(j));
    return out;
  } catch (const Json::exception& e) {
    return absl::DataLossError(
        absl::StrCat("not an incident batch: ", e.what()));
  }
}

}  // namespace leakhound
