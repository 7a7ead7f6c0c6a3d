// `leakhound --version` (also -V and `leakhound version`): the release,
// the persisted format versions it reads and writes, and the versions of
// the libraries it runs on, for bug reports.
//
// Thread-safety: runs on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_VERSION_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_VERSION_COMMAND_H_

namespace leakhound {

int RunVersionCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_VERSION_COMMAND_H_
