#include "cli/siem/outbox_sender.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/siem/syslog_client.h"
#include "cli/siem/webhook_client.h"

namespace leakhound {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kMinRetry{500};
constexpr int kLogSeconds = 10;  // at most one line per destination per

bool Listed(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() ||
         std::find(list.begin(), list.end(), value) != list.end();
}

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

// Whether `owner` (LeaseOwnerName's) is a process of this host that is
// gone.
bool DeadHere(const std::string& owner) {
  const std::string prefix = HostName() + " pid=";
  if (!owner.starts_with(prefix)) return false;
  int pid = 0;
  if (!absl::SimpleAtoi(owner.substr(prefix.size()), &pid) || pid <= 0) {
    return false;
  }
  return kill(pid, 0) != 0 && errno == ESRCH;
}

milliseconds Ms(double seconds) {
  return milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace

bool DestinationWants(const DestinationSettings& d, const OutboxEvent& e) {
  if (!Listed(d.events, e.type)) return false;
  if (e.review == "purged") return d.severities.empty() && d.channels.empty();
  return Listed(d.severities, e.severity.empty() ? "none" : e.severity) &&
         Listed(d.channels, e.channel);
}

std::string LeaseOwnerName() {
  return absl::StrCat(HostName(), " pid=", getpid());
}

OutboxSender::OutboxSender(Options options, Log log)
    : options_(std::move(options)),
      log_(std::move(log)),
      format_{options_.destination.include_snippets,
              options_.outbox.console_url.empty()
                  ? options_.console_url
                  : options_.outbox.console_url} {}

OutboxSender::~OutboxSender() { Stop(); }

void OutboxSender::LogLimited(const std::string& line) {
  const auto now = steady_clock::now();
  if (now - logged_ < std::chrono::seconds(kLogSeconds)) {
    ++unlogged_;
    return;
  }
  log_(unlogged_ == 0 ? line
                      : absl::StrCat(line, " (and ", unlogged_,
                                     " more since the last line)"));
  unlogged_ = 0;
  logged_ = now;
}

absl::Status OutboxSender::Open() {
  const DestinationSettings& d = options_.destination;
  if (store_ == nullptr) {
    auto store = IncidentStore::Open(options_.store);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
    registered_ = false;
  }
  if (!registered_) {
    if (absl::Status s = store_->RegisterDestination(d.name); !s.ok()) return s;
    registered_ = true;
  }
  if (d.webhook && webhook_ == nullptr) {
    auto key = ReadWebhookKey(d.secret_file);
    if (!key.ok()) return key.status();
    auto client = WebhookClient::Create(
        {d.url, d.ca_file, d.timeout_seconds, *std::move(key)});
    if (!client.ok()) return client.status();
    webhook_ = *std::move(client);
  }
  if (!d.webhook && syslog_ == nullptr) {
    auto client = SyslogClient::Create({d.url, d.ca_file, d.timeout_seconds});
    if (!client.ok()) return client.status();
    syslog_ = *std::move(client);
  }
  return absl::OkStatus();
}

bool OutboxSender::HoldLease() {
  const auto now = steady_clock::now();
  if (holding_ && now - lease_renewed_ < Ms(options_.lease_seconds / 3)) {
    return true;
  }
  const int64_t now_ms = NowUnixMs();
  const int64_t until = now_ms + Ms(options_.lease_seconds).count();
  const std::string& name = options_.destination.name;
  absl::StatusOr<std::string> holder =
      store_->TakeLease(name, options_.owner, now_ms, until, "");
  if (holder.ok() && *holder != options_.owner && DeadHere(*holder)) {
    // Held by a process of ours that died (a SIGKILLed milter restarted):
    // taken over at once.
    holder = store_->TakeLease(name, options_.owner, now_ms, until, *holder);
  }
  if (!holder.ok() && absl::IsNotFound(holder.status())) registered_ = false;
  const bool was = holding_;
  holding_ = holder.ok() && *holder == options_.owner;
  if (holding_) lease_renewed_ = now;
  if (holding_ != was) {
    log_(absl::StrCat("outbox ", name, ": ",
                      holding_ ? "delivering (lease taken)"
                               : "another process delivers (lease lost)"));
  }
  return holding_;
}

absl::Status OutboxSender::Deliver(const OutboxEvent& e) {
  if (e.type.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("event ", e.id, " cannot be read: ", e.detail));
  }
  if (format_.include_snippets && e.type == "incident" && e.snippets.empty()) {
    // From the incident (none when it was purged since).
    OutboxEvent with = e;
    if (auto incident = store_->Get(e.incident_id); incident.ok()) {
      AddSnippets(*incident, &with);
    }
    return Send(with);
  }
  return Send(e);
}

absl::Status OutboxSender::Send(const OutboxEvent& e) {
  if (webhook_ != nullptr) {
    return webhook_->Post(WebhookBody(e, format_), e.id, NowUnixMs() / 1000);
  }
  const DestinationSettings& d = options_.destination;
  SyslogMessage m;
  m.facility = d.facility;
  m.severity = SyslogSeverity(e);
  m.time_ms = e.time_ms;
  static const std::string kHost = HostName();
  m.hostname = kHost;
  m.proc_id = getpid();
  m.msg_id = EventClass(e);
  m.msg = d.format == "leef" ? LeefMessage(e, format_) : CefMessage(e, format_);
  return syslog_->Send(FormatSyslog(m));
}

OutboxSender::StepResult OutboxSender::Retry(const absl::Status& why) {
  retry_ = std::clamp(retry_ * 2, kMinRetry,
                      Ms(options_.destination.max_retry_seconds));
  LogLimited(absl::StrCat("outbox ", options_.destination.name,
                          ": retrying in ", retry_.count(),
                          " ms: ", why.message()));
  return {Outcome::kBlocked, retry_};
}

OutboxSender::StepResult OutboxSender::SendBatch() {
  const DestinationSettings& d = options_.destination;
  auto events = store_->PendingEvents(d.name, options_.batch);
  if (!events.ok()) return Retry(events.status());
  if (events->empty()) return {Outcome::kIdle, Ms(options_.poll_seconds)};
  OutboxProgress skipped;
  for (const OutboxEvent& e : *events) {
    if (!DestinationWants(d, e)) {
      skipped.cursor = e.seq;
      ++skipped.skipped;
      continue;
    }
    if (Stopping() || !HoldLease()) break;
    absl::Status sent = Deliver(e);
    OutboxProgress p = skipped;
    skipped = OutboxProgress();
    p.cursor = e.seq;
    if (sent.ok()) {
      p.delivered = 1;
    } else if (absl::IsFailedPrecondition(sent)) {
      p.failed = 1;
      p.error = std::string(sent.message());
      p.failed_event_id = e.id;
      log_(absl::StrCat("outbox ", d.name, ": event ", e.id, " (", e.seq,
                        ") refused for good: ", sent.message()));
    } else {
      // The events skipped before it are looked at again next time.
      if (absl::Status n = store_->NoteRetry(d.name, options_.owner,
                                             std::string(sent.message()));
          !n.ok()) {
        LogLimited(absl::StrCat("outbox ", d.name, ": ", n.message()));
      }
      return Retry(sent);
    }
    if (absl::Status a = store_->Advance(d.name, options_.owner, p); !a.ok()) {
      holding_ = false;
      return Retry(a);
    }
    if (retry_.count() > 0) {
      log_(absl::StrCat("outbox ", d.name, ": delivering again"));
      retry_ = milliseconds(0);
    }
  }
  if (skipped.skipped > 0 && HoldLease()) {
    if (absl::Status a = store_->Advance(d.name, options_.owner, skipped);
        !a.ok()) {
      holding_ = false;
      return Retry(a);
    }
  }
  return {Outcome::kProgress, milliseconds(0)};
}

void OutboxSender::Prune() {
  const auto now = steady_clock::now();
  if (now - pruned_ < Ms(options_.prune_seconds)) return;
  pruned_ = now;
  const int64_t before =
      NowUnixMs() -
      static_cast<int64_t>(options_.outbox.max_age_days * 86400e3);
  auto dropped = store_->PruneOutbox(before, options_.outbox.max_events);
  if (!dropped.ok()) {
    LogLimited(
        absl::StrCat("outbox: cannot prune: ", dropped.status().message()));
  } else if (*dropped > 0) {
    log_(absl::StrCat("outbox: dropped ", *dropped,
                      " unsent events past the bounds (max_age_days ",
                      options_.outbox.max_age_days, ", max_events ",
                      options_.outbox.max_events, ")"));
  }
}

void OutboxSender::Refresh(bool busy) {
  // While sending, at most once a second: counting what is pending reads
  // the outbox.
  const auto now = steady_clock::now();
  if (busy && now - refreshed_ < std::chrono::seconds(1)) return;
  refreshed_ = now;
  auto states = store_->OutboxStates();
  if (!states.ok()) return;
  for (OutboxDestinationState& s : *states) {
    if (s.name != options_.destination.name) continue;
    absl::MutexLock lock(&mu_);
    snapshot_.state = std::move(s);
    snapshot_.holding = holding_;
  }
}

OutboxSender::StepResult OutboxSender::Step() {
  if (absl::Status s = Open(); !s.ok()) {
    if (!absl::IsUnavailable(s)) store_.reset();
    return Retry(s);
  }
  if (!HoldLease()) {
    Refresh(false);
    return {Outcome::kBlocked, Ms(std::min(options_.lease_seconds / 3, 5.0))};
  }
  Prune();
  StepResult r = SendBatch();
  Refresh(r.outcome == Outcome::kProgress);
  return r;
}

void OutboxSender::Run() {
  for (;;) {
    StepResult r = Step();
    absl::MutexLock lock(&mu_);
    if (r.pause.count() > 0) {
      wake_.WaitWithTimeout(&mu_, absl::Milliseconds(r.pause.count()));
    }
    if (stopping_) break;
  }
}

void OutboxSender::Start() {
  thread_ = std::thread([this] { Run(); });
}

void OutboxSender::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  // The thread is done (or never ran: `forward --once` steps on the
  // caller's): the lease is given up here, so an exited sender is never
  // shown as its owner.
  if (store_ != nullptr && holding_) {
    store_->ReleaseLease(options_.destination.name, options_.owner)
        .IgnoreError();
    holding_ = false;
  }
}

bool OutboxSender::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

OutboxSender::Snapshot OutboxSender::snapshot() const {
  absl::MutexLock lock(&mu_);
  return snapshot_;
}

}  // namespace leakhound
