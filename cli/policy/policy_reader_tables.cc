// The rule, identifier, escalation, report, directory and SIEM tables.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/policy/group_file.h"
#include "cli/policy/policy_bounds.h"
#include "cli/policy/policy_reader.h"
#include "shingler/host_name.h"

namespace leakhound {

IdentifierDefinition PolicyReader::Identifier(const toml::table& t) {
  OnlyKeys(t,
           {"name", "pattern", "caseless", "validator", "keywords",
            "keyword_distance"},
           "[[identifier]]");
  IdentifierDefinition d;
  d.line = static_cast<int>(t.source().begin.line);
  d.name = String(t, "name").value_or("");
  if (d.name.empty()) Fail(t.source(), "an [[identifier]] needs a name");
  d.pattern = String(t, "pattern").value_or("");
  d.caseless = Bool(t, "caseless").value_or(false);
  d.validator = String(t, "validator").value_or("none");
  if (d.pattern.empty() && d.validator == "none") {
    Fail(t.source(), absl::StrCat("identifier '", d.name,
                                  "' needs a pattern or a validator"));
  }
  d.keywords = Strings(t, "keywords");
  d.keyword_distance = Count(t, "keyword_distance").value_or(20);
  return d;
}

std::optional<Disposition> PolicyReader::Action(const toml::table& t) {
  const std::optional<std::string> s = String(t, "action");
  if (!s || *s == "restrict" || *s == "notify-owner") return std::nullopt;
  if (std::optional<Disposition> d = DispositionNamed(*s)) return d;
  Fail(t.get("action")->source(),
       absl::StrCat("unknown action '", *s,
                    "' (log, tag, remove-external-recipients, redirect, "
                    "quarantine, tempfail, reject; for discover: "
                    "notify-owner, restrict)"));
  return std::nullopt;
}

void PolicyReader::DiscoverAction(const toml::table& t, PolicyRule& r,
                                  const std::string& where) {
  const auto& channels = r.when.channels;
  const bool discover =
      std::find(channels.begin(), channels.end(), "discover") != channels.end();
  const std::string action = String(t, "action").value_or("log");
  if (!discover) {
    if (action == "restrict" || action == "notify-owner") {
      Fail(t.get("action")->source(),
           absl::StrCat(where, ": '", action,
                        "' is an action of discovery: the rule needs "
                        "channels = [\"discover\"]"));
    }
    return;
  }
  static constexpr std::pair<const char*, Remediation> kNames[] = {
      {"log", Remediation::kLog},
      {"notify-owner", Remediation::kNotifyOwner},
      {"restrict", Remediation::kRestrict},
      {"quarantine", Remediation::kQuarantine}};
  for (const auto& [name, remediation] : kNames) {
    if (action == name) r.remediation = remediation;
  }
  if (r.remediation == Remediation::kNone) {
    Fail(t.get("action")->source(),
         absl::StrCat(where,
                      ": on the discover channel the action is log, "
                      "notify-owner, restrict or quarantine"));
  } else if (channels.size() > 1 &&
             (r.remediation == Remediation::kRestrict ||
              r.remediation == Remediation::kNotifyOwner)) {
    Fail(t.get("action")->source(),
         absl::StrCat(where, ": '", action,
                      "' is for the discover channel alone"));
  }
  r.tombstone = String(t, "tombstone").value_or("");
}

std::vector<SeverityStep> PolicyReader::Steps(const toml::table& t) {
  std::vector<SeverityStep> out;
  const toml::node* n = t.get("steps");
  if (n == nullptr) return out;
  const toml::array* a = n->as_array();
  if (a == nullptr) {
    Fail(n->source(), "'steps' must be a list of tables");
    return out;
  }
  for (const toml::node& item : *a) {
    const toml::table* step = item.as_table();
    if (step == nullptr) {
      Fail(item.source(), "'steps' must be a list of tables");
      return out;
    }
    OnlyKeys(*step, {"documents", "share", "words", "severity"}, "a step");
    SeverityStep s;
    s.documents = Count(*step, "documents");
    s.share = Share(*step, "share");
    s.words = Count(*step, "words");
    if (!s.documents && !s.share && !s.words) {
      Fail(item.source(), "a step needs documents, share or words");
    }
    const std::optional<Severity> severity = SeverityAt(*step, "severity");
    if (!severity) {
      Fail(item.source(), "a step needs a severity");
    } else {
      s.severity = *severity;
    }
    out.push_back(s);
  }
  return out;
}

PolicyRule PolicyReader::Rule(const toml::table& t) {
  OnlyKeys(t,
           {"name",
            "when",
            "unless",
            "severity",
            "steps",
            "mode",
            "action",
            "reject_text",
            "subject_prefix",
            "reviewer",
            "bcc",
            "notify_sender",
            "notify",
            "override",
            "override_hours",
            "override_minutes",
            "override_min_chars",
            "override_per_day",
            "override_severities",
            "override_never_labels",
            "tombstone"},
           "a rule");
  PolicyRule r;
  r.line = static_cast<int>(t.source().begin.line);
  const std::optional<std::string> name = String(t, "name");
  if (!name || name->empty()) {
    Fail(t.source(), "a rule needs a name");
  } else {
    r.name = *name;
  }
  const std::string where = absl::StrCat("rule '", r.name, "'");
  if (const toml::node* when = t.get("when")) {
    if (when->as_table() == nullptr) {
      Fail(when->source(), "'when' must be a table");
    } else {
      r.when = Conditions(*when->as_table(), where + " when");
    }
  }
  if (const toml::node* unless = t.get("unless")) {
    const toml::array* list = unless->as_array();
    if (list == nullptr) {
      Fail(unless->source(),
           "'unless' must be a list of tables ([[rule.unless]])");
    } else {
      for (const toml::node& item : *list) {
        if (item.as_table() == nullptr) {
          Fail(item.source(), "'unless' must be a list of tables");
          break;
        }
        r.unless.push_back(Conditions(*item.as_table(), where + " unless"));
      }
    }
  }
  if (auto severity = SeverityAt(t, "severity")) r.severity = *severity;
  r.steps = Steps(t);
  if (const std::optional<std::string> mode = String(t, "mode")) {
    if (*mode != "enforce" && *mode != "monitor") {
      Fail(t.get("mode")->source(),
           absl::StrCat("unknown mode '", *mode, "' (enforce, monitor)"));
    }
    r.monitor = *mode == "monitor";
  }
  if (auto action = Action(t)) r.disposition = *action;
  DiscoverAction(t, r, where);
  r.reject_text = String(t, "reject_text").value_or("");
  r.subject_prefix = String(t, "subject_prefix").value_or("");
  r.reviewer = String(t, "reviewer").value_or("");
  r.bcc_reviewer = Bool(t, "bcc").value_or(false);
  r.notify_sender = Bool(t, "notify_sender").value_or(false);
  r.notify = Addresses(t, "notify");
  r.override_offer = Override(t, r, where);
  if ((r.disposition == Disposition::kRedirect || r.bcc_reviewer) &&
      r.reviewer.empty()) {
    Fail(t.source(), absl::StrCat(where,
                                  ": redirect and bcc need a "
                                  "'reviewer' address"));
  }
  return r;
}

OverrideSettings PolicyReader::Override(const toml::table& t,
                                        const PolicyRule& r,
                                        const std::string& where) {
  OverrideSettings o;
  o.kind = String(t, "override").value_or("");
  if (!o.kind.empty() && o.kind != "justify" && o.kind != "acknowledge") {
    Fail(t.get("override")->source(), absl::StrCat("unknown override '", o.kind,
                                                   "' (justify, acknowledge)"));
  }
  if (!o.kind.empty() && r.disposition < Disposition::kQuarantine) {
    Fail(t.source(), absl::StrCat(where,
                                  ": an override needs an action that "
                                  "stops: quarantine, tempfail or reject"));
  }
  o.hours = Count(t, "override_hours").value_or(o.hours);
  o.minutes = Count(t, "override_minutes").value_or(o.minutes);
  o.min_chars = Count(t, "override_min_chars").value_or(o.min_chars);
  o.per_day = Count(t, "override_per_day").value_or(0);
  o.severities = Severities(t, "override_severities");
  o.never_labels = Strings(t, "override_never_labels");
  if (o.hours == 0 || o.minutes == 0) {
    Fail(t.source(), absl::StrCat(where,
                                  ": override_hours and "
                                  "override_minutes start at 1"));
  }
  return o;
}

EscalationRule PolicyReader::Escalation(const toml::table& t) {
  OnlyKeys(
      t, {"name", "severities", "unowned_hours", "unresolved_hours", "notify"},
      "an [[escalation]]");
  EscalationRule e;
  e.line = static_cast<int>(t.source().begin.line);
  e.name = String(t, "name").value_or("");
  if (e.name.empty()) Fail(t.source(), "an [[escalation]] needs a name");
  e.severities = Severities(t, "severities");
  e.unowned_hours = Count(t, "unowned_hours");
  e.unresolved_hours = Count(t, "unresolved_hours");
  e.notify = Addresses(t, "notify");
  if ((!e.unowned_hours && !e.unresolved_hours) || e.notify.empty()) {
    Fail(t.source(), absl::StrCat("escalation '", e.name,
                                  "' needs unowned_hours or "
                                  "unresolved_hours, and notify"));
  }
  return e;
}

ReportSettings PolicyReader::Report(const toml::table& t) {
  OnlyKeys(t, {"name", "to", "period", "channels", "severities", "sections"},
           "a [[report]]");
  ReportSettings r;
  r.line = static_cast<int>(t.source().begin.line);
  r.name = String(t, "name").value_or("");
  if (r.name.empty()) Fail(t.source(), "a [[report]] needs a name");
  r.to = Addresses(t, "to");
  if (r.to.empty()) Fail(t.source(), "a [[report]] needs 'to'");
  r.period = String(t, "period").value_or("weekly");
  if (r.period != "daily" && r.period != "weekly") {
    Fail(t.source(), "a report's period is daily or weekly");
  }
  r.channels = OneOf(t, "channels", {"mail", "web", "scan", "discover"});
  r.severities = OneOf(t, "severities", {"info", "low", "medium", "high"});
  r.sections = OneOf(t, "sections",
                     {"severity", "rule", "channel", "sender", "overrides",
                      "review_time", "documents"});
  return r;
}

std::vector<Severity> PolicyReader::Severities(const toml::table& t,
                                               const std::string& key) {
  std::vector<Severity> out;
  for (const std::string& s :
       OneOf(t, key, {"info", "low", "medium", "high"})) {
    out.push_back(*SeverityNamed(s));
  }
  return out;
}

std::vector<std::string> PolicyReader::OneOf(
    const toml::table& t, const std::string& key,
    std::initializer_list<const char*> known) {
  std::vector<std::string> out = Strings(t, key);
  for (const std::string& v : out) {
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      Fail(t.get(key)->source(),
           absl::StrCat("unknown ", key, " value '", v,
                        "' (known: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  return out;
}

void PolicyReader::Seconds(const toml::table& t, const char* key,
                           double& field) {
  if (const toml::node* n = t.get(key)) {
    const std::optional<double> v = n->value<double>();
    if (!v || *v <= 0 || *v > 86400) {
      Fail(n->source(), absl::StrCat("'", key, "' must be seconds, above 0"));
    } else {
      field = *v;
    }
  }
}

DirectorySettings PolicyReader::Directory(const toml::table& t) {
  OnlyKeys(t,
           {"url", "start_tls", "insecure_plaintext", "ca_file", "bind_dn",
            "bind_password_file", "base_dn", "user_filter", "mail_attribute",
            "timeout_seconds", "cache_seconds", "roles"},
           "[directory]");
  DirectorySettings d;
  d.url = String(t, "url").value_or("");
  if (!d.url.starts_with("ldap://") && !d.url.starts_with("ldaps://")) {
    Fail(t.get("url") != nullptr ? t.get("url")->source() : t.source(),
         "[directory] needs a url: ldap://HOST:PORT or ldaps://HOST:PORT");
  }
  // TLS or nothing: ldaps://, or StartTLS with the certificate checked;
  // plaintext (the user's and the service's passwords in clear) only
  // when the file says so in as many words.
  d.insecure_plaintext = Bool(t, "insecure_plaintext").value_or(false);
  d.start_tls =
      Bool(t, "start_tls")
          .value_or(d.url.starts_with("ldap://") && !d.insecure_plaintext);
  if (d.url.starts_with("ldap://") && !d.start_tls && !d.insecure_plaintext) {
    Fail(t.get("start_tls")->source(),
         "start_tls = false sends passwords in clear: use ldaps:// or "
         "StartTLS (or insecure_plaintext = true, for a test directory)");
  }
  d.ca_file = String(t, "ca_file").value_or("");
  d.bind_dn = String(t, "bind_dn").value_or("");
  d.bind_password_file = String(t, "bind_password_file").value_or("");
  d.base_dn = String(t, "base_dn").value_or("");
  d.user_filter = String(t, "user_filter").value_or(d.user_filter);
  if (d.user_filter.find("%s") == std::string::npos) {
    Fail(t.get("user_filter")->source(), "'user_filter' needs %s");
  }
  d.mail_attribute = String(t, "mail_attribute").value_or(d.mail_attribute);
  if (const toml::node* roles = t.get("roles")) {
    if (roles->as_table() == nullptr) {
      Fail(roles->source(), "'roles' must be a table ([directory.roles])");
    } else {
      OnlyKeys(*roles->as_table(), {"viewer", "reviewer", "admin"},
               "[directory.roles]");
      for (const char* role : {"viewer", "reviewer", "admin"}) {
        if (auto dn = String(*roles->as_table(), role)) d.roles[role] = *dn;
      }
    }
  }
  Seconds(t, "timeout_seconds", d.timeout_seconds);
  Seconds(t, "cache_seconds", d.cache_seconds);
  return d;
}

DestinationSettings PolicyReader::Destination(const toml::table& t) {
  OnlyKeys(t,
           {"name", "type", "url", "format", "facility", "ca_file",
            "secret_file", "severities", "channels", "events",
            "include_snippets", "timeout_seconds", "max_retry_seconds"},
           "[[destination]]");
  DestinationSettings d;
  d.line = static_cast<int>(t.source().begin.line);
  d.name = String(t, "name").value_or("");
  if (d.name.empty()) Fail(At(t, "name"), "a [[destination]] needs a name");
  const std::string type = String(t, "type").value_or("");
  d.webhook = type == "webhook";
  d.url = String(t, "url").value_or("");
  const bool syslog_url = d.url.starts_with("udp://") ||
                          d.url.starts_with("tcp://") ||
                          d.url.starts_with("tls://");
  if (type != "syslog" && type != "webhook") {
    Fail(At(t, "type"), absl::StrCat("destination '", d.name,
                                     "': type must be syslog or webhook"));
  } else if (d.webhook ? !d.url.starts_with("https://") : !syslog_url) {
    Fail(At(t, "url"),
         absl::StrCat("destination '", d.name, "': url must be ",
                      d.webhook ? "https://HOST[:PORT]/PATH"
                                : "udp://, tcp:// or tls://HOST:PORT"));
  }
  // The docs write the formats as CEF and LEEF: either case is taken.
  d.format = absl::AsciiStrToLower(String(t, "format").value_or(d.format));
  if (d.format != "cef" && d.format != "leef") {
    Fail(At(t, "format"), "'format' must be cef or leef");
  }
  if (auto f = String(t, "facility")) {
    d.facility = SyslogFacilityNumber(*f);
    if (d.facility < 0) {
      Fail(t.get("facility")->source(),
           "'facility' must be a syslog facility (auth, local0 ... local7)");
    }
  }
  d.ca_file = String(t, "ca_file").value_or("");
  d.secret_file = String(t, "secret_file").value_or("");
  if (d.webhook && d.secret_file.empty()) {
    Fail(At(t, "type"), absl::StrCat("webhook '", d.name,
                                     "' needs a secret_file (its HMAC key)"));
  }
  d.severities =
      OneOf(t, "severities", {"none", "info", "low", "medium", "high"});
  d.channels = OneOf(t, "channels", {"mail", "web", "scan", "discover"});
  d.events = OneOf(t, "events", {"incident", "review"});
  d.include_snippets = Bool(t, "include_snippets").value_or(false);
  Seconds(t, "timeout_seconds", d.timeout_seconds);
  Seconds(t, "max_retry_seconds", d.max_retry_seconds);
  return d;
}

OutboxSettings PolicyReader::Outbox(const toml::table& t) {
  OnlyKeys(t, {"max_age_days", "max_events", "console_url"}, "[outbox]");
  OutboxSettings o;
  if (const toml::node* n = t.get("max_age_days")) {
    const std::optional<double> v = n->value<double>();
    if (!v || *v <= 0 || *v > 3650) {
      Fail(n->source(), "'max_age_days' must be days, above 0");
    } else {
      o.max_age_days = *v;
    }
  }
  if (std::optional<uint32_t> n = Count(t, "max_events")) {
    if (*n == 0) Fail(t.get("max_events")->source(), "'max_events' is 0");
    o.max_events = *n;
  }
  o.console_url = String(t, "console_url").value_or("");
  return o;
}

void PolicyReader::CheckNames(
    const std::vector<DestinationSettings>& destinations) {
  std::set<std::string> seen;
  for (const DestinationSettings& d : destinations) {
    if (!seen.insert(d.name).second) {
      FailAt(static_cast<uint32_t>(d.line),
             absl::StrCat("a second destination named '", d.name, "'"));
    }
  }
}

void PolicyReader::CheckGroups(const Policy& policy) {
  for (const auto& [name, at] : groups_used_) {
    if (!policy.groups.contains(name)) {
      Fail(at, absl::StrCat("unknown group '", name,
                            "' (define it under [groups])"));
    }
  }
}

}  // namespace leakhound
