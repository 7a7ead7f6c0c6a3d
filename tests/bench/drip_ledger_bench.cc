// What cumulative (drip) detection costs (docs/policy.md, "Cumulative,
// measured"), against a real SQLite store:
//   - BM_Account: DripLedger::Account of a message quoting one document,
//     by a sender who already sent `range(0)` distinct passages of it in
//     the window (each iteration sends one of them again, so the ledger
//     stays at that size), with a cumulative rule in the policy (reads
//     the sender's spans and sums them, then records) against the same
//     policy without it (only records): the baseline is the second, run
//     in the same process;
//   - BM_StateSize: the store's bytes per span after 1,000,000 distinct
//     spans of 10,000 senders in 100 domains over 10,000 documents (the
//     file and its WAL after closing, indexes included).
//
//   build/tests/bench/drip_ledger_bench
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/gateway/drip_ledger.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_file.h"

namespace leakhound {
namespace {

std::string TempDirectory() {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "leakhound-bench-XXXXXX")
          .string();
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

Policy PolicyOf(bool cumulative) {
  std::string text = "[[rule]]\nname = \"leaks\"\naction = \"reject\"\n";
  if (cumulative) {
    text +=
        "[[rule]]\nname = \"drip\"\naction = \"quarantine\"\nwhen = { "
        "cumulative = { words = 300, days = 30 } }\n";
  }
  auto p = ParsePolicy(text, "bench.toml");
  if (!p.ok()) std::abort();
  return *p;
}

DripSpan SpanAt(uint32_t at, const std::string& target) {
  DripSpan s;
  s.target = target;
  s.begin = at;
  s.end = at + 25;
  s.total = 100000;
  return s;
}

void BM_Account(benchmark::State& state) {
  const bool cumulative = state.range(1) != 0;
  const std::string store = TempDirectory() + "/incidents";
  if (!IncidentStore::Open(store).ok()) std::abort();
  DripLedger ledger(store);
  const Policy policy = PolicyOf(cumulative);
  const int64_t now = 1'790'000'000'000;
  // The sender's earlier passages, and other senders' (not read).
  const int64_t earlier = std::max<int64_t>(1, state.range(0));
  for (int64_t i = 0; i < earlier; ++i) {
    for (const char* who : {"alice@corp.test", "bob@other.test"}) {
      if (!ledger
               .Account(policy, who, "mail",
                        {SpanAt(static_cast<uint32_t>(25 * i), "handbook")},
                        absl::StrCat("LH-", i), now - 1000 + i, true)
               .ok()) {
        std::abort();
      }
    }
  }
  uint32_t n = 0;
  for (auto _ : state) {
    auto sums = ledger.Account(
        policy, "alice@corp.test", "mail",
        {SpanAt(static_cast<uint32_t>(25 * (n % earlier)), "handbook")},
        absl::StrCat("LH-B", n), now + n, true);
    ++n;
    if (!sums.ok()) state.SkipWithError("account failed");
    benchmark::DoNotOptimize(sums);
  }
  state.SetLabel(cumulative ? "cumulative rule" : "no cumulative rule");
}
BENCHMARK(BM_Account)
    ->ArgsProduct({{1, 30, 300, 3000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

void BM_StateSize(benchmark::State& state) {
  for (auto _ : state) {
    const std::string path = TempDirectory() + "/incidents";
    auto store = IncidentStore::Open(path);
    if (!store.ok()) std::abort();
    constexpr int kSpans = 1'000'000;
    constexpr int kBatch = 10'000;
    for (int b = 0; b < kSpans / kBatch; ++b) {
      std::vector<DripSpan> spans;
      for (int i = b * kBatch; i < (b + 1) * kBatch; ++i) {
        // Sender i % 10,000's (i / 10,000)-th distinct passage of its
        // document: a million rows, none sent twice.
        DripSpan s = SpanAt(
            static_cast<uint32_t>(i / 10000) * 25,
            absl::StrCat("share/dept", i % 100, "/doc-", i % 10000, ".docx"));
        s.sender =
            absl::StrCat("user", i % 10000, "@dept", i % 100, ".corp.example");
        s.domain = absl::StrCat("dept", i % 100, ".corp.example");
        s.time_ms = 1'790'000'000'000 + i;
        s.channel = "mail";
        s.reference = absl::StrCat("LH-", 1000000000 + i);
        spans.push_back(std::move(s));
      }
      if (!(*store)->AddDripSpans(spans).ok()) std::abort();
    }
    store->reset();  // checkpoints the WAL into the file
    double bytes = 0;
    for (const char* suffix : {"", "-wal"}) {
      struct stat st {};
      if (::stat((path + suffix).c_str(), &st) == 0) {
        bytes += static_cast<double>(st.st_size);
      }
    }
    state.counters["bytes_per_span"] = bytes / kSpans;
    state.counters["MB_per_million"] = bytes / 1e6;
  }
}
BENCHMARK(BM_StateSize)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
