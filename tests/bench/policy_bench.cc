// What a policy costs (docs/policy.md, "Measured"):
//  - BM_EvaluatePolicy/R: evaluating R rules (labels, external
//    recipients, sender groups, exceptions, severity steps) on a verdict
//    with 10 matched documents and 5 recipients; R = 1 is the built-in
//    policy's one rule, the baseline run in the same process.
//  - BM_ReplayPolicy: `policy replay` over 100,000 stored incidents (the
//    store is filled once, through IncidentStore::Insert, at
//    $LEAKHOUND_POLICY_BENCH, default /tmp/leakhound-policy-100k.db, and
//    kept: `leakhound policy replay --incidents` on it times the command).
//
//   build/tests/bench/policy_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>

#include "absl/strings/str_cat.h"
#include "cli/commands/policy_replay.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_evaluator.h"
#include "cli/policy/policy_file.h"

namespace leakhound {
namespace {

// R rules in the shapes docs/policy.md's examples use, cycling.
Policy Rules(int n) {
  if (n == 1) return BuiltinPolicy(Disposition::kReject, "refused");
  Policy p;
  p.path = "bench";
  p.internal_domains = {"corp.test", "corp-eu.test"};
  p.groups["legal"] = {"@legal.corp.test", "counsel@corp.test"};
  for (int i = 0; i < n; ++i) {
    PolicyRule r;
    r.name = absl::StrCat("rule ", i);
    r.disposition = static_cast<Disposition>(i % 7);
    r.when.labels_any = {absl::StrCat("label", i % 20), "confidential"};
    switch (i % 4) {
      case 0:
        r.when.external_recipient = true;
        break;
      case 1:
        r.when.senders = {"group:legal", "@finance.corp.test"};
        break;
      case 2:
        r.when.min_words = 40;
        r.when.min_share = 0.1;
        break;
      default:
        r.when.recipient_domains = {"partner.test"};
        break;
    }
    PolicyConditions legal;
    legal.senders = {"group:legal"};
    legal.all_recipient_domains = {"counsel.test"};
    r.unless = {legal};
    r.steps = {{3u, std::nullopt, std::nullopt, Severity::kHigh},
               {std::nullopt, 0.5, std::nullopt, Severity::kHigh}};
    r.monitor = i % 5 == 0;
    p.rules.push_back(std::move(r));
  }
  CompileLabels(&p);
  return p;
}

VerdictFacts TenDocuments() {
  VerdictFacts f;
  f.channel = "mail";
  f.sender = "alex@finance.corp.test";
  f.recipients = {"a@corp.test", "b@corp-eu.test", "c@partner.test",
                  "d@example.test", "e@corp.test"};
  for (int d = 0; d < 10; ++d) {
    f.documents.push_back({absl::StrCat("finance/plan-", d, ".docx"),
                           {absl::StrCat("label", d), "board"},
                           static_cast<uint32_t>(30 + 10 * d),
                           0.05 * d});
  }
  return f;
}

void BM_EvaluatePolicy(benchmark::State& state) {
  const Policy policy = Rules(static_cast<int>(state.range(0)));
  const VerdictFacts facts = TenDocuments();
  size_t matches = 0;
  for (auto _ : state) {
    PolicyDecision d = EvaluatePolicy(policy, facts);
    matches = d.matches.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["rules_matched"] = static_cast<double>(matches);
}
BENCHMARK(BM_EvaluatePolicy)->Arg(1)->Arg(20)->Arg(100);

constexpr int64_t kIncidents = 100'000;

std::string BenchPath() {
  const char* env = std::getenv("LEAKHOUND_POLICY_BENCH");
  return env != nullptr ? env : "/tmp/leakhound-policy-100k.db";
}

// A gateway's incidents with the facts a policy reads: 1-3 documents of
// 500, labels confidential or public, one or two recipients inside or out.
Incident Synthetic(std::mt19937_64& rng, int64_t now) {
  Incident i;
  i.time_ms = now - static_cast<int64_t>(rng() % (30 * 86'400'000LL));
  i.source = "milter";
  i.kind = "leak";
  i.action = rng() % 3 == 0 ? "tag" : "reject";
  i.sender = absl::StrCat("user", rng() % 2000, "@corp.test");
  i.recipients = {absl::StrCat("p", rng() % 5000,
                               rng() % 2 ? "@example.test" : "@corp.test")};
  i.severity = "medium";
  i.rules = {{"old rule", "medium", i.action, false}};
  const int documents = 1 + static_cast<int>(rng() % 3);
  for (int d = 0; d < documents; ++d) {
    i.facts.push_back({absl::StrCat("doc", rng() % 500, ".docx"),
                       {rng() % 4 ? "confidential" : "public"},
                       static_cast<uint32_t>(20 + rng() % 200),
                       static_cast<double>(rng() % 100) / 100});
    IncidentMatch m;
    m.document = i.facts.back().document;
    m.words = i.facts.back().words;
    m.snippet = std::string(600, 'x');
    i.matches.push_back(std::move(m));
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

void BM_ReplayPolicy(benchmark::State& state) {
  IncidentStore& store = Store();
  auto policy = ParsePolicy(R"(
internal_domains = ["corp.test"]
[[rule]]
name = "inside"
action = "log"
[rule.when]
labels_any = ["confidential"]
external_recipient = false
[[rule]]
name = "outside"
action = "reject"
steps = [ { share = 0.5, severity = "high" } ]
[rule.when]
labels_any = ["confidential"]
external_recipient = true
)",
                            "new.toml");
  if (!policy.ok()) std::abort();
  uint64_t changed = 0;
  for (auto _ : state) {
    auto r = ReplayPolicy(store, IncidentFilter(), *policy);
    if (!r.ok()) std::abort();
    changed = r->changed;
  }
  state.counters["incidents"] = static_cast<double>(kIncidents);
  state.counters["changed"] = static_cast<double>(changed);
}
BENCHMARK(BM_ReplayPolicy)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
