// Incidents written per second into the store by concurrent gateways
// (docs/fleet.md, "Measured"): each benchmark thread is a gateway with its
// own connection, inserting milter-sized batches (16 incidents, one match
// each, a uid each) in transactions. The PostgreSQL desk is the database
// at $LEAKHOUND_DESK_BENCH (a libpq URI, e.g. of a cluster started by
// tests/postgres_cluster.py); the SQLite file beside it in the same run
// is the baseline (its writers queue for one lock).
//
//   export
//   LEAKHOUND_DESK_BENCH='postgresql:///bench?host=/tmp/pg&user=postgres'
//   build/tests/bench/desk_write_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {
namespace {

constexpr int kBatch = 16;
std::atomic<int64_t> g_next{0};

Incident Leak(int64_t n) {
  Incident i;
  i.uid = absl::StrCat("bench-", n, "-", ::getpid());
  i.time_ms = 1'795'000'000'000 + n;
  i.source = "milter";
  i.kind = "leak";
  i.action = "quarantine";
  i.mail_state = "held";
  i.node = "mx1";
  i.sender = absl::StrCat("user", n % 500, "@corp.test");
  i.recipients = {"partner@example.test"};
  i.subject = absl::StrCat("Quarterly figures ", n);
  IncidentMatch m;
  m.document = absl::StrCat("doc", n % 50, ".docx");
  m.source = "/srv/protected/" + m.document;
  m.labels = {"confidential"};
  m.byte_end = 300;
  m.words = 40;
  m.coverage = 0.1;
  m.snippet = std::string(600, 'x');
  m.snippet_end = 400;
  i.matches.push_back(std::move(m));
  return i;
}

std::string Target(int engine) {
  if (engine == 1) return "/tmp/leakhound-desk-bench.incidents";
  const char* uri = std::getenv("LEAKHOUND_DESK_BENCH");
  return uri != nullptr ? uri : "";
}

void BM_WriteIncidents(benchmark::State& state) {
  const std::string target = Target(static_cast<int>(state.range(0)));
  if (target.empty()) {
    state.SkipWithError("set LEAKHOUND_DESK_BENCH to a postgresql:// URI");
    return;
  }
  auto store = IncidentStore::Open(target);
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    std::vector<Incident> batch;
    for (int k = 0; k < kBatch; ++k) batch.push_back(Leak(g_next++));
    if (absl::Status s = (*store)->Insert(batch); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetLabel(state.range(0) == 0 ? "PostgreSQL" : "SQLite");
}
// 0: PostgreSQL, 1: SQLite; one gateway, then three at once.
BENCHMARK(BM_WriteIncidents)
    ->Arg(0)
    ->Arg(1)
    ->Threads(1)
    ->Threads(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(3);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
