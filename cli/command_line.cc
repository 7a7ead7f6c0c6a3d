#include "cli/command_line.h"

#include <getopt.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "cli/exit_codes.h"

namespace leakhound {

absl::StatusOr<CommandLine> CommandLine::Parse(
    int argc, char** argv, std::span<const OptionSpec> specs) {
  // Option codes start above every character code getopt returns itself
  // (1 for an argument, '?' for an error).
  constexpr int kFirstCode = 256;
  std::vector<option> longs;
  for (size_t i = 0; i < specs.size(); ++i) {
    longs.push_back(option{specs[i].name,
                           specs[i].takes_value ? required_argument
                                                : no_argument,
                           nullptr, kFirstCode + static_cast<int>(i)});
  }
  const int help_code = kFirstCode + static_cast<int>(specs.size());
  longs.push_back(option{"help", no_argument, nullptr, help_code});
  longs.push_back(option{nullptr, 0, nullptr, 0});

  CommandLine out;
  optind = 0;  // full reinitialization (GNU)
  opterr = 0;
  // Optstring "-": arguments come back in order as code 1, so options may
  // follow paths, and "-" (standard input) stays an argument.
  for (int c; (c = getopt_long(argc, argv, "-", longs.data(), nullptr)) != -1;) {
    if (c == 1) {  // an argument, in order
      out.args_.push_back(optarg);
    } else if (c == help_code) {
      out.values_["help"].push_back("");
    } else if (c >= kFirstCode && c < help_code) {
      const OptionSpec& spec = specs[static_cast<size_t>(c - kFirstCode)];
      out.values_[spec.name].push_back(spec.takes_value ? optarg : "");
    } else {
      const char* bad = argv[optind - 1];
      if (c == ':' || (c == '?' && optopt != 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("option ", bad, " needs a value"));
      }
      return absl::InvalidArgumentError(absl::StrCat("unknown option ", bad));
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

absl::StatusOr<uint64_t> CommandLine::Unsigned(const std::string& name,
                                               uint64_t fallback,
                                               uint64_t min,
                                               uint64_t max) const {
  auto text = Value(name);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
  if (text->empty() || (*text)[0] == '-' || *end != '\0' || errno != 0 ||
      v < min || v > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, " must be a whole number from ", min, " to ", max,
        " (got '", *text, "')"));
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
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, " must be a number from ", min, " to ", max, " (got '",
        *text, "')"));
  }
  return v;
}

std::optional<CommandLine> ParseCommandLine(const char* command, int argc,
                                            char** argv,
                                            std::span<const OptionSpec> specs,
                                            const char* usage, int* exit) {
  auto line = CommandLine::Parse(argc, argv, specs);
  if (!line.ok()) {
    ReportError(command, line.status());
    std::fputs(usage, stderr);
    *exit = kExitError;
    return std::nullopt;
  }
  if (line->help()) {
    std::fputs(usage, stdout);
    *exit = kExitOk;
    return std::nullopt;
  }
  return *line;
}

absl::StatusOr<ExtractionLimits> FileLimits(const CommandLine& line) {
  auto max_bytes = line.Unsigned("max-file-size",
                                 ExtractionLimits{}.max_input_bytes, 1,
                                 uint64_t{1} << 32);
  if (!max_bytes.ok()) return max_bytes.status();
  return ExtractionLimits{*max_bytes, *max_bytes};
}

absl::StatusOr<std::unique_ptr<ProtectedIndex>> OpenIndex(
    const CommandLine& line, OpenMode mode) {
  auto dir = line.IndexDir();
  if (!dir.ok()) return dir.status();
  return ProtectedIndex::Open(*dir, mode);
}

}  // namespace leakhound
