#include "cli/gateway/desk_link.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/incidents/outbox_event.h"

namespace leakhound {

DeskLink::DeskLink(Options options, StateFn state, Log log)
    : options_(std::move(options)),
      state_(std::move(state)),
      log_(std::move(log)) {
  thread_ = std::thread([this] { Run(); });
}

DeskLink::~DeskLink() { Stop(); }

void DeskLink::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    cv_.SignalAll();
    while (thread_.joinable() && !finished_) {
      {
        absl::MutexLock live(&live_mu_);
        if (live_ != nullptr) live_->Interrupt();
      }
      cv_.WaitWithTimeout(&mu_, absl::Milliseconds(100));
    }
  }
  if (thread_.joinable()) thread_.join();
}

DeskLink::Counters DeskLink::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

void DeskLink::Run() {
  std::unique_ptr<IncidentStore> store;
  bool failing = false;
  auto forget = [&] {  // before the store goes
    absl::MutexLock live(&live_mu_);
    live_ = nullptr;
  };
  for (;;) {
    const absl::Status s = Round(store);
    // Closed between rounds: a connection held for the process's life keeps
    // its caches, in whichever malloc arena the round ran, past the
    // gateway's trims (c-icap's children after a burst).
    forget();
    store.reset();
    if (!s.ok() && !failing) {
      log_(absl::StrCat("desk: ", s.message(), "; retrying every ",
                        options_.interval_seconds, " s"));
    } else if (s.ok() && failing) {
      log_("desk: reachable again");
    }
    failing = !s.ok();
    absl::MutexLock lock(&mu_);
    if (!s.ok()) ++counters_.failures;
    const absl::Time until =
        absl::Now() + absl::Seconds(options_.interval_seconds);
    while (!stopping_ && absl::Now() < until) {
      cv_.WaitWithDeadline(&mu_, until);
    }
    if (stopping_) {
      finished_ = true;
      cv_.SignalAll();
      break;
    }
  }
  forget();
}

absl::Status DeskLink::Round(std::unique_ptr<IncidentStore>& store) {
  if (store == nullptr) {
    auto opened = IncidentStore::Open(options_.store);
    if (!opened.ok()) return opened.status();
    store = std::move(*opened);
    absl::MutexLock live(&live_mu_);
    live_ = store.get();
  }
  NodeState node = state_();
  node.name = options_.node;
  node.heartbeat_ms = NowUnixMs();
  if (absl::Status s = store->Heartbeat(node); !s.ok()) return s;
  {
    absl::MutexLock lock(&mu_);
    ++counters_.heartbeats;
    counters_.last_heartbeat_ms = node.heartbeat_ms;
  }
  if (absl::Status s = Assess(*store, node); !s.ok()) return s;
  if (absl::Status s = RecordResults(*store); !s.ok()) return s;
  if (!options_.mail_requests) return absl::OkStatus();
  return RunRequests(*store);
}

absl::Status DeskLink::Assess(IncidentStore& store, const NodeState& self) {
  auto nodes = store.Nodes();
  if (!nodes.ok()) return nodes.status();
  auto published = store.GetPolicyVersion(0);
  if (!published.ok() && !absl::IsNotFound(published.status())) {
    return published.status();
  }
  const FleetAssessment f = AssessFleet(
      *nodes,
      published.ok() ? std::optional<PolicyVersion>(*published) : std::nullopt,
      self.heartbeat_ms, options_.thresholds);
  absl::MutexLock lock(&mu_);
  counters_.writer_generation = f.reference_generation;
  for (const NodeAssessment& a : f.nodes) {
    if (a.node.name != self.name) continue;
    counters_.behind = a.behind;
    counters_.other_policy = a.other_policy;
  }
  return absl::OkStatus();
}

absl::Status DeskLink::RecordResults(IncidentStore& store) {
  while (!unrecorded_.empty()) {
    const Result& r = unrecorded_.front();
    absl::Status s =
        store.FinishMailRequest(r.id, r.done, r.detail, options_.node);
    // Recorded already (a commit whose answer was lost): nothing to redo.
    if (!s.ok() && !absl::IsFailedPrecondition(s)) return s;
    unrecorded_.erase(unrecorded_.begin());
  }
  return absl::OkStatus();
}

absl::Status DeskLink::RunRequests(IncidentStore& store) {
  auto requests = store.TakeMailRequests(options_.node, 16);
  if (!requests.ok()) return requests.status();
  for (const MailRequest& r : *requests) {
    absl::StatusOr<std::string> report =
        r.action == "release" ? ReleaseHeldMail(r.queue_id, options_.held_mail)
                              : DeleteHeldMail(r.queue_id, options_.held_mail);
    Result result{
        r.id, report.ok(),
        report.ok() ? *report : std::string(report.status().message())};
    log_(absl::StrCat("desk: ", r.action, " of ", r.queue_id, " (incident ",
                      r.incident_id, ", asked by ", r.requested_by,
                      "): ", result.detail));
    {
      absl::MutexLock lock(&mu_);
      ++(result.done ? counters_.mail_done : counters_.mail_failed);
    }
    unrecorded_.push_back(std::move(result));
  }
  return RecordResults(store);
}

}  // namespace leakhound
