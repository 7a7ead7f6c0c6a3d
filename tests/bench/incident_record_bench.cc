// What recording an incident costs the milter, in one process against its
// own baseline (docs/console.md, "Measured"): MessageScanner::Scan of a
// leaking mail without evidence (the milter with --incidents off), with
// offsets, and with snippets (the default); and IncidentWriter::Submit,
// the hand-over to the writer thread, which stores into a real SQLite
// file meanwhile.
//
//   build/tests/bench/incident_record_bench
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/incidents/incident_writer.h"
#include "cli/gateway/index_holder.h"
#include "cli/gateway/message_verdict.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Sample(const std::string& relative) {
  return Slurp(std::string(LEAKHOUND_SOURCE_DIR) + "/corpus/sample/" +
               relative);
}

std::string TempDirectory() {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "leakhound-bench-XXXXXX")
          .string();
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

IndexHolder& Holder() {
  static IndexHolder* holder = [] {
    const std::string dir = TempDirectory() + "/index";
    auto writer = ProtectedIndex::Create(dir, IndexOptions{});
    if (!writer.ok()) std::abort();
    for (const char* doc :
         {"merger-memo.txt", "incident-report.txt", "pricing-2027.txt",
          "supplier-contract-zh.txt", "research-plan-ja.txt"}) {
      const std::string text = Sample(std::string("protected/") + doc);
      if (!(*writer)
               ->Add(DocumentInput{doc, doc, {"confidential"}, text})
               .ok()) {
        std::abort();
      }
    }
    writer->reset();
    auto h = IndexHolder::Open(dir);
    if (!h.ok()) std::abort();
    return h->release();
  }();
  return *holder;
}

// Arg: 0 no evidence, 1 offsets, 2 snippets.
void BM_ScanLeakingMail(benchmark::State& state) {
  const Evidence evidence = state.range(0) == 0   ? Evidence::kNone
                            : state.range(0) == 1 ? Evidence::kOffsets
                                                  : Evidence::kSnippets;
  const MessageScanner scanner(&Holder(), nullptr, ScanOptions{}, {}, evidence);
  const std::string mail = Sample("outbound/email-board-leak.txt");
  size_t kept = 0;
  for (auto _ : state) {
    MessageVerdict v = scanner.Scan(mail);
    if (v.kind != MessageVerdict::Kind::kLeak)
      state.SkipWithError("not a leak");
    kept = v.evidence.size();
    benchmark::DoNotOptimize(v);
  }
  state.counters["evidence"] = static_cast<double>(kept);
}
BENCHMARK(BM_ScanLeakingMail)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond);

// A milter leak record: three passages with full snippets.
Incident Typical() {
  Incident i;
  i.time_ms = NowUnixMs();
  i.source = "milter";
  i.kind = "leak";
  i.action = "reject";
  i.queue_id = "4Fq2Lm0ZxRz";
  i.message_id = "<20261125.1234@corp.test>";
  i.sender = "alice@corp.test";
  i.recipients = {"bob@example.test"};
  i.subject = "Quarterly figures";
  i.client = "192.0.2.10";
  for (int m = 0; m < 3; ++m) {
    IncidentMatch match;
    match.document = "merger-memo.txt";
    match.source = "/srv/protected/merger-memo.txt";
    match.labels = {"confidential"};
    match.snippet = std::string(kSnippetContext * 2 + 400, 'x');
    match.snippet_begin = kSnippetContext;
    match.snippet_end = kSnippetContext + 400;
    i.matches.push_back(match);
  }
  return i;
}

void BM_SubmitToWriter(benchmark::State& state) {
  const std::string path = TempDirectory() + "/incidents";
  IncidentWriter::Options o;
  o.spool_capacity = 1'000'000;
  IncidentWriter writer(path, o, [](const std::string&) {});
  const Incident incident = Typical();
  for (auto _ : state) {
    Incident copy = incident;  // the milter moves its own; a copy costs more
    writer.Submit(std::move(copy));
  }
  writer.Stop(60);
  state.counters["written"] = static_cast<double>(writer.counters().written);
  state.counters["dropped"] = static_cast<double>(writer.counters().dropped);
}
BENCHMARK(BM_SubmitToWriter)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
