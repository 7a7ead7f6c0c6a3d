// `leakhound discover`: finds protected content and records at rest on the
// policy's targets and remediates it (docs/discover.md): `run`, `restore`
// and `findings`.
//
// Thread-safety: runs on the main thread.
#ifndef LEAKHOUND_CLI_COMMANDS_DISCOVER_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_DISCOVER_COMMAND_H_

namespace leakhound {

// Exit codes: run: 0 no new finding, 1 a new finding, 2 an error (a file
// or folder that could not be read, a store or index error); restore and
// findings: 0 or 2.
int RunDiscoverCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_DISCOVER_COMMAND_H_
