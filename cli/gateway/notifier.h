// Notifier: the policy's notices (docs/policy.md, "Notices"), sent as mail
// through the local MTA's sendmail(1) on a thread of its own, so that a
// slow MTA never holds up an SMTP session:
//  - to the sender, at once: what happened to their message, the rule,
//    the protected documents by id (never their text, never the message's
//    text) and the incident's reference with where to ask for release;
//  - to each reviewer, one digest per period (a minute by default) of the
//    incidents since the last, each with its link in the console.
// Notices go out with the null envelope sender (<>), so that a bounce of a
// notice never comes back as mail to judge, and Auto-Submitted set.
// The queue is bounded: past it a notice is dropped, counted and logged.
//
// Thread-safety: NotifySender, NotifyReviewer, counters and Stop may be
// called from any thread.
#ifndef LEAKHOUND_CLI_GATEWAY_NOTIFIER_H_
#define LEAKHOUND_CLI_GATEWAY_NOTIFIER_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "cli/gateway/daemon_log.h"
#include "cli/gateway/sendmail.h"

namespace leakhound {

// What the sender of a caught message is told.
struct SenderNotice {
  std::string to;       // the envelope sender
  std::string subject;  // of their message
  std::vector<std::string> recipients;
  std::vector<std::string> removed;    // remove-external-recipients: who
  std::string action;                  // the disposition carried out
  std::string rule;                    // the deciding rule
  std::vector<std::string> documents;  // protected document ids
  // Rows of protected tables, in record terms ("3 rows of table
  // customers"), and data identifiers ("12 card values"); never a value.
  std::vector<std::string> records;
  std::string reference;               // "LH-..."
  std::string help_url;                // may be empty
  // The self-service page where the sender may release the held message
  // with a justification (docs/overrides.md), and until when; "": none.
  std::string override_url = "";
  uint32_t override_hours = 0;
};

// One incident in a reviewer's digest.
struct ReviewerItem {
  std::string reference;
  std::string rule;
  std::string severity;
  std::string action;
  std::string sender;
  std::string subject;
};

class Notifier {
 public:
  struct Options {
    // The command and its leading arguments ("/usr/sbin/sendmail", or
    // "/usr/sbin/sendmail -C /etc/postfix-out"): the recipient is added
    // after "-i -f <> --".
    std::vector<std::string> sendmail = {"/usr/sbin/sendmail"};
    std::string from = "leakhound";  // the From: header's address
    std::string console_url;         // "https://dlp.example.com"; "": no links
    std::chrono::milliseconds digest_period{60'000};
    size_t max_queued = 10'000;
  };
  struct Counters {
    uint64_t sent = 0;     // mails handed to sendmail that it accepted
    uint64_t failed = 0;   // sendmail failed or could not run
    uint64_t dropped = 0;  // the queue was full
  };

  // Starts the thread. REQUIRES: `log` outlives the notifier.
  Notifier(Options options, const DaemonLog* log);
  ~Notifier();  // Stop()

  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  void NotifySender(SenderNotice notice) ABSL_LOCKS_EXCLUDED(mu_);
  void NotifyReviewer(const std::string& reviewer, ReviewerItem item)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Sends what is queued and the digests due now, then stops the thread.
  // Idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  Counters counters() const ABSL_LOCKS_EXCLUDED(mu_);

  // The mails, for tests: headers and body as sendmail -t would take them.
  static std::string SenderMail(const SenderNotice& n, const std::string& from);
  static std::string DigestMail(const std::string& reviewer,
                                const std::vector<ReviewerItem>& items,
                                const std::string& from,
                                const std::string& console_url);

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // Pipes `mail` to sendmail for `to`; counts the outcome.
  void Send(const std::string& to, const std::string& mail)
      ABSL_LOCKS_EXCLUDED(mu_);

  const Options options_;
  const DaemonLog* log_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  std::deque<SenderNotice> senders_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<ReviewerItem>> digests_
      ABSL_GUARDED_BY(mu_);
  size_t queued_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  Counters counters_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_NOTIFIER_H_
