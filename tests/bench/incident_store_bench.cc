// The incident store at a million incidents (docs/console.md, "Measured"):
// the console's list queries (50 rows, newest first) with and without
// filters, and the insert of a milter-sized batch. The store is filled
// once, through IncidentStore::Insert, at $LEAKHOUND_INCIDENTS_BENCH
// (default /tmp/leakhound-incidents-1m.db), and kept for the next run and
// for tests/bench/console_latency.py, which times the same queries over
// HTTP and through the `leakhound incidents` command.
//
//   build/tests/bench/incident_store_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>

#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {
namespace {

constexpr int64_t kIncidents = 1'000'000;
constexpr int64_t kDays = 90;

std::string BenchPath() {
  const char* env = std::getenv("LEAKHOUND_INCIDENTS_BENCH");
  return env != nullptr ? env : "/tmp/leakhound-incidents-1m.db";
}

// Incidents of a gateway: 2,000 senders (a few far busier: Zipf-like),
// 500 documents, statuses 80 % open, actions 60 % reject, 30 %
// quarantine, 10 % tag; one to three matches with 600-byte snippets.
Incident Synthetic(std::mt19937_64& rng, int64_t now) {
  Incident i;
  i.time_ms = now - static_cast<int64_t>(rng() % (kDays * 86'400'000));
  i.source = "milter";
  i.kind = "leak";
  const uint64_t a = rng() % 10;
  i.action = a < 6 ? "reject" : a < 9 ? "quarantine" : "tag";
  if (i.action == "quarantine") i.mail_state = "held";
  const uint64_t s = rng() % 20;
  i.status = s < 16 ? "open" : s < 19 ? "false-positive" : "confirmed";
  const uint64_t sender = (rng() % 2000) * (rng() % 2000) / 2000;  // skewed
  i.sender = absl::StrCat("user", sender, "@corp.test");
  i.recipients = {absl::StrCat("partner", rng() % 5000, "@example.test")};
  i.queue_id = absl::StrCat(absl::Hex(rng() & 0xFFFFFFFFFF));
  i.subject = absl::StrCat("Quarterly figures ", rng() % 100000);
  const int matches = 1 + static_cast<int>(rng() % 3);
  for (int m = 0; m < matches; ++m) {
    IncidentMatch match;
    match.document = absl::StrCat("doc", rng() % 500, ".docx");
    match.source = "/srv/protected/" + match.document;
    match.labels = {"confidential"};
    match.byte_begin = 100;
    match.byte_end = 300;
    match.words = 40;
    match.coverage = 0.1;
    match.snippet = std::string(600, 'x');
    match.snippet_begin = 200;
    match.snippet_end = 400;
    i.matches.push_back(std::move(match));
  }
  return i;
}

IncidentStore& Store() {
  static IncidentStore* store = [] {
    auto opened = IncidentStore::Open(BenchPath());
    if (!opened.ok()) std::abort();
    IncidentStore* s = opened->release();
    int64_t have = *s->Count(IncidentFilter{});
    std::mt19937_64 rng(have + 1);
    const int64_t now = NowUnixMs();
    while (have < kIncidents) {
      std::vector<Incident> batch;
      for (int k = 0; k < 10'000 && have + k < kIncidents; ++k) {
        batch.push_back(Synthetic(rng, now));
      }
      if (!s->Insert(batch).ok()) std::abort();
      have += static_cast<int64_t>(batch.size());
    }
    return s;
  }();
  return *store;
}

void RunList(benchmark::State& state, IncidentFilter f) {
  IncidentStore& store = Store();
  f.limit = 51;  // a page and whether there is another
  size_t rows = 0;
  for (auto _ : state) {
    auto got = store.List(f);
    if (!got.ok()) state.SkipWithError("list failed");
    rows = got->size();
    benchmark::DoNotOptimize(rows);
  }
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_ListNewest(benchmark::State& state) { RunList(state, {}); }
void BM_ListOpen(benchmark::State& state) {
  IncidentFilter f;
  f.status = "open";
  RunList(state, f);
}
void BM_ListSender(benchmark::State& state) {
  IncidentFilter f;
  f.sender = "user1500@corp.test";
  RunList(state, f);
}
void BM_ListDocument(benchmark::State& state) {
  IncidentFilter f;
  f.document = "doc123.docx";
  RunList(state, f);
}
void BM_ListOpenQuarantinedLastWeek(benchmark::State& state) {
  IncidentFilter f;
  f.status = "open";
  f.action = "quarantine";
  f.since_ms = NowUnixMs() - 7 * 86'400'000LL;
  RunList(state, f);
}
void BM_ListSinceOneDay(benchmark::State& state) {
  IncidentFilter f;
  f.since_ms = NowUnixMs() - 86'400'000LL;
  RunList(state, f);
}
void BM_ListOpenPage20(benchmark::State& state) {
  IncidentFilter f;
  f.status = "open";
  f.offset = 20 * 50;
  RunList(state, f);
}
void BM_InsertBatchOf10(benchmark::State& state) {
  IncidentStore& store = Store();
  std::mt19937_64 rng(7);
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Incident> batch;
    for (int k = 0; k < 10; ++k) batch.push_back(Synthetic(rng, NowUnixMs()));
    state.ResumeTiming();
    if (!store.Insert(batch).ok()) state.SkipWithError("insert failed");
  }
}

BENCHMARK(BM_ListNewest)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListOpen)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListSender)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListDocument)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListOpenQuarantinedLastWeek)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListSinceOneDay)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListOpenPage20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InsertBatchOf10)->Unit(benchmark::kMillisecond)->Iterations(200);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
