// The subcommands that put text into an index: `add` (protected documents)
// and `allow` (the allow-list of benign text: add, remove, list). Same
// conventions as admin_commands.h; docs/cli.md is the contract.
//
// Thread-safety: each runs the whole command on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_ADD_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_ADD_COMMAND_H_

namespace leakhound {

int RunAddCommand(int argc, char** argv);
int RunAllowCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_ADD_COMMAND_H_
