// The index administration subcommands of leakhound: init, remove, list,
// stats, compact, verify, locations. Each takes its argv with argv[0] the
// subcommand's name, prints its results on standard output and errors as
// one line each on standard error, and returns an exit code (exit_codes.h).
// docs/cli.md is the contract.
//
// Thread-safety: each runs the whole command on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_ADMIN_COMMANDS_H_
#define LEAKHOUND_CLI_COMMANDS_ADMIN_COMMANDS_H_

namespace leakhound {

int RunInitCommand(int argc, char** argv);
int RunRemoveCommand(int argc, char** argv);
int RunListCommand(int argc, char** argv);
int RunStatsCommand(int argc, char** argv);
int RunCompactCommand(int argc, char** argv);
int RunVerifyCommand(int argc, char** argv);
int RunSnapshotCommand(int argc, char** argv);
int RunLocationsCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_ADMIN_COMMANDS_H_
