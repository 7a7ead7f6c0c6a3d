#include "cli/commands/outbox_command.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/policy/policy_file.h"
#include "cli/siem/outbox_sender.h"

namespace leakhound {

namespace {

std::string Age(int64_t since_ms, int64_t now_ms) {
  if (since_ms == 0) return "-";
  return absl::StrFormat("%.0fs", static_cast<double>(now_ms - since_ms) / 1e3);
}

std::string StateJson(const OutboxDestinationState& d, int64_t now) {
  return absl::StrCat(
      "{\"name\":", JsonString(d.name), ",\"pending\":", d.pending,
      ",\"oldest_pending_seconds\":",
      d.oldest_pending_ms == 0 ? 0 : (now - d.oldest_pending_ms) / 1000,
      ",\"queued\":", d.queued(), ",\"delivered\":", d.delivered,
      ",\"skipped\":", d.skipped, ",\"failed\":", d.failed,
      ",\"dropped\":", d.dropped, ",\"retried\":", d.retried,
      ",\"last_delivery_ms\":", d.last_delivery_ms,
      ",\"last_error\":", JsonString(d.last_error),
      ",\"last_error_ms\":", d.last_error_ms,
      ",\"current_error\":", JsonString(d.current_error()),
      ",\"lease_owner\":",
      JsonString(d.lease_until_ms > now ? d.lease_owner : ""), "}");
}

void Log(const std::string& line) {
  std::fprintf(stderr, "%s leakhound incidents forward: %s\n",
               FormatTime(NowUnixMs()).c_str(), Printable(line).c_str());
}

// Steps every sender until none has anything pending, or `deadline`.
int ForwardOnce(std::vector<std::unique_ptr<OutboxSender>>& senders,
                std::chrono::steady_clock::time_point deadline) {
  std::vector<bool> idle(senders.size(), false);
  size_t left = senders.size();
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    std::chrono::milliseconds pause{1000};
    for (size_t i = 0; i < senders.size(); ++i) {
      if (idle[i]) continue;
      const OutboxSender::StepResult r = senders[i]->Step();
      if (r.outcome == OutboxSender::Outcome::kIdle) {
        idle[i] = true;
        --left;
      } else if (r.outcome == OutboxSender::Outcome::kProgress) {
        pause = std::chrono::milliseconds(0);
      } else {
        pause = std::min(pause, r.pause);
      }
    }
    if (left > 0) std::this_thread::sleep_for(pause);
  }
  int exit = kExitOk;
  for (size_t i = 0; i < senders.size(); ++i) {
    if (idle[i]) continue;
    const OutboxDestinationState d = senders[i]->snapshot().state;
    exit = ReportError(
        "incidents",
        absl::UnavailableError(absl::StrCat(
            "outbox ", senders[i]->options().destination.name, ": ", d.pending,
            " events still pending",
            d.current_error().empty()
                ? ""
                : absl::StrCat(" (", d.current_error(), ")"))));
  }
  return exit;
}

}  // namespace

int ShowOutbox(const CommandLine& line, IncidentStore& store) {
  if (auto name = line.Value("forget")) {
    if (absl::Status s = store.ForgetDestination(*name); !s.ok()) {
      return ReportError("incidents", s);
    }
    std::printf("outbox: forgot %s\n", Printable(*name).c_str());
    return kExitOk;
  }
  auto states = store.OutboxStates();
  if (!states.ok()) return ReportError("incidents", states.status());
  auto failures = store.OutboxFailures(10);
  if (!failures.ok()) return ReportError("incidents", failures.status());
  const int64_t now = NowUnixMs();
  if (line.Has("json")) {
    std::string out = "{\"destinations\":[";
    for (size_t i = 0; i < states->size(); ++i) {
      absl::StrAppend(&out, i == 0 ? "" : ",", StateJson((*states)[i], now));
    }
    out += "],\"failures\":[";
    for (size_t i = 0; i < failures->size(); ++i) {
      const OutboxFailure& f = (*failures)[i];
      absl::StrAppend(
          &out, i == 0 ? "" : ",",
          "{\"destination\":", JsonString(f.destination),
          ",\"sequence\":", f.seq, ",\"event\":", JsonString(f.event_id),
          ",\"time_ms\":", f.time_ms, ",\"error\":", JsonString(f.error), "}");
    }
    std::printf("%s]}\n", out.c_str());
    return kExitOk;
  }
  if (states->empty()) {
    std::printf("outbox: no destination registered (docs/siem.md)\n");
    return kExitOk;
  }
  std::printf("%-20s %8s %8s %10s %8s %8s %8s  %s\n", "DESTINATION", "PENDING",
              "OLDEST", "DELIVERED", "FAILED", "DROPPED", "RETRIED",
              "LAST ERROR");
  for (const OutboxDestinationState& d : *states) {
    std::printf(
        "%-20s %8lld %8s %10lld %8lld %8lld %8lld  %s\n",
        Printable(d.name).c_str(), static_cast<long long>(d.pending),
        Age(d.oldest_pending_ms, now).c_str(),
        static_cast<long long>(d.delivered), static_cast<long long>(d.failed),
        static_cast<long long>(d.dropped), static_cast<long long>(d.retried),
        Printable(d.current_error()).c_str());
  }
  for (const OutboxFailure& f : *failures) {
    std::printf("failed %s %s event %s: %s\n", FormatTime(f.time_ms).c_str(),
                Printable(f.destination).c_str(), f.event_id.c_str(),
                Printable(f.error).c_str());
  }
  return kExitOk;
}

int ForwardOutbox(const CommandLine& line, const std::string& store_path) {
  auto file = line.Value("policy");
  if (!file) {
    return ReportError(
        "incidents", absl::InvalidArgumentError("forward needs --policy FILE"));
  }
  auto policy = ReadPolicyFile(*file);
  if (!policy.ok()) return ReportError("incidents", policy.status());
  if (policy->destinations.empty()) {
    return ReportError("incidents", absl::InvalidArgumentError(absl::StrCat(
                                        *file, " has no [[destination]]")));
  }
  double seconds = 60;
  if (auto v = line.Value("seconds");
      v && (!absl::SimpleAtod(*v, &seconds) || seconds <= 0)) {
    return ReportError("incidents",
                       absl::InvalidArgumentError("--seconds must be above 0"));
  }
  // Blocked before the threads start, so that sigwait alone takes them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  std::vector<std::unique_ptr<OutboxSender>> senders;
  for (const DestinationSettings& d : policy->destinations) {
    OutboxSender::Options o;
    o.store = store_path;
    o.destination = d;
    o.outbox = policy->outbox;
    senders.push_back(std::make_unique<OutboxSender>(o, Log));
  }
  if (line.Has("once")) {
    return ForwardOnce(senders, std::chrono::steady_clock::now() +
                                    std::chrono::milliseconds(
                                        static_cast<int64_t>(seconds * 1000)));
  }
  for (auto& s : senders) s->Start();
  Log(absl::StrCat("delivering ", senders.size(), " destinations from ",
                   store_path, "; SIGTERM stops"));
  int signal = 0;
  sigwait(&stop, &signal);
  for (auto& s : senders) s->Stop();
  Log("stopped");
  return kExitOk;
}

}  // namespace leakhound
