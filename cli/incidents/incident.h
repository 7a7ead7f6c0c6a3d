// Incident: what leakhound records when it catches something, for the
// security team to review (docs/console.md): where it was caught (the mail
// gateway or a scan), what was done with it, and per matched passage the
// protected document and, unless snippets are off, the outbound text
// around the passage. Never any protected text: the index holds none.
//
// Thread-safety: plain values and pure functions.
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

// One matched passage of an incident.
struct IncidentMatch {
  std::string document;  // protected document's external id, or for a
                         // protected location "location PREFIX"
  std::string source;    // the path it was added from
  std::vector<std::string> labels;
  std::string part;         // "" (the message body or file) or a part path
  uint32_t byte_begin = 0;  // the passage in the part's extracted text
  uint32_t byte_end = 0;
  uint32_t words = 0;
  double coverage = 0;  // of the protected document, 0..1
  // The outbound text around the passage (empty with snippets off), and
  // the passage's bytes inside it.
  std::string snippet;
  uint32_t snippet_begin = 0;
  uint32_t snippet_end = 0;
};

// A rule of the policy that matched (docs/policy.md). PERSISTED by name:
// severity info|low|medium|high, action a disposition's name.
struct IncidentRule {
  std::string rule;
  std::string severity;
  std::string action;
  bool monitor = false;  // the rule only recorded what it would have done
  // The documents (ids, "location PREFIX") that made it fire; empty for a
  // rule on records, identifiers, errors or unread parts only.
  std::vector<std::string> documents{};
};

// What a policy reads of one matched document (or "location PREFIX"):
// kept with every incident so that `policy replay` can run another
// policy over it.
// One fact of an incident a policy reads: a matched document with its
// labels, words and share; or, PERSISTED by these name prefixes, the rows
// of a protected table matched ("table NAME", words = rows) or the
// distinct valid values of a data identifier ("identifier NAME", words =
// values), so that `policy replay` reads what the gateway read.
// Also PERSISTED: "part NAME", a part's sensitivity labels and the
// documents it quotes (words 0), and in a document's labels its own
// sensitivity as "sensitivity:ID<TAB>NAME" (cli/gateway/label_facts.h).
inline constexpr char kTableFactPrefix[] = "table ";
inline constexpr char kIdentifierFactPrefix[] = "identifier ";
inline constexpr char kPartFactPrefix[] = "part ";
// And "cumulative TARGET": the drip ledger's sum (cumulative_facts.h).
inline constexpr char kCumulativeFactPrefix[] = "cumulative ";
struct IncidentDocument {
  std::string document;
  std::vector<std::string> labels;
  uint32_t words = 0;  // matched, summed over the parts
  double share = 0;    // of the protected document, 0..1
};

// What one message sent of one protected document (a range of its
// tokens) or of one protected table (a row, by its keyed hash): the drip
// ledger's row (docs/policy.md, "Cumulative"). PERSISTED (drip_spans):
// fingerprints and counts, never text.
struct DripSpan {
  std::string sender;  // lower case
  std::string domain;  // the sender's, lower case
  std::string target;  // a document's id, or "table NAME"
  int64_t time_ms = 0;
  uint32_t begin = 0;  // a document's tokens [begin, end)
  uint32_t end = 0;
  uint32_t total = 0;  // the document's tokens
  std::string row;     // a table row's keyed hash (hex); "" for a document
  std::string channel;
  std::string reference;  // the message's incident
  bool operator==(const DripSpan&) const = default;
};

// An override offered with an incident (docs/overrides.md) and what
// became of it. PERSISTED (the overrides table): kind "justify" or
// "acknowledge"; state "offered", "used" or "revoked", or "retried": the
// incident of an upload a web grant let through (it names the grant's
// user and justification).
struct IncidentOverride {
  std::string kind;        // "": none offered
  std::string rule;        // the rule that offered it
  int64_t until_ms = 0;    // it can be used before this
  uint32_t min_chars = 0;  // of the justification, in characters
  uint32_t per_day = 0;    // uses per sender per day; 0: no limit
  std::string state = "offered";
  std::string used_by;  // who used it (the sender, the proxy user)
  std::string text;     // the justification
  std::string address;  // the client address it was used from
  int64_t time_ms = 0;  // when it was used or revoked
  std::string revoked_by;
  // Web (a blocked upload): the destination host and the body's SHA-256
  // (hex) the grant is bound to, the SHA-256 (hex) of the block page's
  // token, and once granted, until when the one retry may come and when
  // it came (0: not yet).
  std::string host;
  std::string digest;
  std::string token_hash;
  int64_t retry_until_ms = 0;
  int64_t retried_ms = 0;
};

// A web override granted and taken by the retried upload
// (IncidentStore::TakeWebGrant): the blocked incident and its override.
struct WebGrant {
  int64_t incident_id = 0;
  std::string reference;
  IncidentOverride grant;
};

// Persisted values (the incidents table, docs/storage_format.md): kind is
// "leak", "error" or "unread"; source "milter", "scan", "web" or "discover";
// status "open", "confirmed" or "false-positive"; mail_state "", "held",
// "released" or "deleted".
struct Incident {
  int64_t id = 0;       // assigned by the store
  // PERSISTED: a stable id given when the incident is made (IncidentWriter:
  // 32 hex digits), so that a record sent twice (a spool replayed after a
  // crash) is stored once; "" for none (a scan's records).
  std::string uid;
  // The gateway (node name, docs/fleet.md) that made it: the one whose
  // mail queue holds a quarantined mail. "" for none recorded.
  std::string node;
  int64_t time_ms = 0;  // Unix ms
  std::string source;
  std::string kind;
  std::string action;  // what the gateway did (reject, quarantine, ...),
                       // "reported" for a scan
  // The policy's decision (docs/policy.md): a reference the sender is
  // told ("LH-" and 10 characters), the highest severity ("" when no
  // rule matched), the policy file, what monitor-mode rules would have
  // done ("" when none matched), every rule that matched, and the facts
  // the rules read.
  std::string reference;
  std::string severity;
  std::string policy;
  std::string would_action;
  std::vector<IncidentRule> rules;
  std::vector<IncidentDocument> facts;
  // Mail.
  std::string queue_id;
  std::string message_id;
  std::string sender;
  std::vector<std::string> recipients;
  std::string subject;
  std::string client;  // mail: the SMTP client; web: X-Client-IP
  // Web (sender: the proxy's user; recipients: the destination host).
  std::string method;
  std::string url;  // without credentials
  // Scan.
  std::string run_id;
  std::string file_path;
  uint64_t file_size = 0;
  std::string sha256;  // hex
  // An error's reason, or the parts that could not be read.
  std::string detail;
  // Review.
  std::string status = "open";
  std::string note;
  std::string reviewed_by;
  int64_t reviewed_ms = 0;
  std::string mail_state;
  // The case (docs/console.md, "Cases"). PERSISTED: workflow "new",
  // "in-review", "escalated", "resolved"; owner a console user ("" none);
  // escalated_to the group or addresses told, and when.
  std::string owner;
  std::string workflow = "new";
  std::string escalated_to;
  int64_t escalated_ms = 0;
  // The distinct documents of `matches`, in order (DistinctDocuments);
  // filled by the store, and the one field of the matches a list has.
  std::vector<std::string> documents;
  std::vector<IncidentMatch> matches;  // empty in a list (IncidentStore)
  // Loaded by IncidentStore::Get only.
  IncidentOverride override_offer;
};

// Who or what an incident came from, for lists: a scanned file, a mail's
// sender, a web request's user (without one, its client address).
std::string IncidentOrigin(const Incident& i);

// The policy's channel (docs/policy.md) of an incident's source:
// "milter" -> "mail"; "scan" and "web" are their own.
std::string ChannelOf(std::string_view source);

std::vector<std::string> DistinctDocuments(
    const std::vector<IncidentMatch>& matches);

// The outbound text of a snippet: at most kSnippetContext bytes either
// side of the passage, and at most kSnippetPassage bytes of the passage
// (a longer one is cut, and its end marked by " [...]"). Cuts fall on
// UTF-8 character boundaries. REQUIRES: begin <= end <= text.size().
inline constexpr size_t kSnippetContext = 200;
inline constexpr size_t kSnippetPassage = 1500;
void FillSnippet(std::string_view text, uint32_t begin, uint32_t end,
                 IncidentMatch* match);

// A time bound as users give it: an age before `now_ms` ("90d", "12h",
// "30m", "45s", "2w"), a date ("2026-11-25", midnight UTC) or a date and
// time ("2026-11-25T14:30:00", UTC, optionally ending in Z). InvalidArgument
// otherwise.
absl::StatusOr<int64_t> ParseTimeBound(std::string_view text, int64_t now_ms);

// "2026-11-25 14:30:00" (UTC) for Unix ms.
std::string FormatTime(int64_t unix_ms);

int64_t NowUnixMs();

// A reference for an incident, told to the person who sent what was caught
// (the refusal, the block page): "LH-" and 10 characters of an
// unambiguous alphabet (50 bits), random. Thread-safe.
std::string NewIncidentReference();

// 32 hex digits from the kernel's random source (getrandom(2)): a secret
// (a block page's grant token), unlike NewEventId's ids.
std::string NewSecretToken();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_H_
