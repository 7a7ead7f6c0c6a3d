#include "cli/commands/command_line.h"

#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cli/commands/exit_codes.h"
#include "cli/formats/ocr_engine.h"
#include "index/trusted_path.h"

namespace leakhound {

char ShortOptionOf(const char* name) {
  static constexpr std::pair<const char*, char> kShort[] = {
      {"index", 'd'},      {"threads", 'j'},   {"quiet", 'q'},
      {"leaks-only", 'i'}, {"recursive", 'r'}, {"verbose", 'v'}};
  for (const auto& [long_name, letter] : kShort) {
    if (std::string_view(name) == long_name) return letter;
  }
  return 0;
}

absl::StatusOr<CommandLine> CommandLine::Parse(
    int argc, char** argv, std::span<const OptionSpec> specs) {
  // Option codes start above every character code getopt returns itself
  // (1 for an argument, '?' for an error, a letter for a short option).
  constexpr int kFirstCode = 256;
  std::vector<option> longs;
  // "-": arguments come back in order as code 1, so options may follow
  // paths, and "-" (standard input) stays an argument.
  std::string shorts = "-h";
  std::map<int, size_t> by_letter;
  for (size_t i = 0; i < specs.size(); ++i) {
    longs.push_back(option{
        specs[i].name, specs[i].takes_value ? required_argument : no_argument,
        nullptr, kFirstCode + static_cast<int>(i)});
    if (const char letter = ShortOptionOf(specs[i].name); letter != 0) {
      by_letter[letter] = i;
      shorts += letter;
      if (specs[i].takes_value) shorts += ':';
    }
  }
  const int help_code = kFirstCode + static_cast<int>(specs.size());
  longs.push_back(option{"help", no_argument, nullptr, help_code});
  longs.push_back(option{nullptr, 0, nullptr, 0});

  CommandLine out;
  optind = 0;  // full reinitialization (GNU)
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, shorts.c_str(), longs.data(),
                               nullptr)) != -1;) {
    if (c == 1) {  // an argument, in order
      out.args_.push_back(optarg);
    } else if (c == help_code || c == 'h') {
      out.values_["help"].push_back("");
    } else if (c >= kFirstCode && c < help_code) {
      const OptionSpec& spec = specs[static_cast<size_t>(c - kFirstCode)];
      out.values_[spec.name].push_back(spec.takes_value ? optarg : "");
    } else if (c != '?' && by_letter.contains(c)) {
      const OptionSpec& spec = specs[by_letter[c]];
      out.values_[spec.name].push_back(spec.takes_value ? optarg : "");
    } else {
      // '?': getopt's optopt tells an unknown option (0 for a long one, its
      // letter for a short one) from a known one used wrongly.
      const std::string bad = argv[optind - 1];
      if (optopt >= kFirstCode && optopt < help_code) {
        const OptionSpec& spec =
            specs[static_cast<size_t>(optopt - kFirstCode)];
        return absl::InvalidArgumentError(
            spec.takes_value
                ? absl::StrCat("option --", spec.name, " needs a value")
                : absl::StrCat("option --", spec.name, " takes no value"));
      }
      if (optopt == help_code) {
        return absl::InvalidArgumentError("option --help takes no value");
      }
      if (optopt > 0 && optopt < kFirstCode && by_letter.contains(optopt)) {
        return absl::InvalidArgumentError(
            absl::StrCat("option -", std::string(1, static_cast<char>(optopt)),
                         " needs a value"));
      }
      if (optopt > 0 && optopt < kFirstCode) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown option -", std::string(1, static_cast<char>(optopt))));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option ", bad.substr(0, bad.find('='))));
    }
  }
  for (int i = optind; i < argc; ++i) out.args_.push_back(argv[i]);
  return out;
}

std::optional<std::string> CommandLine::Value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> CommandLine::Values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<std::string> CommandLine::IndexDir() const {
  if (auto dir = Value("index"); dir && !dir->empty()) return *dir;
  if (const char* env = std::getenv("LEAKHOUND_INDEX"); env && *env) {
    return std::string(env);
  }
  return absl::InvalidArgumentError(
      "no index given: use --index DIR or set LEAKHOUND_INDEX");
}

absl::StatusOr<std::optional<std::string>> CommandLine::IncidentsPath() const {
  std::optional<std::string> path = Value("incidents");
  if (!path || path->empty()) {
    if (const char* env = std::getenv("LEAKHOUND_INCIDENTS"); env && *env) {
      path = env;
    }
  }
  if (path && *path == "off") return std::nullopt;
  if (path && !path->empty()) return path;
  auto dir = IndexDir();
  if (!dir.ok()) {
    return absl::InvalidArgumentError(
        "no incident store given: use --incidents FILE, set "
        "LEAKHOUND_INCIDENTS, or name the index beside which it lies");
  }
  return PathBesideIndex(*dir, ".incidents");
}

absl::StatusOr<uint64_t> CommandLine::Unsigned(const std::string& name,
                                               uint64_t fallback, uint64_t min,
                                               uint64_t max) const {
  auto text = Value(name);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
  if (text->empty() || (*text)[0] == '-' || *end != '\0' || errno != 0 ||
      v < min || v > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be a whole number from ", min, " to ",
                     max, " (got '", *text, "')"));
  }
  return v;
}

absl::StatusOr<double> CommandLine::Double(const std::string& name,
                                           double fallback, double min,
                                           double max) const {
  auto text = Value(name);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || errno != 0 || !std::isfinite(v) ||
      v < min || v > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be a number from ", min, " to ", max,
                     " (got '", *text, "')"));
  }
  return v;
}

std::optional<CommandLine> ParseCommandLine(const char* command, int argc,
                                            char** argv,
                                            std::span<const OptionSpec> specs,
                                            const char* usage, int* exit) {
  auto line = CommandLine::Parse(argc, argv, specs);
  if (!line.ok()) {
    *exit = UsageError(command, line.status());
    return std::nullopt;
  }
  if (line->help()) {
    std::fputs(usage, stdout);
    // Every command that opens an index takes it the same way; one line
    // says so where the command's own text does not.
    const bool takes_index =
        std::any_of(specs.begin(), specs.end(), [](const OptionSpec& spec) {
          return std::string_view(spec.name) == "index";
        });
    if (takes_index &&
        std::string_view(usage).find("-d, --index") == std::string_view::npos) {
      std::fputs(
          "  -d, --index DIR      the index (default: "
          "$LEAKHOUND_INDEX)\n",
          stdout);
    }
    *exit = kExitOk;
    return std::nullopt;
  }
  return *line;
}

std::string LimitOptionsUsage() {
  const ExtractionLimits d;
  return absl::StrCat(
      "  limits per file (a file over one is an error, never clean):\n"
      "  --max-file-size N    bytes of the file, and of any member unpacked "
      "(default ",
      d.max_input_bytes,
      ")\n"
      "  --max-text-size N    bytes of extracted text, all parts (default ",
      d.max_output_bytes,
      ")\n"
      "  --max-depth N        containers inside containers (default ",
      d.max_depth,
      ")\n"
      "  --max-members N      archive entries, attachments, embedded files "
      "(default ",
      d.max_members,
      ")\n"
      "  --max-ratio R        bytes decompressed per byte of the file, past ",
      kExpansionFloorBytes >> 20, " MiB (default ", d.max_expansion_ratio,
      ")\n"
      "  --max-seconds S      time to extract one file (default ",
      d.max_seconds,
      ")\n"
      "  text recognition in images and in PDF pages without text:\n"
      "  --ocr on|off         read images by OCR (default ",
      d.ocr.enabled ? "on" : "off",
      ")\n"
      "  --ocr-languages L    Tesseract languages joined by + (default ",
      d.ocr.languages,
      ")\n"
      "  --ocr-max-pixels N   larger images are errors (default ",
      d.ocr.max_pixels,
      ")\n"
      "  --ocr-max-seconds S  OCR time per image or page; past it the image "
      "is skipped\n"
      "                       as unread, class limit (default ",
      d.ocr.max_seconds,
      ")\n"
      "  --ocr-pdf-dpi N      resolution PDF pages without text are rendered "
      "at for OCR\n"
      "                       (default ",
      d.ocr.pdf_dpi,
      ")\n"
      "  --ocr-cache-mb N     MB of OCR readings kept by image digest, so "
      "that the same\n"
      "                       image is read once (0: none; default ",
      d.ocr.cache_bytes >> 20, ")\n");
}

absl::StatusOr<ScanOptions> MatchRuleOptions(const CommandLine& line) {
  const ScanOptions d;
  auto min_words = line.Unsigned("min-words", d.min_words, 10, 10000);
  auto min_coverage =
      line.Double("min-coverage", d.min_coverage * 100, 0.001, 100);
  auto boilerplate =
      line.Unsigned("boilerplate-docs", d.boilerplate_documents, 0, 1u << 31);
  auto distinctive =
      line.Unsigned("min-distinctive-words", d.min_distinctive_words, 0, 10000);
  for (const absl::Status& s : {min_words.status(), min_coverage.status(),
                                boilerplate.status(), distinctive.status()}) {
    if (!s.ok()) return s;
  }
  ScanOptions options;
  options.min_words = static_cast<uint32_t>(*min_words);
  options.min_coverage = *min_coverage / 100;
  options.boilerplate_documents = static_cast<uint32_t>(*boilerplate);
  options.min_distinctive_words = static_cast<uint32_t>(*distinctive);
  options.word_checks = !line.Has("no-word-checks");
  return options;
}

std::optional<ActionArguments> SplitAction(const char* command,
                                           const CommandLine& line) {
  if (line.args().empty()) {
    UsageError(command, absl::InvalidArgumentError("no action given"));
    return std::nullopt;
  }
  return ActionArguments{
      line.args().front(),
      std::vector<std::string>(line.args().begin() + 1, line.args().end())};
}

absl::StatusOr<ExtractionLimits> FileLimits(const CommandLine& line) {
  const ExtractionLimits d;
  auto input =
      line.Unsigned("max-file-size", d.max_input_bytes, 1, uint64_t{1} << 32);
  auto output =
      line.Unsigned("max-text-size", d.max_output_bytes, 1, uint64_t{1} << 32);
  auto depth = line.Unsigned("max-depth", d.max_depth, 0, 64);
  auto members = line.Unsigned("max-members", d.max_members, 0, 10000000);
  auto ratio = line.Double("max-ratio", d.max_expansion_ratio, 1, 1e6);
  auto seconds = line.Double("max-seconds", d.max_seconds, 0.001, 86400);
  for (const absl::Status& s :
       {input.status(), output.status(), depth.status(), members.status(),
        ratio.status(), seconds.status()}) {
    if (!s.ok()) return s;
  }
  ExtractionLimits limits;
  limits.max_input_bytes = *input;
  limits.max_output_bytes = *output;
  limits.max_depth = static_cast<uint32_t>(*depth);
  limits.max_members = static_cast<uint32_t>(*members);
  limits.max_expansion_ratio = *ratio;
  limits.max_seconds = *seconds;
  auto pixels =
      line.Unsigned("ocr-max-pixels", d.ocr.max_pixels, 1, uint64_t{1} << 40);
  auto ocr_seconds =
      line.Double("ocr-max-seconds", d.ocr.max_seconds, 0.01, 86400);
  auto dpi = line.Unsigned("ocr-pdf-dpi", static_cast<uint64_t>(d.ocr.pdf_dpi),
                           72, 1200);
  auto cache_mb =
      line.Unsigned("ocr-cache-mb", d.ocr.cache_bytes >> 20, 0, 1u << 20);
  for (const absl::Status& s : {pixels.status(), ocr_seconds.status(),
                                dpi.status(), cache_mb.status()}) {
    if (!s.ok()) return s;
  }
  limits.ocr.cache_bytes = static_cast<size_t>(*cache_mb) << 20;
  limits.ocr.max_pixels = *pixels;
  limits.ocr.max_seconds = *ocr_seconds;
  limits.ocr.pdf_dpi = static_cast<int>(*dpi);
  if (auto ocr = line.Value("ocr")) {
    if (*ocr != "on" && *ocr != "off") {
      return absl::InvalidArgumentError(
          absl::StrCat("--ocr wants on or off, not '", *ocr, "'"));
    }
    limits.ocr.enabled = *ocr == "on";
  }
  if (auto languages = line.Value("ocr-languages")) {
    limits.ocr.languages = *languages;
    if (limits.ocr.enabled) {
      if (auto s = CheckOcrLanguages(*languages); !s.ok()) return s;
    }
  }
  return limits;
}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> OpenIndex(
    const CommandLine& line, OpenMode mode) {
  auto dir = line.IndexDir();
  if (!dir.ok()) return dir.status();
  return ProtectedIndex::Open(*dir, mode);
}

// The usage lines of the match rule's options (MatchRuleOptions), with
// the defaults of ScanOptions.
std::string MatchRuleUsage() {
  return absl::StrCat(
      "  --min-words N        a shared passage, or a group of passages from "
      "one "
      "stretch\n"
      "                       of a document, of N words is a leak (default ",
      ScanOptions{}.min_words,
      ", at least 10;\n"
      "                       words copied or substituted one for one; other "
      "gaps do not count)\n"
      "  --min-coverage PCT   so is sharing PCT percent of a document "
      "(default ",
      ScanOptions{}.min_coverage * 100,
      ")\n"
      "  --boilerplate-docs N text in more than N protected documents never "
      "counts\n"
      "                       (default ",
      ScanOptions{}.boilerplate_documents,
      "; 0 turns this off)\n"
      "  --min-distinctive-words N\n"
      "                       a leak also needs N words in text that at most ",
      ScanOptions{}.distinctive_documents,
      "\n"
      "                       protected documents share (default ",
      ScanOptions{}.min_distinctive_words,
      ": off)\n"
      "  --no-word-checks     do not use the documents' word checks (by "
      "default passages\n"
      "                       grow past substituted words at their ends, and "
      "inserted\n"
      "                       words count against them; a document stored "
      "without\n"
      "                       checks gets them when added again or rekeyed)\n");
}

std::string OptionsUsage(std::span<const OptionSpec> specs) {
  constexpr size_t kColumn = 23;
  std::string out;
  for (const OptionSpec& spec : specs) {
    if (spec.help == nullptr) continue;
    std::string head = absl::StrCat("--", spec.name);
    if (spec.value != nullptr) absl::StrAppend(&head, " ", spec.value);
    head.resize(std::max(head.size() + 1, kColumn), ' ');
    absl::StrAppend(&out, "  ", head);
    for (std::string_view rest = spec.help;;) {
      const size_t nl = rest.find('\n');
      out.append(rest.substr(0, nl));
      out += '\n';
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
      out.append(kColumn + 2, ' ');
    }
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ConfigArguments(
    const std::string& path, std::span<const OptionSpec> specs,
    std::map<std::string, std::string>* origins) {
  std::ifstream in(path);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot read config ", path));
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t\r");
    line = line.substr(b, e - b + 1);
    const size_t sep = line.find_first_of("= \t");
    std::string name = line.substr(0, sep), value;
    if (sep != std::string::npos) {
      const size_t v = line.find_first_not_of("= \t", sep);
      if (v != std::string::npos) value = line.substr(v);
    }
    if (name.empty() || name == "config") {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": expected 'name = value'"));
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (name == s.name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": unknown option '", name, "'"));
    }
    if (spec->takes_value && value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": '", name, "' needs a value"));
    }
    if (!spec->takes_value && !value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": '", name, "' takes no value"));
    }
    out.push_back(value.empty() ? absl::StrCat("--", name)
                                : absl::StrCat("--", name, "=", value));
    (*origins)[name] = absl::StrCat(path, ":", n);
  }
  return out;
}

absl::Status WhereFrom(const absl::Status& s,
                       const std::map<std::string, std::string>& origins,
                       const CommandLine& given) {
  std::string_view message(s.message().data(), s.message().size());
  if (!message.starts_with("--")) return s;
  const std::string name(
      message.substr(2, message.find_first_of(": =", 2) - 2));
  auto origin = origins.find(name);
  if (origin == origins.end() || given.Has(name)) return s;
  return absl::Status(s.code(),
                      absl::StrCat(origin->second, ": ", s.message()));
}

std::string Plural(uint64_t count, std::string_view noun) {
  return absl::StrCat(count, " ", std::string(noun), count == 1 ? "" : "s");
}

absl::StatusOr<bool> UseColor(const CommandLine& line) {
  const std::string when = line.Value("color").value_or("auto");
  if (when == "always") return true;
  if (when == "never") return false;
  if (when != "auto") {
    return absl::InvalidArgumentError(
        absl::StrCat("--color wants auto, always or never, not '", when, "'"));
  }
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 &&
         (no_color == nullptr || *no_color == '\0') &&
         (term == nullptr || std::string_view(term) != "dumb");
}

absl::Status NoArguments(const CommandLine& line) {
  if (line.args().empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected argument '", line.args().front(), "'"));
}

absl::StatusOr<bool> OnOff(const CommandLine& line, const std::string& name,
                           bool fallback) {
  auto v = line.Value(name);
  if (!v) return fallback;
  if (*v == "on") return true;
  if (*v == "off") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, ": expected on or off, not '", *v, "'"));
}

absl::Status WritePidfile(const std::string& path) {
  const int fd =
      ::open(path.c_str(),
             O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        "--pidfile ", path, ": ",
        error == ELOOP ? "a symbolic link; refused" : std::strerror(error)));
  }
  const std::string pid = absl::StrCat(::getpid(), "\n");
  const bool written =
      ::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
  const int error = errno;
  ::close(fd);
  if (!written) {
    return absl::FailedPreconditionError(
        absl::StrCat("--pidfile ", path, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace leakhound
