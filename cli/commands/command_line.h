// CommandLine: the options and arguments of one leakhound subcommand,
// parsed with getopt_long (long options only; "--name value" or
// "--name=value"; "--" ends the options). Each subcommand lists the
// options it accepts; anything else is a usage error.
//
// Thread-safety: Parse uses getopt's global state; call it from one thread.
// A parsed CommandLine is an immutable value.
#ifndef LEAKHOUND_CLI_COMMANDS_COMMAND_LINE_H_
#define LEAKHOUND_CLI_COMMANDS_COMMAND_LINE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"
#include "engine/protected_index.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

// One row per option: what the parser, a --config file (ConfigArguments)
// and the generated help (OptionsUsage) all read.
struct OptionSpec {
  const char* name;  // without the leading "--"
  bool takes_value;
  // For the help: what the value is ("N", "FILE"), and the text, whose
  // further lines ('\n') are indented under the first. Rows without help
  // are documented elsewhere in the usage text.
  const char* value = nullptr;
  const char* help = nullptr;
};

// The help lines of the rows of `specs` with help, in order: "  --name
// VALUE" in a column of 23, then the help.
std::string OptionsUsage(std::span<const OptionSpec> specs);

// Options of a --config file (one "name = value" or "name value" per
// line, '#' comments), as "--name=value" arguments to place before the
// command line's, so that the command line wins. Each name is checked
// against `specs` here, so that a mistake is reported as FILE:LINE;
// `origins` gets "FILE:LINE" for each option's last line, so that a bad
// value is reported there too (WhereFrom).
absl::StatusOr<std::vector<std::string>> ConfigArguments(
    const std::string& path, std::span<const OptionSpec> specs,
    std::map<std::string, std::string>* origins);

// The short forms, the same in every command that has the long option
// (clamscan's and ripgrep's letters where they have one): -h --help
// (always), -d --index (clamscan's database), -j --threads, -q --quiet,
// -i --leaks-only (clamscan's --infected), -r --recursive.
char ShortOptionOf(const char* name);

class CommandLine {
 public:
  // Parses argv[1..argc) (argv[0] is the subcommand's name). Returns
  // InvalidArgument naming the offending option. "--help" is always
  // accepted (see help()).
  static absl::StatusOr<CommandLine> Parse(int argc, char** argv,
                                           std::span<const OptionSpec> specs);

  bool help() const { return Has("help"); }
  bool Has(const std::string& name) const { return values_.contains(name); }
  // The last value given for `name`, if any.
  std::optional<std::string> Value(const std::string& name) const;
  // Every value given for a repeatable option, in order.
  std::vector<std::string> Values(const std::string& name) const;
  const std::vector<std::string>& args() const { return args_; }

  // --index, else $LEAKHOUND_INDEX; InvalidArgument if neither is set.
  absl::StatusOr<std::string> IndexDir() const;
  // The incident store: --incidents FILE, else $LEAKHOUND_INCIDENTS, else
  // the file beside the index (DIR.incidents); nullopt for "off".
  // InvalidArgument when none is given and there is no index either.
  absl::StatusOr<std::optional<std::string>> IncidentsPath() const;
  // The option as a number in [min, max], or `fallback` when absent;
  // InvalidArgument (with the range) for anything else.
  absl::StatusOr<uint64_t> Unsigned(const std::string& name, uint64_t fallback,
                                    uint64_t min, uint64_t max) const;
  absl::StatusOr<double> Double(const std::string& name, double fallback,
                                double min, double max) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> args_;
};

// Parses argv for subcommand `command`. On --help prints `usage` on
// standard output and sets *exit to kExitOk; on a usage error prints the
// error and where to find help (UsageError) and sets *exit to kExitError;
// in both cases returns nullopt.
std::optional<CommandLine> ParseCommandLine(const char* command, int argc,
                                            char** argv,
                                            std::span<const OptionSpec> specs,
                                            const char* usage, int* exit);

// `s`, an error about an option ("--NAME ..."), with the FILE:LINE of the
// config file before it when that option's value came from there
// (`origins`, from ConfigArguments) and the command line, `given`, did not
// set it.
absl::Status WhereFrom(const absl::Status& s,
                       const std::map<std::string, std::string>& origins,
                       const CommandLine& given);

// The options of the extraction limits, accepted by every command that
// reads files (add, scan, allow add, milter), with the OCR options.
inline constexpr OptionSpec kLimitOptions[] = {{"max-file-size", true},
                                               {"max-text-size", true},
                                               {"max-depth", true},
                                               {"max-members", true},
                                               {"max-ratio", true},
                                               {"max-seconds", true},
                                               {"ocr", true},
                                               {"ocr-languages", true},
                                               {"ocr-max-pixels", true},
                                               {"ocr-max-seconds", true},
                                               {"ocr-pdf-dpi", true},
                                               {"ocr-cache-mb", true}};

// A command's own options followed by kLimitOptions.
template <size_t N>
constexpr std::array<OptionSpec, N + std::size(kLimitOptions)> WithLimitOptions(
    const OptionSpec (&own)[N]) {
  std::array<OptionSpec, N + std::size(kLimitOptions)> all{};
  for (size_t i = 0; i < N; ++i) all[i] = own[i];
  for (size_t i = 0; i < std::size(kLimitOptions); ++i) {
    all[N + i] = kLimitOptions[i];
  }
  return all;
}

// The usage lines of kLimitOptions, with the defaults of ExtractionLimits.
std::string LimitOptionsUsage();

// The help lines of the match rule's options, with ScanOptions' defaults.
std::string MatchRuleUsage();

// The match rule of --min-words, --min-coverage and --boilerplate-docs
// (ScanOptions{} for those not given), or InvalidArgument naming the bad
// option. Commands that scan (scan, milter) accept these three options.
absl::StatusOr<ScanOptions> MatchRuleOptions(const CommandLine& line);

// The extraction limits the command line sets (ExtractionLimits{} for
// those it does not), or InvalidArgument naming the bad option. An
// --ocr-languages given is loaded once to check it (FailedPrecondition
// naming the Debian package to install).
absl::StatusOr<ExtractionLimits> FileLimits(const CommandLine& line);

// A command with actions (`allow add ...`, `locations list`): the action is
// the first argument (options may come before or after it), the operands
// the rest. Without any argument: reports a usage error and returns
// nullopt.
struct ActionArguments {
  std::string action;
  std::vector<std::string> operands;
};
std::optional<ActionArguments> SplitAction(const char* command,
                                           const CommandLine& line);

// For commands that take no arguments: InvalidArgument naming the first
// one given ("unexpected argument 'x'").
absl::Status NoArguments(const CommandLine& line);

// "1 file", "2 files": `count` and `noun`, with an "s" unless count is 1.
std::string Plural(uint64_t count, std::string_view noun);

// Whether to color standard output: --color always or never, else (auto)
// when it is a terminal, NO_COLOR is unset or empty and TERM is not
// "dumb". InvalidArgument for another --color value.
absl::StatusOr<bool> UseColor(const CommandLine& line);

// An option that is "on" or "off" (`fallback` when absent);
// InvalidArgument otherwise.
absl::StatusOr<bool> OnOff(const CommandLine& line, const std::string& name,
                           bool fallback);

// Opens the index the command line names (CommandLine::IndexDir).
absl::StatusOr<std::unique_ptr<ProtectedIndex>> OpenIndex(
    const CommandLine& line, OpenMode mode);

// Writes this process's pid to `path` (--pidfile), mode 0644. A symbolic
// link there is refused (O_NOFOLLOW), so that a daemon started as root
// cannot be made to truncate the file it points to; FailedPrecondition
// with a one-line message naming the path.
absl::Status WritePidfile(const std::string& path);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_COMMAND_LINE_H_
