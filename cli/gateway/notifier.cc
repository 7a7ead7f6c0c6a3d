#include "cli/gateway/notifier.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

extern char** environ;

namespace leakhound {
namespace {

// A header field's value: control characters become spaces (a CR LF in a
// subject must not start a header of its own), at most 300 bytes.
std::string Field(std::string value) {
  for (char& c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7F') c = ' ';
  }
  if (value.size() > 300) value.resize(300);
  return value;
}

std::string Headers(const std::string& from, const std::string& to,
                    const std::string& subject) {
  return absl::StrCat(
      "From: leakhound <", Field(from), ">\n", "To: <", Field(to), ">\n",
      "Subject: ", Field(subject), "\n", "Auto-Submitted: auto-generated\n",
      "Content-Type: text/plain; charset=utf-8\n", "MIME-Version: 1.0\n\n");
}

// What was done, in words a sender understands.
std::string WhatHappened(const SenderNotice& n) {
  if (n.action == "reject") return "was not delivered: it was refused";
  if (n.action == "tempfail") return "was not delivered yet: it was deferred";
  if (n.action == "quarantine") {
    return "is held for review and was not delivered yet";
  }
  if (n.action == "redirect") {
    return "was sent to a reviewer instead of its recipients";
  }
  if (n.action == "remove-external-recipients") {
    return "was delivered to the recipients inside the organisation only";
  }
  return "was delivered, and recorded";
}

}  // namespace

std::string Notifier::SenderMail(const SenderNotice& n,
                                 const std::string& from) {
  std::string body =
      absl::StrCat("Your message \"", Field(n.subject), "\"\n", "to ",
                   Field(absl::StrJoin(n.recipients, ", ")), "\n",
                   WhatHappened(n), ".\n\n");
  if (!n.documents.empty()) {
    absl::StrAppend(&body, "It quotes protected documents: ",
                    Field(absl::StrJoin(n.documents, ", ")), "\n");
  }
  if (!n.records.empty()) {
    absl::StrAppend(&body, "It holds protected records: ",
                    Field(absl::StrJoin(n.records, ", ")), "\n");
  }
  absl::StrAppend(&body, "Rule: ", Field(n.rule), "\n");
  if (!n.removed.empty()) {
    absl::StrAppend(&body,
                    "Not delivered to: ", Field(absl::StrJoin(n.removed, ", ")),
                    "\n");
  }
  absl::StrAppend(&body, "Incident: ", n.reference, "\n\n");
  if (!n.override_url.empty()) {
    absl::StrAppend(
        &body,
        "If this message is part of your work, you can release it yourself "
        "within ",
        n.override_hours,
        " hours: open the page below, log in, and write why it must go. "
        "Your justification is recorded and reviewed.\n  ",
        n.override_url, "\n\n");
  }
  absl::StrAppend(
      &body, n.help_url.empty()
                 ? "To ask for release, write to your security team and "
                   "name the incident.\n"
                 : absl::StrCat("To ask for release, see ", Field(n.help_url),
                                " and name the incident.\n"));
  return Headers(from, n.to,
                 absl::StrCat(n.documents.empty()
                                  ? "Your message holds protected records ("
                                  : "Your message quotes protected documents (",
                              n.reference, ")")) +
         body;
}

std::string Notifier::DigestMail(const std::string& reviewer,
                                 const std::vector<ReviewerItem>& items,
                                 const std::string& from,
                                 const std::string& console_url) {
  std::string body =
      absl::StrCat(items.size(), items.size() == 1 ? " incident" : " incidents",
                   " for review:\n\n");
  for (const ReviewerItem& i : items) {
    absl::StrAppend(&body, i.reference, "  ", Field(i.severity), "  ",
                    Field(i.action), "  rule ", Field(i.rule), "\n", "  from ",
                    Field(i.sender), ": ", Field(i.subject), "\n");
    if (!console_url.empty()) {
      absl::StrAppend(&body, "  ", console_url,
                      "/incidents?reference=", i.reference, "\n");
    }
    body += "\n";
  }
  return Headers(from, reviewer,
                 absl::StrCat("leakhound: ", items.size(),
                              items.size() == 1 ? " incident" : " incidents",
                              " for review")) +
         body;
}

Notifier::Notifier(Options options, const DaemonLog* log)
    : options_(std::move(options)), log_(log) {
  thread_ = std::thread([this] { Run(); });
}

Notifier::~Notifier() { Stop(); }

void Notifier::NotifySender(SenderNotice notice) {
  absl::MutexLock lock(&mu_);
  if (queued_ >= options_.max_queued || stopping_) {
    ++counters_.dropped;
    return;
  }
  ++queued_;
  senders_.push_back(std::move(notice));
  cv_.Signal();
}

void Notifier::NotifyReviewer(const std::string& reviewer, ReviewerItem item) {
  absl::MutexLock lock(&mu_);
  if (queued_ >= options_.max_queued || stopping_) {
    ++counters_.dropped;
    return;
  }
  ++queued_;
  digests_[reviewer].push_back(std::move(item));
}

Notifier::Counters Notifier::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

void Notifier::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    cv_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

void Notifier::Run() {
  // A sendmail that exits before reading its input makes the write fail
  // with EPIPE; the SIGPIPE it raises must not end the daemon. Blocked in
  // this thread only (the signal is the writing thread's).
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  auto next_digest = std::chrono::steady_clock::now() + options_.digest_period;
  for (;;) {
    std::deque<SenderNotice> senders;
    std::map<std::string, std::vector<ReviewerItem>> digests;
    bool stop = false;
    {
      absl::MutexLock lock(&mu_);
      while (senders_.empty() && !stopping_ &&
             std::chrono::steady_clock::now() < next_digest) {
        cv_.WaitWithTimeout(
            &mu_,
            absl::FromChrono(next_digest - std::chrono::steady_clock::now()));
      }
      senders.swap(senders_);
      stop = stopping_;
      if (stop || std::chrono::steady_clock::now() >= next_digest) {
        digests.swap(digests_);
        next_digest = std::chrono::steady_clock::now() + options_.digest_period;
      }
      for (const auto& [who, items] : digests) queued_ -= items.size();
      queued_ -= senders.size();
    }
    for (const SenderNotice& n : senders) {
      Send(n.to, SenderMail(n, options_.from));
    }
    for (const auto& [reviewer, items] : digests) {
      Send(reviewer,
           DigestMail(reviewer, items, options_.from, options_.console_url));
    }
    if (stop) return;
  }
}

void Notifier::Send(const std::string& to, const std::string& mail) {
  const absl::Status status = SendMail(options_.sendmail, to, mail);
  absl::MutexLock lock(&mu_);
  if (status.ok()) {
    ++counters_.sent;
  } else {
    ++counters_.failed;
    log_->Write(
        absl::StrCat("notice to ", Field(to), " not sent: ", status.message()));
  }
}

}  // namespace leakhound
