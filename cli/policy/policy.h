// Policy: what the gateway does with a verdict, decided per rule (docs/
// policy.md). A policy is ordered rules; each has conditions ("when"),
// exceptions ("unless") in the same vocabulary, a severity with steps, a
// mode (enforce or monitor) and actions. Every rule is evaluated
// (policy_evaluator.h): the most restrictive action of the enforcing rules
// wins, notices accumulate, and the incident records every rule that
// matched. The model is plain data; policy_file.h reads it from TOML.
//
// Thread-safety: plain values; a loaded Policy is immutable and shared.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_H_
#define LEAKHOUND_CLI_POLICY_POLICY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leakhound {

// PERSISTED (incidents record them by name): the order is the order of
// gravity.
enum class Severity { kInfo, kLow, kMedium, kHigh };

// What a rule does with a message. PERSISTED by name in incidents. The
// disposition actions are ordered from least to most restrictive; the
// most restrictive of the enforcing rules is what happens.
enum class Disposition {
  kLog,  // deliver, record
  kTag,  // deliver with X-Leakhound-* headers (and a subject prefix)
  kRemoveExternalRecipients,  // deliver to the internal recipients only
  kRedirect,                  // deliver to the reviewer instead
  kQuarantine,                // hold in the MTA's queue
  kTempfail,                  // 451: try later
  kReject,                    // 550 with the rule's text
};

// What a discovery rule does with a file at rest (docs/discover.md).
// PERSISTED by name (the policy file's `action`, the findings table),
// ordered from least to most restrictive: log, notify-owner, restrict,
// quarantine. kNone: the rule does not remediate (a rule that is not for
// the discover channel alone, unless its action is log or quarantine).
enum class Remediation { kNone, kLog, kNotifyOwner, kRestrict, kQuarantine };
const char* RemediationName(Remediation r);

const char* SeverityName(Severity s);
const char* DispositionName(Disposition d);
// The syslog facility `name` (RFC 5424's numbers: "mail" 2, "local4"
// 20, ...), or -1.
int SyslogFacilityNumber(std::string_view name);
// The value of a name (as SeverityName / DispositionName give it).
std::optional<Severity> SeverityNamed(std::string_view name);
std::optional<Disposition> DispositionNamed(std::string_view name);

// `cumulative = { words = 300, days = 30 }` (or share = 0.5, or rows =
// 100 of a protected table; per = "sender" or "sender-domain"): the
// distinct protected text one sender sent of one document within `days`,
// this message included, reaches one threshold. PERSISTED in the policy
// file.
struct CumulativeCondition {
  std::optional<uint32_t> words;
  std::optional<double> share;
  std::optional<uint32_t> rows;
  uint32_t days = 30;
  std::string per = "sender";  // or "sender-domain"
  bool operator==(const CumulativeCondition&) const = default;
};

// The conditions of a rule (all that are set must hold) or of one of its
// exceptions. Unset fields do not constrain. Address patterns:
// "user@domain", "@domain" (the domain and its subdomains), "group:NAME".
struct PolicyConditions {
  // On the matched documents: a document qualifies when it has any of
  // labels_any (when set), all of labels_all, and an id equal to or under
  // one of `documents` (when set). Words and share are per document.
  std::vector<std::string> labels_any;
  std::vector<std::string> labels_all;
  // Set: a document qualifies only when it has no label (true) or some
  // label (false). A protected location never has labels and never
  // qualifies under unlabelled = true.
  std::optional<bool> unlabelled;
  std::vector<std::string> documents;  // ids or id prefixes ending in '/'
  std::optional<uint32_t> min_words;
  std::optional<double> min_share;  // of the protected document, 0..1
  // How many distinct documents must qualify (default 1 when any of the
  // document conditions above is set or no other condition is).
  std::optional<uint32_t> min_documents;
  std::vector<std::string> channels;           // "mail", "scan", "web"
  std::vector<std::string> senders;            // address patterns
  std::vector<std::string> recipient_domains;  // some recipient is in one
  // Every recipient is in one of these domains (and there is one): what an
  // exception for "mail to counsel" needs, so that one more recipient
  // elsewhere does not slip through under it.
  std::vector<std::string> all_recipient_domains;
  // Some recipient is outside the policy's internal_domains.
  std::optional<bool> external_recipient;
  std::optional<bool> unread;  // the message had parts not read
  // Some of them for lack of time or of another budget (class limit).
  std::optional<bool> unread_limit;
  std::optional<bool> error;   // the message could not be judged
  // Rows of protected tables matched (docs/records.md): at least
  // min_records (default 1 when `tables` is set) of the tables named in
  // `tables` (empty: any table).
  std::optional<uint32_t> min_records;
  std::vector<std::string> tables;
  // Data identifiers: for each (name, n), at least n distinct valid values
  // of identifier `name` (a built-in or the policy's [[identifier]]).
  std::vector<std::pair<std::string, uint32_t>> identifiers;
  // Sensitivity labels (docs/labels.md) of the message's parts, by the
  // names the policy's [labels] gives their ids (else the file's own
  // name): some part carries one of `sensitivity`, or one ranked at or
  // above `sensitivity_at_least` in [labels] order.
  std::vector<std::string> sensitivity;
  std::string sensitivity_at_least;  // "": not set
  // Some attachment (or upload) of a format that can carry a label
  // (Office, OpenDocument, PDF) carries none (true), or none does (false).
  std::optional<bool> unlabelled_attachment;
  // Some part quotes a protected document whose own label ranks above the
  // part's label (true): text relabelled down to get past label rules.
  std::optional<bool> label_downgrade;
  // Cumulative (drip) detection: what one sender (or sender domain) has
  // sent of one protected document or table over `days`, over every
  // channel, reaches a threshold (docs/policy.md, "Cumulative").
  std::optional<CumulativeCondition> cumulative;
  // labels_any and labels_all as bits of Policy::labels (CompileLabels).
  uint64_t labels_any_bits = 0;
  uint64_t labels_all_bits = 0;
};

// The severity rises to `severity` once `documents` distinct documents
// qualify or one qualifying document has `share` of its text matched or
// `words` words are matched in all.
// Whether `c` says anything about the matched documents.
bool HasDocumentConditions(const PolicyConditions& c);
// Whether `c` says anything about protected tables or data identifiers.
bool HasDataConditions(const PolicyConditions& c);
// Whether `c` has no condition at all.
bool NoConditions(const PolicyConditions& c);

struct SeverityStep {
  std::optional<uint32_t> documents;
  std::optional<double> share;
  std::optional<uint32_t> words;
  Severity severity = Severity::kHigh;
};

// A rule's offer to let the person it stops go on (docs/overrides.md).
// Kind, PERSISTED (incidents record it): "justify" (a written business
// justification of at least min_chars) or, on the web channel only,
// "acknowledge" (a click). Mail is then held, not refused, and its sender
// may release it from the console's self-service page within `hours`; a
// blocked upload's user may retry it once within `minutes`.
struct OverrideSettings {
  std::string kind;  // "": none
  uint32_t hours = 72;
  uint32_t minutes = 10;
  uint32_t min_chars = 20;
  uint32_t per_day = 0;  // overrides per sender per day; 0: no limit
  // Offered only when the decision's severity is one of these (empty:
  // any), and never when a matched document carries one of never_labels.
  std::vector<Severity> severities;
  std::vector<std::string> never_labels;
};

struct PolicyRule {
  std::string name;
  int line = 0;  // in the policy file, for messages
  PolicyConditions when;
  std::vector<PolicyConditions> unless;
  Severity severity = Severity::kMedium;
  std::vector<SeverityStep> steps;
  bool monitor = false;  // records what would have happened, delivers
  Disposition disposition = Disposition::kLog;
  std::string reject_text;     // the 550 reply's text (kReject)
  std::string subject_prefix;  // kTag: "[leakhound] "
  std::string reviewer;        // kRedirect, and `bcc`
  bool bcc_reviewer = false;
  bool notify_sender = false;
  std::vector<std::string> notify;  // reviewers told, by address
  OverrideSettings override_offer;
  // Discovery (docs/discover.md): what a rule whose channels are exactly
  // ["discover"] does with a file at rest, and the tombstone's text for a
  // quarantined one ("": the default text).
  Remediation remediation = Remediation::kNone;
  std::string tombstone;
};

// Where directory groups are read (LDAP or Active Directory; the gateway
// resolves them, cli/gateway/directory_groups.h). PERSISTED in the policy
// file's [directory] table.
struct DirectorySettings {
  std::string url;        // ldap://HOST:PORT or ldaps://HOST:PORT
  bool start_tls = true;  // for ldap://: StartTLS, required unless...
  // ...the file says `insecure_plaintext = true`: ldap:// in clear (a test
  // directory); `policy check` warns, the console's /policy shows it.
  bool insecure_plaintext = false;
  std::string ca_file;    // PEM CA the server's certificate is checked with
  std::string bind_dn;    // "": an anonymous bind
  std::string bind_password_file;
  std::string base_dn;    // where users are searched (console logins)
  std::string user_filter = "(uid=%s)";  // %s: the login name, escaped
  std::string mail_attribute = "mail";
  double timeout_seconds = 5;
  double cache_seconds = 300;  // how long group members are kept
  // Console logins against the directory: role ("viewer", "reviewer",
  // "admin") -> the DN of the group whose members get it. Empty: the
  // console's users are its own only.
  std::map<std::string, std::string> roles;
};

// Where the incident store's outbox sends its events (docs/siem.md): a
// syslog receiver or a webhook. PERSISTED in the policy file's
// [[destination]] tables.
struct DestinationSettings {
  std::string name;  // the outbox's key for it: a new name starts afresh
  int line = 0;      // in the policy file, for messages
  // "syslog": udp://HOST:PORT, tcp://HOST:PORT (RFC 6587 octet counting)
  // or tls://HOST:PORT (RFC 5425); "webhook": https://HOST[:PORT]/PATH.
  std::string url;
  bool webhook = false;
  std::string format = "cef";  // syslog: "cef" or "leef"
  int facility = 20;           // syslog facility number (20: local4)
  std::string ca_file;         // TLS: the CA checked against; "": the system's
  std::string secret_file;     // webhook: the HMAC key's file
  // Which events it receives; empty: all. Severities "info" ... "high"
  // and "none" (an incident no rule matched: an error, unread parts);
  // channels "mail", "web", "scan"; events "incident", "review".
  std::vector<std::string> severities;
  std::vector<std::string> channels;
  std::vector<std::string> events;
  bool include_snippets = false;  // the outbound text around passages
  double timeout_seconds = 10;    // to connect, and for a webhook's answer
  double max_retry_seconds = 60;  // the longest pause between attempts
  bool operator==(const DestinationSettings&) const = default;
};

// The outbox's bounds and the console link the events carry. PERSISTED in
// the policy file's [outbox] table.
struct OutboxSettings {
  double max_age_days = 7;         // older events are dropped, counted
  int64_t max_events = 1'000'000;  // beyond, the oldest are dropped
  std::string console_url;  // events link to CONSOLE/incidents?reference=
  bool operator==(const OutboxSettings&) const = default;
};

// A data identifier the policy defines ([[identifier]], docs/records.md):
// a pattern (Hyperscan's syntax; empty: the validator's own), an optional
// built-in validator, and words of context that must be near a match.
// PERSISTED in the policy file.
struct IdentifierDefinition {
  std::string name;
  int line = 0;  // in the policy file, for messages
  std::string pattern;
  bool caseless = false;
  std::string validator = "none";  // "card" ("luhn"), "iban" ("mod97"), ...
  std::vector<std::string> keywords;
  uint32_t keyword_distance = 20;  // words
  bool operator==(const IdentifierDefinition&) const = default;
};

// An escalation rule of the desk ([[escalation]], docs/console.md,
// "Cases"): an open case of one of `severities` (empty: any) that nobody
// took within unowned_hours, or nobody resolved within unresolved_hours,
// of its incident's time is escalated to `notify` (addresses, or
// group:NAME of the policy's groups), who get one mail per run.
// PERSISTED in the policy file.
struct EscalationRule {
  std::string name;
  int line = 0;
  std::vector<Severity> severities;
  std::optional<uint32_t> unowned_hours;
  std::optional<uint32_t> unresolved_hours;
  std::vector<std::string> notify;
};

// A scheduled report ([[report]], docs/console.md "Reports"): mailed to
// `to` (addresses, or group:NAME) every `period` ("daily", "weekly")
// with the incidents of that period of `channels` and `severities`
// (empty: any), in `sections` (empty: all of kReportSections).
// PERSISTED in the policy file.
inline constexpr const char* kReportSections[] = {
    "severity",  "rule",        "channel",  "sender",
    "overrides", "review_time", "documents"};
struct ReportSettings {
  std::string name;
  int line = 0;
  std::vector<std::string> to;
  std::string period = "weekly";
  std::vector<std::string> channels;
  std::vector<std::string> severities;
  std::vector<std::string> sections;
};

// The policy's [labels] table (docs/labels.md): sensitivity label ids
// (GUIDs, lower case) -> the names rules use, and the names from the
// least sensitive to the most (ranks for sensitivity_at_least and
// label_downgrade). PERSISTED in the policy file.
struct LabelSettings {
  std::map<std::string, std::string> names;
  std::vector<std::string> order;
};

// A share crawled by `leakhound discover` ([[discover.target]],
// docs/discover.md). PERSISTED in the policy file. schedule: "hourly",
// "daily", "weekly" or "manual" (run only when named).
struct DiscoverTarget {
  std::string name;
  int line = 0;
  std::vector<std::string> paths;    // absolute folders or files
  std::vector<std::string> exclude;  // fnmatch(3) globs: name or path
  std::string schedule = "daily";
  bool operator==(const DiscoverTarget&) const = default;
};

// The policy's [discover] table. quarantine_dir: where quarantined files
// go (created 0700); owner_mail: an owner's address, "%u" the user name
// (else the directory's mail attribute); from: notices' sender.
struct DiscoverSettings {
  std::string quarantine_dir;
  std::string owner_mail;
  std::string from = "leakhound@localhost";
  std::vector<DiscoverTarget> targets;
  bool operator==(const DiscoverSettings&) const = default;
};

struct Policy {
  std::string path;  // where it was read from; "(built-in)" otherwise
  std::vector<std::string> internal_domains;
  // Named in refusals and notices: where a sender learns how to ask for
  // release.
  std::string help_url;
  // Sender groups: name -> address patterns.
  std::map<std::string, std::vector<std::string>, std::less<>> groups;
  // Groups whose members are a directory group's (name -> its DN): the
  // gateway fills `groups` with their addresses, kept for cache_seconds.
  std::map<std::string, std::string> directory_groups;
  std::optional<DirectorySettings> directory;
  std::vector<PolicyRule> rules;
  std::vector<DestinationSettings> destinations;
  OutboxSettings outbox;
  std::vector<IdentifierDefinition> identifiers;
  std::vector<EscalationRule> escalations;
  std::vector<ReportSettings> reports;
  LabelSettings sensitivity_labels;
  DiscoverSettings discover;
  // Every label the rules name, and whether they are compiled to bits
  // (CompileLabels; at most 64 labels): the bit of label i is 1 << i.
  // Without them labels are compared as text.
  std::vector<std::string> labels;
  bool label_bits = false;
};

// Fills Policy::labels and each condition's label bits, so that
// evaluating a rule compares bits, not text. Called by ParsePolicy and
// BuiltinPolicy; call it again after changing a policy's rules by hand.
void CompileLabels(Policy* policy);

// The policy of a daemon run without a policy file: one rule, "default",
// that gives every verdict with a matched document `on_leak`, with
// `reject_text` as its refusal (docs/policy.md shows it as a file).
Policy BuiltinPolicy(Disposition on_leak, const std::string& reject_text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_H_
