// The one file that calls libmilter.
#include "cli/milter/milter_server.h"

#include <arpa/inet.h>
#include <libmilter/mfapi.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <memory>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cli/gateway/notifier.h"
#include "cli/policy/policy_evaluator.h"

namespace leakhound {
namespace {

// Scanning slots handed out in arrival order: under a load the cores
// cannot keep up with, every message waits about as long as the queue
// ahead of it, instead of some waiting far longer (a semaphore has no
// order).
class FifoSlots {
 public:
  explicit FifoSlots(uint32_t slots) : free_(slots) {}

  // False if no slot was free within `timeout`.
  bool Acquire(std::chrono::duration<double> timeout) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    const uint64_t ticket = next_ticket_++;
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            timeout);
    bool got = false;
    for (;;) {
      got = Turn(ticket);
      const auto now = std::chrono::steady_clock::now();
      if (got || now >= deadline) break;
      cv_.WaitWithTimeout(&mu_, absl::FromChrono(deadline - now));
    }
    if (ticket == serving_) {
      ++serving_;
      // Tickets given up in the meantime are skipped.
      while (abandoned_.erase(serving_) > 0) ++serving_;
    } else {
      abandoned_.insert(ticket);
    }
    if (got) --free_;
    cv_.SignalAll();
    return got;
  }

  void Release() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    ++free_;
    cv_.SignalAll();
  }

 private:
  bool Turn(uint64_t ticket) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return ticket == serving_ && free_ > 0;
  }

  absl::Mutex mu_;
  absl::CondVar cv_;
  uint32_t free_ ABSL_GUARDED_BY(mu_);
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  // The ticket whose turn it is.
  uint64_t serving_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<uint64_t> abandoned_ ABSL_GUARDED_BY(mu_);
};

// libmilter's callbacks are plain functions: the server's state is global.
struct ServerState {
  const MilterPolicy* policy = nullptr;
  const Gateway* gateway = nullptr;
  const MessageScanner* scanner = nullptr;
  MilterLog log;
  IncidentSink record;
  MilterMetrics* metrics = nullptr;
  std::unique_ptr<FifoSlots> slots;
  std::atomic<uint32_t> sessions{0};
  std::atomic<bool> listening{false};
};
ServerState g_state;

// One SMTP connection's state, kept with smfi_setpriv.
struct Session {
  std::string client;    // the SMTP client's address, for the connection
  std::string message;   // headers and body as received
  // For the incident record.
  std::string sender;
  std::vector<std::string> recipient_list;  // the first 1,000, for the record
  // Every recipient, as RCPT TO gave it and without its <>: the policy
  // reads them all (one outside address among thousands counts), and
  // remove-external-recipients deletes by the form given.
  std::vector<std::string> raw_recipients;
  std::vector<std::string> recipients_all;
  std::string subject;
  std::string message_id;
  bool oversized = false;
  bool sender_allowed = false;
  bool all_recipients_allowed = true;
  size_t recipients = 0;

  void Reset() {
    message.clear();
    message.shrink_to_fit();
    sender.clear();
    recipient_list.clear();
    raw_recipients.clear();
    recipients_all.clear();
    subject.clear();
    message_id.clear();
    oversized = false;
    sender_allowed = false;
    all_recipients_allowed = true;
    recipients = 0;
  }
  // Appends within the size limit; past it, drops the buffer for good.
  void Append(std::string_view bytes) {
    if (oversized) return;
    if (message.size() + bytes.size() > g_state.policy->max_message_bytes) {
      oversized = true;
      message.clear();
      message.shrink_to_fit();
      return;
    }
    message.append(bytes);
  }
};

constexpr char kNoSlotError[] = "no scanning slot free in time";

Session* Get(SMFICTX* ctx) { return static_cast<Session*>(smfi_getpriv(ctx)); }

std::string Symbol(SMFICTX* ctx, const char* name) {
  const char* v = smfi_getsymval(ctx, const_cast<char*>(name));
  return v != nullptr ? v : "";
}

// libmilter takes char* for strings it does not change.
char* Mutable(std::string& s) { return s.data(); }

// Header values kept for the incident record are bounded.
constexpr size_t kMaxRecordedField = 998;

std::string Bounded(std::string_view value) {
  if (value.size() <= kMaxRecordedField) return std::string(value);
  size_t cut = kMaxRecordedField;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80)
    --cut;
  return std::string(value.substr(0, cut));
}

// An envelope address as MTAs pass it ("<a@b>") without its brackets.
std::string_view Unbracketed(std::string_view address) {
  if (address.size() >= 2 && address.front() == '<' && address.back() == '>') {
    address = address.substr(1, address.size() - 2);
  }
  return address;
}

std::string AddressText(const _SOCK_ADDR* address) {
  if (address == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = "";
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr,
              text, sizeof text);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6,
              &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
              sizeof text);
  }
  return text;
}

sfsistat OnConnect(SMFICTX* ctx, char*, _SOCK_ADDR* address) {
  auto* session = new Session();
  session->client = AddressText(address);
  smfi_setpriv(ctx, session);
  g_state.sessions.fetch_add(1);
  return SMFIS_CONTINUE;
}

sfsistat OnEnvelopeFrom(SMFICTX* ctx, char** argv) {
  Session* s = Get(ctx);
  if (s == nullptr) return SMFIS_TEMPFAIL;
  s->Reset();
  if (argv != nullptr && argv[0] != nullptr)
    s->sender = Bounded(Unbracketed(argv[0]));
  s->sender_allowed = argv != nullptr && argv[0] != nullptr &&
                      AddressAllowed(argv[0], g_state.policy->allow_senders);
  return SMFIS_CONTINUE;
}

sfsistat OnEnvelopeRecipient(SMFICTX* ctx, char** argv) {
  Session* s = Get(ctx);
  if (s == nullptr) return SMFIS_TEMPFAIL;
  ++s->recipients;
  if (argv != nullptr && argv[0] != nullptr &&
      s->recipient_list.size() < 1000) {
    s->recipient_list.push_back(Bounded(Unbracketed(argv[0])));
  }
  if (argv != nullptr && argv[0] != nullptr) {
    s->raw_recipients.emplace_back(argv[0]);
    s->recipients_all.emplace_back(Unbracketed(argv[0]));
  }
  if (argv == nullptr || argv[0] == nullptr ||
      !AddressAllowed(argv[0], g_state.policy->allow_recipients)) {
    s->all_recipients_allowed = false;
  }
  return SMFIS_CONTINUE;
}

sfsistat OnHeader(SMFICTX* ctx, char* name, char* value) {
  Session* s = Get(ctx);
  if (s == nullptr) return SMFIS_TEMPFAIL;
  if (strcasecmp(name, "Subject") == 0) s->subject = Bounded(value);
  if (strcasecmp(name, "Message-ID") == 0) s->message_id = Bounded(value);
  s->Append(absl::StrCat(name, ": ", value, "\r\n"));
  return SMFIS_CONTINUE;
}

sfsistat OnEndOfHeaders(SMFICTX* ctx) {
  Session* s = Get(ctx);
  if (s == nullptr) return SMFIS_TEMPFAIL;
  s->Append("\r\n");
  return SMFIS_CONTINUE;
}

sfsistat OnBody(SMFICTX* ctx, unsigned char* chunk, size_t length) {
  Session* s = Get(ctx);
  if (s == nullptr) return SMFIS_TEMPFAIL;
  s->Append(std::string_view(reinterpret_cast<const char*>(chunk), length));
  return SMFIS_CONTINUE;
}

void AddHeader(SMFICTX* ctx, const char* name, std::string value) {
  smfi_addheader(ctx, const_cast<char*>(name), Mutable(value));
}

// `items` joined by ", " as one header field's value: control characters
// (a CR LF in an attachment's name would start a header of its own) become
// spaces, and the value stops near 900 bytes.
std::string HeaderValue(const std::vector<std::string>& items) {
  std::string out = absl::StrJoin(items, ", ");
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7F') c = ' ';
  }
  if (out.size() > 900) {
    size_t cut = 896;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
      --cut;
    out.resize(cut);
    out += " ...";
  }
  return out;
}

// What the milter made of one message: the verdict, the policy's
// decision and the action carried out, the reply's reason; `note` for a
// message not scanned (allow-listed); the time it waited for a scanning
// slot; the reference the sender is told.
struct Judged {
  MessageVerdict v;
  std::shared_ptr<const Policy> policy;  // in force when it was judged
  PolicyDecision decision;               // points into *policy
  Disposition action = Disposition::kLog;
  std::string why, note, reference;
  std::vector<std::string> removed;  // remove-external-recipients: who
  double wait_ms = 0;
};

// The name the log and the metrics give an action: what the MTA was told
// ("accept" for a message delivered as it came).
const char* AnswerName(Disposition d) {
  return d == Disposition::kLog ? "accept" : DispositionName(d);
}

// A reply line: no control characters (they would end the line) and '%'
// doubled (libmilter reads it as a format), at most 900 bytes.
std::string ReplyLine(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7F') c = ' ';
  }
  std::string out;
  for (char c : text) {
    if (out.size() >= 900) break;
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

// The refusal's text: the deciding rule's (or --reject-text), with the
// matched documents under --show-matches.
std::string RefusalText(const Judged& j) {
  const MilterPolicy& p = *g_state.policy;
  const PolicyRule* rule = j.decision.deciding;
  std::string text =
      rule != nullptr && !rule->reject_text.empty() ? rule->reject_text : j.why;
  if (j.v.kind == MessageVerdict::Kind::kLeak && p.show_matches) {
    std::vector<std::string> named = j.v.documents;
    for (const std::string& l : j.v.locations) named.push_back("location " + l);
    absl::StrAppend(&text, " (", absl::StrJoin(named, ", "), ")");
  }
  return text;
}

// Whether the decision came from a policy file (not the flags' built-in
// policy, under which the milter answers exactly as it did before
// policies: one-line refusals, no policy headers).
bool FromPolicyFile(const Judged& j) {
  return j.policy != nullptr && j.policy->path != "(built-in)";
}

// 550 5.7.1. A policy file's refusal is multi-line (smfi_setmlreply): the
// rule's text, the incident's reference and rule, and where to ask for
// help; the built-in policy's is today's one line.
void SetRefusal(SMFICTX* ctx, const Judged& j) {
  std::string code = "550", xcode = "5.7.1";
  std::string text = ReplyLine(RefusalText(j));
  const PolicyRule* rule = j.decision.deciding;
  if (rule == nullptr || !FromPolicyFile(j)) {
    smfi_setreply(ctx, Mutable(code), Mutable(xcode), Mutable(text));
    return;
  }
  std::string incident = ReplyLine(
      absl::StrCat("Incident ", j.reference, ", rule '", rule->name,
                   "', severity ", SeverityName(j.decision.severity)));
  std::string help = ReplyLine(
      j.policy->help_url.empty()
          ? "Ask your security team for help, naming the incident."
          : absl::StrCat("To ask for release, see ", j.policy->help_url,
                         " and name the incident."));
  smfi_setmlreply(ctx, code.c_str(), xcode.c_str(), text.c_str(),
                  incident.c_str(), help.c_str(), nullptr);
}

// Whether `address` (unbracketed, any case) is in the policy's internal
// domains.
bool Internal(const Policy& policy, const std::string& address) {
  return InDomains(policy.internal_domains, absl::AsciiStrToLower(address));
}

void TagHeaders(SMFICTX* ctx, const Session& s, const Judged& j) {
  const MessageVerdict& v = j.v;
  AddHeader(ctx, "X-Leakhound-Status", VerdictName(v.kind));
  if (!v.unread.empty()) {
    AddHeader(ctx, "X-Leakhound-Unread", HeaderValue(v.unread));
  }
  if (!v.documents.empty()) {
    AddHeader(ctx, "X-Leakhound-Matches", HeaderValue(v.documents));
  }
  if (!v.locations.empty()) {
    AddHeader(ctx, "X-Leakhound-Locations", HeaderValue(v.locations));
  }
  // Monitor rules change nothing the recipient sees: only enforcing rules
  // are named, and the severity is theirs (the incident keeps both).
  std::vector<std::string> rules;
  Severity severity = Severity::kInfo;
  for (const RuleMatch& m : j.decision.matches) {
    if (m.rule->monitor) continue;
    rules.push_back(m.rule->name);
    severity = std::max(severity, m.severity);
  }
  if (FromPolicyFile(j) && !rules.empty()) {
    AddHeader(ctx, "X-Leakhound-Severity", SeverityName(severity));
    AddHeader(ctx, "X-Leakhound-Rules", HeaderValue(rules));
    if (!j.reference.empty()) {
      AddHeader(ctx, "X-Leakhound-Incident", j.reference);
    }
  }
  const PolicyRule* rule = j.decision.deciding;
  if (rule != nullptr && !rule->subject_prefix.empty()) {
    std::string subject = HeaderValue({rule->subject_prefix + s.subject});
    smfi_chgheader(ctx, const_cast<char*>("Subject"), 1, Mutable(subject));
  }
}

// Deletes every recipient outside the internal domains; false (nothing
// deleted) when none is inside.
bool RemoveExternal(SMFICTX* ctx, const Session& s, Judged& j) {
  std::vector<std::string>& removed = j.removed;
  std::vector<size_t> external;
  for (size_t i = 0; i < s.raw_recipients.size(); ++i) {
    if (!Internal(*j.policy, s.recipients_all[i])) external.push_back(i);
  }
  if (external.size() == s.raw_recipients.size()) return false;
  for (size_t i : external) {
    std::string raw = s.raw_recipients[i];
    smfi_delrcpt(ctx, Mutable(raw));
    removed.push_back(s.recipients_all[i]);
  }
  if (!removed.empty()) {
    AddHeader(ctx, "X-Leakhound-Removed-Recipients", HeaderValue(removed));
  }
  return true;
}

// Sends the message to the deciding rule's reviewer instead.
void Redirect(SMFICTX* ctx, const Session& s, const Judged& j) {
  for (const std::string& raw : s.raw_recipients) {
    std::string r = raw;
    smfi_delrcpt(ctx, Mutable(r));
  }
  std::string reviewer = absl::StrCat("<", j.decision.deciding->reviewer, ">");
  smfi_addrcpt(ctx, Mutable(reviewer));
  AddHeader(ctx, "X-Leakhound-Original-Recipients",
            HeaderValue(s.recipient_list));
}

// Carries out the judged action; returns the milter's answer.
sfsistat Act(SMFICTX* ctx, const Session& s, Judged& j) {
  const MilterPolicy& p = *g_state.policy;
  const MessageVerdict& v = j.v;
  if (j.action == Disposition::kRemoveExternalRecipients &&
      !RemoveExternal(ctx, s, j)) {
    j.action = Disposition::kReject;  // every recipient is outside
  }
  switch (j.action) {
    case Disposition::kReject:
      SetRefusal(ctx, j);
      return SMFIS_REJECT;
    case Disposition::kTempfail: {
      std::string code = "451", xcode = "4.7.1", text = ReplyLine(j.why);
      smfi_setreply(ctx, Mutable(code), Mutable(xcode), Mutable(text));
      return SMFIS_TEMPFAIL;
    }
    case Disposition::kQuarantine: {
      // The hold reason (postqueue -j, the console) says what happened to
      // the mail: held, not refused.
      std::string reason =
          absl::StrCat("leakhound: held: ",
                       v.kind == MessageVerdict::Kind::kLeak
                           ? absl::StrCat("it quotes protected content (",
                                          absl::StrJoin(v.documents, ", "), ")")
                           : j.why);
      smfi_quarantine(ctx, Mutable(reason));
      if (p.status_header)
        AddHeader(ctx, "X-Leakhound-Status", VerdictName(v.kind));
      break;
    }
    case Disposition::kRedirect:
      Redirect(ctx, s, j);
      TagHeaders(ctx, s, j);
      break;
    case Disposition::kRemoveExternalRecipients:
    case Disposition::kTag:
      TagHeaders(ctx, s, j);
      break;
    case Disposition::kLog:
      if (p.status_header)
        AddHeader(ctx, "X-Leakhound-Status", VerdictName(v.kind));
      break;
  }
  for (const std::string& reviewer : j.decision.bcc) {
    std::string r = absl::StrCat("<", reviewer, ">");
    smfi_addrcpt(ctx, Mutable(r));
  }
  return SMFIS_ACCEPT;
}

// The policy's notices for a judged message (a policy file's only): the
// sender is told when a rule asks it or recipients were removed; each
// reviewer a rule names gets the incident in the next digest.
void Notify(const Session& s, const Judged& j) {
  Notifier* notifier = g_state.gateway->notifier();
  if (notifier == nullptr || !FromPolicyFile(j) || j.reference.empty()) return;
  const PolicyDecision& d = j.decision;
  const std::string rule = d.deciding != nullptr ? d.deciding->name : "";
  std::vector<std::string> documents, records;
  for (const MatchedDocument& m : j.v.matched) documents.push_back(m.id);
  for (const auto& [table, rows] : j.v.records) {
    records.push_back(absl::StrCat(rows, rows == 1 ? " row" : " rows",
                                   " of table ", table));
  }
  for (const auto& [name, values] : j.v.identifiers) {
    records.push_back(absl::StrCat(values, " ", name,
                                   values == 1 ? " value" : " values"));
  }
  // A sender offered an override is always told: the notice carries it.
  const bool offered =
      d.override_rule != nullptr && j.action == Disposition::kQuarantine;
  if ((d.notify_sender || offered ||
       j.action == Disposition::kRemoveExternalRecipients) &&
      !s.sender.empty()) {
    SenderNotice notice{s.sender,
                        s.subject,
                        s.recipient_list,
                        j.removed,
                        DispositionName(j.action),
                        rule,
                        documents,
                        records,
                        j.reference,
                        j.policy->help_url};
    const std::string& console = g_state.gateway->options().console_url;
    if (offered && !console.empty()) {
      notice.override_url = absl::StrCat(console, "/override/", j.reference);
      notice.override_hours = d.override_rule->override_offer.hours;
    }
    notifier->NotifySender(std::move(notice));
  }
  for (const std::string& reviewer : d.notify) {
    notifier->NotifyReviewer(reviewer,
                             {j.reference, rule, SeverityName(d.severity),
                              DispositionName(j.action), s.sender, s.subject});
  }
}

// Applies the policy to a scanned message (JudgeFacts, decision.h: the
// decision's action, or the --on-error / --on-unreadable /
// --on-unread-limit flags' where no rule speaks; a removal that would
// leave no recipient a refusal) and gives an incident its reference.
void Decide(const Session& s, Judged& j) {
  const MilterPolicy& p = *g_state.policy;
  MessageVerdict& v = j.v;
  j.policy = g_state.gateway->policy();
  // A leak's incident is named first: the drip ledger records what it
  // sent under it.
  if (v.kind == MessageVerdict::Kind::kLeak) {
    j.reference = NewIncidentReference();
  }
  Judgement judged =
      JudgeFacts(*j.policy,
                 g_state.gateway->Facts(
                     *j.policy, Envelope{"mail", s.sender, s.recipients_all},
                     j.reference, &v),
                 v.kind,
                 {DispositionOf(p.on_error), DispositionOf(p.on_unreadable),
                  DispositionOf(p.on_unread_limit)});
  j.decision = std::move(judged.decision);
  j.action = judged.action;
  if (v.kind == MessageVerdict::Kind::kLeak) {
    j.why = p.reject_text;
  } else if (v.kind == MessageVerdict::Kind::kError) {
    j.why = "Message could not be checked for protected content";
  } else if (!v.unread.empty()) {
    j.why =
        "Message has parts that could not be checked for protected "
        "content";
  }
  if (j.reference.empty() && Eventful(v, j.decision)) {
    j.reference = NewIncidentReference();
  }
}

// Judges the session's message (through the gateway's scanner, within a
// scanning slot) and decides its action by the policy.
Judged Judge(const Session& s, const MilterPolicy& p,
             std::chrono::steady_clock::time_point start) {
  Judged j;
  MessageVerdict& v = j.v;
  if (s.sender_allowed || (s.recipients > 0 && s.all_recipients_allowed)) {
    j.note =
        s.sender_allowed ? "sender allow-listed" : "recipients allow-listed";
  } else if (s.oversized) {
    v.kind = MessageVerdict::Kind::kError;
    v.error = absl::StrCat("larger than ", p.max_message_bytes, " bytes");
    j.action = DispositionOf(p.on_oversize);
    j.why = "Message too large to be checked for protected content";
    j.reference = NewIncidentReference();
  } else if (!g_state.slots->Acquire(
                 std::chrono::duration<double>(p.max_wait_seconds))) {
    v.kind = MessageVerdict::Kind::kError;
    v.error = kNoSlotError;
    j.action = DispositionOf(p.on_error);
    j.why = "Message could not be checked for protected content";
    j.reference = NewIncidentReference();
  } else {
    j.wait_ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    v = g_state.scanner->Scan(s.message);
    g_state.slots->Release();
    Decide(s, j);
  }
  return j;
}

// The incident of a judged message; takes the session's envelope and the
// verdict's evidence.
Incident MilterIncident(Session& s, const std::string& queue_id, Judged& j) {
  MessageVerdict& v = j.v;
  Incident incident = JudgedIncident("milter", v, j.action, j.reference,
                                     j.policy.get(), j.decision);
  incident.queue_id = queue_id;
  incident.message_id = std::move(s.message_id);
  incident.sender = std::move(s.sender);
  incident.recipients = std::move(s.recipient_list);
  incident.subject = std::move(s.subject);
  incident.client = s.client;
  incident.detail =
      v.kind == MessageVerdict::Kind::kError ? v.error : HeaderValue(v.unread);
  if (j.action == Disposition::kQuarantine) incident.mail_state = "held";
  return incident;
}

void CountMessage(const Session& s, const Judged& j) {
  const MessageVerdict& v = j.v;
  MilterMetrics& metrics = *g_state.metrics;
  metrics.CountMessage(j.note.empty() ? VerdictName(v.kind) : "skipped",
                       AnswerName(j.action), j.wait_ms / 1000,
                       v.milliseconds / 1000, s.message.size());
  if (v.kind == MessageVerdict::Kind::kError) {
    metrics.CountError(s.oversized               ? "oversize"
                       : v.error == kNoSlotError ? "no_slot"
                                                 : "unreadable");
  }
  for (const std::string& part : v.unread) {
    // "name (class)": the class is in the last parentheses.
    const size_t open = part.rfind('(');
    metrics.CountUnread(
        open == std::string::npos || part.back() != ')'
            ? "unknown"
            : std::string_view(part).substr(open + 1, part.size() - open - 2));
  }
}

// The parts' names for the log: the message's own text is "body"; a
// name's control characters and spaces are escaped so that it cannot
// forge a field or a line.
std::string LoggedParts(const std::vector<std::string>& parts) {
  return absl::StrJoin(parts, ",",
                       [](std::string* out, const std::string& part) {
                         if (part.empty()) return out->append("body"), void();
                         for (const char c : part) {
                           const auto byte = static_cast<unsigned char>(c);
                           if (byte <= 0x20 || byte == 0x7f) {
                             absl::StrAppendFormat(out, "\\x%02x", byte);
                           } else {
                             out->push_back(c);
                           }
                         }
                       });
}

// CPU time the calling thread has used, in milliseconds.
double ThreadCpuMilliseconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 +
         static_cast<double>(t.tv_nsec) / 1e6;
}

// One log line per message (docs/mail-gateway.md, "Running it"); `cpu_ms`
// is the CPU time of the end-of-message callback.
std::string LogLine(const std::string& queue_id, const Judged& j, double ms,
                    double cpu_ms, size_t bytes) {
  const MessageVerdict& v = j.v;
  std::string line = absl::StrFormat(
      "queue_id=%s verdict=%s action=%s ms=%.2f scan_ms=%.2f wait_ms=%.2f "
      "cpu_ms=%.2f bytes=%d",
      queue_id.empty() ? "-" : queue_id,
      j.note.empty() ? VerdictName(v.kind) : "skipped", AnswerName(j.action),
      ms, v.milliseconds, j.wait_ms, cpu_ms, bytes);
  if (!j.note.empty()) absl::StrAppend(&line, " note=\"", j.note, "\"");
  if (!j.reference.empty()) absl::StrAppend(&line, " incident=", j.reference);
  if (!j.decision.matches.empty()) {
    absl::StrAppend(&line, " severity=", SeverityName(j.decision.severity),
                    " rules=",
                    absl::StrJoin(j.decision.matches, ",",
                                  [](std::string* out, const RuleMatch& m) {
                                    out->append(LoggedParts({m.rule->name}));
                                  }));
    if (j.decision.would != Disposition::kLog ||
        std::any_of(j.decision.matches.begin(), j.decision.matches.end(),
                    [](const RuleMatch& m) { return m.rule->monitor; })) {
      absl::StrAppend(&line, " would=", DispositionName(j.decision.would));
    }
  }
  if (!v.documents.empty()) {
    absl::StrAppend(&line, " documents=", absl::StrJoin(v.documents, ","));
  }
  if (!v.locations.empty()) {
    absl::StrAppend(&line, " locations=", absl::StrJoin(v.locations, ","));
  }
  if (!v.parts.empty() && !(v.parts.size() == 1 && v.parts[0].empty())) {
    absl::StrAppend(&line, " parts=", LoggedParts(v.parts));
  }
  if (!v.unread.empty()) {
    std::string unread = HeaderValue(v.unread);
    std::replace(unread.begin(), unread.end(), '"', '\'');
    absl::StrAppend(&line, " unread=\"", unread, "\"");
  }
  if (v.duplicate) absl::StrAppend(&line, " duplicate=yes");
  if (!v.error.empty()) absl::StrAppend(&line, " error=\"", v.error, "\"");
  return line;
}

sfsistat OnEndOfMessage(SMFICTX* ctx) {
  Session* s = Get(ctx);
  if (s == nullptr) return SMFIS_TEMPFAIL;
  const std::string queue_id = Symbol(ctx, "i");
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ThreadCpuMilliseconds();
  Judged j = Judge(*s, *g_state.policy, start);
  const sfsistat answer = Act(ctx, *s, j);
  // The record is handed over before `ms` is taken: the time it costs is
  // part of the milter's latency (docs/console.md, "Measured").
  Notify(*s, j);
  if (g_state.record && j.note.empty() && Eventful(j.v, j.decision)) {
    g_state.record(MilterIncident(*s, queue_id, j));
  }
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  if (g_state.metrics != nullptr) CountMessage(*s, j);
  g_state.log(LogLine(queue_id, j, ms, ThreadCpuMilliseconds() - cpu_start,
                      s->message.size()));
  s->Reset();
  return answer;
}

sfsistat OnAbort(SMFICTX* ctx) {
  if (Session* s = Get(ctx)) s->Reset();
  return SMFIS_CONTINUE;
}

sfsistat OnClose(SMFICTX* ctx) {
  Session* s = Get(ctx);
  smfi_setpriv(ctx, nullptr);
  if (s != nullptr) {
    delete s;
    g_state.sessions.fetch_sub(1);
  }
  return SMFIS_CONTINUE;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

absl::StatusOr<MilterAction> ParseMilterAction(std::string_view name) {
  for (MilterAction a : {MilterAction::kAccept, MilterAction::kReject,
                         MilterAction::kQuarantine, MilterAction::kTag,
                         MilterAction::kTempfail}) {
    if (name == MilterActionName(a)) return a;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown action '", std::string(name),
      "' (accept, reject, quarantine, tag or tempfail)"));
}

Disposition DispositionOf(MilterAction action) {
  switch (action) {
    case MilterAction::kAccept:
      return Disposition::kLog;
    case MilterAction::kReject:
      return Disposition::kReject;
    case MilterAction::kQuarantine:
      return Disposition::kQuarantine;
    case MilterAction::kTag:
      return Disposition::kTag;
    case MilterAction::kTempfail:
      return Disposition::kTempfail;
  }
  return Disposition::kTempfail;
}

const char* MilterActionName(MilterAction action) {
  switch (action) {
    case MilterAction::kAccept: return "accept";
    case MilterAction::kReject: return "reject";
    case MilterAction::kQuarantine: return "quarantine";
    case MilterAction::kTag: return "tag";
    case MilterAction::kTempfail: return "tempfail";
  }
  return "?";
}

bool AddressAllowed(std::string_view address,
                    const std::vector<std::string>& allowed) {
  if (address.starts_with('<')) address.remove_prefix(1);
  if (address.ends_with('>')) address.remove_suffix(1);
  const std::string a = Lower(address);
  const size_t at = a.rfind('@');
  for (const std::string& entry : allowed) {
    const std::string e = Lower(entry);
    if (e == a) return true;
    if (e.starts_with('@') && at != std::string::npos &&
        std::string_view(a).substr(at) == e) {
      return true;
    }
  }
  return false;
}

absl::Status ServeMilter(const std::string& socket, const MilterPolicy& policy,
                         const Gateway* gateway, MilterLog log,
                         IncidentSink record, MilterMetrics* metrics) {
  g_state.policy = &policy;
  g_state.gateway = gateway;
  const MessageScanner* scanner = &gateway->scanner();
  g_state.record = std::move(record);
  g_state.metrics = metrics;
  g_state.scanner = scanner;
  g_state.log = std::move(log);
  g_state.slots =
      std::make_unique<FifoSlots>(std::max<uint32_t>(1, policy.max_concurrent));
  static char name[] = "leakhound";
  smfiDesc desc{};
  desc.xxfi_name = name;
  desc.xxfi_version = SMFI_VERSION;
  desc.xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS | SMFIF_QUARANTINE |
                    SMFIF_ADDRCPT | SMFIF_DELRCPT;
  desc.xxfi_connect = OnConnect;
  desc.xxfi_envfrom = OnEnvelopeFrom;
  desc.xxfi_envrcpt = OnEnvelopeRecipient;
  desc.xxfi_header = OnHeader;
  desc.xxfi_eoh = OnEndOfHeaders;
  desc.xxfi_body = OnBody;
  desc.xxfi_eom = OnEndOfMessage;
  desc.xxfi_abort = OnAbort;
  desc.xxfi_close = OnClose;
  std::string conn = socket;
  if (smfi_setconn(Mutable(conn)) == MI_FAILURE) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad socket '", socket, "' (inet:PORT@HOST or unix:/path)"));
  }
  if (smfi_register(desc) == MI_FAILURE) {
    return absl::InternalError("libmilter: smfi_register failed");
  }
  // Unix sockets are created read-write for owner and group only (the
  // MTA's group): mode 0660.
  const mode_t old_mask = ::umask(0117);  // 0660
  const int opened = smfi_opensocket(true);
  ::umask(old_mask);
  if (opened == MI_FAILURE) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", socket,
                                               " (in use, or no permission)"));
  }
  g_state.listening = true;
  if (smfi_main() == MI_FAILURE) {
    return absl::InternalError("libmilter: smfi_main failed");
  }
  return absl::OkStatus();
}

void RequestMilterStop() { smfi_stop(); }

uint32_t ActiveSessions() { return g_state.sessions.load(); }

bool MilterListening() { return g_state.listening.load(); }

}  // namespace leakhound
