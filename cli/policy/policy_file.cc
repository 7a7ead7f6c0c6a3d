#include "cli/policy/policy_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/policy/group_file.h"
#include "cli/policy/policy_bounds.h"
#include "index/trusted_path.h"
#include "shingler/host_name.h"

// toml++ is built with exceptions (Debian's libtomlplusplus3): its parse
// errors are caught here and nowhere else.
#include <toml++/toml.h>

namespace leakhound {
namespace {

// Reads one table of the file into the model, collecting the first error.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // Every error, "FILE:LINE: message", with the policy's line it is
  // sorted by (a group file's: its group's), in line order.
  std::vector<std::pair<uint32_t, std::string>> errors() const {
    std::vector<std::pair<uint32_t, std::string>> sorted = errors_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    return sorted;
  }

  void Fail(const toml::source_region& at, const std::string& message) {
    FailAt(static_cast<uint32_t>(at.begin.line), message);
  }
  void FailAt(uint32_t line, const std::string& message) {
    errors_.emplace_back(line, absl::StrCat(path_, ":", line, ": ", message));
  }
  // An error in another file (a group's), placed at `line` of the policy.
  void FailInFile(uint32_t line, const std::string& located_message) {
    errors_.emplace_back(line, located_message);
  }
  // Where to report a problem with `key` of `t`: the key's line when it is
  // there, else the table's.
  static const toml::source_region& At(const toml::table& t,
                                       const std::string& key) {
    const toml::node* n = t.get(key);
    return n != nullptr ? n->source() : t.source();
  }

  // Fails on a key of `table` not in `known`.
  void OnlyKeys(const toml::table& table,
                std::initializer_list<const char*> known,
                const std::string& where) {
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        Fail(key.source(),
             absl::StrCat("unknown key '", name, "' in ", where,
                          " (known: ", absl::StrJoin(known, ", "), ")"));
      }
    }
  }

  std::optional<std::string> String(const toml::table& t,
                                    const std::string& key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_string()) {
      Fail(n->source(), absl::StrCat("'", key, "' must be a string"));
      return std::nullopt;
    }
    return std::string(*n->value<std::string>());
  }

  std::optional<bool> Bool(const toml::table& t, const std::string& key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_boolean()) {
      Fail(n->source(), absl::StrCat("'", key, "' must be true or false"));
      return std::nullopt;
    }
    return *n->value<bool>();
  }

  std::optional<uint32_t> Count(const toml::table& t, const std::string& key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    const std::optional<int64_t> v = n->value<int64_t>();
    if (!n->is_integer() || !v || *v < 0 || *v > 1000000000) {
      Fail(n->source(),
           absl::StrCat("'", key, "' must be a whole number from 0"));
      return std::nullopt;
    }
    return static_cast<uint32_t>(*v);
  }

  // A share: 0..1 (50 % is 0.5).
  std::optional<double> Share(const toml::table& t, const std::string& key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    const std::optional<double> v = n->value<double>();
    if (!(n->is_floating_point() || n->is_integer()) || !v || *v < 0 ||
        *v > 1) {
      Fail(n->source(),
           absl::StrCat("'", key,
                        "' must be a share from 0 to 1 (0.5 is 50 %)"));
      return std::nullopt;
    }
    return *v;
  }

  std::vector<std::string> Strings(const toml::table& t,
                                   const std::string& key) {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) return out;
    const toml::array* a = n->as_array();
    if (a == nullptr) {
      Fail(n->source(), absl::StrCat("'", key, "' must be a list of strings"));
      return out;
    }
    for (const toml::node& item : *a) {
      if (!item.is_string()) {
        Fail(item.source(),
             absl::StrCat("'", key, "' must be a list of strings"));
        return out;
      }
      out.emplace_back(*item.value<std::string>());
    }
    return out;
  }

  std::optional<Severity> SeverityAt(const toml::table& t,
                                     const std::string& key) {
    const std::optional<std::string> s = String(t, key);
    if (!s) return std::nullopt;
    if (std::optional<Severity> v = SeverityNamed(*s)) return v;
    Fail(t.get(key)->source(),
         absl::StrCat("unknown severity '", *s, "' (info, low, medium, high)"));
    return std::nullopt;
  }

  // Address patterns: user@domain, @domain or group:NAME; the domain a
  // host name (HostName), kept in its ASCII form.
  std::vector<std::string> Addresses(const toml::table& t,
                                     const std::string& key) {
    std::vector<std::string> out = Strings(t, key);
    for (std::string& p : out) {
      p = absl::AsciiStrToLower(p);
      const bool group = p.starts_with("group:") && p.size() > 6;
      if (group) {
        groups_used_.emplace(p.substr(6), t.get(key)->source());
        continue;
      }
      if (auto why = AddressPatternError(p)) {
        Fail(t.get(key)->source(),
             absl::StrCat(*why, " in '", key, "'"));
      }
    }
    return out;
  }

  std::vector<std::string> Domains(const toml::table& t,
                                   const std::string& key) {
    std::vector<std::string> out = Strings(t, key);
    for (std::string& d : out) {
      auto host = HostName(d);
      if (!host.ok()) {
        Fail(t.get(key)->source(),
             absl::StrCat("'", key, "': ", host.status().message()));
        continue;
      }
      d = *host;
    }
    return out;
  }

  PolicyConditions Conditions(const toml::table& t, const std::string& where) {
    OnlyKeys(t,
             {"labels_any", "labels_all", "documents", "min_words", "min_share",
              "min_documents", "channels", "senders", "recipient_domains",
              "all_recipient_domains", "external_recipient", "unread",
              "unread_limit", "error", "records", "tables", "identifiers",
              "unlabelled"},
             where);
    PolicyConditions c;
    c.labels_any = Strings(t, "labels_any");
    c.labels_all = Strings(t, "labels_all");
    c.unlabelled = Bool(t, "unlabelled");
    if (c.unlabelled.value_or(false) &&
        (!c.labels_any.empty() || !c.labels_all.empty())) {
      Fail(t.get("unlabelled")->source(),
           "'unlabelled = true' and a label condition can never both hold");
    }
    c.documents = Strings(t, "documents");
    c.min_words = Count(t, "min_words");
    c.min_share = Share(t, "min_share");
    c.min_documents = Count(t, "min_documents");
    c.channels = Strings(t, "channels");
    for (const std::string& ch : c.channels) {
      if (ch != "mail" && ch != "scan" && ch != "web") {
        Fail(t.get("channels")->source(),
             absl::StrCat("unknown channel '", ch, "' (mail, scan, web)"));
      }
    }
    c.senders = Addresses(t, "senders");
    c.recipient_domains = Domains(t, "recipient_domains");
    c.all_recipient_domains = Domains(t, "all_recipient_domains");
    c.external_recipient = Bool(t, "external_recipient");
    c.unread = Bool(t, "unread");
    c.unread_limit = Bool(t, "unread_limit");
    c.error = Bool(t, "error");
    c.min_records = Count(t, "records");
    c.tables = Strings(t, "tables");
    if (const toml::node* n = t.get("identifiers")) {
      const toml::table* counts = n->as_table();
      if (counts == nullptr) {
        Fail(n->source(),
             "'identifiers' must be a table of minimum counts, "
             "as identifiers = { card = 10 }");
      } else {
        for (const auto& [name, count] : *counts) {
          const std::optional<int64_t> v = count.value<int64_t>();
          if (!count.is_integer() || !v || *v < 1 || *v > 1000000) {
            Fail(count.source(),
                 absl::StrCat("identifiers: '", std::string(name.str()),
                              "' must be a whole number from 1"));
            continue;
          }
          c.identifiers.emplace_back(std::string(name.str()),
                                     static_cast<uint32_t>(*v));
        }
      }
    }
    return c;
  }

  IdentifierDefinition Identifier(const toml::table& t) {
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

  std::optional<Disposition> Action(const toml::table& t) {
    const std::optional<std::string> s = String(t, "action");
    if (!s) return std::nullopt;
    if (std::optional<Disposition> d = DispositionNamed(*s)) return d;
    Fail(t.get("action")->source(),
         absl::StrCat("unknown action '", *s,
                      "' (log, tag, remove-external-recipients, redirect, "
                      "quarantine, tempfail, reject)"));
    return std::nullopt;
  }

  std::vector<SeverityStep> Steps(const toml::table& t) {
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

  PolicyRule Rule(const toml::table& t) {
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
              "override_never_labels"},
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

  // The rule's override (docs/overrides.md): it must block to offer one.
  OverrideSettings Override(const toml::table& t, const PolicyRule& r,
                            const std::string& where) {
    OverrideSettings o;
    o.kind = String(t, "override").value_or("");
    if (!o.kind.empty() && o.kind != "justify" && o.kind != "acknowledge") {
      Fail(t.get("override")->source(),
           absl::StrCat("unknown override '", o.kind,
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

  EscalationRule Escalation(const toml::table& t) {
    OnlyKeys(
        t,
        {"name", "severities", "unowned_hours", "unresolved_hours", "notify"},
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

  ReportSettings Report(const toml::table& t) {
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
    r.channels = OneOf(t, "channels", {"mail", "web", "scan"});
    r.severities = OneOf(t, "severities", {"info", "low", "medium", "high"});
    r.sections = OneOf(t, "sections",
                       {"severity", "rule", "channel", "sender", "overrides",
                        "review_time", "documents"});
    return r;
  }

  std::vector<Severity> Severities(const toml::table& t,
                                   const std::string& key) {
    std::vector<Severity> out;
    for (const std::string& s :
         OneOf(t, key, {"info", "low", "medium", "high"})) {
      out.push_back(*SeverityNamed(s));
    }
    return out;
  }

  // A list of strings each of which is in `known`.
  std::vector<std::string> OneOf(const toml::table& t, const std::string& key,
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

  // Seconds above 0, at most a day, into `field` when set.
  void Seconds(const toml::table& t, const char* key, double& field) {
    if (const toml::node* n = t.get(key)) {
      const std::optional<double> v = n->value<double>();
      if (!v || *v <= 0 || *v > 86400) {
        Fail(n->source(), absl::StrCat("'", key, "' must be seconds, above 0"));
      } else {
        field = *v;
      }
    }
  }

  DirectorySettings Directory(const toml::table& t) {
    OnlyKeys(t,
             {"url", "start_tls", "insecure_plaintext", "ca_file", "bind_dn",
              "bind_password_file",
              "base_dn", "user_filter", "mail_attribute", "timeout_seconds",
              "cache_seconds", "roles"},
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
    d.start_tls = Bool(t, "start_tls").value_or(d.url.starts_with("ldap://") &&
                                                !d.insecure_plaintext);
    if (d.url.starts_with("ldap://") && !d.start_tls &&
        !d.insecure_plaintext) {
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

  DestinationSettings Destination(const toml::table& t) {
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
    d.channels = OneOf(t, "channels", {"mail", "web", "scan"});
    d.events = OneOf(t, "events", {"incident", "review"});
    d.include_snippets = Bool(t, "include_snippets").value_or(false);
    Seconds(t, "timeout_seconds", d.timeout_seconds);
    Seconds(t, "max_retry_seconds", d.max_retry_seconds);
    return d;
  }

  OutboxSettings Outbox(const toml::table& t) {
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

  // Destination names are distinct.
  void CheckNames(const std::vector<DestinationSettings>& destinations) {
    std::set<std::string> seen;
    for (const DestinationSettings& d : destinations) {
      if (!seen.insert(d.name).second) {
        FailAt(static_cast<uint32_t>(d.line),
               absl::StrCat("a second destination named '", d.name, "'"));
      }
    }
  }

  // Every group:NAME used is defined.
  void CheckGroups(const Policy& policy) {
    for (const auto& [name, at] : groups_used_) {
      if (!policy.groups.contains(name)) {
        Fail(at, absl::StrCat("unknown group '", name,
                              "' (define it under [groups])"));
      }
    }
  }

 private:
  const std::string path_;
  std::vector<std::pair<uint32_t, std::string>> errors_;  // (line, message)
  std::map<std::string, toml::source_region> groups_used_;
};

}  // namespace

namespace {

// One [groups] entry that is a table: { directory = DN } or { file = F }.
void ReadGroupTable(Reader& reader, const std::string& group,
                    const toml::node& node, Policy& policy) {
  const toml::table& t = *node.as_table();
  reader.OnlyKeys(t, {"directory", "file"}, "a group table");
  const std::optional<std::string> dn = reader.String(t, "directory");
  const std::optional<std::string> file = reader.String(t, "file");
  if (file && !file->empty()) {
    const auto line = static_cast<uint32_t>(node.source().begin.line);
    std::string error;
    std::vector<std::string> line_errors;
    policy.groups[group] =
        ReadGroupFile(reader.path(), *file, &error, &line_errors);
    if (!error.empty()) reader.FailAt(line, error);
    for (const std::string& e : line_errors) reader.FailInFile(line, e);
  } else if (!dn || dn->empty()) {
    reader.Fail(node.source(),
                "a group table needs 'directory' (the group entry's DN) or "
                "'file' (one address per line)");
  } else {
    policy.directory_groups[group] = *dn;
    policy.groups[group] = {};
  }
}

// [groups]: lists of addresses, { directory = DN } or { file = F }. A
// group may not hold a group: the evaluator does not expand them.
void ReadGroups(Reader& reader, const toml::table& root, Policy& policy) {
  const toml::node* groups = root.get("groups");
  if (groups == nullptr) return;
  if (groups->as_table() == nullptr) {
    reader.Fail(groups->source(), "'groups' must be a table ([groups])");
    return;
  }
  for (const auto& [name, node] : *groups->as_table()) {
    const std::string group(name.str());
    if (node.as_table() != nullptr) {
      ReadGroupTable(reader, group, node, policy);
      continue;
    }
    std::vector<std::string> members =
        reader.Addresses(*groups->as_table(), group);
    for (const std::string& m : members) {
      if (m.starts_with("group:")) {
        reader.Fail(node.source(),
                    absl::StrCat("group '", group, "' holds ", m,
                                 ": a group cannot hold a group; list its "
                                 "addresses"));
      }
    }
    policy.groups[group] = std::move(members);
  }
}

// [[rule]] tables; a rule's name is its own.
void ReadRules(Reader& reader, const toml::table& root, Policy& policy) {
  const toml::node* rules = root.get("rule");
  if (rules == nullptr) return;
  const toml::array* list = rules->as_array();
  if (list == nullptr) {
    reader.Fail(rules->source(), "rules are [[rule]] tables");
    return;
  }
  std::map<std::string, int> lines;  // name -> the first rule's line
  for (const toml::node& item : *list) {
    if (item.as_table() == nullptr) {
      reader.Fail(item.source(), "rules are [[rule]] tables");
      break;
    }
    policy.rules.push_back(reader.Rule(*item.as_table()));
    const PolicyRule& r = policy.rules.back();
    if (r.name.empty()) continue;
    const auto [first, fresh] = lines.emplace(r.name, r.line);
    if (!fresh) {
      reader.Fail(Reader::At(*item.as_table(), "name"),
                  absl::StrCat("a second rule named '", r.name,
                               "' (the first is at line ", first->second,
                               "): incidents and the SIEM tell rules by name"));
    }
  }
}

// [outbox] and [[destination]] tables: the SIEM feed.
void ReadOutbox(Reader& reader, const toml::table& root, Policy& policy) {
  if (const toml::node* outbox = root.get("outbox")) {
    if (outbox->as_table() == nullptr) {
      reader.Fail(outbox->source(), "'outbox' must be a table ([outbox])");
    } else {
      policy.outbox = reader.Outbox(*outbox->as_table());
    }
  }
  if (const toml::node* destinations = root.get("destination")) {
    const toml::array* list = destinations->as_array();
    for (size_t k = 0; list != nullptr && k < list->size(); ++k) {
      if (const toml::table* t = (*list)[k].as_table()) {
        policy.destinations.push_back(reader.Destination(*t));
      } else {
        list = nullptr;
      }
    }
    if (list == nullptr) {
      reader.Fail(destinations->source(),
                  "destinations are [[destination]] tables");
    }
    reader.CheckNames(policy.destinations);
  }
}

// The [[key]] tables of the file, each read by `read`.
template <typename T, typename Read>
void ReadTables(Reader& reader, const toml::table& root, const char* key,
                Read read, std::vector<T>& out) {
  const toml::node* node = root.get(key);
  if (node == nullptr) return;
  const toml::array* list = node->as_array();
  for (size_t k = 0; list != nullptr && k < list->size(); ++k) {
    if (const toml::table* t = (*list)[k].as_table()) {
      out.push_back(read(*t));
    } else {
      list = nullptr;
    }
  }
  if (list == nullptr) {
    reader.Fail(node->source(),
                absl::StrCat("'", key, "' must be [[", key, "]] tables"));
  }
}

// [[identifier]], [[escalation]] and [[report]] tables.
void ReadIdentifiers(Reader& reader, const toml::table& root, Policy& policy) {
  ReadTables(
      reader, root, "identifier",
      [&](const toml::table& t) { return reader.Identifier(t); },
      policy.identifiers);
  ReadTables(
      reader, root, "escalation",
      [&](const toml::table& t) { return reader.Escalation(t); },
      policy.escalations);
  ReadTables(
      reader, root, "report",
      [&](const toml::table& t) { return reader.Report(t); }, policy.reports);
}

}  // namespace

PolicyReport CheckPolicy(std::string_view text, const std::string& path) {
  PolicyReport report;
  // Bounded before toml++ sees it (its recursion would overflow the stack
  // on a header of 40,000 dotted keys): the file is untrusted input.
  if (auto bound = PolicyBoundsError(text)) {
    report.errors.push_back(absl::StrCat(path, ":", bound->line, ": ",
                                         bound->message));
    report.error_lines.push_back(bound->line);
    return report;
  }
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto line = static_cast<uint32_t>(e.source().begin.line);
    report.errors.push_back(
        absl::StrCat(path, ":", line, ": ", std::string(e.description())));
    report.error_lines.push_back(line);
    return report;
  }
  Reader reader(path);
  reader.OnlyKeys(
      root,
      {"internal_domains", "help_url", "directory", "groups", "rule",
       "destination", "outbox", "identifier", "escalation", "report"},
      "the file");
  Policy policy;
  policy.path = path;
  policy.internal_domains = reader.Domains(root, "internal_domains");
  policy.help_url = reader.String(root, "help_url").value_or("");
  ReadGroups(reader, root, policy);
  if (const toml::node* directory = root.get("directory")) {
    if (directory->as_table() == nullptr) {
      reader.Fail(directory->source(), "'directory' must be a table");
    } else {
      policy.directory = reader.Directory(*directory->as_table());
    }
  }
  if (!policy.directory_groups.empty() && !policy.directory) {
    reader.Fail(root.get("groups")->source(),
                "directory groups need a [directory] table (url, base_dn)");
  }
  ReadRules(reader, root, policy);
  ReadOutbox(reader, root, policy);
  ReadIdentifiers(reader, root, policy);
  reader.CheckGroups(policy);
  for (auto& [line, message] : reader.errors()) {
    report.errors.push_back(std::move(message));
    report.error_lines.push_back(line);
  }
  CompileLabels(&policy);
  if (report.errors.empty()) {
    report.policy = std::move(policy);
  } else {
    report.parsed = std::move(policy);
  }
  return report;
}

absl::StatusOr<Policy> ParsePolicy(std::string_view text,
                                   const std::string& path) {
  PolicyReport report = CheckPolicy(text, path);
  if (!report.errors.empty()) {
    return absl::InvalidArgumentError(report.errors.front());
  }
  return *std::move(report.policy);
}

absl::StatusOr<std::string> ReadPolicyText(const std::string& path) {
  // A file another user can write or swap would let them choose where the
  // directory's passwords go: refused (index/trusted_path.h).
  if (absl::Status s = CheckTrustedFile(path, "policy file"); !s.ok()) {
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return text.str();
}

absl::StatusOr<Policy> ReadPolicyFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadPolicyText(path);
  if (!text.ok()) return text.status();
  return ParsePolicy(*text, path);
}

}  // namespace leakhound
