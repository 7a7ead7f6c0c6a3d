// The leakhound command: dispatches to one subcommand per file.
#include <cstdio>
#include <cstring>

#include "cli/exit_codes.h"
#include "cli/shingle_command.h"

namespace {

constexpr char kUsage[] =
    "usage: leakhound COMMAND [OPTIONS] [ARGS]\n"
    "commands:\n"
    "  shingle   print per-file word and fingerprint counts\n"
    "Run 'leakhound COMMAND --help' for a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return leakhound::kExitError;
  }
  const char* command = argv[1];
  if (std::strcmp(command, "--help") == 0 || std::strcmp(command, "help") == 0) {
    std::fputs(kUsage, stdout);
    return leakhound::kExitOk;
  }
  if (std::strcmp(command, "shingle") == 0) {
    return leakhound::RunShingleCommand(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "leakhound: unknown command '%s'\n%s", command, kUsage);
  return leakhound::kExitError;
}
