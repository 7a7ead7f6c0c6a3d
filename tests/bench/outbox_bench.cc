// What the outbox costs (docs/siem.md, "Measured"):
//   - BM_Insert/batch/queue: IncidentStore::Insert of a batch of
//     milter-sized incidents into a fresh store on disk, without (0) and
//     with (1) a destination registered, so that each incident is also
//     queued with its JSON payload in the same transaction; the difference
//     per incident is the queueing's cost;
//   - BM_DeliverTcpSyslog: OutboxSender delivering 5,000 events as CEF
//     over TCP syslog to a receiver on loopback, the store's cursor moved
//     after each event (events/s).
//
//   build/tests/bench/outbox_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_store.h"
#include "cli/siem/outbox_sender.h"
#include "tests/cli/siem/syslog_sink.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

// As the milter records a leak: one recipient, a rule, two matches with
// 600-byte snippets.
Incident Leak(std::mt19937_64& rng) {
  Incident i;
  i.time_ms = NowUnixMs();
  i.source = "milter";
  i.kind = "leak";
  i.action = "reject";
  i.reference = NewIncidentReference();
  i.severity = "high";
  i.policy = "/etc/leakhound/policy.toml";
  i.rules = {{"external-leak", "high", "reject", false}};
  i.sender = absl::StrCat("user", rng() % 2000, "@corp.test");
  i.recipients = {absl::StrCat("partner", rng() % 5000, "@example.test")};
  i.subject = absl::StrCat("Quarterly figures ", rng() % 100000);
  for (int m = 0; m < 2; ++m) {
    IncidentMatch match;
    match.document = absl::StrCat("doc", rng() % 500, ".docx");
    match.words = 40;
    match.snippet = std::string(600, 'x');
    i.matches.push_back(match);
    i.facts.push_back({match.document, {"confidential"}, 40, 0.1});
  }
  return i;
}

void BM_Insert(benchmark::State& state) {
  const auto batch_size = static_cast<size_t>(state.range(0));
  const bool queue = state.range(1) != 0;
  TempDir dir;
  auto store = IncidentStore::Open(dir.Sub("incidents"));
  if (!store.ok()) return state.SkipWithError("open failed");
  if (queue && !(*store)->RegisterDestination("soc").ok()) {
    return state.SkipWithError("register failed");
  }
  std::mt19937_64 rng(7);
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Incident> batch;
    for (size_t k = 0; k < batch_size; ++k) batch.push_back(Leak(rng));
    state.ResumeTiming();
    if (!(*store)->Insert(batch).ok()) state.SkipWithError("insert failed");
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(batch_size));
}

void BM_DeliverTcpSyslog(benchmark::State& state) {
  constexpr int kEvents = 5000;
  for (auto _ : state) {
    state.PauseTiming();
    TempDir dir;
    SyslogSink sink;
    {
      auto store = IncidentStore::Open(dir.Sub("incidents"));
      if (!store.ok() || !(*store)->RegisterDestination("soc").ok()) {
        return state.SkipWithError("store failed");
      }
      std::mt19937_64 rng(7);
      std::vector<Incident> batch;
      for (int k = 0; k < kEvents; ++k) batch.push_back(Leak(rng));
      if (!(*store)->Insert(batch).ok()) state.SkipWithError("insert failed");
    }
    OutboxSender::Options o;
    o.store = dir.Sub("incidents");
    o.destination.name = "soc";
    o.destination.url = sink.url();
    OutboxSender sender(o, [](const std::string&) {});
    state.ResumeTiming();
    while (sender.Step().outcome != OutboxSender::Outcome::kIdle) {
    }
    if (!sink.WaitFor(kEvents)) state.SkipWithError("events missing");
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}

BENCHMARK(BM_Insert)
    ->ArgsProduct({{1, 16, 256}, {0, 1}})
    ->ArgNames({"batch", "queue"})
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(10)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_DeliverTcpSyslog)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
