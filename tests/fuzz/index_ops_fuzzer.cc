// libFuzzer target for the index's operations: the input is a program of
// adds (one at a time and in staged batches), removals, compactions,
// allow-list changes, reopens and scans, run on a real index (RocksDB in a
// fresh directory under $TMPDIR for each input) and on a model that knows
// only which passages each document holds.
//
// Texts are made of passages: passage s (0..255) is 40 words drawn from a
// 4,096-word vocabulary by a generator seeded with s, so two texts share a
// 5-word shingle (almost surely) only where they share a passage. The
// model holds each id's passage list and each allow-list entry's, and
// checks after every step:
//  - each add's outcome (added, replaced, unchanged, duplicate content of
//    which id) and the index's documents against the model's;
//  - each scan: every document sharing a passage with the scanned text that
//    no allow-list entry holds is a match (a 40-word verbatim passage is
//    well past min_words and every statistical threshold of so small an
//    index); every match is a document the model holds that shares a
//    passage with the text (removed documents are never reported);
//  - after a reopen: the same documents, and `verify` finds no problem.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/index_verifier.h"
#include "engine/protected_index.h"
#include "engine/scan/leak_scanner.h"
#include "shingler/fingerprint_key.h"

namespace leakhound {
namespace {

constexpr int kPassageWords = 40;
constexpr int kMaxSteps = 24;
constexpr size_t kMaxPassages = 10;
constexpr uint8_t kIds = 8;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "index-ops model mismatch: %s\n", what.c_str());
  std::abort();
}

void Check(bool ok, const std::string& what) {
  if (!ok) Fail(what);
}

template <class T>
T Must(absl::StatusOr<T> value, const char* what) {
  if (!value.ok()) Fail(std::string(what) + ": " + value.status().ToString());
  return *std::move(value);
}

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Word w of the vocabulary: three letter-pair syllables ("kadobe").
std::string Word(uint32_t w) {
  static constexpr char kConsonants[] = "bdfgklmnprstvz";
  static constexpr char kVowels[] = "aeiou";
  std::string out;
  for (int i = 0; i < 3; ++i) {
    const uint32_t syllable = w % 70;
    w /= 70;
    out.push_back(kConsonants[syllable % 14]);
    out.push_back(kVowels[syllable / 14]);
  }
  return out;
}

std::string Text(const std::vector<uint8_t>& passages) {
  std::string out;
  for (uint8_t p : passages) {
    uint64_t state = p + 1;
    for (int i = 0; i < kPassageWords; ++i) {
      out += Word(static_cast<uint32_t>(SplitMix(state) % 4096));
      out += (i + 1 == kPassageWords) ? ".\n" : " ";
    }
  }
  return out;
}

std::string Id(uint8_t id) { return "doc-" + std::to_string(id); }

struct Model {
  std::map<std::string, std::vector<uint8_t>> documents;
  std::map<std::string, std::vector<uint8_t>> allowed;
};

std::vector<uint8_t> Passages(FuzzedDataProvider& in) {
  const size_t n = in.ConsumeIntegralInRange<size_t>(1, kMaxPassages);
  std::vector<uint8_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(in.ConsumeIntegral<uint8_t>());
  return out;
}

// The outcome adding `passages` as `id` must have, and the model after it.
AddOutcome Expect(Model& model, const std::string& id,
                  const std::vector<uint8_t>& passages,
                  std::string* duplicate_of) {
  const std::string text = Text(passages);
  auto it = model.documents.find(id);
  if (it != model.documents.end() && Text(it->second) == text) {
    return AddOutcome::kUnchanged;
  }
  for (const auto& [other, other_passages] : model.documents) {
    if (other != id && Text(other_passages) == text) {
      *duplicate_of = other;
      return AddOutcome::kDuplicateContent;
    }
  }
  const bool replaced = it != model.documents.end();
  model.documents[id] = passages;
  return replaced ? AddOutcome::kReplaced : AddOutcome::kAdded;
}

void CheckOutcome(const AddResult& result, AddOutcome expected,
                  const std::string& duplicate_of, const std::string& id) {
  Check(result.outcome == expected,
        "add " + id + ": outcome " +
            std::to_string(static_cast<int>(result.outcome)) + ", model says " +
            std::to_string(static_cast<int>(expected)));
  if (expected == AddOutcome::kDuplicateContent) {
    Check(result.existing_id == duplicate_of,
          "add " + id + ": duplicate of " + result.existing_id +
              ", model says " + duplicate_of);
  }
}

void CheckDocuments(const ProtectedIndex& index, const Model& model) {
  std::set<std::string> stored;
  const absl::Status s = index.ForEachDocument(
      [&](uint32_t, const DocumentRecord& record) {
        stored.insert(record.external_id);
        return absl::OkStatus();
      });
  if (!s.ok()) Fail("list: " + s.ToString());
  std::set<std::string> expected;
  for (const auto& entry : model.documents) expected.insert(entry.first);
  Check(stored == expected, "the index's documents differ from the model's");
  Check(index.matrix().documents() == expected.size(),
        "the filter holds another number of documents than the model");
}

void CheckScan(const ProtectedIndex& index, const Model& model,
               const std::vector<uint8_t>& scanned) {
  ScanOptions options;
  auto scanner = Must(LeakScanner::Create(index, options), "scanner");
  const ScanReport report = Must(scanner->Scan(Text(scanned)), "scan");
  std::set<uint8_t> in_text(scanned.begin(), scanned.end());
  std::set<uint8_t> allowed;
  for (const auto& entry : model.allowed) {
    allowed.insert(entry.second.begin(), entry.second.end());
  }
  std::set<std::string> matched;
  for (const DocumentMatch& match : report.matches) {
    matched.insert(match.external_id);
    auto it = model.documents.find(match.external_id);
    Check(it != model.documents.end(),
          "scan matched " + match.external_id + ", which the model lacks");
    bool shares = false;
    for (uint8_t p : it->second) shares |= in_text.contains(p);
    Check(shares, "scan matched " + match.external_id +
                      ", which shares no passage with the text");
  }
  for (const auto& [id, passages] : model.documents) {
    bool must = false;
    for (uint8_t p : passages) {
      must |= in_text.contains(p) && !allowed.contains(p);
    }
    Check(!must || matched.contains(id),
          "scan missed " + id + ", which shares a passage no allow-list "
          "entry holds");
  }
}

void Run(FuzzedDataProvider& in, const std::string& dir) {
  IndexOptions options;
  static constexpr uint32_t kCapacities[] = {64, 256, 4096};
  options.filter.row_capacity =
      kCapacities[in.ConsumeIntegralInRange<int>(0, 2)];
  options.group_rows = in.ConsumeBool() ? 64 : 0;
  const std::vector<uint8_t> key(32, 0x6b);
  options.key = *FingerprintKey::FromBytes(key);
  auto index = Must(ProtectedIndex::Create(dir, options), "create");
  Model model;

  for (int step = 0; step < kMaxSteps && in.remaining_bytes() > 0; ++step) {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: {  // add
        const std::string id =
            Id(in.ConsumeIntegralInRange<uint8_t>(0, kIds - 1));
        const std::vector<uint8_t> passages = Passages(in);
        std::string duplicate_of;
        const AddOutcome expected = Expect(model, id, passages, &duplicate_of);
        const std::string text = Text(passages);
        const AddResult result =
            Must(index->Add({id, "fuzz", {}, text}), "add");
        CheckOutcome(result, expected, duplicate_of, id);
        break;
      }
      case 1: {  // a staged batch, as `leakhound add` commits files
        const int n = in.ConsumeIntegralInRange<int>(1, 4);
        auto shingler = Must(index->NewShingler(), "shingler");
        for (int i = 0; i < n; ++i) {
          const std::string id =
              Id(in.ConsumeIntegralInRange<uint8_t>(0, kIds - 1));
          const std::vector<uint8_t> passages = Passages(in);
          std::string duplicate_of;
          const AddOutcome expected =
              Expect(model, id, passages, &duplicate_of);
          const std::string text = Text(passages);
          PreparedDocument prepared = Must(
              ProtectedIndex::Prepare(*shingler, {id, "fuzz", {}, text}),
              "prepare");
          CheckOutcome(Must(index->Stage(std::move(prepared)), "stage"),
                       expected, duplicate_of, id);
        }
        const absl::Status s = index->Commit();
        if (!s.ok()) Fail("commit: " + s.ToString());
        break;
      }
      case 2: {  // remove
        const std::string id =
            Id(in.ConsumeIntegralInRange<uint8_t>(0, kIds - 1));
        auto removed = index->Remove(id);
        const bool known = model.documents.erase(id) > 0;
        Check(removed.ok() == known,
              "remove " + id + ": " + removed.status().ToString());
        if (!known) {
          Check(removed.status().code() == absl::StatusCode::kNotFound,
                "remove of an unknown id: " + removed.status().ToString());
        }
        break;
      }
      case 3: {  // compact
        const double underfill = in.ConsumeIntegralInRange<int>(1, 10) / 10.0;
        Must(index->Compact(underfill), "compact");
        break;
      }
      case 4: {  // allow-list entry added or replaced
        const std::string name =
            "allow-" + std::to_string(in.ConsumeIntegralInRange<int>(0, 2));
        const std::vector<uint8_t> passages = Passages(in);
        Must(index->AddAllowed(name, "fuzz", Text(passages)), "allow");
        model.allowed[name] = passages;
        break;
      }
      case 5: {  // allow-list entry removed
        const std::string name =
            "allow-" + std::to_string(in.ConsumeIntegralInRange<int>(0, 2));
        const absl::Status s = index->RemoveAllowed(name);
        const bool known = model.allowed.erase(name) > 0;
        Check(s.ok() == known, "remove allow-list entry: " + s.ToString());
        break;
      }
      case 6: {  // reopen, then verify
        index.reset();
        index = Must(ProtectedIndex::Open(dir, OpenMode::kWrite), "reopen");
        const VerifyReport report = Must(VerifyIndex(index->store()), "verify");
        Check(report.problems.empty(),
              "verify: " + (report.problems.empty() ? std::string()
                                                    : report.problems[0]));
        break;
      }
      default:  // scan
        CheckScan(*index, model, Passages(in));
        break;
    }
    CheckDocuments(*index, model);
  }
  // Every input ends with a scan of every passage a document holds.
  std::set<uint8_t> held;
  for (const auto& entry : model.documents) {
    held.insert(entry.second.begin(), entry.second.end());
  }
  CheckScan(*index, model, std::vector<uint8_t>(held.begin(), held.end()));
}

}  // namespace
}  // namespace leakhound

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path base = [] {
    fs::path dir = fs::temp_directory_path() /
                   ("leakhound-index-ops-" + std::to_string(getpid()));
    fs::create_directories(dir);
    return dir;
  }();
  const fs::path dir = base / "index";
  fs::remove_all(dir);
  FuzzedDataProvider in(data, size);
  leakhound::Run(in, dir.string());
  fs::remove_all(dir);
  return 0;
}
