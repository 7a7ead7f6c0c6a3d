#include "absl/strings/str_cat.h"
#include "cli/commands/shingle_command.h"

#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "shingler/fingerprint_key.h"
#include "shingler/shingler.h"

namespace leakhound {
namespace {

constexpr char kUsage[] =
    "usage: leakhound shingle [--shingle-words W] [--winnow W] [--tokens] "
    "PATH...\n"
    "  Prints per file: bytes, words, shingles, distinct fingerprints.\n"
    "  --shingle-words W  words per shingle (default 5)\n"
    "  --winnow W         winnowing window in shingles (default 0 = off)\n"
    "  --tokens           also print each file's normalized tokens\n";

constexpr size_t kMaxFileBytes = size_t{1} << 30;

bool ParseInt(const char* text, int* out) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < -1000000 || v > 1000000) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int RunShingleCommand(int argc, char** argv) {
  ShinglerOptions options;
  bool print_tokens = false;
  static const option kLong[] = {{"shingle-words", required_argument, nullptr, 'w'},
                                 {"winnow", required_argument, nullptr, 'W'},
                                 {"tokens", no_argument, nullptr, 't'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  optind = 1;
  for (int c; (c = getopt_long(argc, argv, "", kLong, nullptr)) != -1;) {
    switch (c) {
      case 'w':
        if (!ParseInt(optarg, &options.shingle_words)) {
          std::fprintf(stderr, "leakhound shingle: --shingle-words needs a number\n");
          return kExitError;
        }
        break;
      case 'W':
        if (!ParseInt(optarg, &options.winnow_window)) {
          std::fprintf(stderr, "leakhound shingle: --winnow needs a number\n");
          return kExitError;
        }
        break;
      case 't':
        print_tokens = true;
        break;
      case 'h':
        std::fputs(kUsage, stdout);
        return kExitOk;
      default:
        return UsageError("shingle", absl::InvalidArgumentError(absl::StrCat(
                                         "unknown option ", argv[optind - 1])));
    }
  }
  if (optind >= argc) {
    return UsageError("shingle", absl::InvalidArgumentError("no files given"));
  }
  std::vector<std::string> args(argv + optind, argv + argc);

  auto key = FingerprintKey::Generate();
  if (!key.ok()) {
    std::fprintf(stderr, "leakhound shingle: %s\n",
                 std::string(key.status().message()).c_str());
    return kExitError;
  }
  auto shingler = Shingler::Create(options, *key);
  if (!shingler.ok()) {
    std::fprintf(stderr, "leakhound shingle: %s\n",
                 std::string(shingler.status().message()).c_str());
    return kExitError;
  }
  std::unique_ptr<Tokenizer> tokenizer;  // only for --tokens
  if (print_tokens) {
    auto created = Tokenizer::Create();
    if (!created.ok()) {
      std::fprintf(stderr, "leakhound shingle: %s\n",
                   std::string(created.status().message()).c_str());
      return kExitError;
    }
    tokenizer = std::move(*created);
  }
  const std::vector<InputFile> files = ExpandInputs(args);

  int exit_code = kExitOk;
  std::printf("%-48s %10s %8s %9s %9s\n", "document", "bytes", "words",
              "shingles", "distinct");
  for (const InputFile& file : files) {
    auto text = ReadFileBounded(file.path, kMaxFileBytes);
    if (!text.ok()) {
      std::fprintf(stderr, "leakhound shingle: %s: %s\n", file.path.c_str(),
                   std::string(text.status().message()).c_str());
      exit_code = kExitError;
      continue;
    }
    auto shingled = (*shingler)->Shingle(*text);
    if (!shingled.ok()) {
      std::fprintf(stderr, "leakhound shingle: %s: %s\n", file.path.c_str(),
                   std::string(shingled.status().message()).c_str());
      exit_code = kExitError;
      continue;
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
  }
  return exit_code;
}

}  // namespace leakhound
