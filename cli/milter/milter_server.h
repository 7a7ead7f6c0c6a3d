// MilterServer: the mail-gateway hook. Serves the milter protocol
// (libmilter: Postfix's smtpd_milters, Sendmail's INPUT_MAIL_FILTER) on a
// socket, buffers each message (headers and body chunks, within the size
// limit), has it judged by a MessageScanner and answers the MTA with the
// configured action. The one place that calls libmilter.
//
// libmilter keeps its state in process globals: one server per process.
// Thread-safety: Serve blocks the calling thread; RequestStop and
// ActiveSessions may be called from any other thread.
#ifndef LEAKHOUND_CLI_MILTER_MILTER_SERVER_H_
#define LEAKHOUND_CLI_MILTER_MILTER_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/gateway/gateway.h"
#include "cli/gateway/message_verdict.h"
#include "cli/gateway/milter_metrics.h"
#include "cli/incidents/incident.h"
#include "cli/policy/policy.h"

namespace leakhound {

// What the gateway does with a message. Names (kept stable: they are
// configuration values): accept, reject, quarantine, tag, tempfail.
enum class MilterAction { kAccept, kReject, kQuarantine, kTag, kTempfail };

absl::StatusOr<MilterAction> ParseMilterAction(std::string_view name);
const char* MilterActionName(MilterAction action);
// The policy's disposition of a flag's action (accept is log).
Disposition DispositionOf(MilterAction action);

struct MilterPolicy {
  MilterAction on_leak = MilterAction::kReject;
  MilterAction on_error = MilterAction::kTempfail;
  MilterAction on_oversize = MilterAction::kReject;
  // A clean message with parts leakhound could not read (MessageVerdict::
  // unread): tag delivers it with X-Leakhound-Unread naming them.
  MilterAction on_unreadable = MilterAction::kTag;
  // A clean message with parts left unread because a budget ran out (class
  // limit: OCR had no time left within --max-seconds). Unlike a picture
  // without text, such a part may hold protected text leakhound had no
  // time to see; the mail is held for review rather than delivered. A
  // policy rule with `unread` or `unread_limit` conditions decides
  // instead when it matches.
  MilterAction on_unread_limit = MilterAction::kQuarantine;
  // The SMTP text of a rejection (550 5.7.1); with show_matches the
  // matched document ids are appended.
  std::string reject_text = "Message refused: it contains protected content";
  bool show_matches = false;
  // Adds X-Leakhound-Status to every message delivered (tag always adds
  // it, with X-Leakhound-Matches, to leaks).
  bool status_header = false;
  size_t max_message_bytes = size_t{25} << 20;
  // Messages judged at once; a message waits at most max_wait_seconds for
  // its turn, else it is an error (on_error).
  uint32_t max_concurrent = 4;
  double max_wait_seconds = 30;
  // Exact addresses ("alice@example.com") or domains ("@example.com"),
  // compared without case. An allow-listed sender, or recipients that are
  // all allow-listed, bypass scanning.
  std::vector<std::string> allow_senders;
  std::vector<std::string> allow_recipients;
};

// One line per message: queue id, verdict, action, documents, ms.
using MilterLog = std::function<void(const std::string& line)>;

// Listens on `socket` (libmilter's syntax: inet:PORT@HOST, inet6:...,
// unix:/path; a unix socket is created mode 0660 after removing a stale
// one) and serves until RequestStop: each message is judged by the
// gateway's scanner and its policy in force decides the action
// (docs/policy.md); `policy`'s flags decide what no rule speaks to
// (errors, unread parts, oversize). `gateway` must outlive the call.
// Errors: the socket cannot be opened, or libmilter failed.
// `record` may be empty: nothing recorded. `metrics` may be null; else it
// must outlive the call, and counts every message answered.
absl::Status ServeMilter(const std::string& socket, const MilterPolicy& policy,
                         const Gateway* gateway, MilterLog log,
                         IncidentSink record = nullptr,
                         MilterMetrics* metrics = nullptr);

// Makes ServeMilter stop accepting connections and return; sessions in
// flight go on (wait for ActiveSessions() to reach 0).
void RequestMilterStop();
uint32_t ActiveSessions();
// Whether ServeMilter has its socket open (the daemon is ready to serve).
bool MilterListening();

// Whether `address` (with or without <>) matches an allow-list entry.
bool AddressAllowed(std::string_view address,
                    const std::vector<std::string>& allowed);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_MILTER_MILTER_SERVER_H_
