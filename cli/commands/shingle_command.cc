#include "cli/commands/shingle_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "shingler/fingerprint_key.h"
#include "shingler/shingler.h"

namespace leakhound {
namespace {

constexpr OptionSpec kShingleOptions[] = {
    {"shingle-words", true, "W", "words per shingle (default 5)"},
    {"winnow", true, "W", "winnowing window in shingles (default 0 = off)"},
    {"tokens", false, nullptr, "also print each file's normalized tokens"},
};

const char* ShingleUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound shingle [--shingle-words W] [--winnow W] [--tokens] "
      "PATH...\n"
      "  Prints per file: bytes, words, shingles, distinct fingerprints.\n",
      OptionsUsage(kShingleOptions));
  return usage.c_str();
}

constexpr size_t kMaxFileBytes = size_t{1} << 30;

// One file's line (and with `tokenizer`, its tokens); false after
// reporting why it could not be read or shingled.
bool PrintShingled(const InputFile& file, Shingler& shingler,
                   Tokenizer* tokenizer) {
  auto text = ReadFileBounded(file.path, kMaxFileBytes);
  if (!text.ok()) {
    ReportError("shingle", text.status(), file.path);
    return false;
  }
  auto shingled = shingler.Shingle(*text);
  if (!shingled.ok()) {
    ReportError("shingle", shingled.status(), file.path);
    return false;
  }
  std::unordered_set<uint64_t> distinct;
  for (const Shingle& s : shingled->shingles) distinct.insert(s.fingerprint);
  std::printf("%-48s %10zu %8u %9zu %9zu\n", file.path.c_str(), text->size(),
              shingled->token_count, shingled->shingles.size(),
              distinct.size());
  if (tokenizer != nullptr) {
    for (const std::string& t : tokenizer->NormalizedTokens(*text)) {
      std::printf("  %s\n", t.c_str());
    }
  }
  return true;
}

}  // namespace

int RunShingleCommand(int argc, char** argv) {
  int exit = kExitOk;
  auto line = ParseCommandLine("shingle", argc, argv, kShingleOptions,
                               ShingleUsage(), &exit);
  if (!line) return exit;
  if (line->args().empty()) {
    return UsageError("shingle", absl::InvalidArgumentError("no files given"));
  }
  ShinglerOptions options;
  auto words =
      line->Unsigned("shingle-words",
                     static_cast<uint64_t>(options.shingle_words), 1, 1000000);
  if (!words.ok()) return ReportError("shingle", words.status());
  auto winnow = line->Unsigned(
      "winnow", static_cast<uint64_t>(options.winnow_window), 0, 1000000);
  if (!winnow.ok()) return ReportError("shingle", winnow.status());
  options.shingle_words = static_cast<int>(*words);
  options.winnow_window = static_cast<int>(*winnow);
  auto key = FingerprintKey::Generate();
  if (!key.ok()) return ReportError("shingle", key.status());
  auto shingler = Shingler::Create(options, *key);
  if (!shingler.ok()) return ReportError("shingle", shingler.status());
  std::unique_ptr<Tokenizer> tokenizer;  // only for --tokens
  if (line->Has("tokens")) {
    auto created = Tokenizer::Create();
    if (!created.ok()) return ReportError("shingle", created.status());
    tokenizer = std::move(*created);
  }
  std::printf("%-48s %10s %8s %9s %9s\n", "document", "bytes", "words",
              "shingles", "distinct");
  for (const InputFile& file : ExpandInputs(line->args())) {
    if (!PrintShingled(file, **shingler, tokenizer.get())) exit = kExitError;
  }
  return exit;
}

}  // namespace leakhound
